"""The engine: what a revision decides, from rules and states alone.

Owns the support graph (:mod:`.graph`), the logic program and its solving (:mod:`.logic`), the
revision itself (:mod:`.revise`), its depth bound (:mod:`.bounded`) and its steady heads
(:mod:`.steady`), derivations and the lowest proof (:mod:`.derivation`), explanations
(:mod:`.explain`, printed by :mod:`.proof_text`) and the per-kind policy (:mod:`.policy`).

May import: the root's ``errors``, ``escaping``, ``values``, ``model``, ``resources``. Nothing
here reads a store, text or a model server; what a revision needs is handed to it.
"""

__all__ = [
    "bounded",
    "derivation",
    "explain",
    "graph",
    "logic",
    "policy",
    "proof_text",
    "revise",
    "steady",
]

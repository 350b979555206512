"""The engine: what a revision decides, from rules and states alone.

Owns the support graph (:mod:`.graph`), the logic program and its solving (:mod:`.logic`), the
revision itself (:mod:`.revise`) and its depth bound (:mod:`.bounded`), explanations
(:mod:`.explain`) and the per-kind policy (:mod:`.policy`).

May import: the root's ``errors``, ``model``, ``resources``. Nothing here reads a store, text or
a model server; what a revision needs is handed to it.
"""

__all__ = ["bounded", "explain", "graph", "logic", "policy", "revise"]

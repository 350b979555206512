"""Text to atoms to links: what a memory's words say and which rules they meet.

Owns top-down evaluation of rule-pack bodies (:mod:`.topdown`), the index of grounded atoms
(:mod:`.atom_index`), candidate proposal by shared terms (:mod:`.candidates`) and linking atoms
to rule justifications (:mod:`.linking`). Grounding a sentence lives in :mod:`stategraph.grounding`,
one layer below.

May import: the root's ``errors``, ``model``, ``resources``, :mod:`stategraph.engine`,
:mod:`stategraph.grounding`.
"""

__all__ = ["atom_index", "candidates", "linking", "topdown"]

"""Grounding: memory text to clingo atoms, and rule packs from atoms to rule firings."""

from stategraph.grounding.errors import GroundingError, RulePackError
from stategraph.grounding.grounder import (
    DEFAULT_GROUNDER,
    Grounder,
    get_grounder,
    ground,
    register_grounder,
)
from stategraph.grounding.language import detect_language
from stategraph.grounding.packs import Firing, RulePack, derive, list_packs, load_pack
from stategraph.grounding.result import GroundedAtom, Grounding, SourceSpan

__all__ = [
    "DEFAULT_GROUNDER",
    "Firing",
    "GroundedAtom",
    "Grounder",
    "Grounding",
    "GroundingError",
    "RulePack",
    "RulePackError",
    "SourceSpan",
    "derive",
    "detect_language",
    "get_grounder",
    "ground",
    "list_packs",
    "load_pack",
    "register_grounder",
]

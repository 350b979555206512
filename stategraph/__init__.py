"""stategraph: dependency-aware state revision for AI agent memory."""

from stategraph.engine.policy import KindPolicy, Policy
from stategraph.errors import StategraphError
from stategraph.memory import Memory
from stategraph.model import (
    Change,
    Justification,
    Report,
    State,
    Supersession,
    Truth,
    Verdict,
)

__all__ = [
    "Change",
    "Justification",
    "KindPolicy",
    "Memory",
    "Policy",
    "Report",
    "State",
    "StategraphError",
    "Supersession",
    "Truth",
    "Verdict",
]
__version__ = "0.1.0"

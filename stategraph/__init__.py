"""stategraph: dependency-aware state revision for AI agent memory.

The public names load on first use (PEP 562), so ``import stategraph`` and the command line's
``--help`` do not pay for pydantic models, clingo and the grounder until they are needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {
    "Change": "stategraph.model",
    "Justification": "stategraph.model",
    "KindPolicy": "stategraph.engine.policy",
    "Memory": "stategraph.memory",
    "Policy": "stategraph.engine.policy",
    "Report": "stategraph.model",
    "State": "stategraph.model",
    "StategraphError": "stategraph.errors",
    "Supersession": "stategraph.model",
    "Truth": "stategraph.model",
    "Verdict": "stategraph.model",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'stategraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

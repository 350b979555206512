"""StateChangeBench-style benchmark: cases, baselines, Impact-F1 and the ``bench`` command.

The suite ships in ``stategraph/bench/cases/`` and is found through :mod:`importlib.resources`.
"""

from stategraph.bench.cases import Case, CaseError, load_case, load_cases, shipped_cases

__all__ = ["Case", "CaseError", "load_case", "load_cases", "shipped_cases"]

"""pyDatalog: the whole program as Datalog rules, re-queried after each retraction.

pyDatalog keeps its clauses in one process-wide logic; :class:`PyDatalog` resets it when built.
Justifications are stored as relations by premise count (``j2(H, A, B)``), with a ``u`` variant
carrying one ``unless`` fact (``~fact(U)``: stratified, since facts have no rules).
"""

from __future__ import annotations

import importlib
from typing import Any

from stategraph.bench.perf.systems import WholeModel
from stategraph.bench.perf.workload import Workload

__all__ = ["PyDatalog"]

_VARS = "ABCDEFG"


def _program(arities: set[tuple[int, bool]]) -> str:
    lines = ["holds(H) <= fact(H)"]
    for k, with_unless in sorted(arities):
        args = ",".join(_VARS[:k])
        body = " & ".join(f"holds({v})" for v in _VARS[:k])
        if with_unless:
            lines.append(f"holds(H) <= j{k}u(H,{args},U) & {body} & ~fact(U)")
        else:
            lines.append(f"holds(H) <= j{k}(H,{args}) & {body}")
    return "\n".join(lines)


class PyDatalog(WholeModel):
    """Datalog with pyDatalog's resolution engine; each revision asks for every ``holds``."""

    name = "pydatalog"

    def __init__(self, wl: Workload) -> None:
        self.pd: Any = importlib.import_module("pyDatalog.pyDatalog")
        self.pd.clear()
        arities: set[tuple[int, bool]] = set()
        for h, ps, us in wl.justs:
            if len(us) > 1 or len(ps) > len(_VARS):
                raise ValueError("pyDatalog encoding takes at most one unless and 7 premises")
            arities.add((len(ps), bool(us)))
            name = f"j{len(ps)}{'u' if us else ''}"
            self.pd.assert_fact(name, h, *ps, *us)
        for i in range(wl.n):
            if wl.is_fact(i):
                self.pd.assert_fact("fact", i)
        self.pd.load(_program(arities))
        super().__init__(wl)

    def deactivate(self, fact: int) -> None:
        super().deactivate(fact)
        self.pd.retract_fact("fact", fact)

    def solve(self) -> set[int]:
        answer = self.pd.ask("holds(X)")
        return {int(row[0]) for row in (answer.answers if answer else ())}

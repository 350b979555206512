"""The clingo alternatives: a whole-program re-solve, and multi-shot solving with externals.

Both feed ground rules through clingo's backend API (one atom per state, one rule per
justification): issue 6 measured program text and the grounder as far slower at scale, so the
backend is the strongest way to use clingo here. The workload is stratified (``unless`` only
cites facts), so the unique stable model clingo returns is the well-founded model.
"""

from __future__ import annotations

import clingo

from stategraph.bench.perf.systems import WholeModel
from stategraph.bench.perf.workload import Workload

__all__ = ["ClingoFull", "ClingoMultishot"]


def _atoms(backend: clingo.Backend, n: int) -> list[int]:
    fn, num = clingo.Function, clingo.Number
    return [backend.add_atom(fn("s", [num(i)])) for i in range(n)]


def _add_rules(backend: clingo.Backend, wl: Workload, atom: list[int]) -> None:
    for h, ps, us in wl.justs:
        body = [atom[p] for p in ps]
        body.extend(-atom[u] for u in us)
        backend.add_rule([atom[h]], body)


def _model(ctl: clingo.Control) -> set[int]:
    found: list[set[int]] = []

    def on_model(m: clingo.Model) -> None:
        found.append({s.arguments[0].number for s in m.symbols(atoms=True)})

    result = ctl.solve(on_model=on_model)
    if not result.satisfiable or len(found) != 1:
        raise RuntimeError(f"expected one model of a stratified program, got {len(found)}")
    return found[0]


class ClingoFull(WholeModel):
    """Rebuild the whole ground program in a fresh ``Control`` and solve it, per revision."""

    name = "clingo-full"

    def solve(self) -> set[int]:
        ctl = clingo.Control(["--warn=none"])
        with ctl.backend() as b:
            atom = _atoms(b, self.wl.n)
            for i, a in enumerate(self.active):
                if a:
                    b.add_rule([atom[i]])
            _add_rules(b, self.wl, atom)
        return _model(ctl)


class ClingoMultishot(WholeModel):
    """Ground once with every fact an ``#external``; per revision flip one and solve again."""

    name = "clingo-multishot"

    def __init__(self, wl: Workload) -> None:
        self.ctl = clingo.Control(["--warn=none"])
        with self.ctl.backend() as b:
            self.atom = _atoms(b, wl.n)
            for i in range(wl.n):
                if wl.is_fact(i):
                    b.add_external(self.atom[i], clingo.TruthValue.True_)
            _add_rules(b, wl, self.atom)
        super().__init__(wl)

    def deactivate(self, fact: int) -> None:
        super().deactivate(fact)
        self.ctl.assign_external(self.atom[fact], False)

    def solve(self) -> set[int]:
        return _model(self.ctl)

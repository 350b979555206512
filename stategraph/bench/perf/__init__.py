"""``stategraph bench perf``: revision cost against store size, side by side with alternatives.

A seeded synthetic support graph (:mod:`~stategraph.bench.perf.workload`) is loaded into a real
SQLite store and revised one premise at a time by stategraph (in fresh subprocesses, so load,
open and peak memory are measured cleanly) and by the alternatives named in issue 6: clingo
full re-solve, clingo multi-shot, a Python whole-graph fixpoint, a JTMS, networkx descendants
and pyDatalog; and by one reference that is not an alternative, the JTMS writing each answer to
SQLite, to show what durability alone costs. Every system's changed set is checked against
stategraph's, so a fast wrong answer never passes as a fast one.
"""

from stategraph.bench.perf.runner import PerfOptions, run_perf
from stategraph.bench.perf.workload import Workload, generate

__all__ = ["PerfOptions", "Workload", "generate", "run_perf"]

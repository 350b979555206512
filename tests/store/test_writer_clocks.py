"""The log's times do not trust a writer's clock (issue 42, finding 8): with one writer 60 s
fast (another host on the same PostgreSQL tenant), revision 2 was stamped after revision 3,
and ``as_of`` a moment after revision 2 returned revision 1. Now an entry's time is never
before the one it follows (:meth:`SQLiteStore.stamp <stategraph.store.SQLiteStore.stamp>`),
and on PostgreSQL it is the database's clock, read under the tenant's lock, whatever the
writer's.

The fast writer is another process whose clock runs a minute ahead: its ``datetime.now``
(what a store reads the machine's clock with) is shifted before it opens the store.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from backends import Place

FAST = timedelta(seconds=60)

WRITER = """
import sys
from datetime import datetime, timedelta

import stategraph.store.sqlite as sqlite

class Ahead(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime.now(tz) + timedelta(seconds=60)

sqlite.datetime = Ahead  # this host's clock runs a minute ahead
from stategraph import Memory

with Memory(sys.argv[1]) as mem:
    mem.fact(sys.argv[2], "written by the fast clock")
"""


def _write_ahead(place: Place, sid: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WRITER, place.url, sid],
        capture_output=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()


def test_two_writers_whose_clocks_differ(place: Place) -> None:
    with place.memory() as right:
        right.fact("r1", "written by the right clock")
        _write_ahead(place, "r2")
        right.fact("r3", "written by the right clock after r2")
        right.fact("r4", "and again")
        times = [e.at for e in right.history()]
        assert times == sorted(times), times  # before: r2's time was after r3's
        if place.backend == "postgres":  # the database's clock: the writer's is not read
            assert datetime.fromisoformat(times[1]) < datetime.now(UTC) + FAST / 2
        else:  # one machine, one clock: a clock run ahead lends its time to what follows
            assert times[1] == times[2] == times[3]
            return  # (a time a minute ahead is in the future for this reader)
        for seq, at in enumerate(times, start=1):
            then = right.as_of(at)
            assert then.seq >= seq  # every revision up to seq is in what as_of shows
            assert {f"r{i}" for i in range(1, seq + 1)} <= then.holding()
        assert right.verify_log(deep=True) == 4

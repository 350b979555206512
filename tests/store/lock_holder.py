"""Another process that holds a lock on a SQLite file until told to let go.

Run as ``python lock_holder.py FILE [write|read]``. ``write`` (the default) begins a write
transaction on a store and writes a row it will not commit; ``read`` begins a read transaction
(on a file in rollback-journal mode, a shared lock that keeps any writer from committing). It
then prints ``locked`` and waits for a line on stdin (or its end), rolls back and prints
``released``. So a test decides exactly when the lock is let go, without sleeping or timing.
"""

from __future__ import annotations

import sqlite3
import sys


def main(path: str, mode: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    if mode == "write":
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('holder', 'uncommitted')")
    else:
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("ROLLBACK")
    conn.close()
    print("released", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "write")

#!/usr/bin/env python3
"""The service's load test on loopback: ``stategraph serve`` with N workers, writers across
100 tenants and within one, a worker killed with SIGKILL mid-run, then every tenant's chain
verified, its states compared with what was acknowledged, and its log replayed.

    python scripts/load_test.py [--workers 4] [--tenants 100] [--writers 24] [--hot-writers 8]
                                [--seconds 20] [--no-kill] [--json] [--postgres URL]
                                [--kill-node CMD --restart-node CMD [--node-down 5]]

Exits 1 if any revision was lost, duplicated or interleaved. See stategraph/service/load.py.
"""

import sys

from stategraph.service.load import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m stategraph.bench.perf.worker load|revise WORKLOAD STORE``: one measured step."""

import sys

from stategraph.bench.perf.engine import worker_main

if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))

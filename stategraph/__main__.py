"""``python -m stategraph``."""

import sys

from stategraph.cli import main

sys.exit(main())

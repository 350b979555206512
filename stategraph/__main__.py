"""``python -m stategraph``."""

import sys

from stategraph.cli.main import main

sys.exit(main())

"""``python -m benchmarks``: the same as ``python -m benchmarks.run``."""

import sys

from .run import main

sys.exit(main())

"""``python -m benchmarks [process] [options]``.

Without ``process``: the in-process benchmarks (``python -m benchmarks.run``);
with it: the whole-process benchmark (``python -m benchmarks.process``).
"""

import sys

if sys.argv[1:2] == ["process"]:
    from .process import main

    sys.exit(main(sys.argv[2:]))

from .run import main

sys.exit(main())

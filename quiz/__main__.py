"""``python -m quiz``: the same entry point as the ``quiz`` console script."""

import sys

from quiz.cli import main

sys.exit(main())

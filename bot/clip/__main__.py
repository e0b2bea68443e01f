"""``python -m bot.clip``: see :mod:`bot.clip.stats`."""

import sys

from bot.clip.stats import main

sys.exit(main())

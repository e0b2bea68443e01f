"""``python -m bot.cli``: the same as the ``fibsbot`` command."""

from bot.cli import main

raise SystemExit(main())

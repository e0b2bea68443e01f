import sys

from bot.server.cli import main

sys.exit(main())

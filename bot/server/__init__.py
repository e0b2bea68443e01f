"""A FIBS-compatible server for offline play, tests and operators (``fibsbot server``).

``async with FibsServer(port=0, db_path=path, seed=1, auto_register=True) as server:``
serves CLIP clients on ``server.port``; :func:`main` is the command line.
"""

from bot.server.cli import main
from bot.server.server import FibsServer

__all__ = ["FibsServer", "main"]

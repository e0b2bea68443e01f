"""A real uvicorn server for an ASGI app, on a loopback port of its own, in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from bot.serve.http_guard import GuardedH11


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Serves ``app`` as ``fibsbot serve --http`` does (its guarded HTTP protocol) until the
    block ends; yields the base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", http=GuardedH11))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)

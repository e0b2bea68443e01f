"""The service bench's clients: every server is asked exactly the same requests."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from engine.bench.serve import drive


def test_clients_share_out_exactly_the_requests_asked() -> None:
    lines = [f"board:line{i}" for i in range(10)]
    asked: list[str] = []
    lock = threading.Lock()
    connections: list[int] = []

    def factory() -> Callable[[str], str]:
        with lock:
            connections.append(1)

        def ask(line: str) -> str:
            with lock:
                asked.append(line)
            return "ok"
        return ask
    answered, wall, latencies = drive(8, lines, 25, factory)
    assert answered == 25 and len(latencies) == 25 and wall > 0
    assert len(connections) == 8  # one connection per client
    assert Counter(asked) == Counter(lines[i % 10] for i in range(25))  # as listed: none lost, none repeated

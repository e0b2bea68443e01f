"""Who may connect and who may try a password: connection caps and login lockouts.

Connections are capped in total and per address, so a flood of sockets can
neither exhaust the server's file descriptors nor crowd out everyone else.
Failed logins lock out one account from one address after
``max_failures``, and an account from everywhere after
``max_account_failures`` (a guesser spreading over many addresses): never a
whole address, since every user of a LAN gateway or of the loopback
interface shares one.

>>> gate = Gate(max_connections=3, max_per_host=2, max_failures=2, max_account_failures=3, window_s=60)
>>> [gate.admit("10.0.0.1") for _ in range(3)], gate.admit("10.0.0.2"), gate.admit("10.0.0.3")
([True, True, False], True, False)
>>> gate.release("10.0.0.1"); gate.admit("10.0.0.3")
True
>>> gate.failed("bob", "10.0.0.1"), gate.failed("bob", "10.0.0.1"), gate.locked("bob", "10.0.0.1")
(False, True, True)
>>> gate.locked("bob", "10.0.0.2"), gate.locked("alice", "10.0.0.1")
(False, False)
>>> gate.failed("bob", "10.0.0.2"), gate.locked("bob", "10.0.0.9")
(True, True)
"""

from __future__ import annotations

import time
from collections import Counter

_SWEEP_EVERY = 1024
"""Forget stale failure records after this many new keys (names a flood made up)."""


class Gate:
    def __init__(self, *, max_connections: int | None, max_per_host: int | None, max_failures: int,
                 max_account_failures: int, window_s: float) -> None:
        self.max_connections = max_connections
        self.max_per_host = max_per_host
        self.max_failures = max_failures
        self.max_account_failures = max_account_failures
        self.window_s = window_s
        self.open = Counter[str]()
        """Open connections by address."""
        self._failures: dict[tuple[str, str | None], list[float]] = {}
        """Failure times by (account, address); address None: the account from anywhere."""
        self._new_keys = 0

    # -- connections --

    @property
    def connections(self) -> int:
        return self.open.total()

    def admit(self, host: str) -> bool:
        """Count a new connection from ``host``; False (not counted) if a cap is reached."""
        if self.max_connections is not None and self.connections >= self.max_connections:
            return False
        if self.max_per_host is not None and self.open[host] >= self.max_per_host:
            return False
        self.open[host] += 1
        return True

    def release(self, host: str) -> None:
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]

    # -- failed logins --

    def _recent(self, key: tuple[str, str | None]) -> list[float]:
        cutoff = time.monotonic() - self.window_s
        recent = [t for t in self._failures.get(key, ()) if t > cutoff]
        if recent:
            self._failures[key] = recent
        else:
            self._failures.pop(key, None)
        return recent

    def locked(self, name: str, host: str) -> bool:
        """Whether a login as ``name`` from ``host`` is refused without looking at the password."""
        return (len(self._recent((name, host))) >= self.max_failures
                or len(self._recent((name, None))) >= self.max_account_failures)

    def failed(self, name: str, host: str) -> bool:
        """Count a failed login; True if ``name`` is now locked for ``host``."""
        now = time.monotonic()
        keys: tuple[tuple[str, str | None], ...] = ((name, host), (name, None))
        for key in keys:
            if key not in self._failures:
                self._new_keys += 1
            self._failures.setdefault(key, []).append(now)
        if self._new_keys >= _SWEEP_EVERY:
            self._new_keys = 0
            for key in list(self._failures):
                self._recent(key)
        return self.locked(name, host)

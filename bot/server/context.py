"""What the server lends its parts: commands and the lobby see these Protocols, never the server.

:class:`~bot.server.server.FibsServer` implements them. They live here, below
``server.py``, ``commands.py`` and ``lobby.py``, so every arrow points one way:
the server imports its commands and its lobby, and they import only this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from bot.server.session import Session
from bot.server.store import Store


class Online(Protocol):
    """The users online and the accounts behind them, as the lobby sees them."""

    @property
    def store(self) -> Store: ...

    def broadcast(self, line: str, *, toggle: str | None = None, skip: Iterable[str] = ()) -> None:
        """To every user online (with ``toggle`` on, if given) except the names in ``skip``."""

    def who_changed(self, session: Session) -> None:
        """Everyone gets the user's new ``5`` line (and a ``6``)."""


class Matches(Protocol):
    """Starting and stopping matches (the lobby), as a command asks for it."""

    def start_new(self, inviter: Session, joiner: Session, length: int) -> None: ...

    def resume(self, inviter: Session, joiner: Session) -> None:
        """The saved match of the two; a corrupt one is deleted and the joiner told."""

    def interrupt(self, session: Session, reason: str) -> None:
        """``session`` leaves its match (leave, logout, drop, timeout, shutdown): save it."""


class Context(Online, Protocol):
    """All a command may do besides talking to sessions directly."""

    @property
    def sessions(self) -> Mapping[str, Session]:
        """The users online by name, in login order."""

    @property
    def lobby(self) -> Matches: ...

    def find(self, name: str) -> Session | None:
        """The user online with exactly this name."""

    def complete(self, prefix: str) -> Session | None:
        """Exact name, else the only user online whose name starts with ``prefix``."""

    def exists(self, name: str) -> bool:
        """An account of this name exists (online or not)."""

    def logout(self, session: Session, reason: str) -> None:
        """The user is gone; their match is already saved."""

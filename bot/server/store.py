"""The server's SQLite file: accounts, stored messages, saved matches.

One connection, used from the event loop thread only; every write commits at
once (the file is small and writes are rare), so a crash loses nothing that
was acknowledged. A new file is created readable by its owner only (0600:
it holds password hashes and private messages); SQLite gives its -wal and
-shm files the same mode.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from bot.server.account import DEFAULT_SETTINGS, TOGGLES, Account, default_toggles

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY, password TEXT NOT NULL, rating REAL NOT NULL, experience INTEGER NOT NULL,
    email TEXT, toggles TEXT NOT NULL, settings TEXT NOT NULL,
    last_login REAL, last_host TEXT, last_logout REAL);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, recipient TEXT NOT NULL, sender TEXT NOT NULL,
    time INTEGER NOT NULL, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS saved (
    first TEXT NOT NULL, second TEXT NOT NULL, data TEXT NOT NULL, time REAL NOT NULL,
    PRIMARY KEY (first, second));
"""


def _pair(a: str, b: str) -> tuple[str, str]:
    """Saved matches are keyed by the two names in sorted order."""
    return (a, b) if a <= b else (b, a)


class Store:
    def __init__(self, path: str | Path) -> None:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass  # an operator's existing file keeps the mode they gave it
        self._db = sqlite3.connect(str(path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- accounts --

    def password_hash(self, name: str) -> str | None:
        row = self._db.execute("SELECT password FROM users WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def create(self, name: str, password_hash: str) -> Account:
        account = Account(name)
        self._db.execute("INSERT INTO users (name, password, rating, experience, toggles, settings) "
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (name, password_hash, account.rating, account.experience,
                          json.dumps(account.toggles), json.dumps(account.settings)))
        return account

    def account(self, name: str) -> Account | None:
        row = self._db.execute("SELECT name, rating, experience, email, toggles, settings, last_login, "
                               "last_host, last_logout FROM users WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        # Unknown or missing keys (an older file) fall back to the defaults.
        toggles = default_toggles() | {k: bool(v) for k, v in json.loads(row[4]).items() if k in TOGGLES}
        settings = DEFAULT_SETTINGS | {k: str(v) for k, v in json.loads(row[5]).items() if k in DEFAULT_SETTINGS}
        return Account(row[0], row[1], row[2], row[3], toggles, settings, row[6], row[7], row[8])

    def update(self, a: Account) -> None:
        self._db.execute("UPDATE users SET rating = ?, experience = ?, email = ?, toggles = ?, settings = ?, "
                         "last_login = ?, last_host = ?, last_logout = ? WHERE name = ?",
                         (a.rating, a.experience, a.email, json.dumps(a.toggles), json.dumps(a.settings),
                          a.last_login, a.last_host, a.last_logout, a.name))

    def top_ratings(self, count: int) -> list[tuple[str, float, int]]:
        rows = self._db.execute("SELECT name, rating, experience FROM users ORDER BY rating DESC, name LIMIT ?",
                                (count,)).fetchall()
        return [(str(n), float(r), int(e)) for n, r, e in rows]

    # -- stored messages --

    def add_message(self, recipient: str, sender: str, time: int, text: str) -> None:
        self._db.execute("INSERT INTO messages (recipient, sender, time, text) VALUES (?, ?, ?, ?)",
                         (recipient, sender, time, text))

    def take_messages(self, recipient: str) -> list[tuple[str, int, str]]:
        """The user's stored messages, oldest first; they are deleted."""
        rows = self._db.execute("SELECT sender, time, text FROM messages WHERE recipient = ? ORDER BY id",
                                (recipient,)).fetchall()
        self._db.execute("DELETE FROM messages WHERE recipient = ?", (recipient,))
        return [(str(s), int(t), str(x)) for s, t, x in rows]

    # -- saved matches (JSON made by bot.server.table) --

    def save_match(self, a: str, b: str, data: str, time: float) -> None:
        self._db.execute("INSERT OR REPLACE INTO saved (first, second, data, time) VALUES (?, ?, ?, ?)",
                         (*_pair(a, b), data, time))

    def saved_match(self, a: str, b: str) -> str | None:
        row = self._db.execute("SELECT data FROM saved WHERE first = ? AND second = ?", _pair(a, b)).fetchone()
        return None if row is None else str(row[0])

    def forget_saved_matches(self) -> int:
        """Delete every saved match (a server that restarts without them); how many there were."""
        return int(self._db.execute("DELETE FROM saved").rowcount)

    def delete_match(self, a: str, b: str) -> None:
        self._db.execute("DELETE FROM saved WHERE first = ? AND second = ?", _pair(a, b))

    def saved_matches(self, name: str) -> list[tuple[str, str]]:
        """(opponent, data) of every match ``name`` has saved, by opponent name."""
        rows = self._db.execute("SELECT first, second, data FROM saved WHERE first = ? OR second = ?",
                                (name, name)).fetchall()
        return sorted((str(b if a == name else a), str(d)) for a, b, d in rows)

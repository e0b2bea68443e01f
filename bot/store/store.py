"""A store: one database (SQLite file or PostgreSQL), at this program's schema version."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from bot.store import db
from bot.store.errors import NotInitialised, StoreError

T = TypeVar("T")
P = ParamSpec("P")


class Store:
    """Open with :func:`open_store`; every database error comes out as a named StoreError."""

    def __init__(self, url: URL, engine: Engine) -> None:
        self.url = url
        self.engine = engine

    @property
    def shown(self) -> str:
        return db.shown(self.url)

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """One transaction (committed at the end, rolled back on any error)."""
        try:
            with self.engine.begin() as conn:
                yield conn
        except StoreError:
            raise
        except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
            raise db.classify(exc, self.url) from None

    def transaction(self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``work(conn, *args, **kwargs)`` in one transaction, once more if a concurrent writer got in first."""
        for attempt in (1, 2):
            try:
                with self.engine.begin() as conn:
                    return work(conn, *args, **kwargs)
            except IntegrityError:
                if attempt == 2:
                    raise db.classify(StoreError(f"{self.shown}: a concurrent writer keeps conflicting"),
                                      self.url) from None
            except StoreError:
                raise
            except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
                raise db.classify(exc, self.url) from None
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.engine.dispose()


def open_store(url: str, *, create: bool = True) -> Store:
    """The store at ``url`` (``${NAME}`` parts from the environment), its schema brought to
    this program's version (``create``) or checked to be it; a named StoreError if unusable."""
    parsed = db.resolve_url(url)
    if not create and parsed.get_backend_name() == "sqlite" and not Path(str(parsed.database)).exists():
        raise NotInitialised(f"{db.shown(parsed)}: no such database file (the bot, or fibsbot db upgrade, creates it)")
    engine = db.make_engine(parsed)
    try:
        if create:
            db.upgrade(engine, parsed)
        else:
            db.check(engine, parsed)
    except BaseException:
        engine.dispose()
        raise
    return Store(parsed, engine)

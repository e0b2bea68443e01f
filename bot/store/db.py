"""Opening a store: the URL (secrets from the environment, never logged), the engine,
the schema's version (Alembic), and the database's errors as the store's named ones."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from bot.store.errors import (
    BadURL,
    CorruptDatabase,
    NewerSchema,
    NotInitialised,
    ReadOnlyDatabase,
    StoreError,
    Unreachable,
)

DEFAULT_NAME = "fibsbot.db"
REVISIONS = ("0001",)
"""The migrations' revisions, oldest first (a test checks them against Alembic's scripts): a
database at the last one is used without loading Alembic, which costs a command its speed."""
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class DatabaseBusy(StoreError):
    """The database is locked by another writer for longer than the busy timeout."""


class DatabaseFull(StoreError):
    """The database's disk (or quota) is full."""


def default_url(records_dir: Path) -> str:
    """``sqlite:///`` a file beside the records."""
    return f"sqlite:///{(records_dir / DEFAULT_NAME).resolve()}"


def resolve_url(text: str, environ: dict[str, str] | None = None) -> URL:
    """The URL of ``store:``: ``${NAME}`` parts come from the environment (a password,
    say); ``postgresql://`` uses psycopg 3. BadURL names what is wrong, never a secret."""
    env = os.environ if environ is None else environ

    def expand(m: re.Match[str]) -> str:
        if m.group(1) not in env:
            raise BadURL(f"the store URL names ${{{m.group(1)}}}, which is not set in the environment")
        return env[m.group(1)]

    expanded = _VARIABLE.sub(expand, text.strip())
    try:
        url = make_url(expanded)
    except ArgumentError:
        raise BadURL(f"store {_VARIABLE.sub('***', text.strip().split('@')[-1])!r} is not a database URL "
                     "(sqlite:///PATH or postgresql://USER@HOST/DB)") from None
    backend = url.get_backend_name()
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise BadURL("a sqlite store needs a file: sqlite:///PATH")
        return url
    if backend == "postgresql":
        if url.get_driver_name() not in ("psycopg", "psycopg2") or url.drivername == "postgresql":
            url = url.set(drivername="postgresql+psycopg")
        return url
    raise BadURL(f"store backend {backend!r} is not supported (sqlite or postgresql)")


def shown(url: URL) -> str:
    """The URL for logs and messages: the password hidden."""
    return url.render_as_string(hide_password=True)


def classify(exc: BaseException, url: URL) -> StoreError:
    """A database error as the store's named error (the message without the password)."""
    if isinstance(exc, StoreError):
        return exc
    where = shown(url)
    orig = exc.orig if isinstance(exc, DBAPIError) else exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    if url.password:
        text = text.replace(str(url.password), "***")
    low = text.lower()
    if isinstance(orig, sqlite3.Error) or url.get_backend_name() == "sqlite":
        if "not a database" in low or "malformed" in low or "file is encrypted" in low:
            return CorruptDatabase(f"{where}: the file is not a usable SQLite database ({text})")
        if "readonly" in low or "read-only" in low:
            return ReadOnlyDatabase(f"{where}: read-only ({text})")
        if "unable to open" in low:
            return ReadOnlyDatabase(f"{where}: cannot open or create the file ({text})")
        if "locked" in low or "busy" in low:
            return DatabaseBusy(f"{where}: locked by another writer ({text})")
        if "full" in low:
            return DatabaseFull(f"{where}: the disk is full ({text})")
    else:
        if "read-only" in low or "permission denied" in low:
            return ReadOnlyDatabase(f"{where}: {text}")
        if "no space" in low or "disk full" in low:
            return DatabaseFull(f"{where}: {text}")
        if isinstance(exc, DBAPIError) and exc.connection_invalidated or "connect" in low or "server" in low \
                or "terminat" in low or "closed" in low or "timeout" in low:
            return Unreachable(f"{where}: {text}")
    return StoreError(f"{where}: {text}")


def _sqlite_read_only(path: str) -> bool:
    """A file with no write permission bits is opened read-only, even by root."""
    try:
        return os.stat(path).st_mode & 0o222 == 0
    except OSError:
        return False


def make_engine(url: URL) -> Engine:
    """An engine for ``url``: short timeouts, so that an unreachable or locked database
    costs the bot a second or two, not its game."""
    try:
        if url.get_backend_name() == "sqlite":
            assert url.database is not None
            path = Path(url.database)
            if not path.exists():
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise ReadOnlyDatabase(f"{shown(url)}: cannot create its folder: {exc.strerror}") from None
            if _sqlite_read_only(str(path)):
                engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true",
                                       connect_args={"timeout": 2.0})
            else:
                engine = create_engine(url, connect_args={"timeout": 2.0})

            @event.listens_for(engine, "connect")
            def _pragmas(dbapi: Any, record: Any) -> None:
                cursor = dbapi.cursor()
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()
            return engine
        return create_engine(url, connect_args={"connect_timeout": 3}, pool_pre_ping=True)
    except (NoSuchModuleError, ImportError) as exc:
        raise BadURL(f"{shown(url)}: its driver is not installed ({exc}); "
                     "for PostgreSQL: pip install 'fibsbot[postgres]'") from None
    except ArgumentError as exc:
        raise BadURL(f"{shown(url)}: {exc}") from None


def _alembic_config(connection: Any) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    return REVISIONS[-1]


def known_revisions() -> set[str]:
    return set(REVISIONS)


def current_revision(engine: Engine) -> str | None:
    """The database's schema revision (None: no fibsbot schema)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        return None if value is None else str(value)


def upgrade(engine: Engine, url: URL) -> str:
    """Bring the schema to this program's head (creating it in an empty database);
    NewerSchema if a newer fibsbot made it. The revision reached."""
    from alembic import command

    try:
        current = current_revision(engine)
        if current is not None and current not in known_revisions():
            raise NewerSchema(f"{shown(url)}: schema version {current} is newer than this fibsbot knows "
                              f"(up to {head_revision()}); upgrade fibsbot")
        head = head_revision()
        if current == head:
            return head
        if current is None:
            names = set(inspect(engine).get_table_names())
            if names & {"matches", "actions"}:
                raise NotInitialised(f"{shown(url)}: holds fibsbot-like tables without a version mark")
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
        return head
    except StoreError:
        raise
    except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
        raise classify(exc, url) from None


def check(engine: Engine, url: URL) -> None:
    """The database is at this program's head (for readers: no upgrade is made)."""
    try:
        current = current_revision(engine)
    except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
        raise classify(exc, url) from None
    if current is None:
        raise NotInitialised(f"{shown(url)}: no fibsbot schema (fibsbot db upgrade creates it)")
    if current not in known_revisions():
        raise NewerSchema(f"{shown(url)}: schema version {current} is newer than this fibsbot knows; upgrade fibsbot")
    if current != head_revision():
        upgrade(engine, url)

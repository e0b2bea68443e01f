"""The bot's live writer: each journalled change goes to the store as it happens.

The recorder calls :meth:`LiveWriter.on_record` after each journal entry is on disk
(and the ledger :meth:`LiveWriter.on_ledger` after each line), so the database never
holds what the journal does not. The store is never a single point of failure: when
it is locked, full, unreachable or of a newer schema, one log line says so, the bot
plays on with its ``.sgf`` files and journals, and the writer retries with a growing
pause; once back, it writes all it missed (the rows each record lacks). At its first
connection it also syncs the records folder (what a ``kill -9`` left unwritten).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bot.config import BotConfig
from bot.store.db import default_url
from bot.store.errors import StoreError
from bot.store.rows import file_hash
from bot.store.store import Store, open_store
from bot.store.sync import sync_folder
from bot.store.writer import MatchInfo, apply_ledger, write_record
from engine.records import MatchRecord

log = logging.getLogger(__name__)

RETRY_MIN_S = 2.0
RETRY_MAX_S = 300.0


class RecorderLike(Protocol):
    record: MatchRecord
    path: Path


@dataclass
class _Pending:
    record: MatchRecord
    info: MatchInfo
    last_at: datetime.datetime | None = None
    times: dict[tuple[int, int], tuple[datetime.datetime, float | None]] = field(default_factory=dict)


class LiveWriter:
    """Writes the bot's matches to the store at ``url`` (text of ``store:``)."""

    def __init__(self, url: str, *, records_dir: Path, ledger: Path | None, us_name: str, server: str,
                 level: str, settings: dict[str, Any]) -> None:
        self.url = url
        self.records_dir = records_dir
        self.ledger = ledger
        self.base = MatchInfo(us_name=us_name, server=server, level=level, settings=settings)
        self.store: Store | None = None
        self.pending: dict[Path, _Pending] = {}
        self.ledger_pending: list[dict[str, Any]] = []
        self.down: StoreError | None = None
        self._retry_at = 0.0
        self._pause = RETRY_MIN_S
        self._synced = False
        self._timer: asyncio.TimerHandle | None = None

    # -- what the bot calls ---------------------------------------------------------------

    def on_record(self, recorder: RecorderLike, entry: dict[str, Any]) -> None:
        """A journal entry of ``recorder`` is on disk (``{"closed": over}`` when it is closed)."""
        now = datetime.datetime.now()
        item = self.pending.get(recorder.path)
        if item is None or item.record is not recorder.record:
            info = MatchInfo(us_name=self.base.us_name, server=self.base.server, level=self.base.level,
                             settings=self.base.settings, started=now)
            item = self.pending[recorder.path] = _Pending(recorder.record, info)
            item.info.times = item.times
        if "action" in entry and recorder.record.games:
            game = recorder.record.games[-1]
            seconds = round((now - item.last_at).total_seconds(), 3) if item.last_at else None
            item.times[(len(recorder.record.games), len(game.actions) - 1)] = (now, seconds)
            item.last_at = now
        elif "game" in entry:
            item.last_at = now
        if "closed" in entry:
            item.info.saved = not entry["closed"]
            item.info.record_hash = file_hash(recorder.path)
            if entry["closed"]:
                item.info.ended = now
        if "state" in entry and len(entry) == 1:
            return  # working state only: nothing for the store
        self.flush()

    def on_ledger(self, entry: dict[str, Any]) -> None:
        self.ledger_pending.append(entry)
        self.flush()

    # -- writing --------------------------------------------------------------------------

    def flush(self) -> bool:
        """Write what is pending; False while the store is unavailable (retried later)."""
        if time.monotonic() < self._retry_at:
            return False
        try:
            if self.store is None:
                self.store = open_store(self.url)
            store = self.store
            for path, item in list(self.pending.items()):
                store.transaction(write_record, item.record, path, item.info)
                if item.info.ended is not None or item.info.saved:
                    del self.pending[path]
            if not self._synced:
                report = sync_folder(store, self.records_dir, self.ledger, us_name=self.base.us_name,
                                     server=self.base.server)
                self._synced = True
                if report.actions:
                    log.info("store %s: caught up %d actions of %d records", store.shown, report.actions,
                             report.records)
            while self.ledger_pending:
                entry = self.ledger_pending[0]
                store.transaction(apply_ledger, entry)
                self.ledger_pending.pop(0)
        except StoreError as exc:
            self._failed(exc)
            return False
        except Exception as exc:  # a bug here must not stop the bot: the records keep everything
            log.exception("store: writing failed")
            self._failed(StoreError(str(exc)))
            return False
        if self.down is not None:
            log.warning("store %s is back: caught up", shown_url(self))
            self.down = None
        self._pause = RETRY_MIN_S
        return True

    def _failed(self, exc: StoreError) -> None:
        if self.down is None or type(self.down) is not type(exc):
            log.error("store unavailable (%s: %s); playing on with the .sgf files and journals, "
                      "catching up when it is back", type(exc).__name__, exc)
        self.down = exc
        if self.store is not None:
            self.store.close()
            self.store = None
        self._retry_at = time.monotonic() + self._pause
        try:  # retry even if the bot writes nothing more for a while (in the bot's event loop)
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and self._timer is None:
            self._timer = loop.call_later(self._pause, self._retry)
        self._pause = min(self._pause * 2, RETRY_MAX_S)

    def _retry(self) -> None:
        self._timer = None
        self._retry_at = 0.0
        self.flush()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._retry_at = 0.0
        self.flush()
        if self.store is not None:
            self.store.close()
            self.store = None


def shown_url(writer: LiveWriter) -> str:
    return writer.store.shown if writer.store is not None else "(store)"


def configured_url(cfg: BotConfig) -> str | None:
    """The store's URL text of a bot config (None when ``store: off``): what the status
    endpoint hands :func:`bot.store.stats.today_summary`."""
    text = cfg.store.url.strip()
    if text.lower() == "off":
        return None
    return text or default_url(cfg.records.dir)


def writer_for(cfg: BotConfig) -> LiveWriter | None:
    """The live writer of ``cfg.store`` (None when ``store: off``)."""
    url = configured_url(cfg)
    if url is None:
        return None
    records = cfg.records.dir
    return LiveWriter(url, records_dir=records, ledger=cfg.records.ledger, us_name=cfg.account.user or "fibsbot",
                      server=cfg.server.host, level=cfg.engine.level_name,
                      settings=cfg.engine.model_dump(mode="json"))


@contextmanager
def live_store(cfg: BotConfig) -> Iterator[LiveWriter | None]:
    """While inside, the bot's records and ledger lines go to ``cfg.store`` too."""
    from bot import recorder

    writer = writer_for(cfg)
    if writer is None:
        yield None
        return
    recorder.listeners.append(writer.on_record)
    recorder.ledger_listeners.append(writer.on_ledger)
    try:
        yield writer
    finally:
        recorder.listeners.remove(writer.on_record)
        recorder.ledger_listeners.remove(writer.on_ledger)
        writer.close()

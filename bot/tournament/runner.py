"""Runs a tournament: skips what the folder already holds, plays the rest on an
executor, saves each match as it ends, shows progress and live standings,
and writes the report. Ctrl-C or SIGTERM stops at once (a match being saved
is saved whole first); rerunning resumes.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bot.tournament import report as reporting
from bot.tournament.config import TournamentConfig
from bot.tournament.executors import Executor
from bot.tournament.results import ResultStore
from bot.tournament.schedule import schedule

_LIVE_REFRESH_S = 1.0  # standings are rebuilt at most this often


@dataclass(frozen=True)
class RunSummary:
    scheduled: int
    skipped: int  # already in the folder
    played: int  # this run
    wall_s: float
    interrupted: bool
    report: dict[str, Any]

    @property
    def matches_per_minute(self) -> float:
        return 60.0 * self.played / self.wall_s if self.wall_s > 0 else 0.0


class _Interrupts:
    """SIGINT and SIGTERM (kill, systemd) raise KeyboardInterrupt, except while
    a finished match is being saved: then they wait until it is, so that a
    match's .sgf never lacks its results line. Main thread only (signals)."""

    def __init__(self) -> None:
        self.saving_now = False
        self.pending = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.saving_now:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def saving(self) -> Iterator[None]:
        self.saving_now = True
        try:
            yield
        finally:
            self.saving_now = False
        if self.pending:
            raise KeyboardInterrupt


def run(config: TournamentConfig, executor: Executor, console: Console, *, live: bool = True,
        on_result: Callable[[dict[str, Any]], None] | None = None) -> RunSummary:
    """Play what ``config`` still lacks; ``on_result`` sees each match as it is saved
    (a caller's own progress display, with ``live`` off)."""
    store = ResultStore(config.output, config.fingerprint())
    specs = schedule([p.name for p in config.players], config.format, config.gauntlet_player, config.matches,
                     seed=config.seed, duplicate=config.duplicate_dice)
    todo = [s for s in specs if s.key not in store.results]
    keys = {s.key for s in specs}

    def scheduled_results() -> list[dict[str, Any]]:
        """The results of this schedule: a folder run with more matches before keeps its extra ones unreported."""
        return [r for key, r in store.results.items() if key in keys]

    from bot.store.tournaments import tournament_writer  # opt-in (FIBSBOT_STORE): the database layer

    db = tournament_writer(config.output, config.fingerprint(), config.model_dump(mode="json"))
    skipped = len(specs) - len(todo)
    if skipped:
        console.print(f"resuming: {skipped} of {len(specs)} matches already in {store.path}")
    start = time.perf_counter()
    played = 0
    interrupted = False
    progress = Progress(TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                        TimeRemainingColumn(), TextColumn("elapsed"), TimeElapsedColumn(), console=console)
    task = progress.add_task("matches", total=len(specs), completed=skipped)
    interrupts = _Interrupts()
    try:
        outcomes = executor.run(config, todo) if todo else iter(())
        with interrupts, Live(progress, console=console, refresh_per_second=4,
                              transient=True) if live else _NoLive() as display:
            shown = 0.0
            for result, sgf_text in outcomes:
                with interrupts.saving():
                    store.add(result, sgf_text)
                    played += 1
                if db is not None:
                    db.add(result, sgf_text)
                progress.advance(task)
                if on_result is not None:
                    on_result(result)
                now = time.perf_counter()
                if live and (now - shown >= _LIVE_REFRESH_S or played == len(todo)):
                    table = reporting.standings_table(reporting.build(config, scheduled_results(), ratings=False))
                    display.update(Group(progress, table))
                    shown = now
    except KeyboardInterrupt:
        executor.stop()
        interrupted = True
    finally:
        store.close()
        if db is not None:
            db.close()
    wall_s = time.perf_counter() - start
    final = reporting.build(config, scheduled_results())
    return RunSummary(len(specs), skipped, played, wall_s, interrupted, final)


class _NoLive:
    """Stands in for rich's Live when nothing is shown."""

    def __enter__(self) -> _NoLive:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, renderable: object) -> None:
        return None

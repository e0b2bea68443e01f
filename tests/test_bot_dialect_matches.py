"""Whole 7-point matches against the local server speaking each dialect (FIBS, JIBS's
wordings and line order, BaldLies's move notation and silent rolls), with a drop and a
reconnect in the middle of a game: each match finishes, our record is one file that
equals the opponent's record action for action, every game has its result, and gnubg
loads both files without a word."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import pathlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.player import Challenge, Player
from bot.player.game import GamePlayer
from bot.run import close_transcript, transcript_logger
from bot.server import FibsServer
from bot.session import Session, telnet_opener
from engine.records import Double, MatchRecord, Roll, load_sgf
from engine.records.validate import validate

from botkit import Cuttable, FakeDecider, config, free_port

HOST = "127.0.0.1"
LENGTH = 7
SEED = 11


@asynccontextmanager
async def match(tmp: pathlib.Path, wordings: list[str]) -> AsyncIterator[tuple[Player, Player, Cuttable]]:
    """Our bot and a sparring bot that invites it to one 7-point match, on a server with ``wordings``."""
    port = free_port()
    fast: dict[str, object] = {"backoff_min_s": 0.05, "backoff_max_s": 0.2}
    our_cfg = config(tmp / "us", connection=fast)
    their_cfg = config(tmp / "them", account={"user": "sparring"}, connection=fast)
    us = Player(our_cfg, FakeDecider())  # type: ignore[arg-type]
    them = Player(their_cfg, FakeDecider(), challenge=Challenge("GnuBot", LENGTH, 1, retry_s=0.5))  # type: ignore[arg-type]
    async with FibsServer(HOST, port, db_path=tmp / "server.db", seed=SEED, auto_register=True, scrypt_n=2**10,
                          wordings=wordings):
        sessions, tasks, openers = [], [], []
        for who, cfg, name in ((us, our_cfg, "GnuBot"), (them, their_cfg, "sparring")):
            opener = Cuttable(telnet_opener(HOST, port))
            openers.append(opener)
            session = Session(cfg, name, f"{name}-pw", who, host=HOST, port=port, opener=opener,
                              transcript=transcript_logger(cfg, name))
            who.attach(session)
            sessions.append(session)
            tasks.append(asyncio.create_task(session.run()))
        try:
            yield us, them, openers[0]
        finally:
            for session in sessions:
                session.close()
            await asyncio.wait(tasks, timeout=5)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for who in (us, them):
                await who.close()
            for session in sessions:
                close_transcript(session.transcript)


async def _mid_game(player: Player) -> None:
    """Until the second game (or the first, if the match has one) is a few actions in."""
    while True:
        m = player.match
        record = m.recorder.record if m is not None and m.recorder is not None else None
        if record is not None and record.games and record.games[-1].result is None and (
                len(record.games) >= 2 and len(record.games[-1].actions) >= 5):
            return
        await asyncio.sleep(0.01)


async def _finished(player: Player, timeout: float = 240) -> None:
    async def wait() -> None:
        while not player.results:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(wait(), timeout)


def _seen_from_the_other_side(record: MatchRecord) -> list[list[tuple[object, ...]]]:
    """Each game's actions with the players swapped and comments left out."""
    return [[(type(a).__name__, 1 - a.player, *(v for k, v in dataclasses.asdict(a).items()
                                                 if k not in ("player", "comment", "note")))
             for a in game.actions] for game in record.games]


def _actions(record: MatchRecord) -> list[list[tuple[object, ...]]]:
    return [[(type(a).__name__, a.player, *(v for k, v in dataclasses.asdict(a).items()
                                           if k not in ("player", "comment", "note")))
             for a in game.actions] for game in record.games]


def _one_record(folder: pathlib.Path) -> pathlib.Path:
    files = sorted(folder.glob("*.sgf"))
    assert len(files) == 1, files  # one match, one file: no -part2
    return files[0]


@pytest.mark.parametrize("wordings", [[], ["jibs"], ["baldlies"], ["jibs", "glued", "blank-lines"]],
                         ids=["fibs", "jibs", "baldlies", "jibs-glued"])
async def test_a_whole_match_with_a_drop_is_recorded_as_the_opponent_saw_it(
        tmp_path: pathlib.Path, wordings: list[str], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(GamePlayer, "PROMPT_WAIT_S", 0.2)  # BaldLies rolls for nobody: wait less in tests
    caplog.set_level(logging.INFO)
    async with match(tmp_path, wordings) as (us, them, ours):
        await asyncio.wait_for(_mid_game(us), 120)
        ours.cut()  # a drop in the middle of a game: the server saves the match, the sparring bot resumes it
        await _finished(us)
        await _finished(them)
        await asyncio.wait_for(us.settle(), 30)  # the ledger's rating
    # an operator's log at INFO: one line per meaningful thing, the banner's lines not among them
    info = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO and r.name.startswith("bot.")
            and not r.name.startswith("bot.server")]
    assert not [line for line in info if "ignoring a line" in line]
    for words in ("GnuBot: logged in", "invited by sparring (rating", "match with sparring (7 points) begins",
                  "game with sparring", "GnuBot: reconnecting", "match with sparring over", "rating 1500.00 ->"):
        assert any(words in line for line in info), words
    assert us.results[0].won is not None and us.stats.logins >= 2
    assert us.stats.refused_moves == 0 and us.stats.illegal_blocked == 0
    ours_path, theirs_path = _one_record(tmp_path / "us" / "records"), _one_record(tmp_path / "them" / "records")
    record, theirs = load_sgf(ours_path), load_sgf(theirs_path)
    assert record.is_over() and all(game.result is not None for game in record.games)
    assert _actions(record) == _seen_from_the_other_side(theirs)
    assert [g.result for g in record.games] == [
        dataclasses.replace(g.result, winner=1 - g.result.winner) if g.result else None for g in theirs.games]
    actions = [a for game in record.games for a in game.actions]
    assert len(record.games) >= 3
    assert any(isinstance(a, Roll) and not a.move.steps for a in actions)  # a dance
    assert any(isinstance(a, Double) for a in actions)
    report = validate([ours_path, theirs_path])
    assert report.clean, report.problems + report.incomplete

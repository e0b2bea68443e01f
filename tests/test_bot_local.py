"""Bot against bot over the local server on loopback: whole matches, records, faults."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from bot.config import BotConfig
from bot.run import close_transcript, local_players, play_local, transcript_logger
from bot.server import FibsServer
from bot.session import LoginFailed, Session
from bot.soak import soak
from engine.records import load_sgf, mat

from botkit import FakeDecider, config

GNUBG = os.environ.get("GNUBG") or shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


def settings(tmp: pathlib.Path, **local: object) -> BotConfig:
    return config(tmp, connection={"backoff_min_s": 0.02, "backoff_max_s": 0.2},
                  local={"timeout_s": 60.0, **local})


async def test_two_bots_play_whole_matches(tmp_path: pathlib.Path) -> None:
    player, sparring = local_players(settings(tmp_path), FakeDecider(), FakeDecider(), matches=2)
    await play_local(player, sparring, seed=3)
    assert len(player.results) == 2 and [r.won for r in player.results] == [not r.won for r in sparring.results]
    for result in player.results:
        assert result.score is not None and max(result.score) >= 3 and result.record is not None
        record = load_sgf(result.record)
        assert record.players == ("sparring", "GnuBot") and record.is_over()
        assert record.score()[::-1] == result.score
    ledger = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert [e["result"] for e in ledger] == ["won" if r.won else "lost" for r in player.results]
    assert all(e["rating_after"] != e["rating_before"] for e in ledger)
    assert player.stats.refused_moves == sparring.stats.refused_moves == 0
    assert (tmp_path / "logs" / "GnuBot.log").exists() and (tmp_path / "logs" / "sparring.log").exists()


@pytest.mark.skipif(GNUBG is None, reason="the gnubg program is not installed (apt-get install gnubg)")
async def test_gnubg_reads_a_bot_record(tmp_path: pathlib.Path) -> None:
    player, sparring = local_players(settings(tmp_path), FakeDecider(), FakeDecider())
    await play_local(player, sparring, seed=5)
    path = player.results[0].record
    assert path is not None
    assert GNUBG is not None
    done = subprocess.run([GNUBG, "-t", "-q", "-r"], input=f"load match {path}\nexport match mat {tmp_path}/g.mat\n",
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert "warning" not in (done.stdout + done.stderr).lower()
    assert (tmp_path / "g.mat").read_text() == mat.dumps(load_sgf(path))


async def test_dropped_connections_are_resumed_and_finished(tmp_path: pathlib.Path) -> None:
    report = await soak(settings(tmp_path), FakeDecider(), FakeDecider(), matches=2, drop_every=50, seed=7)
    assert report.ok, str(report)
    assert report.drops >= 10 and report.reconnects >= report.drops - 2


async def test_soak_without_drops(tmp_path: pathlib.Path) -> None:
    report = await soak(settings(tmp_path), FakeDecider(), FakeDecider(), matches=3, seed=11)
    assert report.ok and report.finished == 3 and len(report.records) == 3 and report.drops == 0, str(report)


async def test_a_wrong_password_is_a_clear_final_error(tmp_path: pathlib.Path, fibs_server: FibsServer) -> None:
    cfg = settings(tmp_path)
    fibs_server.add_user("GnuBot", "right-password")
    player, _ = local_players(cfg, FakeDecider(), FakeDecider())
    session = Session(cfg, "GnuBot", "wrong-password", player, host="127.0.0.1", port=fibs_server.port,
                      transcript=transcript_logger(cfg, "GnuBot"))
    player.attach(session)
    with pytest.raises(LoginFailed, match="wrong user name or password"):
        await session.run()
    assert session.connections == 1
    close_transcript(session.transcript)


async def test_the_real_engine_plays_a_match(tmp_path: pathlib.Path) -> None:
    from bot.run import engine_decider

    cfg = settings(tmp_path, opponent_level="beginner")
    engine = engine_decider(cfg)
    player, sparring = local_players(cfg, engine, engine, length=1)
    await play_local(player, sparring, seed=2)
    assert player.results and player.results[0].record is not None
    assert load_sgf(player.results[0].record).is_over()


def test_fibsbot_run_local(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.chdir(tmp_path)  # records and logs land in the working folder
    assert main(["run", "--local", "--length", "1", "--opponent-level", "beginner"]) == 0
    out = capsys.readouterr().out
    assert "fibsbot played a 1-point match against sparring: " in out
    record = pathlib.Path(out.split("record: ")[1].strip())
    assert record.parent == tmp_path / "records" and load_sgf(record).is_over()

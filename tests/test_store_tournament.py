"""Tournaments write their matches and results into the store (FIBSBOT_STORE); importing
the folder later gives the same rows; ``fibsbot db analyse`` stores the judge's decisions
and the match statistics as the engine's analysis computes them from the record."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from rich.console import Console
from sqlalchemy import Connection, select

from bot.store.imports import import_paths, rebuild
from bot.store.schema import actions, decisions, games, matches, statistics, tournament_matches, tournaments
from bot.store.stats import query
from bot.store.store import open_store
from bot.tournament import config as tconfig
from bot.tournament.executors import LocalExecutor
from bot.tournament.runner import run
from engine.analysis import analyse_match
from engine.evaluator import Engine
from engine.match import MatchState
from engine.records import MatchRecord, Roll, load_sgf

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _tournament_rows(url: str) -> tuple[list[dict[str, object]], list[tuple[object, ...]]]:
    store = open_store(url, create=False)
    try:
        with store.begin() as conn:
            results = [json.loads(r.result) for r in conn.execute(
                select(tournament_matches.c.result).order_by(tournament_matches.c.key))]
            rows = [tuple(r) for r in conn.execute(
                select(matches.c.key, games.c.number, actions.c.idx, actions.c.kind, actions.c.dice, actions.c.move,
                       actions.c.position_id, actions.c.gnubg_match_id)
                .join(games, games.c.match_id == matches.c.id).join(actions, actions.c.game_id == games.c.id)
                .order_by(matches.c.key, games.c.number, actions.c.idx))]
            return results, rows
    finally:
        store.close()


def test_a_tournament_into_the_store_and_its_folder_imported_alike(tmp_path: pathlib.Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    live_url = f"sqlite:///{tmp_path / 'live.db'}"
    monkeypatch.setenv("FIBSBOT_STORE", live_url)
    folder = tmp_path / "t"
    cfg = tconfig.TournamentConfig.model_validate(
        {"players": [{"name": "a", "level": "beginner"}, {"name": "b", "level": "beginner"}],
         "match_length": 1, "matches": 3, "seed": 5, "output": folder})
    summary = run(cfg, LocalExecutor(1), Console(file=open(os.devnull, "w")), live=False)
    assert summary.played == 3
    lines = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    live_results, live_rows = _tournament_rows(live_url)
    assert sorted(r["key"] for r in live_results) == sorted(r["key"] for r in lines)
    store = open_store(live_url)
    with store.begin() as conn:
        assert conn.execute(select(tournaments.c.fingerprint)).scalar_one() == cfg.fingerprint()
        for line in lines:
            match_id = conn.execute(select(tournament_matches.c.match_id)
                                    .where(tournament_matches.c.key == line["key"])).scalar_one()
            assert rebuild(conn, match_id).games == load_sgf(folder / "matches" / f"{line['key']}.sgf").games
    store.close()
    imported_url = f"sqlite:///{tmp_path / 'imported.db'}"
    store = open_store(imported_url)
    import_paths(store, [folder])
    store.close()
    assert _tournament_rows(imported_url) == (live_results, live_rows)


def _check_best_equities(conn: Connection, record: MatchRecord) -> None:
    """Each stored move decision's best equity is the equity of the engine's best play for
    that roll at the judge's level (None where the play was forced)."""
    engine = Engine()
    found = conn.execute(select(games.c.number, decisions.c.idx, decisions.c.player, decisions.c.best_equity)
                         .join(games, games.c.id == decisions.c.game_id).where(decisions.c.kind == "move")).all()
    assert found
    for row in found:
        game = record.games[row.number - 1]
        state, action = game.states[row.idx], game.actions[row.idx]
        assert isinstance(action, Roll)
        position = state.position(row.player)
        if len(position.legal_plays(*action.dice)) <= 1:
            assert row.best_equity is None
            continue
        view = MatchState(length=record.length, score=game.score, cube=state.cube, cube_owner=state.cube_owner,
                          on_roll=row.player, turn=row.player, crawford_game=game.crawford_game,
                          jacoby=record.jacoby, crawford_rule=record.crawford or record.length <= 1,
                          dice=action.dice)
        best = engine.best_move(position, action.dice, view, "beginner", threads=1).candidates[0]
        assert row.best_equity == pytest.approx(best.equity, abs=1e-9)


def test_db_analyse_stores_what_the_engine_analysis_says(tmp_path: pathlib.Path) -> None:
    from engine.bench.random_records import random_match
    from engine.records import save_sgf

    record = random_match(21, 1)
    path = tmp_path / "records" / "one.sgf"
    path.parent.mkdir()
    save_sgf(record, path)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    import_paths(store, [path])
    store.close()
    done = subprocess.run([sys.executable, "-m", "bot.cli", "db", "analyse", "--store", url, "--level", "beginner"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr
    want = analyse_match(Engine(), load_sgf(path), "beginner", "beginner", threads=1)
    store = open_store(url)
    with store.begin() as conn:
        kept = conn.execute(select(decisions.c.idx, decisions.c.kind, decisions.c.error, decisions.c.error_class)
                            .order_by(decisions.c.game_id, decisions.c.idx, decisions.c.kind)).all()
        assert sorted((d.action, d.kind, d.error, d.skill) for d in want.decisions) == \
            sorted((k.idx, k.kind, k.error, k.error_class) for k in kept)
        _check_best_equities(conn, load_sgf(path))
        whole = conn.execute(select(statistics).where(statistics.c.game == 0).order_by(statistics.c.player)).all()
        for row, player in zip(whole, want.players, strict=True):
            assert row.rating_label == player.rating
            assert row.error_rate_memg == pytest.approx(player.rates.memg(player.rates.overall_rate))
            assert row.luck == pytest.approx(player.luck)
        found = query(conn)
    store.close()
    [rate] = found["error_rates"]
    assert rate["judge"] == "beginner" and rate["rating"] == want.players[1].rating
    assert found["worst"] == [] or found["worst"][0]["hint"].count(":") == 1


def test_cube_decisions_keep_the_best_equity(tmp_path: pathlib.Path) -> None:
    """Cube decisions: the best equity is the doubler's optimal cube equity (no double,
    double), and for the answer the better of take and pass seen by the taker."""
    from bot.store import judge
    from engine.bench.random_records import random_match
    from engine.records import Double, save_sgf

    record = random_match(4, 5)
    path = tmp_path / "five.sgf"
    save_sgf(record, path)
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    import_paths(store, [path])
    engine = Engine()
    analysis = judge.analyse(engine, load_sgf(path), "beginner")
    with store.begin() as conn:
        match_id = conn.execute(select(matches.c.id)).scalar_one()
        judge.store_analysis(conn, match_id, analysis)
        found = conn.execute(select(games.c.number, decisions.c.idx, decisions.c.player, decisions.c.kind,
                                    decisions.c.best_equity).join(games, games.c.id == decisions.c.game_id)
                             .where(decisions.c.kind != "move")).all()
    store.close()
    assert {row.kind for row in found} >= {"no double", "double", "take", "pass"}
    for row in found:
        game = record.games[row.number - 1]
        # the doubler's decision: before its roll or double, or before the double being answered
        at = row.idx - 1 if row.kind in ("take", "pass") else row.idx
        doubler = 1 - row.player if row.kind in ("take", "pass") else row.player
        assert row.kind not in ("take", "pass") or isinstance(game.actions[at], Double)
        state = game.states[at]
        view = MatchState(length=record.length, score=game.score, cube=state.cube, cube_owner=state.cube_owner,
                          on_roll=doubler, turn=doubler, crawford_game=game.crawford_game, jacoby=record.jacoby,
                          crawford_rule=record.crawford or record.length <= 1)
        cube = engine.cube_decision(state.position(doubler), view, "beginner", threads=1)
        _, take, drop = cube.equities
        want = -min(take, drop) if row.kind in ("take", "pass") else cube.optimal
        assert row.best_equity == pytest.approx(want, abs=1e-9), row

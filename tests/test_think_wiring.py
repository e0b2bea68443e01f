"""Thinking-time levels wired through the bot: bot.yaml, the bot's decider and its
match records, ``run --local --think``, tournament players, the service, and
rollout's refusal. Node budgets throughout (``think_mode: nodes``): repeatable,
no wall clock."""

from __future__ import annotations

import argparse
import pathlib
import re

import pytest
import yaml
from starlette.testclient import TestClient

from bot.config import BotConfig
from bot.run import engine_decider, local_players, play_local
from bot.serve import cli as serve_cli
from bot.serve import decide, protocol
from bot.serve.http import build_app
from bot.serve.pool import Pool
from bot.tournament import config as tconfig
from bot.tournament.executors import table_for
from bot.tournament.play import play_match
from bot.tournament.schedule import schedule
from bot.yamlconfig import ConfigError, choice_name, describe_choice
from engine import Engine, Position
from engine.levels import Think, level
from engine.records import Double, Drop, Roll, Take, load_sgf
from engine.think import think_move

from botkit import config

ENGINE = Engine()
NODES = {"think": 300, "think_mode": "nodes"}
DEPTH = re.compile(r"^think 300 nodes, [0-4]-ply$")
OPENING_31 = ("board:You:Opp:9999:0:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:"
              "1:-1:0:25:0:0:0:0:2:0:0:0")


def test_bot_yaml_takes_think_levels_and_keeps_the_old_shapes(tmp_path: pathlib.Path) -> None:
    cfg = config(tmp_path, engine={"level": NODES}, local={"opponent_level": "Fibsbot  Strong"})
    assert cfg.engine.level_name == "think 300 nodes"
    played = cfg.engine.playing_level()
    assert isinstance(played, Think) and (played.budget, played.mode) == (300.0, "nodes")
    assert cfg.engine.strength is None and "300 search nodes" in cfg.engine.describe_level()
    assert choice_name(cfg.local.opponent_level) == "fibsbot strong"
    assert "0.06s per decision, then its close plays and cube decisions rolled out" in describe_choice(
        cfg.local.opponent_level)
    path = tmp_path / "bot.yaml"
    path.write_text("engine:\n  level: {think: 1.5}\n")
    from bot.config import load
    assert load(path).engine.level_name == "think 1.5s"
    with pytest.raises(ConfigError, match="does not fit deadline_s"):
        config(tmp_path, engine={"level": {"think": 60}, "deadline_s": 30})
    # the old shapes still load
    assert config(tmp_path, engine={"level": {"fibs_rating": 1650}}).engine.level_name == "fibs-1650"
    assert config(tmp_path, engine={"level": "world class"}).engine.playing_level() == "world class"
    for bad, words in (({"think": 0}, "greater than 0"), ({"think": 1, "think_mode": "plies"}, "think_mode"),
                       ({"think": 1, "plies": 2}, "unknown key"), ("fibsbot weak", "fibsbot strong")):
        with pytest.raises(ConfigError, match=words):
            config(tmp_path, engine={"level": bad})


async def test_a_local_match_records_the_depth_of_each_decision(tmp_path: pathlib.Path) -> None:
    cfg = config(tmp_path, engine={"level": NODES}, connection={"backoff_min_s": 0.02, "backoff_max_s": 0.2},
                 local={"timeout_s": 120.0, "opponent_level": "beginner"})
    decider = engine_decider(cfg)
    player, sparring = local_players(cfg, decider, decider, length=3)
    await play_local(player, sparring, seed=5)  # dice on which both double
    path = player.results[0].record
    assert path is not None
    record = load_sgf(path)
    assert record.is_over()
    ours = [a for g in record.games for a in g.actions if a.player == 1]
    rolls = [a for a in ours if isinstance(a, Roll) and len(a.move.steps) > 0]
    noted = [a for a in rolls if a.note is not None]
    assert noted, "no engine note in the record"
    assert all(a.note is not None and DEPTH.match(a.note.level) for a in noted)
    cube = [a for a in ours if isinstance(a, Double | Take | Drop)]
    assert cube and all(a.note is not None and DEPTH.match(a.note.level) for a in cube)
    assert "level=think 300 nodes, " in path.read_text()


def test_the_noted_depth_is_the_fixed_depth_decision() -> None:
    position, dice = Position.initial(), (4, 2)
    t = think_move(ENGINE, position, dice, None, Think(300, mode="nodes"))
    fixed = ENGINE.best_move(position, dice, None, Think(300, mode="nodes").checker(t.plies))
    assert t.record_note().level == f"think 300 nodes, {t.plies}-ply" and t.decision.move == fixed.move


def test_fibsbot_run_local_with_think(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "--local", "--length", "1", "--think", "300", "--think-mode", "nodes",
                 "--opponent-level", "{think: 100, think_mode: nodes}"]) == 0
    out = capsys.readouterr().out
    assert "(level think 300 nodes vs think 100 nodes)" in out
    record = pathlib.Path(out.split("record: ")[1].strip())
    assert "level=think 300 nodes, " in record.read_text()
    with pytest.raises(SystemExit):  # argparse's usage error
        main(["run", "--local", "--think", "0"])
    assert "must be a number above 0" in capsys.readouterr().err
    assert main(["run", "--local", "--level", "{think: "]) == 2


def test_a_tournament_player_with_a_think_level(tmp_path: pathlib.Path) -> None:
    cfg = tconfig.TournamentConfig.model_validate(
        {"players": [{"name": "thinker", "level": NODES}, {"name": "beginner", "level": "beginner"}],
         "match_length": 1, "matches": 1, "seed": 4, "output": str(tmp_path)})
    assert isinstance(cfg.players[0].plays(), Think) and cfg.fingerprint()
    spec = schedule(["thinker", "beginner"], "round robin", None, 1, seed=4, duplicate=False)[0]
    record = play_match(ENGINE, spec, table_for(cfg, spec))
    assert record.is_over()
    seat = spec.players.index("thinker")
    mine = [a for g in record.games for a in g.actions if isinstance(a, Roll) and a.player == seat]
    assert mine and all(a.note is not None and DEPTH.match(a.note.level) for a in mine)
    with pytest.raises(ConfigError, match="chooses its own depth"):
        tconfig.TournamentConfig.model_validate(
            {"players": [{"name": "a", "level": NODES, "checker": {"plies": 2}}, {"name": "b", "level": "expert"}]})


def test_the_external_answer_at_a_think_level() -> None:
    request = protocol.parse(OPENING_31)
    assert isinstance(request, protocol.BoardRequest)
    think = Think(300, mode="nodes")
    settings = decide.ServerSettings(level=level("expert"), think=think)
    answer = decide.answer_board(ENGINE, request.board, request.session, settings)
    s = decide.situation(request.board, request.session, settings)
    assert s.dice is not None
    t = think_move(ENGINE, s.position, s.dice, s.match, think)
    assert answer == decide.format_move(s.position, t.decision.move, s.dice)
    parser = argparse.ArgumentParser()
    serve_cli.add_arguments(parser)
    args = parser.parse_args(["--external", "127.0.0.1:0", "--level", "fibsbot strong"])
    serve_cli.apply_config(args)
    fixed, chosen = serve_cli.server_level(args)
    assert fixed.name == "expert" and chosen is not None and chosen.label == "fibsbot strong"
    args = parser.parse_args(["--external", "127.0.0.1:0", "--think", "500", "--think-mode", "nodes"])
    serve_cli.apply_config(args)
    assert serve_cli.server_level(args)[1] == Think(500, mode="nodes")


def test_the_http_hint_names_the_depth_reached() -> None:
    app = build_app(ENGINE, Pool(1), decide.ServerSettings(level=level("expert")))
    with TestClient(app) as client:
        r = client.post("/hint", json={"position_id": "4HPwATDgc/ABMA", "dice": [4, 2], "level": NODES})
        assert r.status_code == 200, r.text
        body = r.json()
        t = think_move(ENGINE, Position.initial(), (4, 2), None, Think(300, mode="nodes"))
        assert body["think"]["plies"] == t.plies and body["level"] == f"think 300 nodes, {t.plies}-ply"
        assert body["move"] == str(t.decision.move) and body["note"].startswith(f"thought {t.plies}-ply")
        r = client.post("/cube", json={"position_id": "4HPwATDgc/ABMA", "level": "fibsbot strong"})
        assert r.status_code == 200 and r.json()["level"].startswith("fibsbot strong, ")
        r = client.post("/evaluate", json={"position_id": "4HPwATDgc/ABMA", "level": NODES})
        assert r.status_code == 422 and "/hint and /cube" in r.text


def test_rollout_refuses_a_think_level(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    assert main(["rollout", "4HPwATDgc/ABMA", "--level", "fibsbot strong", "--trials", "36"]) == 2
    err = capsys.readouterr().err
    assert "thinking-time level" in err and len(err.strip().splitlines()) == 1


def test_the_journal_keeps_the_notes(tmp_path: pathlib.Path) -> None:
    from bot.journal import decode_action, encode_action
    from engine.records import EngineNote

    note = EngineNote("think 300 nodes, 1-ply", 0.25)
    roll = Roll(1, (4, 2), Position.initial().legal_plays(4, 2)[0][0], note=note)
    assert decode_action(yaml.safe_load(yaml.safe_dump(encode_action(roll)))) == roll
    assert decode_action(encode_action(Take(0, note=note))).note == note


def test_a_fixed_level_keeps_its_records_unchanged(tmp_path: pathlib.Path) -> None:
    cfg = BotConfig.model_validate(config(tmp_path).model_dump())
    assert cfg.engine.level_name == "expert" and cfg.engine.playing_level() == "expert"

"""What an operator meets first: the config in the folder, the log level, the shipped examples,
a bot that says it is a program, and one way to choose a level in both config files."""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot import config as bot_config
from bot.cli import main
from bot.config import BotConfig
from bot.run import configure_logging
from bot.tournament import config as tconfig
from bot.tournament.cli import config_path
from bot.yamlconfig import SHIPPED_EXAMPLES, ConfigError, FibsRating, shipped_config

MINE = "account:\n  user: Mine\n"


def test_config_check_reads_the_bot_yaml_of_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(bot_config.ENV_VAR, raising=False)
    (tmp_path / "bot.yaml").write_text(MINE)
    assert main(["config", "check"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("bot.yaml: ok") and "account Mine" in captured.out
    assert "config bot.yaml (./bot.yaml)" in captured.err  # which file is in use, said


def test_then_fibsbot_config_then_the_shipped_defaults_said_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "etc" / "mybot.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(MINE)
    assert bot_config.find(environ={bot_config.ENV_VAR: str(elsewhere)}) == (elsewhere, "$FIBSBOT_CONFIG")
    (tmp_path / "bot.yaml").write_text(MINE)  # the folder's file wins over the variable
    assert bot_config.find(environ={bot_config.ENV_VAR: str(elsewhere)})[0] == Path("bot.yaml")
    (tmp_path / "bot.yaml").unlink()
    path, why = bot_config.find(environ={})
    assert path == bot_config.DEFAULT_PATH and "shipped defaults" in why and "fibsbot init" in why
    monkeypatch.delenv(bot_config.ENV_VAR, raising=False)
    assert main(["run"]) == 2  # the shipped defaults have no account: refused, and said why
    err = capsys.readouterr().err
    assert "shipped defaults" in err and "account.user is empty" in err


def test_log_level_is_info_with_a_log_file(tmp_path: Path) -> None:
    root = logging.getLogger()
    saved = root.level, list(root.handlers)
    try:
        configure_logging(None, tmp_path / "logs" / "fibsbot.log")
        assert root.level == logging.INFO
        configure_logging(None, None)
        assert root.level == logging.WARNING
        configure_logging("DEBUG", tmp_path / "logs" / "fibsbot.log")
        assert root.level == logging.DEBUG
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = saved[1]
        root.setLevel(saved[0])


def test_init_examples_and_the_shipped_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["init", str(tmp_path), "--examples"]) == 0
    for name in ("bot.yaml", "tournament.yaml", *SHIPPED_EXAMPLES):
        assert (tmp_path / name).read_bytes() == shipped_config(name).read_bytes()
        if name != "bot.yaml":
            tconfig.load(tmp_path / name)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    # the README's `fibsbot tournament config/expert-vs-beginner.yaml`, from a folder without it
    path, why = config_path("config/expert-vs-beginner.yaml")
    assert path == shipped_config("expert-vs-beginner.yaml") and why and "shipped example" in why
    assert config_path(None) == (shipped_config("tournament.yaml"), config_path(None)[1])
    (empty / "tournament.yaml").write_text("x")
    assert config_path(None) == (Path("tournament.yaml"), None)
    assert config_path(str(tmp_path / "levels.yaml")) == (tmp_path / "levels.yaml", None)


def test_the_shipped_tournament_file_names_no_checkout_path() -> None:
    for name in ("tournament.yaml", *SHIPPED_EXAMPLES):
        assert "config/" not in shipped_config(name).read_text(), name


def test_a_bot_says_it_is_a_program_by_default() -> None:
    play = BotConfig().play  # a config without play.greeting / play.goodbye
    assert "computer program" in play.greeting.format(opponent="alice", level="expert")
    assert play.goodbye.format(opponent="alice", level="expert")
    shipped = bot_config.load(bot_config.DEFAULT_PATH).play  # the defaults are the shipped file's texts
    assert (play.greeting, play.goodbye) == (shipped.greeting, shipped.goodbye)


def test_the_plot_hint_keeps_its_brackets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from bot.tournament import report

    monkeypatch.setattr(report, "can_plot", lambda: False)
    cfg = tmp_path / "t.yaml"
    cfg.write_text("players:\n  - {name: a, level: beginner}\n  - {name: b, level: beginner}\n"
                   f"matches: 2\noutput: {tmp_path / 'out'}\n")
    assert main(["tournament", str(cfg), "--workers", "1", "--quiet"]) == 0
    assert "pip install 'fibsbot[plot]'" in capsys.readouterr().out


def test_one_level_choice_in_both_files(caplog: pytest.LogCaptureFixture) -> None:
    by_rating = BotConfig.model_validate({"engine": {"level": {"fibs_rating": 1650}}})
    assert by_rating.engine.level_name == "fibs-1650" and by_rating.engine.strength is not None
    assert "FIBS rating 1650" in by_rating.engine.describe_level()
    sparring = BotConfig.model_validate({"local": {"opponent_level": {"fibs_rating": 1200}}}).local.opponent_level
    assert isinstance(sparring, FibsRating) and sparring.fibs_rating == 1200
    player = {"name": "r", "level": {"fibs_rating": 1650}}
    new = tconfig.TournamentConfig.model_validate({"players": [player, {"name": "e", "level": "expert"}]})
    assert new.players[0].build().checker == by_rating.engine.playing_level().checker  # type: ignore[union-attr]
    with caplog.at_level(logging.WARNING):
        old_bot = BotConfig.model_validate({"engine": {"level": "expert", "strength": {"fibs_rating": 1650}}})
        old = tconfig.TournamentConfig.model_validate(
            {"players": [{"name": "r", "fibs_rating": 1650}, {"name": "e", "level": "expert"}]})
    assert old_bot == by_rating and old == new  # the old shapes still load, to the same thing
    notes = [r.getMessage() for r in caplog.records]
    assert any("engine.strength is deprecated" in n for n in notes)
    assert any("players[].fibs_rating is deprecated" in n for n in notes)
    with pytest.raises(ConfigError, match="not both"):
        BotConfig.model_validate({"engine": {"level": "beginner", "strength": {"fibs_rating": 1650}}})
    with pytest.raises(ConfigError, match="engine.level: unknown level"):
        BotConfig.model_validate({"engine": {"level": "foo"}})


def test_the_fingerprint_of_a_rated_player_is_unchanged() -> None:
    # a tournament folder made with `fibs_rating: 1650` (before the level-choice type) was
    # fingerprinted with the player in that shape: the same digest, so that it still resumes
    cfg = tconfig.TournamentConfig.model_validate(
        {"players": [{"name": "r", "level": {"fibs_rating": 1650}}, {"name": "e", "level": "expert"}]})
    fields = cfg.model_dump(mode="json", exclude={"matches", "output", "anchor"})
    fields["players"][0] = {"name": "r", "level": None, "fibs_rating": 1650.0, "checker": None, "cube": None}
    fields["strength_table_noise"] = {"r": cfg.players[0].build().checker.noise}
    assert cfg.fingerprint() == hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]
    assert tconfig.TournamentConfig.model_validate(cfg.model_dump()) == cfg  # round-trips, no note


def test_the_newcomer_walk_from_the_checkout(tmp_path: Path) -> None:
    # CI walks it from the installed wheel (.ci/run); here `fibsbot` is this checkout's code
    root = Path(__file__).resolve().parent.parent
    fibsbot = tmp_path / "fibsbot"
    fibsbot.write_text(f'#!/bin/sh\nPYTHONPATH={root} exec {sys.executable} -m bot.cli "$@"\n')
    fibsbot.chmod(0o755)
    done = subprocess.run([sys.executable, str(root / "tests" / "newcomer.py"), str(fibsbot)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 tracebacks" in done.stdout

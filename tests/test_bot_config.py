"""config/bot.yaml: strict validation, credentials, `fibsbot config check`; the invitation policy."""

from __future__ import annotations

import pathlib

import pytest

from bot import config as bot_config
from bot.cli import main
from bot.config import Account, BotConfig, Invitations
from bot.policy import Inviter, decide
from bot.yamlconfig import ConfigError


def test_the_shipped_config_is_valid_and_documented() -> None:
    cfg = bot_config.load()
    text = bot_config.DEFAULT_PATH.read_text()
    # every key of every section appears in the commented file
    for section in BotConfig.model_fields:
        assert f"\n{section}:" in text
        for key in type(getattr(cfg, section)).model_fields:
            assert f"  {key}:" in text, f"{section}.{key} is not in {bot_config.DEFAULT_PATH}"


@pytest.mark.parametrize("yaml_text, message", [
    ("invitations:\n  max_lenght: 5\n", "invitations.max_lenght: unknown key"),
    ("colour: blue\n", "colour: unknown key"),
    ("engine:\n  level: godlike\n", "engine.level: unknown level 'godlike'"),
    ("invitations:\n  min_length: 9\n  max_length: 5\n", "min_length is above max_length"),
    ("server:\n  client: a_client_name_far_too_long\n", "server.client:"),
    ("account:\n  user: bad-name\n", "account.user: 'bad-name' is not a FIBS name"),
    ("- a list\n", "the top level must be a mapping"),
])
def test_bad_files_name_the_key(tmp_path: pathlib.Path, yaml_text: str, message: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(yaml_text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        bot_config.load(path)
    assert str(path) in str(info.value)


def test_config_check_command(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check"]) == 0
    assert "ok" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("play:\n  greting: hi\n")
    assert main(["config", "check", str(bad)]) == 2
    assert "play.greting: unknown key" in capsys.readouterr().err


def test_password_from_the_environment_or_a_file(tmp_path: pathlib.Path) -> None:
    account = Account(user="GnuBot", password_env="BOT_PW", password_file=tmp_path / "pw")
    assert bot_config.password(account, {"BOT_PW": "s3cret"}) == "s3cret"
    with pytest.raises(ConfigError, match="password file .*pw: No such file"):
        bot_config.password(account, {})
    with pytest.raises(ConfigError, match=r"no password for GnuBot: set \$BOT_PW$"):
        bot_config.password(Account(user="GnuBot", password_env="BOT_PW"), {"OTHER": "s3cret"})
    (tmp_path / "pw").write_text("from-file\n")
    assert bot_config.password(account, {}) == "from-file"
    (tmp_path / "pw").write_text("two words\n")
    with pytest.raises(ConfigError, match="blanks"):
        bot_config.password(account, {})


def test_policy_reasons() -> None:
    rules = Invitations(min_length=3, max_length=5, min_experience=100, max_saved=2, allow=["alice", "bob"])
    known = {"rating": 1500.0, "experience": 200, "saved_count": 0}
    assert decide(rules, Inviter("carol", 3, **known)).reason == "not_allowed"  # type: ignore[arg-type]
    assert decide(rules, Inviter("bob", 1, **known)).reason == "too_short"  # type: ignore[arg-type]
    assert decide(rules, Inviter("bob", 0, **known)).reason == "unlimited"  # type: ignore[arg-type]
    assert decide(rules, Inviter("bob", 3, 1500.0, 50, 0)).reason == "experience_low"
    assert decide(rules, Inviter("bob", 3, 1500.0, None, 0)).reason == "experience_unknown"
    assert decide(rules, Inviter("bob", 3, 1500.0, 200, None)).reason == "saved_unknown"
    assert decide(rules, Inviter("bob", 3, 1500.0, 200, 3)).reason == "dropper"
    assert decide(rules, Inviter("BOB", 3, **known)).accept  # type: ignore[arg-type]
    assert decide(rules, Inviter("carol", None)).reason == "resume"
    assert decide(rules, Inviter("bob", 3, **known), paused=True).reason == "paused"  # type: ignore[arg-type]

"""The bot's settings: config/bot.yaml validated strictly (pydantic v2).

Every section forbids unknown keys, so a typo is an error naming the key
instead of a silently ignored setting. The password is never part of the
file's values: it comes from an environment variable or a file named in
``account`` and is read only by :func:`password`.

>>> cfg = BotConfig.model_validate({"account": {"user": "GnuBot"}})
>>> cfg.invitations.max_length, cfg.engine.level
(7, 'expert')
>>> BotConfig.model_validate({"invitations": {"max_lenght": 5}})
Traceback (most recent call last):
...
bot.yamlconfig.ConfigError: invitations.max_lenght: unknown key
"""

from __future__ import annotations

import os
import re
import string
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from bot.yamlconfig import (
    ConfigError,
    FibsRating,
    LevelChoice,
    StrictSection,
    choice_name,
    deprecated_key,
    describe_choice,
    load_yaml,
    playing_level,
    shipped_config,
)
from engine.levels import Level, Think

DEFAULT_PATH = shipped_config("bot.yaml")
"""The shipped, commented defaults (what ``fibsbot init`` copies out)."""
ENV_VAR = "FIBSBOT_CONFIG"
LOCAL_NAME = "bot.yaml"
GREETING = ("Hi {opponent}, I am a computer program (fibsbot, level {level}). Good luck! "
            "If I stop responding, kibitz 'move'.")
GOODBYE = "Thanks for the match, {opponent}."

_NAME = re.compile(r"[A-Za-z_]{1,40}")  # FIBS names: letters and underscores


def _fibs_name(value: str) -> str:
    if value and not _NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a FIBS name (letters and underscores only)")
    return value


def _client(value: str) -> str:
    if not re.fullmatch(r"[!-~]{1,20}", value):
        raise ValueError(f"{value!r} must be 1-20 printable characters without blanks (FIBS refuses longer)")
    return value


def _word(value: str) -> str:
    if not re.fullmatch(r"[!-~]{1,100}", value):
        raise ValueError(f"{value!r} must be one word of printable characters")
    return value


def _template(value: str) -> str:
    for _, name, _, _ in string.Formatter().parse(value):
        if name is not None and name not in TEMPLATE_FIELDS:
            raise ValueError(f"unknown placeholder {{{name}}}; use {', '.join(f'{{{f}}}' for f in TEMPLATE_FIELDS)}")
    return value


TEMPLATE_FIELDS = ("opponent", "level")
FibsName = Annotated[str, AfterValidator(_fibs_name)]
Template = Annotated[str, AfterValidator(_template)]
Seconds = Annotated[float, Field(ge=0)]


class Server(StrictSection):
    host: str = "fibs.com"
    port: Annotated[int, Field(ge=0, le=65535)] = 4321
    client: Annotated[str, AfterValidator(_client)] = "fibsbot"


class Account(StrictSection):
    user: FibsName = ""
    password_env: str = "FIBSBOT_PASSWORD"
    password_file: Path | None = None
    address: Annotated[str, AfterValidator(_word)] | None = None


class EngineSettings(StrictSection):
    level: LevelChoice = "expert"  # a level's name, {fibs_rating: 1650}, {think: 1.5} or "fibsbot strong"
    data_dir: Path | None = None
    deadline_s: Annotated[float, Field(gt=0)] = 60.0
    think_time_s: tuple[Seconds, Seconds] = (0.0, 0.0)

    @model_validator(mode="before")
    @classmethod
    def _old_strength(cls, data: Any) -> Any:
        # the old shape: `strength: {fibs_rating: 1650}` beside `level`
        return deprecated_key(data, "strength", "engine.", "{fibs_rating: R}", default="expert")

    @model_validator(mode="after")
    def _ordered(self) -> EngineSettings:
        if self.think_time_s[0] > self.think_time_s[1]:
            raise ValueError("think_time_s is [min, max] with min <= max")
        budget = self.playing_level()
        timed = isinstance(budget, Think) and budget.mode == "time"
        if isinstance(budget, Think) and timed and budget.budget * (1 + budget.margin) >= self.deadline_s:
            raise ValueError(f"a thinking budget of {budget.budget:g}s does not fit deadline_s ({self.deadline_s:g})")
        return self

    @property
    def strength(self) -> FibsRating | None:
        """The FIBS rating played at, if the level is chosen by rating."""
        return self.level if isinstance(self.level, FibsRating) else None

    @property
    def level_name(self) -> str:
        """The level's name, or ``fibs-RATING`` when playing by strength."""
        return choice_name(self.level)

    def playing_level(self) -> str | Level | Think:
        """What the engine plays: the level, the setting chosen for the FIBS rating, or a
        thinking budget (:class:`engine.levels.Think`)."""
        return playing_level(self.level)

    def describe_level(self) -> str:
        """The level in words (``tell level``, the startup log)."""
        return describe_choice(self.level)


class Connection(StrictSection):
    connect_timeout_s: Annotated[float, Field(gt=0)] = 20.0
    backoff_min_s: Annotated[float, Field(gt=0)] = 1.0
    backoff_max_s: Annotated[float, Field(gt=0)] = 300.0
    silence_s: Annotated[float, Field(gt=0)] = 180.0
    probe_timeout_s: Annotated[float, Field(gt=0)] = 30.0
    keepalive_s: Annotated[float, Field(gt=0)] = 1800.0


class Invitations(StrictSection):
    min_length: Annotated[int, Field(ge=1)] = 1
    max_length: Annotated[int, Field(ge=1)] = 7
    unlimited: bool = False
    min_rating: float | None = None
    max_rating: float | None = None
    min_experience: Annotated[int, Field(ge=0)] = 0
    max_experience: int | None = None
    max_saved: Annotated[int | None, Field(ge=0)] = 5
    block: list[FibsName] = []
    allow: list[FibsName] = []
    tell_reason: bool = True
    tell_interval_s: Seconds = 60.0
    screen_timeout_s: Annotated[float, Field(gt=0)] = 10.0
    unanswered: Literal["join", "decline"] = "join"
    """What an invitation gets when the server leaves a question about the inviter unanswered."""

    @model_validator(mode="after")
    def _ordered(self) -> Invitations:
        if self.min_length > self.max_length:
            raise ValueError("min_length is above max_length")
        return self


class Play(StrictSection):
    offer_resignations: bool = True
    greeting: Template = GREETING  # a bot on FIBS says it is a program (as the shipped file); "" = say nothing
    goodbye: Template = GOODBYE
    silent: bool = True
    drain: Literal["finish", "save"] = "finish"
    drain_timeout_s: Seconds = 900.0


class Tells(StrictSection):
    operators: list[FibsName] = []
    help: str = "I am a backgammon program. Invite me to a match; 'tell {name} version' or 'level' tells more."
    interval_s: Seconds = 10.0


class Records(StrictSection):
    dir: Path = Path("records")
    transcript: str = "logs/transcript-{user}.log"
    transcript_max_bytes: Annotated[int, Field(ge=1024)] = 10_000_000
    transcript_backups: Annotated[int, Field(ge=0)] = 5
    ledger: Path = Path("logs/ledger.jsonl")


class Local(StrictSection):
    port: Annotated[int, Field(ge=0, le=65535)] = 0
    length: Annotated[int, Field(ge=1)] = 3
    opponent: FibsName = "sparring"
    opponent_level: LevelChoice = "beginner"  # as engine.level: a name, {fibs_rating: R} or {think: S}
    timeout_s: Annotated[float, Field(gt=0)] = 1800.0


class Status(StrictSection):
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8130


class Store(StrictSection):
    url: str = ""
    """The database every match goes to as well (bot.store): empty = ``sqlite:///`` the file
    fibsbot.db in records.dir; ``postgresql://USER@HOST/DB`` (``${NAME}`` parts from the
    environment); ``off``."""

    @field_validator("url", mode="before")
    @classmethod
    def _off(cls, value: object) -> object:
        return "off" if value is False else value  # YAML reads a bare off as false


class BotConfig(StrictSection):
    server: Server = Server()
    account: Account = Account()
    engine: EngineSettings = EngineSettings()
    connection: Connection = Connection()
    invitations: Invitations = Invitations()
    play: Play = Play()
    tell: Tells = Tells()
    records: Records = Records()
    local: Local = Local()
    status: Status = Status()
    store: Store = Store()

    @field_validator("store", mode="before")
    @classmethod
    def _store_url(cls, value: object) -> object:
        if isinstance(value, str) or value is False:  # ``store: URL`` is short for ``store: {url: URL}``
            return {"url": value}
        return value


def load(path: str | os.PathLike[str] = DEFAULT_PATH) -> BotConfig:
    """Read and validate a YAML config; ConfigError names the file and the key."""
    return load_yaml(path, BotConfig)


def find(path: Path | None = None, environ: dict[str, str] | None = None,
         folder: Path | None = None) -> tuple[Path, str]:
    """The config to use and why: ``path`` if given, else ./bot.yaml, else $FIBSBOT_CONFIG,
    else the shipped defaults (said so: they have no account).

    >>> find(Path("mine.yaml"))
    (PosixPath('mine.yaml'), 'given')
    """
    env = os.environ if environ is None else environ
    if path is not None:
        return path, "given"
    local = (folder or Path(".")) / LOCAL_NAME
    if local.is_file():
        return local, f"./{LOCAL_NAME}"
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR]), f"${ENV_VAR}"
    return DEFAULT_PATH, (f"the shipped defaults: no ./{LOCAL_NAME} and ${ENV_VAR} unset; "
                          f"`fibsbot init` writes a {LOCAL_NAME} here to edit")


def password(account: Account, environ: dict[str, str] | None = None) -> str:
    """The account's password: the environment variable wins, then the file.

    ConfigError if neither gives one (the message never contains a password).
    """
    env = os.environ if environ is None else environ
    value = env.get(account.password_env, "")
    if not value and account.password_file is not None:
        try:
            value = account.password_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"password file {account.password_file}: {exc.strerror}") from None
        except UnicodeDecodeError:  # no byte or offset in the message: they are part of a password
            raise ConfigError(f"password file {account.password_file}: not UTF-8 text") from None
    if not value:
        where = f"${account.password_env}" + (f" or {account.password_file}" if account.password_file else "")
        raise ConfigError(f"no password for {account.user or 'the account'}: set {where}")
    if any(c.isspace() for c in value):
        raise ConfigError("the password contains blanks, which FIBS logins cannot carry")
    return value

"""Strict YAML settings shared by the bot and tournament configs: unknown keys
are errors, and every error names the file and the key.

Both files choose a level with one type, :data:`LevelChoice`: a gnubg level's
name, a FIBS rating that the shipped strength table turns into a setting, or a
thinking budget per decision (``{think: 1.5}``, or the named ``fibsbot strong``).

>>> class Section(StrictSection):
...     level: LevelChoice = "expert"
>>> Section.model_validate({"level": "World Class"}).level
'world class'
>>> choice = Section.model_validate({"level": {"fibs_rating": 1650}}).level
>>> choice_name(choice), choose_level(choice).name
('fibs-1650', 'fibs-1650')
>>> choice = Section.model_validate({"level": {"think": 300, "think_mode": "nodes"}}).level
>>> choice_name(choice), playing_level(choice).budget
('think 300 nodes', 300.0)
>>> playing_level(Section.model_validate({"level": "Fibsbot Strong"}).level).label
'fibsbot strong'
"""

from __future__ import annotations

import importlib.resources
import logging
import os
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    model_validator,
)

from engine.levels import LEVEL_NAMES, THINK_LEVELS, Level, Think, is_think_level, think_level
from engine.levels import level as _level
from engine.strength import Strength, level_for_rating, strength_for_rating

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and key."""


def shipped_config(name: str) -> Path:
    """A default config shipped with the package (the checkout's ``config/`` folder).

    >>> shipped_config("bot.yaml").name
    'bot.yaml'
    """
    checkout = Path(__file__).resolve().parent.parent  # running from a source checkout: its config/
    if (checkout / "pyproject.toml").is_file() and (checkout / "config" / name).is_file():
        return checkout / "config" / name
    return Path(str(importlib.resources.files("bot.defaults") / name))


SHIPPED_EXAMPLES = ("expert-vs-beginner.yaml", "levels.yaml", "close-levels.yaml")
"""The example tournament configs shipped beside bot.yaml and tournament.yaml."""


def shipped_instead(path: str | os.PathLike[str]) -> Path | None:
    """The shipped config of that name when ``path`` does not exist (``config/levels.yaml``
    as the README writes it, from a folder without it); None otherwise."""
    given = Path(path)
    if given.exists() or given.suffix != ".yaml":
        return None
    shipped = shipped_config(given.name)
    return shipped if shipped.is_file() else None


def _level_name(value: str) -> str:
    if is_think_level(value):
        return think_level(value).label  # a named thinking-time level ("fibsbot strong")
    try:
        return _level(value).name
    except ValueError:
        raise ValueError(f"unknown level {value!r}; valid levels: {', '.join((*LEVEL_NAMES, *THINK_LEVELS))}, "
                         "or {think: SECONDS}") from None


LevelName = Annotated[str, AfterValidator(_level_name)]


class StrictSection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate, turning pydantic's report into a ConfigError naming each bad key."""
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise ConfigError(describe(exc)) from None


class FibsRating(StrictSection):
    """Play at a FIBS rating: the setting comes from the shipped strength table."""

    fibs_rating: float

    @model_validator(mode="after")
    def _covered(self) -> FibsRating:
        self.chosen()  # a rating the table does not cover is an error naming the range
        return self

    def chosen(self) -> Strength:
        return strength_for_rating(self.fibs_rating)


class ThinkBudget(StrictSection):
    """Play at a thinking budget per decision: the deepest gnubg search that fits
    (:mod:`engine.think`). ``think``: seconds, or search nodes with ``think_mode: nodes``
    (repeatable: tests and benchmarks)."""

    think: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    think_mode: Literal["time", "nodes"] = "time"

    def chosen(self) -> Think:
        return think_level({"think": self.think, "think_mode": self.think_mode})


def _choice_kind(value: Any) -> str:
    if isinstance(value, ThinkBudget) or (isinstance(value, dict) and "think" in value):
        return _THINK
    return _RATING if isinstance(value, (dict, FibsRating)) else _NAME


_NAME, _RATING, _THINK = "(level name)", "(fibs rating)", "(think budget)"  # union tags, left out of error reports
LevelChoice = Annotated[Annotated[LevelName, Tag(_NAME)] | Annotated[FibsRating, Tag(_RATING)]
                        | Annotated[ThinkBudget, Tag(_THINK)], Discriminator(_choice_kind)]
"""A level in a config: a gnubg level's name (``expert``), a thinking-time level's
name (``fibsbot strong``), ``{fibs_rating: 1650}`` or ``{think: 1.5}``."""


def choice_name(choice: LevelChoice) -> str:
    """The level's name, ``fibs-RATING``, or ``think 1.5s``."""
    if isinstance(choice, str):
        return choice
    if isinstance(choice, ThinkBudget):
        return choice.chosen().label
    return f"fibs-{choice.fibs_rating:g}"


def is_think_choice(choice: LevelChoice) -> bool:
    """Whether the choice is a thinking-time level (a budget, or a named one)."""
    return isinstance(choice, ThinkBudget) or (isinstance(choice, str) and is_think_level(choice))


def playing_level(choice: LevelChoice) -> str | Level | Think:
    """What the engine plays: a gnubg level's name, the setting of a FIBS rating, or a
    :class:`engine.levels.Think` (played by :mod:`engine.think`)."""
    if isinstance(choice, ThinkBudget):
        return choice.chosen()
    if isinstance(choice, str):
        return think_level(choice) if is_think_level(choice) else choice
    return level_for_rating(choice.fibs_rating, choice_name(choice))


def choose_level(choice: LevelChoice) -> Level:
    """The fixed-depth engine level a choice plays at (ValueError for a thinking-time level)."""
    if is_think_choice(choice):
        raise ValueError(f"{choice_name(choice)} is a thinking-time level, not a fixed-depth one")
    if isinstance(choice, str):
        return _level(choice)
    assert isinstance(choice, FibsRating)
    return level_for_rating(choice.fibs_rating, choice_name(choice))


def describe_choice(choice: LevelChoice) -> str:
    """The level in words (``tell level``, the startup log)."""
    if is_think_choice(choice):
        think = playing_level(choice)
        assert isinstance(think, Think)
        unit = "s" if think.mode == "time" else " search nodes"
        rolled = ""
        if think.settle is not None:
            what = "close plays and cube decisions" if think.settle.cubes else "close plays"
            rolled = f", then its {what} rolled out ({think.settle.truncate or 'full'}-ply trials)"
        return (f"{think.label}: the deepest gnubg search (up to {think.max_plies}-ply) that fits "
                f"{think.budget:g}{unit} per decision{rolled}")
    if isinstance(choice, str):
        return f"gnubg's {choice} level"
    assert isinstance(choice, FibsRating)
    return f"FIBS rating {choice.fibs_rating:g}, {choice.chosen().describe()}"


def deprecated_key(data: Any, old: str, where: str, new_shape: str, default: str | None = None) -> Any:
    """Move an old key's value into ``level`` (the old shapes still load), with a note in the log;
    a ``level`` other than ``default`` beside it is an error."""
    if not isinstance(data, dict) or data.get(old) is None:
        return data
    data = dict(data)
    value = data.pop(old)
    if data.get("level") not in (None, default):
        raise ValueError(f"give {where}level or {where}{old}, not both")
    data["level"] = value if isinstance(value, dict) else {"fibs_rating": value}
    log.warning("%s%s is deprecated (it still loads): write %slevel: %s", where, old, where, new_shape)
    return data


def describe(exc: ValidationError) -> str:
    """pydantic's report as one line: ``key.path: problem; ...``."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"] if part not in (_NAME, _RATING, _THINK)) or "(top)"
        text = error["msg"]
        if error["type"] == "extra_forbidden":
            text = "unknown key"
        elif error["type"] == "value_error":
            text = str(error.get("ctx", {}).get("error", text))
        problems.append(f"{where}: {text}")
    return "; ".join(problems)


Model = TypeVar("Model", bound=StrictSection)


def load_yaml(path: str | os.PathLike[str], model: type[Model]) -> Model:
    """Read ``path`` and validate it as ``model``; ConfigError names the file and key."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise ConfigError(f"{path}: not UTF-8 text (byte 0x{byte:02x} at offset {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    try:
        return model.model_validate(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None

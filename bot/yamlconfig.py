"""Strict YAML settings shared by the bot and tournament configs: unknown keys
are errors, and every error names the file and the key.

Both files choose a level with one type, :data:`LevelChoice`: a gnubg level's
name, or a FIBS rating that the shipped strength table turns into a setting.

>>> class Section(StrictSection):
...     level: LevelChoice = "expert"
>>> Section.model_validate({"level": "World Class"}).level
'world class'
>>> choice = Section.model_validate({"level": {"fibs_rating": 1650}}).level
>>> choice_name(choice), choose_level(choice).name
('fibs-1650', 'fibs-1650')
"""

from __future__ import annotations

import importlib.resources
import logging
import os
from pathlib import Path
from typing import Annotated, Any, Self, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Tag,
    ValidationError,
    model_validator,
)

from engine.levels import Level
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
    return _level(value).name  # ValueError lists the valid names


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


def _choice_kind(value: Any) -> str:
    return _RATING if isinstance(value, (dict, FibsRating)) else _NAME


_NAME, _RATING = "(level name)", "(fibs rating)"  # union tags, left out of error reports
LevelChoice = Annotated[Annotated[LevelName, Tag(_NAME)] | Annotated[FibsRating, Tag(_RATING)],
                        Discriminator(_choice_kind)]
"""A level in a config: a gnubg level's name (``expert``), or ``{fibs_rating: 1650}``."""


def choice_name(choice: LevelChoice) -> str:
    """The level's name, or ``fibs-RATING``."""
    return choice if isinstance(choice, str) else f"fibs-{choice.fibs_rating:g}"


def choose_level(choice: LevelChoice) -> Level:
    """The engine level a choice plays at."""
    if isinstance(choice, str):
        return _level(choice)
    return level_for_rating(choice.fibs_rating, choice_name(choice))


def describe_choice(choice: LevelChoice) -> str:
    """The level in words (``tell level``, the startup log)."""
    if isinstance(choice, str):
        return f"gnubg's {choice} level"
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
        where = ".".join(str(part) for part in error["loc"] if part not in (_NAME, _RATING)) or "(top)"
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

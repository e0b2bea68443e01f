"""Strict YAML settings shared by the bot and tournament configs: unknown keys
are errors, and every error names the file and the key."""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path
from typing import Annotated, Any, Self, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from engine.levels import level as _level


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and key."""


def shipped_config(name: str) -> Path:
    """A default config shipped with the package (the checkout's ``config/`` folder).

    >>> shipped_config("bot.yaml").name
    'bot.yaml'
    """
    return Path(str(importlib.resources.files("bot.defaults") / name))


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


def describe(exc: ValidationError) -> str:
    """pydantic's report as one line: ``key.path: problem; ...``."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(top)"
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

"""Tournament settings: config/tournament.yaml validated strictly (pydantic v2).

Unknown keys are errors naming the key. A player is a gnubg level, or a level
with its chequer-play / cube contexts changed (fields of
:class:`engine.levels.EvalSettings`).

>>> cfg = TournamentConfig.model_validate({"players": [
...     {"name": "expert", "level": "expert"},
...     {"name": "fast", "checker": {"plies": 1, "move_filter": "tiny", "prune": True}}]})
>>> cfg.players[1].build().checker.plies, cfg.match_length, cfg.format
(1, 1, 'round robin')
>>> TournamentConfig.model_validate({"players": [{"name": "a", "level": "expert", "plys": 2}]})
Traceback (most recent call last):
...
bot.yamlconfig.ConfigError: players.0.plys: unknown key
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from bot.yamlconfig import (
    FibsRating,
    LevelChoice,
    LevelName,
    StrictSection,
    choose_level,
    deprecated_key,
    is_think_choice,
    load_yaml,
    playing_level,
    shipped_config,
)
from engine.levels import FILTER_NAMES, EvalSettings, Level, Think

DEFAULT_PATH = shipped_config("tournament.yaml")

_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,40}")  # used in file names


def _player_name(value: str) -> str:
    if not _NAME.fullmatch(value):
        raise ValueError(f"{value!r}: names are 1-40 letters, digits or _ . + -")
    return value


def _filter_name(value: str) -> str:
    if value.strip().lower() not in FILTER_NAMES:
        raise ValueError(f"unknown move filter {value!r}; valid: {', '.join(FILTER_NAMES)}")
    return value.strip().lower()


class Context(StrictSection):
    """Changes to an evaluation context; unset fields keep the base level's."""

    plies: Annotated[int, Field(ge=0, le=4)] | None = None
    move_filter: Annotated[str, AfterValidator(_filter_name)] | None = None
    noise: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    deterministic: bool | None = None
    prune: bool | None = None
    cubeful: bool | None = None

    def apply(self, base: EvalSettings) -> EvalSettings:
        return base.with_(**self.model_dump(exclude_none=True))


class Player(StrictSection):
    name: Annotated[str, AfterValidator(_player_name)]
    level: LevelChoice | None = None  # a level's name, {fibs_rating: 1650} or {think: S}; default expert
    checker: Context | None = None
    cube: Context | None = None

    @model_validator(mode="before")
    @classmethod
    def _old_rating(cls, data: Any) -> Any:
        # the old shape: `fibs_rating: 1650` beside the name
        return deprecated_key(data, "fibs_rating", "players[].", "{fibs_rating: R}")

    @model_validator(mode="after")
    def _something(self) -> Player:
        if self.level is None and self.checker is None and self.cube is None:
            raise ValueError("give a level (a name or {fibs_rating: R}), or checker/cube settings (on top of expert)")
        if self.level is not None and is_think_choice(self.level) and (self.checker or self.cube):
            raise ValueError("a thinking-time level chooses its own depth: give no checker/cube settings with it")
        return self

    def _base(self) -> Level:
        return choose_level(self.level or "expert")

    def plays(self) -> Level | Think:
        """What this player plays: :meth:`build`, or a thinking-time level (engine/think.py)."""
        if self.level is not None and is_think_choice(self.level):
            think = playing_level(self.level)
            assert isinstance(think, Think)
            return think
        return self.build()

    def build(self) -> Level:
        """The fixed-depth engine level this player plays at (labelled with the player's name;
        ValueError for a thinking-time level: see :meth:`plays`)."""
        base = self._base()
        checker = self.checker.apply(base.checker) if self.checker else base.checker
        cube = self.cube.apply(base.cube) if self.cube else base.cube
        return Level(name=self.name, label="custom" if self.checker or self.cube else base.label,
                     checker=checker, cube=cube)


class Rules(StrictSection):
    crawford: bool = True
    jacoby: bool = True  # money only
    beavers: bool = True  # money only
    resignations: bool = True  # players offer and answer resignations as gnubg's bot


class Anchor(StrictSection):
    player: str | None = None  # default: the first player
    rating: float = 1500.0


class TournamentConfig(StrictSection):
    players: Annotated[list[Player], Field(min_length=2)]
    format: Literal["round robin", "gauntlet", "self play"] = "round robin"
    gauntlet_player: str | None = None  # default: the first player
    match_length: Annotated[int, Field(ge=0, le=64)] = 1  # 0 = money sessions
    games: Annotated[int, Field(ge=1)] = 1  # games per money session
    matches: Annotated[int, Field(ge=1)] = 10  # per pairing
    duplicate_dice: bool = False
    seed: Annotated[int, Field(ge=0)] = 1
    output: Path = Path("tournaments/default")
    rules: Rules = Rules()
    anchor: Anchor = Anchor()
    analysis_level: LevelName | None = None

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        names = [p.name for p in self.players]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"player names must be unique: {', '.join(duplicates)}")
        for key, name in (("gauntlet_player", self.gauntlet_player), ("anchor.player", self.anchor.player)):
            if name is not None and name not in names:
                raise ValueError(f"{key}: {name!r} is not one of the players")
        if self.duplicate_dice and self.format == "self play":
            raise ValueError("duplicate_dice swaps seats, which changes nothing in self play: turn it off")
        if self.duplicate_dice and self.matches % 2:
            raise ValueError("duplicate_dice plays matches in pairs: make matches even")
        return self

    @property
    def money(self) -> bool:
        return self.match_length == 0

    @property
    def anchor_player(self) -> str:
        return self.anchor.player or self.players[0].name

    def fingerprint(self) -> str:
        """A digest of everything that decides match results (not their number or
        the output folder), so a rerun may add matches but not change the rules."""
        fields = self.model_dump(mode="json", exclude={"matches", "output", "anchor"})
        for player in fields["players"]:  # a rated player in the shape folders were fingerprinted with
            if isinstance(player["level"], dict) and "fibs_rating" in player["level"]:
                player["level"], player["fibs_rating"] = None, player["level"]["fibs_rating"]
        rated = {p.name: p.build().checker.noise for p in self.players if isinstance(p.level, FibsRating)}
        if rated:  # what they play comes from the strength table, which a release may change
            fields["strength_table_noise"] = rated
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def load(path: str | os.PathLike[str] = DEFAULT_PATH) -> TournamentConfig:
    """Read and validate a tournament YAML file; ConfigError names the file and key."""
    return load_yaml(path, TournamentConfig)

"""Reading gnubg's position and match IDs, XGIDs and dice from the command line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.levels import Level
    from engine.match import MatchState
    from engine.position import Position


def parse_gnubg_id(text: str) -> tuple[Position, MatchState | None]:
    """Accept ``POSITIONID``, gnubg's ``POSITIONID:MATCHID``, or an ``XGID=...``."""
    from engine.match import MatchState
    from engine.position import Position

    if text.strip().startswith("XGID="):
        from engine.xgid import from_xgid

        return from_xgid(text)
    pid, _, mid = text.strip().partition(":")
    return Position.from_position_id(pid), MatchState.from_match_id(mid) if mid else None


def parse_dice(text: str) -> tuple[int, int]:
    """``31`` -> (3, 1); argparse's type for ``--dice``."""
    if len(text) != 2 or not all(c in "123456" for c in text):
        raise argparse.ArgumentTypeError(f"dice are two digits 1-6 such as 31, got {text!r}")
    return int(text[0]), int(text[1])


def level_named(name: str, option: str = "--level") -> Level:
    """The gnubg level called ``name``; a CommandError listing the valid names otherwise."""
    from bot.cli.errors import CommandError
    from engine.levels import level

    try:
        return level(name)
    except ValueError as exc:
        raise CommandError(f"{option}: {exc}") from None

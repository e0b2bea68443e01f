"""Writing a match record into the store: only what the database lacks, in one transaction.

The keys come from the record itself: a match is its file's name, a game its number,
an action its index in the game. Writing the same record twice, or a longer version of
it (the journal replayed after a ``kill -9``), adds each action exactly once; the
unique constraints catch a second writer racing this one.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, Connection, case, func, insert, or_, select, update

from bot.store import rows
from bot.store.schema import actions, games, matches, players
from engine.records import MatchRecord

Times = Mapping[tuple[int, int], tuple[datetime.datetime, float | None]]
"""When each action (game number, index) was journalled, and the seconds it took."""


@dataclass
class MatchInfo:
    """What the record does not say: known live, or from the ledger."""

    us_name: str | None = None
    server: str | None = None
    level: str | None = None
    settings: dict[str, Any] | None = None
    started: datetime.datetime | None = None
    ended: datetime.datetime | None = None
    saved: bool = False
    record_hash: str | None = None
    key: str | None = None  # default: the record file's name
    times: Times = field(default_factory=dict)


def player_id(conn: Connection, server: str, name: str, seen: datetime.datetime | None) -> int:
    found = conn.execute(select(players.c.id, players.c.first_seen).where(
        players.c.server == server, players.c.name == name)).first()
    if found is None:
        result = conn.execute(insert(players).values(server=server, name=name, first_seen=seen, last_seen=seen))
        return int(result.inserted_primary_key[0])  # type: ignore[index]
    if seen is not None:
        conn.execute(update(players).where(players.c.id == found.id).values(last_seen=_later(seen)))
    return int(found.id)


def _later(seen: datetime.datetime) -> ColumnElement[Any]:
    """The later of the player's ``last_seen`` and ``seen`` (SQL, the same on both backends)."""
    return case((or_(players.c.last_seen.is_(None), players.c.last_seen < seen), seen),
                else_=players.c.last_seen)


def _started(record: MatchRecord, info: MatchInfo) -> datetime.datetime | None:
    if info.started is not None:
        return info.started
    return datetime.datetime.combine(record.date, datetime.time()) if record.date else None


def write_record(conn: Connection, record: MatchRecord, path: Path, info: MatchInfo) -> tuple[int, int]:
    """Add to the store what it lacks of ``record`` (file ``path``): the match's id and
    the number of actions written."""
    key = info.key or path.name
    us = rows.us_of(record, info.us_name)
    ours, theirs = rows.points(record, us)
    state: dict[str, Any] = {"points_us": ours, "points_them": theirs, "result": rows.result(record, us),
             "ending": rows.ending(record, info.saved), "length": record.length, "crawford": record.crawford,
             "record_path": str(path.resolve())}
    if info.ended is not None:
        state["ended"] = info.ended
    if info.record_hash is not None:
        state["record_hash"] = info.record_hash
    found = conn.execute(select(matches.c.id, matches.c.level).where(matches.c.key == key)).first()
    if found is None:
        server = info.server if info.server is not None else record.place
        started = _started(record, info)
        opponent = player_id(conn, server, record.players[1 - us], started)
        match_id = int(conn.execute(insert(matches).values(
            key=key, server=server, us_name=record.players[us], opponent_id=opponent, us=us, level=info.level,
            settings=json.dumps(info.settings, sort_keys=True) if info.settings is not None else None,
            started=started, **state)).inserted_primary_key[0])  # type: ignore[index]
    else:
        match_id = int(found.id)
        if info.level is not None and found.level is None:
            state["level"] = info.level
            state["settings"] = json.dumps(info.settings, sort_keys=True) if info.settings is not None else None
        conn.execute(update(matches).where(matches.c.id == match_id).values(**state))
    have = {r.number: (r.id, r.winner, r.points, r.cube, r.cube_history) for r in conn.execute(
        select(games.c.number, games.c.id, games.c.winner, games.c.points, games.c.cube, games.c.cube_history)
        .where(games.c.match_id == match_id))}
    counts: dict[int, int] = dict(conn.execute(
        select(actions.c.game_id, func.count()).join(games, games.c.id == actions.c.game_id)
        .where(games.c.match_id == match_id).group_by(actions.c.game_id)).all())
    new_actions: list[dict[str, Any]] = []
    for number, game in enumerate(record.games, 1):
        row = rows.game_row(game, number)
        if number not in have:
            game_id = int(conn.execute(insert(games).values(match_id=match_id, **row))
                          .inserted_primary_key[0])  # type: ignore[index]
            start = 0
        else:
            game_id, winner, points, cube, history = have[number]
            start = counts.get(game_id, 0)
            if (winner, points, cube, history) != (row["winner"], row["points"], row["cube"], row["cube_history"]):
                conn.execute(update(games).where(games.c.id == game_id).values(**row))
        if start >= len(game.actions):
            continue
        for action in rows.action_rows(record, game, start):
            at, seconds = info.times.get((number, action["idx"]), (None, None))
            new_actions.append({**action, "game_id": game_id, "at": at, "seconds": seconds})
    if new_actions:
        conn.execute(insert(actions), new_actions)
    return match_id, len(new_actions)


def apply_ledger(conn: Connection, entry: Mapping[str, Any]) -> bool:
    """A ledger line's facts (ratings, end time, a saved match) on its match; False if
    the store does not hold the match (yet)."""
    record = entry.get("record")
    if not record:
        return False
    key = Path(str(record)).name
    found = conn.execute(select(matches.c.id, matches.c.opponent_id).where(matches.c.key == key)).first()
    if found is None:
        return False
    _opponent_rating(conn, found.opponent_id, entry)
    values: dict[str, Any] = {}
    for name in ("rating_before", "rating_after"):
        if isinstance(entry.get(name), int | float):
            values[name] = float(entry[name])
    when = parse_time(entry.get("time"))
    if when is not None:
        values["ended"] = when
    if entry.get("result") == "saved":
        values["ending"] = "saved"
    if values:
        conn.execute(update(matches).where(matches.c.id == found.id).values(**values))
    return True


def _opponent_rating(conn: Connection, player: int, entry: Mapping[str, Any]) -> None:
    """The opponent's rating and experience in a ledger line become the player's last
    known ones, unless the store knows the player from a later time (ledgers imported
    out of order)."""
    rating, experience = entry.get("opponent_rating"), entry.get("opponent_experience")
    values: dict[str, Any] = {}
    if isinstance(rating, int | float) and not isinstance(rating, bool):
        values["rating"] = float(rating)
    if isinstance(experience, int) and not isinstance(experience, bool) and experience >= 0:
        values["experience"] = experience
    if not values:
        return
    query = update(players).where(players.c.id == player)
    when = parse_time(entry.get("time"))
    if when is not None:
        # a ledger's time has whole seconds: a match started in the same second is not later
        query = query.where(or_(players.c.last_seen.is_(None),
                                players.c.last_seen < when + datetime.timedelta(seconds=1)))
        values["last_seen"] = _later(when)
    conn.execute(query.values(**values))


def parse_time(text: object) -> datetime.datetime | None:
    """A ledger time (``%Y-%m-%dT%H:%M:%S%z``) as naive local time; None if unreadable."""
    if not isinstance(text, str):
        return None
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.astimezone().replace(tzinfo=None) if when.tzinfo else when

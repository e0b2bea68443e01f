"""``fibsbot stats``: what the store says about the bot's matches.

The selection is made in SQL; the sums in Python with :func:`math.fsum` over rows in
a fixed order, so that SQLite and PostgreSQL give identical answers.
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

from sqlalchemy import Connection, func, select

from bot.store.errors import StoreError
from bot.store.schema import actions, decisions, games, matches, players, statistics
from bot.store.store import open_store

Z95 = 1.959963984540054
_SINCE = re.compile(r"(\d+)([hdw])")


def parse_since(text: str, now: datetime.datetime | None = None) -> datetime.datetime:
    """``30d``, ``12h``, ``2w`` before now, or a date ``YYYY-MM-DD`` (ValueError otherwise).

    >>> parse_since("2w", datetime.datetime(2026, 3, 1, 12))
    datetime.datetime(2026, 2, 15, 12, 0)
    >>> parse_since("2026-01-31")
    datetime.datetime(2026, 1, 31, 0, 0)
    """
    now = now or datetime.datetime.now()
    m = _SINCE.fullmatch(text.strip())
    if m:
        n = int(m.group(1))
        return now - {"h": datetime.timedelta(hours=n), "d": datetime.timedelta(days=n),
                      "w": datetime.timedelta(weeks=n)}[m.group(2)]
    try:
        return datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--since {text!r}: give 30d, 12h, 2w or a date YYYY-MM-DD") from None


def wilson(won: int, n: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a win rate (None without matches).

    >>> wilson(5, 10)
    (0.236593, 0.763407)
    """
    if n == 0:
        return None
    p = won / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return round(centre - half, 6), round(centre + half, 6)


def _group_key(by: str, when: datetime.datetime | None, opponent: str) -> str:
    if by == "opponent":
        return opponent
    if when is None:
        return "(no date)"
    if by == "week":
        year, week, _ = when.isocalendar()
        return f"{year}-W{week:02d}"
    return when.date().isoformat()


class _Tally:
    """Matches, wins, losses and points of a selection, added one match at a time."""

    __slots__ = ("matches", "won", "lost", "points_for", "points_against")

    def __init__(self) -> None:
        self.matches = self.won = self.lost = self.points_for = self.points_against = 0

    def add(self, result: str | None, ours: int, theirs: int) -> None:
        self.matches += 1
        self.won += result == "won"
        self.lost += result == "lost"
        self.points_for += ours
        self.points_against += theirs

    def summary(self) -> dict[str, Any]:
        won, lost = self.won, self.lost
        interval = wilson(won, won + lost)
        return {"matches": self.matches, "won": won, "lost": lost, "unfinished": self.matches - won - lost,
                "points_for": self.points_for, "points_against": self.points_against,
                "win_rate": round(won / (won + lost), 6) if won + lost else None,
                "win_rate_95": list(interval) if interval else None}


RATING_LABELS = ((0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
                 (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))
"""gnubg's rating labels by normalised error per decision, as the engine's analysis gives
them (a test checks that both agree): kept here so that ``fibsbot stats`` loads no engine."""


def rating_label(error_per_decision: float) -> str:
    """gnubg's label for an error rate (EMG per decision, sign ignored).

    >>> rating_label(-0.0075), rating_label(0.04)
    ('Expert', 'Awful!')
    """
    e = abs(error_per_decision)
    return next((name for threshold, name in RATING_LABELS if e < threshold), "Awful!")


def query(conn: Connection, *, opponent: str | None = None, since: datetime.datetime | None = None,
          by: str | None = None, worst: int = 10) -> dict[str, Any]:
    when = func.coalesce(matches.c.ended, matches.c.started)
    selected = (select(matches.c.key, matches.c.result, matches.c.points_us, matches.c.points_them,
                       matches.c.rating_after, when.label("when"), players.c.name.label("opponent"))
                .join(players, players.c.id == matches.c.opponent_id))
    if opponent is not None:
        selected = selected.where(players.c.name == opponent)
    if since is not None:
        selected = selected.where(when >= since)
    total = _Tally()
    groups: dict[str, _Tally] = {}
    history: list[tuple[datetime.datetime, str, float]] = []
    for key, result, ours, theirs, rating, at, name in conn.execute(selected.order_by(matches.c.key)).all():
        total.add(result, ours, theirs)
        if by is not None:
            group_key = _group_key(by, at, name)
            tally = groups.get(group_key)
            if tally is None:
                tally = groups[group_key] = _Tally()
            tally.add(result, ours, theirs)
        if rating is not None and at is not None:  # undated matches have no place in the history
            history.append((at, key, rating))
    out: dict[str, Any] = {"filter": {"opponent": opponent, "since": since.isoformat() if since else None},
                           **total.summary()}
    history.sort()
    out["rating_history"] = [[at.isoformat(), rating] for at, _, rating in history]
    if by is not None:
        out["by"] = by
        out["groups"] = [{"key": key, **tally.summary()} for key, tally in sorted(groups.items())]
    ids = select(selected.with_only_columns(matches.c.id).subquery().c.id)
    stat_rows = conn.execute(
        select(statistics.c.judge, statistics.c.chequer_error, statistics.c.cube_error, statistics.c.unforced_moves,
               statistics.c.cube_decisions, statistics.c.match_id)
        .join(matches, matches.c.id == statistics.c.match_id)
        .where(statistics.c.match_id.in_(ids), statistics.c.game == 0, statistics.c.player == matches.c.us)
        .order_by(statistics.c.judge, statistics.c.match_id)).all()
    judged: dict[str, tuple[list[int], list[float]]] = {}  # per judge: decisions, errors per match
    for judge, chequer, cube, unforced, cube_decisions, _ in stat_rows:
        counts, errors = judged.get(judge) or judged.setdefault(judge, ([], []))
        counts.append(unforced + cube_decisions)
        errors.append(chequer + cube)
    out["error_rates"] = []
    for judge, (counts, errors) in sorted(judged.items()):
        counted = sum(counts)
        per = math.fsum(errors) / counted if counted else 0.0
        out["error_rates"].append({"judge": judge, "matches": len(counts), "decisions": counted,
                                   "error_rate_memg": round(1000 * per, 6), "rating": rating_label(per)})
    worst_rows = conn.execute(
        select(decisions.c.error, decisions.c.judge, decisions.c.kind, decisions.c.played, decisions.c.best,
               actions.c.position_id, actions.c.gnubg_match_id, matches.c.key, games.c.number)
        .join(games, games.c.id == decisions.c.game_id)
        .join(matches, matches.c.id == games.c.match_id)
        .join(actions, (actions.c.game_id == decisions.c.game_id) & (actions.c.idx == decisions.c.idx))
        .where(matches.c.id.in_(ids), decisions.c.player == matches.c.us, decisions.c.counted.is_(True))
        .order_by(decisions.c.error.desc(), matches.c.key, games.c.number, decisions.c.idx)
        .limit(worst)).all()
    out["worst"] = [{"error": round(w.error, 6), "judge": w.judge, "kind": w.kind, "played": w.played,
                     "best": w.best, "hint": f"{w.position_id}:{w.gnubg_match_id}", "match": w.key, "game": w.number}
                    for w in worst_rows]
    return out


def today_summary(url: str) -> dict[str, Any]:
    """Today's numbers (since local midnight) for the status endpoint; never raises:
    ``{"available": False, "error": ...}`` when the store cannot be read."""
    midnight = datetime.datetime.combine(datetime.date.today(), datetime.time())
    try:
        store = open_store(url, create=False)
        try:
            with store.begin() as conn:
                found = query(conn, since=midnight, worst=0)
        finally:
            store.close()
    except StoreError as exc:
        return {"available": False, "error": f"{type(exc).__name__}: {exc}"}
    history = found["rating_history"]
    return {"available": True, "since": midnight.isoformat(),
            **{k: found[k] for k in ("matches", "won", "lost", "unfinished", "points_for", "points_against",
                                     "win_rate", "win_rate_95")},
            "rating": history[-1][1] if history else None}


def render(found: dict[str, Any]) -> str:
    """The answer as text."""
    lines = []
    rate = found["win_rate"]
    interval = found["win_rate_95"]
    lines.append(f"matches {found['matches']} (won {found['won']}, lost {found['lost']}, unfinished "
                 f"{found['unfinished']}), points {found['points_for']}-{found['points_against']}")
    if rate is not None:
        lines.append(f"win rate {100 * rate:.1f}% (95%: {100 * interval[0]:.1f}-{100 * interval[1]:.1f}%)")
    for group in found.get("groups", []):
        g_rate = f"{100 * group['win_rate']:.1f}%" if group["win_rate"] is not None else "-"
        lines.append(f"  {group['key']:<20} {group['matches']:>5} matches  won {group['won']:>4}  {g_rate:>6}  "
                     f"points {group['points_for']}-{group['points_against']}")
    history = found["rating_history"]
    if history:
        lines.append(f"rating: {history[0][1]:.2f} -> {history[-1][1]:.2f} over {len(history)} matches")
    for e in found["error_rates"]:
        lines.append(f"error rate judged at {e['judge']}: {e['error_rate_memg']:.1f} mEMG over {e['matches']} "
                     f"matches ({e['rating']})")
    if found["worst"]:
        lines.append("worst decisions (fibsbot hint ID --dice ...):")
        for w in found["worst"]:
            lines.append(f"  {w['error']:.3f} {w['kind']}: played {w['played']}, best {w['best']}  {w['hint']}  "
                         f"({w['match']}, game {w['game']})")
    return "\n".join(lines)

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


def _summary(rows: list[Any]) -> dict[str, Any]:
    won = sum(r.result == "won" for r in rows)
    lost = sum(r.result == "lost" for r in rows)
    interval = wilson(won, won + lost)
    return {"matches": len(rows), "won": won, "lost": lost, "unfinished": len(rows) - won - lost,
            "points_for": sum(r.points_us for r in rows), "points_against": sum(r.points_them for r in rows),
            "win_rate": round(won / (won + lost), 6) if won + lost else None,
            "win_rate_95": list(interval) if interval else None}


def query(conn: Connection, *, opponent: str | None = None, since: datetime.datetime | None = None,
          by: str | None = None, worst: int = 10) -> dict[str, Any]:
    when = func.coalesce(matches.c.ended, matches.c.started)
    selected = (select(matches.c.id, matches.c.key, matches.c.result, matches.c.points_us, matches.c.points_them,
                       matches.c.rating_after, matches.c.us, when.label("when"), players.c.name.label("opponent"))
                .join(players, players.c.id == matches.c.opponent_id))
    if opponent is not None:
        selected = selected.where(players.c.name == opponent)
    if since is not None:
        selected = selected.where(when >= since)
    rows = list(conn.execute(selected.order_by(matches.c.key)).all())
    out: dict[str, Any] = {"filter": {"opponent": opponent, "since": since.isoformat() if since else None},
                           **_summary(rows)}
    out["rating_history"] = [[r.when.isoformat(), r.rating_after] for r in  # undated matches have no place in it
                             sorted((r for r in rows if r.rating_after is not None and r.when is not None),
                                    key=lambda r: (r.when, r.key))]
    if by is not None:
        groups: dict[str, list[Any]] = {}
        for r in rows:
            groups.setdefault(_group_key(by, r.when, r.opponent), []).append(r)
        out["by"] = by
        out["groups"] = [{"key": key, **_summary(group)} for key, group in sorted(groups.items())]
    ids = select(selected.with_only_columns(matches.c.id).subquery().c.id)
    stat_rows = conn.execute(
        select(statistics.c.judge, statistics.c.chequer_error, statistics.c.cube_error, statistics.c.unforced_moves,
               statistics.c.cube_decisions, statistics.c.match_id)
        .join(matches, matches.c.id == statistics.c.match_id)
        .where(statistics.c.match_id.in_(ids), statistics.c.game == 0, statistics.c.player == matches.c.us)
        .order_by(statistics.c.judge, statistics.c.match_id)).all()
    judged: dict[str, list[Any]] = {}
    for s in stat_rows:
        judged.setdefault(s.judge, []).append(s)
    out["error_rates"] = []
    if judged:
        from bot.store.judge import rating_label  # the engine's analysis: loaded only when needed
    for judge, group in sorted(judged.items()):
        counted = sum(s.unforced_moves + s.cube_decisions for s in group)
        per = math.fsum(s.chequer_error + s.cube_error for s in group) / counted if counted else 0.0
        out["error_rates"].append({"judge": judge, "matches": len(group), "decisions": counted,
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

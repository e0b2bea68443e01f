"""The bot's recent matches as the operator's dashboard lists them (newest first).

Each entry has the keys of :mod:`bot.report.dashboard`'s history: ``finished`` (the
end; an imported record's date; ``playing``, ``saved`` or ``dropped`` while
unfinished), ``opponent``, ``length``, ``score`` (the result and the points),
``rating_after``, ``error_rate_memg`` (our match statistic, one judge for all) and,
where the match's HTML report exists beside its record (``fibsbot analyse X.sgf
--html X.html``), ``report``; also ``key``, ``judge`` and ``record_path``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, select

from bot.store.schema import matches, players, statistics
from bot.store.store import open_store

RECENT = 20


def _finished(row: Any) -> str:
    if row.ended is not None:
        return str(row.ended.strftime("%Y-%m-%d %H:%M"))
    if row.result is not None:  # an imported record: its date only
        return str(row.started.strftime("%Y-%m-%d")) if row.started is not None else "-"
    return str(row.ending) if row.ending in ("saved", "dropped") else "playing"


def recent_matches(conn: Connection, *, us_name: str | None = None,
                   limit: int = RECENT) -> list[dict[str, Any]]:
    """The last ``limit`` matches (of ``us_name`` when given), newest first; the error rate
    is our match statistic of the judge that judged most of them."""
    when = func.coalesce(matches.c.ended, matches.c.started)
    selected = (select(matches.c.id, matches.c.key, matches.c.length, matches.c.result, matches.c.points_us,
                       matches.c.points_them, matches.c.rating_after, matches.c.started, matches.c.ended,
                       matches.c.ending, matches.c.record_path, players.c.name.label("opponent"))
                .join(players, players.c.id == matches.c.opponent_id))
    if us_name is not None:
        selected = selected.where(matches.c.us_name == us_name)
    rows = conn.execute(selected.order_by(when.desc(), matches.c.key.desc()).limit(limit)).all()
    ids = [r.id for r in rows]
    judged: dict[str, dict[int, float]] = {}
    if ids:
        for match_id, judge, rate in conn.execute(
                select(statistics.c.match_id, statistics.c.judge, statistics.c.error_rate_memg)
                .join(matches, matches.c.id == statistics.c.match_id)
                .where(statistics.c.match_id.in_(ids), statistics.c.game == 0,
                       statistics.c.player == matches.c.us)).all():
            judged.setdefault(judge, {})[match_id] = rate
    judge = min(judged, key=lambda j: (-len(judged[j]), j)) if judged else None
    rates = judged.get(judge, {}) if judge is not None else {}
    out = []
    for r in rows:
        entry: dict[str, Any] = {
            "key": r.key, "finished": _finished(r), "opponent": r.opponent, "length": r.length or "unlimited",
            "score": f"{r.result + ' ' if r.result else ''}{r.points_us}-{r.points_them}",
            "rating_after": r.rating_after, "error_rate_memg": rates.get(r.id),
            "judge": judge if r.id in rates else None, "record_path": r.record_path}
        out.append(entry)
    return out


def with_reports(entries: list[dict[str, Any]], folder: Path, prefix: str = "reports/") -> list[dict[str, Any]]:
    """``report`` set to ``prefix`` + the report's name where ``folder`` holds the HTML report
    of the entry's record (same name, ``.html``)."""
    for e in entries:
        path = e.get("record_path")
        if isinstance(path, str) and path:
            name = Path(path).with_suffix(".html").name
            if (folder / name).is_file():
                e["report"] = prefix + name
    return entries


def recent(url: str, *, us_name: str | None = None, reports: Path | None = None,
           limit: int = RECENT) -> list[dict[str, Any]]:
    """:func:`recent_matches` of the store at ``url`` (a named StoreError when it cannot be read)."""
    store = open_store(url, create=False)
    try:
        with store.begin() as conn:
            entries = recent_matches(conn, us_name=us_name, limit=limit)
    finally:
        store.close()
    return with_reports(entries, reports) if reports is not None else entries


"""The HTML match report: every game, every decision in order with its board diagram,
move table or cube equities, error and luck classes, IDs; per-game and match statistics.

A program reads it back from the ``decision`` elements: ``data-position-id``,
``data-match-id``, ``data-kind`` (``move`` or ``cube``), ``data-action`` (the
analysis' kind: move, no double, double, take, pass), ``data-player``,
``data-error`` (the analysis' error, EMG) and, for moves, ``data-dice``,
``data-played`` and ``data-best`` in gnubg's notation.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from bot.report.diagram import Play, render_svg
from bot.report.errors import ReportError
from bot.report.files import atomic_write_bytes
from bot.report.page import attrs, document
from bot.report.report_data import DecisionView, decision_views
from bot.report.source import MatchAnalysis, PlayerAnalysis, luck_class
from engine.evaluator import Engine
from engine.levels import Level
from engine.records import MatchRecord, load

_STATS: list[tuple[str, str]] = [
    ("unforced moves", "unforced_moves"), ("chequer errors doubtful / bad / very bad", "chequer_skills"),
    ("chequer error rate (mEMG per move)", "chequer_rate_memg"), ("close cube decisions", "close_cube_decisions"),
    ("cube errors doubtful / bad / very bad", "cube_skills"), ("cube error rate (mEMG per decision)", "cube_rate_memg"),
    ("overall error rate (mEMG)", "overall_rate_memg"), ("rating", "rating"),
    ("error-based FIBS rating", "fibs_rating"), ("luck total (EMG)", "luck"),
    ("rolls very lucky / lucky / unlucky / very unlucky", "luck_classes"),
]


def _css_class(label: str) -> str:
    return label.replace(" ", "-")


def _cell(key: str, value: Any) -> str:
    if isinstance(value, dict):
        return " / ".join(str(v) for v in value.values())
    if value is None:
        return "-"
    if key == "luck":
        return f"{value:+.3f}"
    if key == "fibs_rating":
        return f"{value:.0f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return escape(str(value))


def stats_table(players: Sequence[PlayerAnalysis], length: int, caption: str) -> str:
    data = [p.as_dict(length) for p in players]
    head = "".join(f"<th>{escape(p['name'])}</th>" for p in data)
    rows = "".join(f'<tr data-stat="{key}"><td>{label}</td>' + "".join(f"<td>{_cell(key, p[key])}</td>" for p in data)
                   + "</tr>" for label, key in _STATS)
    return (f'<div class="scroll"><table class="statistics"><caption>{escape(caption)}</caption>'
            f"<thead><tr><th></th>{head}</tr></thead><tbody>{rows}</tbody></table></div>")


def _number(value: float, digits: int = 4) -> str:
    return "-" if math.isnan(value) else f"{value:+.{digits}f}"


def _move_table(view: DecisionView) -> str:
    rows = []
    for row in view.candidates:
        classes = " ".join(c for c, on in (("played", row.played), ("best", row.rank == 1)) if on)
        percent = ("-", "-", "-") if math.isnan(row.win) else tuple(
            f"{100 * v:.1f}" for v in (row.win, row.win_gammon, row.lose_gammon))
        rows.append(f'<tr{attrs(class_=classes or None, data_move=row.move, data_equity=repr(row.equity))}>'
                    f"<td>{row.rank or '?'}</td><td>{escape(row.move)}</td><td>{_number(row.equity)}</td>"
                    f"<td>{_number(row.difference) if row.rank != 1 else ''}</td>"
                    f"<td>{percent[0]}</td><td>{percent[1]}</td><td>{percent[2]}</td></tr>")
    return ('<div class="scroll"><table class="movetable"><thead><tr><th>#</th><th>play</th><th>equity</th>'
            "<th>diff</th><th>win %</th><th>gammon %</th><th>lose g %</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
            f'<p class="muted">{view.candidate_count} legal plays</p>')


def _cube_table(view: DecisionView) -> str:
    cube = view.cube
    assert cube is not None
    best = max(cube.no_double, min(cube.double_take, cube.double_pass))
    rows = "".join(
        f'<tr{attrs(data_option=name, data_equity=repr(value))}><td>{label}</td><td>{_number(value)}</td>'
        f"<td>{_number(value - best) if value != best else ''}</td></tr>"
        for name, label, value in (("nd", "No double", cube.no_double), ("dt", "Double, take", cube.double_take),
                                   ("dp", "Double, pass", cube.double_pass)))
    return ('<div class="scroll"><table class="cubetable"><thead><tr><th>cube action</th><th>equity</th>'
            f"<th>diff</th></tr></thead><tbody>{rows}</tbody></table></div>"
            f'<p>Proper cube action: <b class="proper">{escape(cube.proper)}</b></p>')


def _ids(view: DecisionView) -> str:
    return ('<dl class="ids">'
            f'<dt>Position ID</dt><dd><code class="id position-id">{view.position_id}</code></dd>'
            f'<dt>Match ID</dt><dd><code class="id match-id">{view.match_id}</code></dd>'
            f'<dt>gnubg</dt><dd><code class="id gnubg-id">{view.position_id}:{view.match_id}</code></dd>'
            f'<dt>XGID</dt><dd><code class="id xgid">{escape(view.xgid)}</code></dd></dl>')


def decision_html(number: int, view: DecisionView, names: tuple[str, str]) -> str:
    d = view.decision
    skill = d.skill if d.counted or d.kind == "move" else "none"
    luck = luck_class(d.luck) if d.luck is not None else "none"
    classes = ["decision", "move" if d.kind == "move" else "cube"]
    classes += [_css_class(skill)] if skill != "none" else []
    classes += [_css_class(luck)] if luck != "none" else []
    dice = f"{d.dice[0]}{d.dice[1]}" if d.dice else None
    head = attrs(class_=" ".join(classes), id=f"d{number}", data_position_id=view.position_id,
                 data_match_id=view.match_id, data_kind="move" if d.kind == "move" else "cube",
                 data_action=d.kind, data_player=d.player, data_game=d.game, data_dice=dice,
                 data_played=d.played, data_best=d.best, data_error=repr(d.error), data_skill=skill,
                 data_luck=None if d.luck is None else repr(d.luck), data_counted=str(d.counted).lower())
    tags = "".join(f' <span class="tag {_css_class(t)}">{t}</span>' for t in (skill, luck) if t != "none")
    what = f"rolls {dice}" if dice else {"no double": "cube decision (no double)", "double": "doubles",
                                        "take": "takes", "pass": "passes"}.get(d.kind, d.kind)
    plays: tuple[Play, ...] = ()
    if view.move is not None:
        plays = (Play(view.move, "played"),)
        if view.best_move is not None and view.best_move != view.move:
            plays += (Play(view.best_move, "best"),)
    board = render_svg(view.position, view.match, names=names, plays=plays)
    if d.kind == "move":
        played = f'Played <b class="played-move">{escape(d.played)}</b>'
        table = _move_table(view)
    else:
        played = f'Action <b class="played-move">{escape(d.played)}</b>'
        table = _cube_table(view)
    uncounted = "" if d.counted else ' <span class="muted">(not counted in the rates)</span>'
    luck_text = "" if d.luck is None else f'; luck <span class="luck">{d.luck:+.3f}</span>'
    summary = (f'<p class="summary">{played}; best <b class="best-move">{escape(d.best)}</b>; '
               f'error <span class="error">{d.error:+.4f}</span> ({1000 * d.error:+.1f} mEMG)'
               f"{uncounted}{luck_text}</p>")
    return (f"<article{head}><h3>#{number} {escape(names[d.player])} {what}{tags}</h3>"
            f'<div class="board">{board}</div>{summary}{table}{_ids(view)}</article>')


def _game_stats(record: MatchRecord, views: Sequence[DecisionView], game: int) -> list[PlayerAnalysis]:
    players = [PlayerAnalysis(record.players[0]), PlayerAnalysis(record.players[1])]
    for v in views:
        if v.decision.game == game:
            players[v.decision.player].add(v.decision)
            if v.decision.luck is not None:
                players[v.decision.player].add_luck(v.decision.luck)
    return players


def _result(record: MatchRecord) -> str:
    score = record.score()
    if record.length and record.is_over():
        winner = 0 if score[0] > score[1] else 1
        return f"{escape(record.players[winner])} wins {max(score)}-{min(score)}"
    return f"score {score[0]}-{score[1]}" + ("" if not record.length else " (unfinished)")


def report_html(record: MatchRecord, analysis: MatchAnalysis, engine: Engine | None = None,
                level: Level | str | None = None, *, title: str = "") -> str:
    """The whole report page of ``record`` analysed as ``analysis`` (ReportError if they do not match)."""
    if tuple(p.name for p in analysis.players) != tuple(record.players):
        raise ReportError(f"the analysis is of {analysis.players[0].name} vs {analysis.players[1].name}, "
                          f"the record of {record.players[0]} vs {record.players[1]}")
    names = (record.players[0], record.players[1])
    kind = f"{record.length}-point match" if record.length else "money session"
    title = title or f"{names[0]} vs {names[1]}, {kind}"
    views = decision_views(engine or Engine(), record, analysis, level)
    parts = [f"<header><h1>{escape(title)}</h1><p>{escape(names[0])} vs {escape(names[1])}, {kind}: "
             f'{_result(record)}. Analysed at <b class="level">{escape(analysis.level)}</b>; '
             f'<span class="decision-count">{len(views)}</span> decisions in {len(record.games)} games.</p>']
    if record.games:
        parts.append("<nav>" + "".join(f'<a href="#game-{g}">game {g}</a>' for g in range(1, len(record.games) + 1))
                     + "</nav>")
    parts.append("</header>")
    if not views:
        parts.append('<p class="missing">This record holds no decisions (no roll and no cube action), so there '
                     "is nothing to analyse and no statistics to show.</p>")
    else:
        parts.append("<section class=\"match-statistics\"><h2>Match statistics</h2>"
                     + stats_table(analysis.players, record.length, "the whole match") + "</section>")
    number = 0
    for g, game in enumerate(record.games, 1):
        crawford = " (Crawford game)" if game.crawford_game else ""
        result = game.result
        ending = (f"{escape(names[result.winner])} wins {result.points} point{'s' if result.points != 1 else ''}"
                  + (" by resignation" if result.resigned else "")) if result else "not finished"
        parts.append(f'<section class="game" id="game-{g}" data-game="{g}"><h2>Game {g}: score '
                     f"{game.score[0]}-{game.score[1]}{crawford}</h2><p>{ending}.</p>")
        in_game = [v for v in views if v.decision.game == g]
        if in_game:
            parts.append(stats_table(_game_stats(record, views, g), record.length, f"game {g}"))
        else:
            parts.append('<p class="missing">No decision in this game.</p>')
        for view in in_game:
            number += 1
            parts.append(decision_html(number, view, names))
        parts.append("</section>")
    return document(title, "\n".join(parts))


def write_report(path: str | os.PathLike[str], record: MatchRecord, analysis: MatchAnalysis,
                 engine: Engine | None = None, level: Level | str | None = None, *, title: str = "") -> Path:
    """Build the report, then write it whole (temporary file and rename): never a half-written file."""
    text = report_html(record, analysis, engine, level, title=title)
    atomic_write_bytes(path, text.encode("utf-8"))
    return Path(path)


def write_reports(out: str | os.PathLike[str], paths: Sequence[str], analyses: Sequence[MatchAnalysis],
                  level: Level | str | None = None) -> list[Path]:
    """``fibsbot analyse --html OUT``: one record gives the page OUT; several give the folder
    OUT with ``index.html`` and one page per record."""
    if len(paths) != len(analyses):
        raise ReportError(f"{len(paths)} records but {len(analyses)} analyses")
    engine = Engine()
    records = [load(p) for p in paths]  # every record read before anything is written
    if len(paths) == 1:
        return [write_report(out, records[0], analyses[0], engine, level, title=Path(paths[0]).name)]
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    triples = zip(paths, records, analyses, strict=True)
    pages = [(f"{i:03d}-{Path(p).stem}.html", p, r, a) for i, (p, r, a) in enumerate(triples, 1)]
    texts = [(name, report_html(r, a, engine, level, title=Path(p).name)) for name, p, r, a in pages]
    written = []
    for name, text in texts:
        atomic_write_bytes(folder / name, text.encode("utf-8"))
        written.append(folder / name)
    atomic_write_bytes(folder / "index.html", index_html(pages).encode("utf-8"))
    return [folder / "index.html", *written]


def index_html(pages: Sequence[tuple[str, str, MatchRecord, MatchAnalysis]]) -> str:
    rows = []
    for name, path, record, analysis in pages:
        rates = " / ".join(f"{escape(p.name)} {1000 * p.rates.overall_rate:.1f}" for p in analysis.players)
        rows.append(f'<tr class="match"><td><a href="{escape(name, quote=True)}">{escape(Path(path).name)}</a></td>'
                    f"<td>{escape(record.players[0])} vs {escape(record.players[1])}</td><td>{record.length or 'money'}"
                    f"</td><td>{_result(record)}</td><td>{len(analysis.decisions)}</td><td>{rates}</td></tr>")
    body = ("<h1>Match reports</h1><div class=\"scroll\"><table class=\"matches\"><thead><tr><th>record</th>"
            "<th>players</th><th>length</th><th>result</th><th>decisions</th><th>overall error rate (mEMG)</th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    return document("Match reports", body, script="")

"""The tournament report: standings, confidence intervals, ratings, the pairwise
matrix and error rates, as JSON, rich tables and a PNG plot.

Match play scores each match (won or lost); money play scores points per game.
With duplicate dice the two matches of a dice sequence form one unit (their
mean), since they are not independent. Ratings (Elo, and the FIBS formula for
the match length; per game as 1-point matches in money play) are fitted to
match results (money: game results), relative to the anchor player.
"""

from __future__ import annotations

import importlib.util
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from bot.tournament import stats
from bot.tournament.config import TournamentConfig
from engine.analysis.rates import ErrorRates, rating_label
from engine.records import atomic_write

Result = Mapping[str, Any]
REPORT_JSON = "report.json"
RATINGS_PNG = "ratings.png"
PLOT_HINT = "no ratings.png: the plot needs matplotlib (pip install 'fibsbot[plot]')"


def _units(config: TournamentConfig, results: Iterable[Result]) -> dict[str, dict[tuple[Any, ...], list[float]]]:
    """Per player: unit -> the values of that unit (match wins, or net points per game)."""
    units: dict[str, dict[tuple[Any, ...], list[float]]] = {p.name: defaultdict(list) for p in config.players}
    for r in results:
        base = (r["pairing"][0], r["pairing"][1], r["index"] // 2 if config.duplicate_dice else r["index"])
        for name in (r["white"], r["black"]):
            if config.money:
                for g, (winner, points, *_) in enumerate(r["games"]):
                    units[name][(*base, g)].append(points if winner == name else -points)
            else:
                units[name][base].append(1.0 if r["winner"] == name else 0.0)
    return units


def _score_interval(config: TournamentConfig, units: Mapping[tuple[Any, ...], list[float]]) -> stats.Interval | None:
    if not units:
        return None
    means = [sum(v) / len(v) for v in units.values()]
    if not config.money and not config.duplicate_dice:
        return stats.wilson(sum(means), len(means))
    iv = stats.mean_interval(means)
    if config.money:
        return iv
    return stats.Interval(iv.value, max(0.0, iv.low), min(1.0, iv.high))


def _outcomes(config: TournamentConfig, results: Iterable[Result], index: Mapping[str, int]) -> list[stats.Outcome]:
    out = []
    for r in results:
        i, j = index[r["white"]], index[r["black"]]
        if config.money:
            out += [stats.Outcome(i, j, 1.0 if g[0] == r["white"] else 0.0) for g in r["games"]]
        else:
            out.append(stats.Outcome(i, j, 1.0 if r["winner"] == r["white"] else 0.0))
    return out


def _ratings(config: TournamentConfig, results: list[Result]) -> dict[str, Any] | None:
    if config.format == "self play":
        return None  # no one played anyone else
    names = [p.name for p in config.players]
    index = {n: k for k, n in enumerate(names)}
    outcomes = _outcomes(config, results, index)
    if {n for r in results for n in (r["white"], r["black"])} != set(names):
        return None  # someone has not played yet
    anchor = index[config.anchor_player]
    elo = stats.fit_ratings(len(names), outcomes, anchor, config.anchor.rating)
    fibs = stats.fit_ratings(len(names), outcomes, anchor, config.anchor.rating,
                             stats.fibs_scale(max(1, config.match_length)))
    return {"elo": {n: elo.interval(k).as_dict() for k, n in enumerate(names)},
            "fibs": {n: fibs.interval(k).as_dict() for k, n in enumerate(names)},
            "regularised": elo.regularised}


def _error_rates(results: Iterable[Result]) -> dict[str, ErrorRates]:
    totals: dict[str, ErrorRates] = {}
    for r in results:
        for name, a in r.get("analysis", {}).items():
            totals[name] = totals.get(name, ErrorRates()) + ErrorRates(**a)
    return totals


def _points(config: TournamentConfig, result: Result, name: str) -> int:
    """Points ``name`` won in a match (match play: its score, capped at the length)."""
    if config.money:
        return sum(g[1] for g in result["games"] if g[0] == name)
    seat = 0 if result["white"] == name else 1
    return min(int(result["score"][seat]), config.match_length)


def build(config: TournamentConfig, results: Iterable[Result], *, ratings: bool = True) -> dict[str, Any]:
    """The report of the results so far (JSON-ready)."""
    done = sorted(results, key=lambda r: r["key"])
    units = _units(config, done)
    errors = _error_rates(done)
    players = []
    for p in config.players:
        mine = [r for r in done if p.name in (r["white"], r["black"])]
        row: dict[str, Any] = {
            "name": p.name, "level": p.plays().label, "matches": len(mine),
            "games": sum(len(r["games"]) for r in mine),
            "points_for": sum(_points(config, r, p.name) for r in mine),
            "points_against": sum(_points(config, r, r["black"] if r["white"] == p.name else r["white"])
                                  for r in mine),
        }
        if config.format != "self play":  # against itself a player has no score
            interval = _score_interval(config, units[p.name])
            if config.money:
                row["ppg"] = interval.as_dict() if interval else None
            else:
                row["won"] = sum(1 for r in mine if r["winner"] == p.name)
                row["win_rate"] = interval.as_dict() if interval else None
        if p.name in errors:
            e = errors[p.name]
            row["error_rate_memg"] = e.memg(e.overall_rate)
            row["chequer_rate_memg"] = e.memg(e.chequer_rate)
            row["cube_rate_memg"] = e.memg(e.cube_rate)
            row["rating_label"] = rating_label(e.overall_rate)
        players.append(row)
    report: dict[str, Any] = {
        "players": players, "matches": len(done), "format": config.format,
        "match_length": config.match_length, "games_per_session": config.games if config.money else None,
        "duplicate_dice": config.duplicate_dice, "seed": config.seed,
        "anchor": {"player": config.anchor_player, "rating": config.anchor.rating},
        "pairwise": _pairwise(config, done),
    }
    analysed = [p for p in players if "error_rate_memg" in p]
    # errors are negative equity: the smallest loss first
    report["error_rate_order"] = [p["name"] for p in sorted(analysed, key=lambda p: abs(p["error_rate_memg"]))]
    if ratings:
        report["ratings"] = _ratings(config, done)
    return report


def _pairwise(config: TournamentConfig, results: list[Result]) -> dict[str, dict[str, dict[str, float]]]:
    """Row player against column player: matches and win rate (money: games and points per game)."""
    cells: dict[str, dict[str, list[float]]] = {p.name: {} for p in config.players}
    for r in results:
        for me, other in ((r["white"], r["black"]), (r["black"], r["white"])):
            values = cells[me].setdefault(other, [])
            if config.money:
                values += [g[1] if g[0] == me else -g[1] for g in r["games"]]
            else:
                values.append(1.0 if r["winner"] == me else 0.0)
    key = "ppg" if config.money else "win_rate"
    return {me: {other: {"n": len(v), key: sum(v) / len(v)} for other, v in row.items()}
            for me, row in cells.items()}


def _range(d: Mapping[str, float] | None, money: bool) -> str:
    if d is None:
        return "-"
    if money:
        return f"{d['value']:+.3f} ({d['low']:+.3f} {d['high']:+.3f})"
    return f"{100 * d['value']:.1f} ({100 * d['low']:.1f}-{100 * d['high']:.1f})"


def _plus_minus(d: Mapping[str, float]) -> str:
    return f"{d['value']:.0f}±{(d['high'] - d['low']) / 2:.0f}"


def standings_table(report: Mapping[str, Any]) -> Table:
    """Players by score, with 95% confidence intervals (ratings: ± half the interval);
    in self play, where every score is even, by error rate."""
    money = report["match_length"] == 0
    self_play = report["format"] == "self play"
    ratings = report.get("ratings")
    analysed = any("error_rate_memg" in p for p in report["players"])
    title = "Error rates by level (self play)" if self_play else "Standings, 95% confidence intervals"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    if self_play:
        columns = ["player", "matches", "games"]
    else:
        columns = ["player", "matches", "games" if money else "won", "points +/-", "ppg" if money else "win %"]
    columns += ["Elo", "FIBS"] if ratings else []
    columns += ["mEMG"] if analysed else []
    for column in columns:
        table.add_column(column, justify="left" if column == "player" else "right", no_wrap=True)
    if self_play:
        order = sorted(report["players"], key=lambda p: abs(p.get("error_rate_memg", float("inf"))))
    else:
        order = sorted(report["players"], key=lambda p: -((p.get("ppg") or p.get("win_rate") or {}).get("value", 0.0)))
    for p in order:
        name = p["name"] if p["level"] == p["name"] else f"{p['name']} ({p['level']})"
        if self_play:
            cells = [name, str(p["matches"]), str(p["games"])]
        else:
            cells = [name, str(p["matches"]), str(p["games"] if money else p["won"]),
                     f"{p['points_for']}/{p['points_against']}",
                     _range(p["ppg"] if money else p["win_rate"], money)]
        if ratings:
            cells += [_plus_minus(ratings["elo"][p["name"]]), _plus_minus(ratings["fibs"][p["name"]])]
        if analysed:
            cells.append(f"{p['error_rate_memg']:.1f} {p['rating_label']}" if "error_rate_memg" in p else "-")
        table.add_row(*cells)
    return table


def pairwise_table(report: Mapping[str, Any]) -> Table:
    money = report["match_length"] == 0
    names = [p["name"] for p in report["players"]]
    table = Table(title="Row against column: " + ("points per game" if money else "match win rate") + " (n)",
                  title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("")
    for n in names:
        table.add_column(n, justify="right")
    for me in names:
        row = [me]
        for other in names:
            cell = report["pairwise"][me].get(other)
            row.append("-" if cell is None else f"{cell['ppg' if money else 'win_rate']:.3f} ({cell['n']})")
        table.add_row(*row)
    return table


def show(report: Mapping[str, Any], console: Console) -> None:
    console.print(standings_table(report))
    console.print(pairwise_table(report))
    if report["error_rate_order"]:
        console.print("Error rates, lowest first: " + " < ".join(report["error_rate_order"]))
    ratings = report.get("ratings")
    if ratings:
        note = " (regularised: someone won or lost every game, see the docs)" if ratings["regularised"] else ""
        console.print(f"Ratings relative to {report['anchor']['player']} = {report['anchor']['rating']:.0f}{note}")


def plot(report: Mapping[str, Any], path: Path) -> None:
    """Elo and FIBS-formula ratings with 95% error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = report["ratings"]
    names = [p["name"] for p in report["players"]]
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.5 * len(names) + 2), sharey=True)
    for ax, kind, title in ((axes[0], "elo", "Elo"), (axes[1], "fibs", "FIBS formula")):
        values = [ratings[kind][n]["value"] for n in names]
        low = [v - ratings[kind][n]["low"] for n, v in zip(names, values, strict=True)]
        high = [ratings[kind][n]["high"] - v for n, v in zip(names, values, strict=True)]
        ax.errorbar(values, range(len(names)), xerr=[low, high], fmt="o", capsize=4)
        ax.axvline(report["anchor"]["rating"], color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(f"{title} (95% CI)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(names)), names)
    axes[0].invert_yaxis()
    fig.suptitle(f"Ratings relative to {report['anchor']['player']}, {report['matches']} matches")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def can_plot() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def write(report: Mapping[str, Any], folder: Path) -> list[Path]:
    """report.json, and ratings.png when there are ratings and matplotlib is installed
    (:data:`PLOT_HINT` says how to get it); returns the files written."""
    written = [folder / REPORT_JSON]
    atomic_write(written[0], json.dumps(report, indent=2, sort_keys=True) + "\n")
    if report.get("ratings") and can_plot():
        plot(report, folder / RATINGS_PNG)
        written.append(folder / RATINGS_PNG)
    return written

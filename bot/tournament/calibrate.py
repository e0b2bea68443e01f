"""Calibration of playing strength by FIBS rating, and its verification by play.

A calibration plays, on a grid of :class:`engine.strength.Setting`, two kinds of
tournaments through the tournament runner and executors (resumable,
parallel, Dask included), each in a folder of its own under the output:

* ``self-play-N`` (one per length, 5 and 7 points by default): every setting
  against itself, each match analysed by the judge (World class by default);
  their errors give (a), the error-based absolute rating;
* ``vs-REFERENCE``: every setting against Expert and against World class; the
  FIBS formula turns the win rate into a rating difference from the
  reference, whose absolute rating is its own (a). That is (b).

The table's rating of a setting is (b), the one that predicts results against
other players (what a FIBS rating is); (a) and the error rate stand beside
it. Where (a) and (b), or the two references, disagree beyond their
intervals, the table's ``findings`` say so.

Verification plays settings chosen by rating against the same references on
fresh dice, with match counts chosen beforehand (the FIBS formula's slope) so
that the 95% interval reaches the wanted width.

>>> plan = Plan((Setting(), Setting(noise=0.05)), seed=3, self_play_matches=2, matches=(4, 0))
>>> [(c.output.name, c.format, c.match_length, c.matches) for c in parts(plan, Path("cal"))]
[('self-play-5', 'self play', 5, 2), ('self-play-7', 'self play', 7, 2), ('vs-expert', 'gauntlet', 5, 4)]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bot.tournament import calibration_stats as cs
from bot.tournament.config import TournamentConfig
from bot.tournament.executors import Executor
from bot.tournament.results import ResultStore
from bot.tournament.runner import run
from bot.tournament.schedule import MatchSpec, schedule
from bot.tournament.stats import Z95
from engine.analysis.rates import RATING_OFFSET
from engine.levels import level as named_level
from engine.strength import Setting, Strength, StrengthTable, fibs_win_probability

REFERENCES = (Setting(), Setting(plies=2))  # Expert and World class
DEFAULT_GRID = tuple(Setting(noise=n) for n in (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.10)) + (
    Setting(plies=2),)
TABLE_JSON = "strength_table.json"
PLOT_PNG = "strength.png"
_PLY_COST = {0: 1.0, 1: 20.0, 2: 200.0, 3: 4000.0, 4: 80000.0}  # rough cost of a decision, 0-ply = 1

ExecutorFactory = Callable[[], Executor]


def key(setting: Setting) -> str:
    """A setting's player name in the tournaments (file-name safe)."""
    return setting.name.replace(" ", "-")


def player(setting: Setting, name: str | None = None) -> dict[str, Any]:
    """A tournament player entry that plays ``setting``."""
    entry: dict[str, Any] = {"name": name or key(setting)}
    if setting.plies:
        entry["level"] = setting.name
    else:
        entry.update(level="expert", checker={"noise": setting.noise}, cube={"noise": setting.noise})
    return entry


@dataclass(frozen=True)
class Plan:
    """What a calibration plays. ``matches``: head-to-head matches per setting
    against Expert and against World class."""

    settings: tuple[Setting, ...] = DEFAULT_GRID
    seed: int = 1
    judge: str = "world class"
    self_play_lengths: tuple[int, ...] = (5, 7)
    self_play_matches: int = 8
    length: int = 5
    matches: tuple[int, int] = (3000, 100)

    def __post_init__(self) -> None:
        if len(set(self.settings)) != len(self.settings) or not self.settings:
            raise ValueError("give one or more distinct settings")
        named_level(self.judge)  # ValueError names the valid levels

    def command(self) -> str:
        """The command line that makes this plan (recorded in the table)."""
        noise = ",".join(f"{s.noise:g}" for s in self.settings if not s.plies)
        plies = ",".join(str(s.plies) for s in self.settings if s.plies)
        return (f"fibsbot calibrate --noise {noise}" + (f" --plies {plies}" if plies else "")
                + f" --judge '{self.judge}' --self-play-lengths {','.join(map(str, self.self_play_lengths))}"
                f" --self-play-matches {self.self_play_matches} --length {self.length}"
                f" --matches {self.matches[0]},{self.matches[1]} --seed {self.seed}")


def parts(plan: Plan, output: Path) -> list[TournamentConfig]:
    """The tournaments of a calibration, each in its own folder under ``output``."""
    configs = [TournamentConfig.model_validate({
        "players": [player(s) for s in plan.settings], "format": "self play", "match_length": length,
        "matches": plan.self_play_matches, "seed": plan.seed, "output": output / f"self-play-{length}",
        "analysis_level": plan.judge}) for length in plan.self_play_lengths] if plan.self_play_matches else []
    for reference, matches in zip(REFERENCES, plan.matches, strict=True):
        # Expert meets the n-ply settings in World class's gauntlet only (2-ply play is dear)
        others = [s for s in plan.settings if s != reference and not (reference.plies == 0 and s.plies)]
        if matches and others:
            configs.append(TournamentConfig.model_validate({
                "players": [player(reference)] + [player(s) for s in others], "format": "gauntlet",
                "gauntlet_player": key(reference), "match_length": plan.length, "matches": matches,
                "seed": plan.seed, "output": output / f"vs-{key(reference)}"}))
    return configs


# ---- running tournaments with one progress bar ------------------------------------------------

def _cost(config: TournamentConfig) -> Callable[[str, str], float]:
    """A match's rough cost (0-ply decisions), so that the ETA weighs 2-ply play and analysis."""
    plies = {p.name: p.build().checker.plies for p in config.players}
    judge = _PLY_COST[named_level(config.analysis_level).checker.plies] if config.analysis_level else 0.0
    length = max(1, config.match_length)
    return lambda white, black: length * ((_PLY_COST[plies[white]] + _PLY_COST[plies[black]]) / 2 + judge)


def _specs(config: TournamentConfig) -> list[MatchSpec]:
    return schedule([p.name for p in config.players], config.format, config.gauntlet_player, config.matches,
                    seed=config.seed, duplicate=config.duplicate_dice)


def results_of(config: TournamentConfig) -> list[dict[str, Any]]:
    """The finished matches of ``config``'s schedule in its folder."""
    store = ResultStore(config.output, config.fingerprint())
    try:
        return [store.results[s.key] for s in _specs(config) if s.key in store.results]
    finally:
        store.close()


@dataclass
class PlayedParts:
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # by folder name
    played: int = 0
    wall_s: float = 0.0
    interrupted: bool = False


def play_parts(configs: Sequence[TournamentConfig], make_executor: ExecutorFactory, console: Console,
               *, show: bool = True) -> PlayedParts:
    """Run the tournaments one after another under one progress bar (matches, ETA).
    The bar refreshes only when a match ends: no display thread runs while the
    executors fork their workers."""
    total = done = 0.0
    for config in configs:
        cost = _cost(config)
        finished = {r["key"] for r in results_of(config)}
        for spec in _specs(config):
            total += cost(spec.white, spec.black)
            done += cost(spec.white, spec.black) if spec.key in finished else 0.0
    progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[matches]} matches"),
                        TextColumn("ETA"), TimeRemainingColumn(), TextColumn("elapsed"), TimeElapsedColumn(),
                        console=console, auto_refresh=False, disable=not show)
    task: TaskID = progress.add_task("calibration", total=total, matches=0)
    progress.update(task, completed=done)
    out = PlayedParts()

    def advancer(cost: Callable[[str, str], float]) -> Callable[[Mapping[str, Any]], None]:
        def advance(result: Mapping[str, Any]) -> None:
            out.played += 1
            progress.update(task, advance=cost(result["white"], result["black"]), matches=out.played)
            progress.refresh()
        return advance

    with progress:
        for config in configs:
            progress.update(task, description=config.output.name)
            summary = run(config, make_executor(), console, live=False, on_result=advancer(_cost(config)))
            out.wall_s += summary.wall_s
            if summary.interrupted:
                out.interrupted = True
                return out
            out.results[config.output.name] = results_of(config)
    return out


# ---- the table ----------------------------------------------------------------------------------

def _self_play(plan: Plan, results: Mapping[str, list[dict[str, Any]]], setting: Setting) -> dict[int, list[
        cs.MatchErrors]]:
    return {length: cs.analysed(results.get(f"self-play-{length}", []), key(setting))
            for length in plan.self_play_lengths}


def _head_to_head_results(results: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [r for part, rs in results.items() if part.startswith("vs-") for r in rs]


def is_judge(plan: Plan, setting: Setting) -> bool:
    """Whether the setting plays as the judge: its errors are 0 by construction."""
    judge = named_level(plan.judge)
    return setting.level().checker == judge.checker and setting.level().cube == judge.cube


def references(plan: Plan, results: Mapping[str, list[dict[str, Any]]]) -> dict[str, cs.Estimate]:
    """Each reference's absolute rating: its error-based rating (a). The judge's own level
    has none (it agrees with itself): it is rated through the other reference by the FIBS formula."""
    out = {}
    for r in REFERENCES:
        estimate = cs.combine(cs.error_rating(m, n) for n, m in _self_play(plan, results, r).items())
        if estimate.finite and not is_judge(plan, r):
            out[key(r)] = estimate
    matches = _head_to_head_results(results)
    for missing in [key(r) for r in REFERENCES if key(r) not in out]:
        through = [out[other].plus(cs.rating_difference(*cs.wins_against(matches, missing, other), plan.length))
                   for other in list(out)]
        if any(e.finite for e in through):
            out[missing] = cs.combine(through)
    return out


def head_to_head(setting: Setting, refs: Mapping[str, cs.Estimate], length: int,
                 results: Mapping[str, list[dict[str, Any]]], name: str | None = None) -> dict[str, Any]:
    """(b) for one player (``name``, default the setting's): per reference and combined.
    A reference itself is rated as a reference."""
    name = name or key(setting)
    if name in refs and setting in REFERENCES:
        return {"by_reference": {name: {"wins": 0, "matches": 0, "rating": refs[name].as_dict()}},
                "combined": refs[name], "estimates": [refs[name]]}
    by_reference: dict[str, Any] = {}
    estimates = []
    matches = _head_to_head_results(results)
    for ref in (key(r) for r in REFERENCES if key(r) in refs):
        wins, played = cs.wins_against(matches, name, ref)
        if not played:
            continue
        rating = refs[ref].plus(cs.rating_difference(wins, played, length))
        estimates.append(rating)
        by_reference[ref] = {"wins": wins, "matches": played, "rating": rating.as_dict()}
    return {"by_reference": by_reference, "combined": cs.combine(estimates), "estimates": estimates}


def _row(plan: Plan, setting: Setting, refs: Mapping[str, cs.Estimate],
         results: Mapping[str, list[dict[str, Any]]]) -> tuple[dict[str, Any] | None, list[str]]:
    by_length = _self_play(plan, results, setting)
    a_by_length = {n: cs.error_rating(m, n) for n, m in by_length.items() if m}
    a = cs.combine(a_by_length.values())
    errors = cs.error_rate([m for ms in by_length.values() for m in ms])
    b = head_to_head(setting, refs, plan.length, results)
    findings = []
    rating, source = b["combined"], "head-to-head"
    if not rating.finite:
        if not a.finite:
            return None, [f"{setting.name}: neither estimate could be made: left out of the table"]
        rating, source = a, "error-based"
        findings.append(f"{setting.name}: no head-to-head estimate (a sweep, or no matches): "
                        "its rating is the error-based one")
    if not errors.finite:
        errors = cs.Estimate(errors.value, 0.0)  # one match: its rate, without an interval
        findings.append(f"{setting.name}: one self-play match: its error rate has no interval")
    if a.finite and b["combined"].finite and not a.agrees_with(b["combined"]):
        findings.append(f"{setting.name}: error-based {a.value:.0f} (95% {a.low:.0f}..{a.high:.0f}) and "
                        f"head-to-head {b['combined'].value:.0f} ({b['combined'].low:.0f}..{b['combined'].high:.0f}) "
                        "disagree")
    finite = [e for e in b["estimates"] if e.finite and e.se > 0]
    if len(finite) == 2 and not finite[0].agrees_with(finite[1]):
        findings.append(f"{setting.name}: through Expert {finite[0].value:.0f} (+-{Z95 * finite[0].se:.0f}) "
                        f"and through World class {finite[1].value:.0f} (+-{Z95 * finite[1].se:.0f}) disagree")
    row = {"noise": setting.noise, "plies": setting.plies, "name": setting.name,
           "rating": rating.value, "low": rating.low, "high": rating.high, "se": rating.se, "source": source,
           "error_rate_memg": errors.value, "error_rate_low": max(0.0, errors.low), "error_rate_high": errors.high,
           "error_rating": a.value if a.finite else None, "error_rating_low": a.low if a.finite else None,
           "error_rating_high": a.high if a.finite else None,
           "self_play": {str(n): {"matches": len(by_length[n]), **e.as_dict()} for n, e in a_by_length.items()
                         if e.finite},
           "head_to_head": b["by_reference"]}
    return row, findings


def _monotone(rows: Sequence[Mapping[str, Any]], field_name: str, label: str) -> list[str]:
    noisy = [r for r in rows if not r["plies"] and r[field_name] is not None]
    broken = [f"{a['noise']:g} -> {b['noise']:g}" for a, b in itertools.pairwise(noisy)
              if b[field_name] >= a[field_name]]
    return [f"{label} does not fall at noise {', '.join(broken)}"] if broken else []


def build_table(plan: Plan, results: Mapping[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The calibration table (the JSON that ``engine.strength`` reads) from the parts' results."""
    refs = references(plan, results)
    rows, findings = [], []
    for r in REFERENCES:
        if r in plan.settings and is_judge(plan, r):
            findings.append(f"{r.name} plays as the judge ({plan.judge}), so its error-based rating is "
                            f"{RATING_OFFSET:.0f} by construction; as a reference it is rated through the other "
                            "reference by the FIBS formula")
    for setting in sorted(plan.settings):
        row, notes = _row(plan, setting, refs, results)
        rows += [row] if row else []
        findings += notes
    findings += _monotone(rows, "rating", "the head-to-head rating")
    findings += _monotone(rows, "error_rating", "the error-based rating")
    return {"format": 1, "command": plan.command(), "seed": plan.seed, "judge": plan.judge,
            "self_play": {"lengths": list(plan.self_play_lengths), "matches": plan.self_play_matches},
            "head_to_head": {"length": plan.length,
                             "matches": {key(r): m for r, m in zip(REFERENCES, plan.matches, strict=True)}},
            "references": {k: e.as_dict() for k, e in refs.items()},
            "settings": rows, "findings": findings}


def plot(table: Mapping[str, Any], path: Path) -> bool:
    """Rating against noise, (a) and (b) with their intervals; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for field_name, low, high, label, shift in (("rating", "low", "high", "table: head-to-head (FIBS formula)", 0.0),
                                               ("error_rating", "error_rating_low", "error_rating_high",
                                                f"error-based (judge {table['judge']})", 0.001)):
        rows = [r for r in table["settings"] if not r["plies"] and r[field_name] is not None]
        values = [r[field_name] for r in rows]
        ax.errorbar([r["noise"] + shift for r in rows], values,
                    yerr=[[v - r[low] for v, r in zip(values, rows, strict=True)],
                          [r[high] - v for v, r in zip(values, rows, strict=True)]],
                    fmt="o-", capsize=3, label=label)
    for r in table["settings"]:
        if r["plies"]:
            ax.axhspan(r["low"], r["high"], alpha=0.15, color="grey")
            ax.annotate(f"{r['name']} (head-to-head)", (0.0, r["rating"]), fontsize=8)
    ax.set_xlabel("0-ply deterministic noise (chequer and cube)")
    ax.set_ylabel("FIBS rating (95% interval)")
    ax.set_title("fibsbot strength calibration")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


# ---- verification ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    rating: float
    strength: Strength
    matches: dict[str, int]  # against each reference

    @property
    def name(self) -> str:
        return f"target-{self.rating:g}"


def _predicted_se(rating: float, refs: Mapping[str, cs.Estimate], length: int, matches: Mapping[str, int]) -> float:
    slope = math.log(10.0) * math.sqrt(length) / 2000.0
    estimates = []
    for ref, m in matches.items():
        if m:
            p = min(max(fibs_win_probability(rating - refs[ref].value, length), 0.01), 0.99)
            estimates.append(cs.Estimate(rating, math.hypot(refs[ref].se, 1.0 / (slope * math.sqrt(m * p * (1 - p))))))
    return cs.combine(estimates).se


def _verify_inputs(table: StrengthTable) -> tuple[dict[str, cs.Estimate], int, dict[str, int]]:
    """The references' ratings, the head-to-head length and the calibration's match counts
    against each reference (those it has a rating for)."""
    try:
        refs = {str(k): cs.Estimate(float(v["value"]), float(v["se"])) for k, v in table.data["references"].items()}
        length = int(table.data["head_to_head"]["length"])
        counts = {k: int(m) for k, m in table.data["head_to_head"]["matches"].items() if k in refs and int(m) > 0}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"the strength table lacks what a verification needs ({type(exc).__name__}: {exc})") \
            from None
    if not counts or length < 1:
        raise ValueError("the strength table has no rated reference to verify against")
    return refs, length, counts


def plan_verify(table: StrengthTable, targets: Sequence[float], half_width: float,
                max_matches: int = 20000) -> list[Target]:
    """Each target's setting and match counts: the references in the calibration's
    proportions, scaled until the predicted 95% half-width is ``half_width``."""
    refs, length, counts = _verify_inputs(table)
    shares = {k: m / max(counts.values()) for k, m in counts.items()}
    out = []
    for rating in targets:
        strength = table.for_rating(rating)
        scale = 10
        while True:
            matches = {k: max(1, math.ceil(scale * s)) if s else 0 for k, s in shares.items()}
            if Z95 * _predicted_se(strength.rating, refs, length, matches) <= half_width or scale >= max_matches:
                break
            scale = min(max_matches, math.ceil(scale * 1.1))
        out.append(Target(rating, strength, matches))
    return out


def verify_parts(table: StrengthTable, targets: Sequence[Target], seed: int, output: Path) -> list[TournamentConfig]:
    length = _verify_inputs(table)[1]
    configs = []
    for reference in REFERENCES:
        ref = key(reference)
        matches = max((t.matches.get(ref, 0) for t in targets), default=0)
        if matches:
            configs.append(TournamentConfig.model_validate({
                "players": [player(reference)] + [player(t.strength.setting, t.name) for t in targets],
                "format": "gauntlet", "gauntlet_player": ref, "match_length": length, "matches": matches,
                "seed": seed, "output": output / f"vs-{ref}"}))
    return configs


def measured(table: StrengthTable, target: Target, results: Mapping[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A verify target's measured rating (b) and the matches it played."""
    refs, length, _ = _verify_inputs(table)
    b = head_to_head(target.strength.setting, refs, length, results, target.name)
    rating: cs.Estimate = b["combined"]
    played = sum(v["matches"] for v in b["by_reference"].values())
    shown = rating.as_dict()  # None when nothing could be measured (a sweep)
    return {"target": target.rating, "rating": shown["value"], "low": shown["low"], "high": shown["high"],
            "matches": played}

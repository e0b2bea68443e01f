"""``python -m engine.bench parity``: agreement with the `gnubg` package per level.

On seeded random sets (positions from random games, seeded dice, seeded cube
states: money with and without Jacoby and beavers, 3- to 15-point matches at
every kind of score including Crawford and post-Crawford, the cube centred or
owned by either side) it asks both engines for the same decisions and counts:

* chequer play: gnubg's choice is what its ``findbestmove`` plays (the best of
  the plays it evaluated deepest). Its ``findbestmoves`` list is sorted by
  score alone, with the plays the move filter dropped keeping their shallower
  score, so its first entry is not always the play gnubg makes; comparing with
  that entry reads a filtered play (a 0-ply score above every 2-ply score) as a
  miss. A play counts as *tied* when gnubg's scores of its choice and of ours
  are within 1e-6 (gnubg's order among exact ties is arbitrary);
* cube decisions: gnubg's ``hint`` through the command interface at the level's
  cube context: the action text (including "You cannot double") and the
  no-double / double-take / double-pass equities within 1e-4.

gnubg's evaluation cache is emptied before each query: its content can shift the
last bits of later answers (gnubg evaluates incrementally).
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.bench.decide import gnubg_filter, gnubg_tuple_board
from engine.bench.harness import SEED, captured, gnubg_cubeinfo, quiet_gnubg, silently
from engine.cube import CANNOT_DOUBLE
from engine.match import MatchState
from engine.sampling import random_game_positions

if TYPE_CHECKING:
    from engine.evaluator import Engine
    from engine.levels import Level
    from engine.position import Move, Position
    from engine.search import Candidate

TIE = 1e-6  # gnubg's scores of two plays this close: either may be its choice
CUBE_TOL = 1e-4  # cube equities (gnubg prints six decimals; searches agree far closer)
PARITY_LEVELS = ("world class", "supremo", "grandmaster", "4ply")


# ---- the oracle's side ------------------------------------------------------------------


def flush_gnubg(gnubg: Any) -> None:
    """Empties gnubg's evaluation cache (setting the current size again does not)."""
    silently(gnubg.command, "set cache 131072")
    silently(gnubg.command, "set cache 65536")


def gnubg_context(gnubg: Any, lv: Level) -> Any:
    s = lv.checker
    return gnubg.evalcontext(int(s.cubeful), s.plies, int(s.deterministic), int(s.uses_pruning), s.noise)


_CUBE_RX = {
    "nd": re.compile(r"No (?:re)?double\s+([+-]\d+\.\d+)"),
    "dt": re.compile(r"(?:Re)?[dD]ouble, take\s+([+-]\d+\.\d+)"),
    "dp": re.compile(r"(?:Re)?[dD]ouble, pass\s+([+-]\d+\.\d+)"),
    "proper": re.compile(r"Proper cube action:\s*(.+?)(?:\s+\(\S+%\))?\s*$", re.M),
}


def gnubg_cube_hint(gnubg: Any, position_id: str, match_id: str) -> dict[str, Any]:
    """gnubg's cube analysis of the side on roll at the current cube context:
    ``proper`` (the action text, or "You cannot double"), and where the cube is
    available ``nd``, ``dt``, ``dp`` (EMG) and the whole ``text``."""
    silently(gnubg.setgnubgid, f"{position_id}:{match_id}")
    text = captured(gnubg.command, "hint", fds=(1, 2))
    if "Proper cube action" not in text:
        if CANNOT_DOUBLE not in text:
            raise RuntimeError("cannot parse gnubg's cube hint:\n" + text)
        return {"proper": CANNOT_DOUBLE, "text": text}
    out: dict[str, Any] = {"text": text}
    for key, rx in _CUBE_RX.items():
        m = rx.search(text)
        if m is None:
            raise RuntimeError("cannot parse gnubg's cube hint:\n" + text)
        out[key] = m.group(1).strip() if key == "proper" else float(m.group(1))
    return out


def set_gnubg_cube_context(gnubg: Any, plies: int) -> None:
    for c in (f"set evaluation cubedecision evaluation plies {plies}",
              f"set evaluation cubedecision evaluation prune {'on' if plies else 'off'}",
              "set evaluation cubedecision evaluation noise 0",
              "set evaluation cubedecision evaluation cubeful on", "set output digits 6"):
        silently(gnubg.command, c)


# ---- seeded sets --------------------------------------------------------------------------


def random_match_state(rng: random.Random) -> MatchState:
    """A cube state for the side on roll: money (Jacoby on or off) or a match score,
    with extra weight on 2-away/2-away, a side 1-away (Crawford, post-Crawford) and
    the cube centred, owned by the side on roll or by its opponent."""
    mover = rng.randrange(2)
    if rng.random() < 0.5:
        cube = rng.choice([1, 1, 2, 4])
        owner = -1 if cube == 1 else rng.choice([mover, mover, 1 - mover])
        return MatchState(length=0, cube=cube, cube_owner=owner, on_roll=mover, turn=mover,
                          jacoby=rng.random() < 0.7)
    length = rng.choice([3, 5, 7, 9, 11, 15])
    score = [rng.randrange(length), rng.randrange(length)]
    kind = rng.random()
    if kind < 0.12:
        score = [length - 2, length - 2]
    elif kind < 0.35:
        lead = rng.randrange(2)
        score[lead] = length - 1
        score[1 - lead] = rng.randrange(length - 1)
    crawford = length - max(score) == 1 and length - min(score) > 1 and rng.random() < 0.4
    cube = 1 if crawford else rng.choice([1, 1, 2, 4])
    owner = -1 if cube == 1 else rng.choice([mover, mover, 1 - mover])
    return MatchState(length=length, score=(score[0], score[1]), cube=cube, cube_owner=owner,
                      on_roll=mover, turn=mover, crawford_game=crawford, jacoby=False)


def match_kind(match: MatchState) -> str:
    if match.length == 0:
        return "money"
    if match.crawford_game:
        return "Crawford"
    if match.post_crawford:
        return "post-Crawford"
    return "match"


def seeded_set(n: int, seed: int) -> list[tuple[Position, tuple[int, int], MatchState, bool]]:
    """``n`` (position, dice, cube state, beavers) from random games, all seeded."""
    rng = random.Random(seed)
    out = []
    for p in random_game_positions(n, seed=seed):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        match = random_match_state(rng)
        out.append((p, dice, match, match.length == 0 and rng.random() < 0.5))
    return out


# ---- chequer play -------------------------------------------------------------------------


def steps_fit(move: Move, tup: Sequence[int]) -> bool:
    """A tuple cut at its first bear-off (pairs, then that bear-off's source) fits the play."""
    steps = Counter((s.src, s.dst) for s in move.steps)
    for i in range(0, len(tup) - 1, 2):
        if steps[(tup[i], tup[i + 1])] <= 0:
            return False
        steps[(tup[i], tup[i + 1])] -= 1
    return steps[(tup[-1], 0)] > 0


def gnubg_play_index(position: Position, candidates: Sequence[Candidate], tup: Sequence[int]) -> list[int]:
    """Our candidates that gnubg's move tuple can be: one for a whole tuple, every
    fitting play for one the package cut at its first bear-off ((6, 0, 5, 0)
    comes back as (6,))."""
    board = gnubg_tuple_board(position, tup)
    if board is not None:
        return [i for i, c in enumerate(candidates) if c.position.board == board]
    # the steps before the cut and the bear-off: the whole play when nothing followed
    head = gnubg_tuple_board(position, tuple(tup[:-1]) + (tup[-1], 0))
    return [i for i, c in enumerate(candidates) if c.position.board == head or steps_fit(c.move, tup)]


@dataclass
class PlayVerdict:
    kind: str  # agree | tie | differ | unknown | forced
    detail: str = ""


def compare_play(gnubg: Any, engine: Engine, position: Position, dice: tuple[int, int],
                 match: MatchState, lv: Level) -> PlayVerdict:
    """Our play at ``lv`` against the play gnubg's ``findbestmove`` makes."""
    ours = engine.best_move(position, dice, match, lv)
    cands = ours.candidates
    if len(cands) <= 1:
        return PlayVerdict("forced")
    ci, ctx = gnubg_cubeinfo(gnubg, match), gnubg_context(gnubg, lv)
    mf = gnubg_filter(lv.checker.filter_table)
    flush_gnubg(gnubg)
    choice = gnubg.findbestmove(position.board, ci, ctx, dice, mf)
    fits = gnubg_play_index(position, cands, choice)
    if fits == [0] or (0 in fits and len(fits) > 1 and _only_fit_deepest(cands, fits)):
        return PlayVerdict("agree")
    # gnubg plays another play: a tie if gnubg scores both within TIE
    flush_gnubg(gnubg)
    scored = gnubg.findbestmoves(position.board, ci, ctx, dice, mf)
    ours_score = [t["score"] for t in scored if 0 in gnubg_play_index(position, cands, t["move"])]
    theirs_score = [t["score"] for t in scored if tuple(t["move"]) == tuple(choice)]
    where = f"{position.position_id()}:{match.match_id()} {dice[0]}{dice[1]} {lv.name}"
    if not fits or not ours_score or not theirs_score:
        return PlayVerdict("unknown", f"{where}: gnubg {choice}, ours {cands[0].move}")
    if abs(max(theirs_score) - max(ours_score)) <= TIE:
        return PlayVerdict("tie")
    return PlayVerdict("differ", f"{where}: gnubg {choice} {max(theirs_score):+.6f}, "
                                 f"ours {cands[0].move} {cands[0].equity:+.6f}")


def _only_fit_deepest(cands: Sequence[Candidate], fits: list[int]) -> bool:
    """A cut tuple fits several plays: ours is gnubg's if the others rank below it
    at the same depth by more than a tie (gnubg plays its best)."""
    return all(cands[i].plies < cands[0].plies or cands[0].equity - cands[i].equity > TIE
               for i in fits if i != 0)


# ---- cube decisions -------------------------------------------------------------------------


@dataclass
class CubeVerdict:
    kind: str  # agree | differ
    worst: float = 0.0
    detail: str = ""


def compare_cube(gnubg: Any, engine: Engine, position: Position, match: MatchState, lv: Level,
                 beavers: bool) -> CubeVerdict:
    """Our cube decision at ``lv`` against gnubg's hint (its cube context and beaver
    setting must be set to match: :func:`set_gnubg_cube_context`, ``set beavers``)."""
    ours = engine.cube_decision(position, match, lv, beavers=beavers)
    flush_gnubg(gnubg)
    ref = gnubg_cube_hint(gnubg, position.position_id(), match.match_id())
    where = f"{position.position_id()}:{match.match_id()} {lv.name}"
    if ref["proper"] == CANNOT_DOUBLE:
        same = ours.action == CANNOT_DOUBLE
        return CubeVerdict("agree" if same else "differ", 0.0, "" if same else f"{where}: ours {ours.action}")
    worst = max(abs(a - b) for a, b in zip(ours.equities, (ref["nd"], ref["dt"], ref["dp"]), strict=True))
    if ours.action != ref["proper"] or worst > CUBE_TOL:
        return CubeVerdict("differ", worst, f"{where}: gnubg {ref['proper']} {ref['nd']:+.6f} "
                                            f"{ref['dt']:+.6f} {ref['dp']:+.6f}; ours {ours}")
    return CubeVerdict("agree", worst)


# ---- the command ---------------------------------------------------------------------------------


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    worst: float = 0.0

    def line(self, what: str, elapsed: float) -> str:
        c = self.counts
        decided = c["agree"] + c["tie"] + c["differ"]
        text = (f"  {what:<34} {c['agree'] + c['tie']:5d}/{decided:<5d} agree "
                f"({c['agree']} same, {c['tie']} tied, {c['differ']} differ")
        if c["unknown"]:
            text += f", {c['unknown']} unmatched"
        if c["forced"]:
            text += f"; {c['forced']} forced"
        text += ")"
        if self.worst:
            text += f"  max |cube diff| {self.worst:.1e}"
        return text + f"  {elapsed:.0f} s"


# (level, chequer decisions, cube decisions) by default: gnubg's deeper searches cost more
_DEFAULT_SIZES = {"world class": (2000, 300), "supremo": (1000, 0), "grandmaster": (60, 30), "4ply": (20, 6)}


def play_round(gnubg: Any, engine: Engine, lv: Level, n: int, seed: int) -> Tally:
    """Chequer-play verdicts on ``n`` seeded decisions at ``lv``."""
    t = Tally()
    for p, dice, match, _ in seeded_set(n, seed):
        v = compare_play(gnubg, engine, p, dice, match, lv)
        t.counts[v.kind] += 1
        t.kinds[match_kind(match)] += 1
        if v.detail:
            t.misses.append(v.detail)
    return t


def cube_round(gnubg: Any, engine: Engine, lv: Level, n: int, seed: int) -> Tally:
    """Cube-decision verdicts on ``n`` seeded positions at ``lv``'s cube context."""
    set_gnubg_cube_context(gnubg, lv.cube.plies)
    t = Tally()
    beavers_now = None
    try:
        for p, _, match, beavers in seeded_set(n, seed):
            if beavers != beavers_now:
                silently(gnubg.command, f"set beavers {3 if beavers else 0}")
                beavers_now = beavers
            v = compare_cube(gnubg, engine, p, match, lv, beavers)
            t.counts[v.kind] += 1
            t.kinds[match_kind(match) + (", owned" if match.cube_owner != -1 else "")] += 1
            t.worst = max(t.worst, v.worst)
            if v.detail:
                t.misses.append(v.detail)
    finally:
        silently(gnubg.command, "set beavers 3")
        set_gnubg_cube_context(gnubg, 0)
    return t


def run_parity(args: argparse.Namespace) -> None:
    from engine.evaluator import Engine
    from engine.levels import level

    gnubg = silently(quiet_gnubg)
    engine = Engine()
    names = args.levels.split(",") if args.levels else list(PARITY_LEVELS)
    print(f"parity: gnubg {gnubg.version} against ours, seeded sets (seed {SEED}); money, matches, "
          "Crawford, post-Crawford, cube centred and owned; a tie = gnubg's scores within 1e-6")
    for name in names:
        lv = level(name.strip(), flavour="gnubg-1.1")
        n_play, n_cube = (max(0, round(x * args.scale)) for x in _DEFAULT_SIZES.get(lv.name, (100, 20)))
        rounds = ((f"{lv.name} chequer play", play_round, n_play, SEED + 7),
                  (f"{lv.name} cube ({lv.cube.plies}-ply)", cube_round, n_cube, SEED + 8))
        for what, fn, n, seed in rounds:
            if not n:
                continue
            start = time.perf_counter()
            t = fn(gnubg, engine, lv, n, seed)
            print(t.line(what, time.perf_counter() - start), flush=True)
            print(f"      {dict(t.kinds)}")
            for m in t.misses[:10]:
                print("      " + m)

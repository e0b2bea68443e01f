"""The `gnubg` package's rollouts, driven through its command interface (the
parity oracle and speed reference of engine/bench/rollout_parity.py and
engine/bench/rollout_speed.py; the package's ``gnubg.command`` runs gnubg's CLI commands).

The package never prints rollout results (its ``fShowProgress`` is 0), so the
flag is switched on through ctypes and the printed final block is parsed (6
digits, probabilities as fractions). Every rollout starts with an emptied
evaluation cache: gnubg's cache can keep values stored from another path,
which would make its numbers depend on what ran before (found by experiment:
a repeated rollout moved by a few 1e-6 until the cache was emptied). Its key
leaves out the cube efficiencies, which gnubg 1.1 chooses by the depth of a
context, so a value stored by a 2-ply search can come back where a 0-ply one
was asked for (a truncated rollout after World class plays): parity runs
without a cache (``cache=0``), the speed benchmark with gnubg's default.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any

from engine.bench.harness import captured
from engine.levels import EvalSettings
from engine.position import Move
from engine.rollout import RolloutJob, RolloutSettings, _pair

_READY: list[Any] = []

_NUM = r"([+-]?\d+\.\d+)"
_VALUES = re.compile(r"^\s+" + r"\s+".join([_NUM] * 3) + r" - " + r"\s+".join([_NUM] * 3)
                     + r" CL " + _NUM + r"(?: CF " + _NUM + r")?", re.M)
_ERRORS = re.compile(r"^\s*\[" + r"\s+".join([_NUM] * 3) + r" - " + r"\s+".join([_NUM] * 3)
                     + r" CL\s+" + _NUM + r"(?: CF\s+" + _NUM + r")?\]", re.M)
_HINT = re.compile(r"^\s*(\d+)\.\s+\S+\s+\S+\s+(.+?)\s+Eq\.:", re.M)
_ROLL = re.compile(r";[BW]\[(\d)(\d)")


def _gnubg() -> Any:
    import gnubg  # the oracle (no stubs: typed Any, pyproject tool.mypy); benchmarks and tests only

    if not _READY:
        lib = ctypes.CDLL(gnubg._gnubg.__file__)
        ctypes.c_int.in_dll(lib, "fShowProgress").value = 1
        _READY.append(gnubg)
        for c in ("set player 0 human", "set player 1 human", "new game", "set threads 1",
                  "set output digits 6", "set output winpc off", "set output mwc off",
                  "set evaluation chequerplay evaluation plies 0",
                  "set evaluation chequerplay evaluation prune off"):
            command(c)
    return _READY[0]


def command(text: str) -> str:
    """One gnubg command; what it printed (stdout and stderr)."""
    return captured(_gnubg().command, text, fds=(1, 2))


def _context(prefix: str, e: EvalSettings) -> list[str]:
    out = [f"{prefix} plies {e.plies}", f"{prefix} cubeful {'on' if e.cubeful else 'off'}",
           f"{prefix} prune {'on' if e.prune else 'off'}", f"{prefix} noise {e.noise:.6f}",
           f"{prefix} deterministic {'on' if e.deterministic else 'off'}"]
    return out


def _filters(prefix: str, e: EvalSettings) -> list[str]:
    if not e.plies:
        return []  # 0-ply play has no move filter
    return [f"{prefix} {n + 1} {k} {a}" + (f" {x} {t:.6f}" if a >= 0 else "")
            for n, row in enumerate(e.filter_table) for k, (a, x, t) in enumerate(row)]


def settings_commands(s: RolloutSettings, cubeful: bool) -> list[str]:
    """gnubg commands that set its rollout context to ``s`` (cubeless: every
    context cubeless, gnubg's reproducible setting)."""
    def fix(e: EvalSettings) -> EvalSettings:
        return e if cubeful else e.with_(cubeful=False)

    chequer = _pair(s.level, cube=False)
    cube = _pair(s.cube_level if s.cube_level is not None else s.level, cube=True)
    out = [f"set rollout trials {s.trials}", f"set rollout seed {s.seed}",
           "set rollout rng mersenne", f"set rollout cubeful {'on' if cubeful else 'off'}",
           f"set rollout varredn {'on' if s.variance_reduction else 'off'}",
           f"set rollout quasirandom {'on' if s.quasi_random else 'off'}",
           f"set rollout initial {'on' if s.initial else 'off'}",
           f"set rollout bearofftruncation exact {'on' if s.bearoff_truncation else 'off'}",
           f"set rollout bearofftruncation onesided {'on' if s.onesided_truncation else 'off'}",
           "set rollout jsd stop off",
           f"set rollout limit enable {'on' if s.stop_se is not None else 'off'}"]
    if s.stop_se is not None:
        out += [f"set rollout limit minimumgames {s.min_trials}", f"set rollout limit maxerror {s.stop_se:.6f}"]
    for p in (0, 1):
        out += _context(f"set rollout player {p} chequerplay", fix(chequer[p]))
        out += _context(f"set rollout player {p} cubedecision", fix(cube[p]))
        out += _filters(f"set rollout player {p} movefilter", chequer[p])
    if s.late_ply is None:
        out.append("set rollout later enable off")
    else:
        late = _pair(s.late_level, cube=False) if s.late_level is not None else chequer
        late_cube = _pair(s.late_cube_level, cube=True) if s.late_cube_level is not None else cube
        out += ["set rollout later enable on", f"set rollout later plies {s.late_ply}"]
        for p in (0, 1):
            out += _context(f"set rollout later player {p} chequerplay", fix(late[p]))
            out += _context(f"set rollout later player {p} cubedecision", fix(late_cube[p]))
            out += _filters(f"set rollout later player {p} movefilter", late[p])
    trunc = _pair(s.truncation_level, cube=True)[0] if s.truncation_level is not None else cube[0]
    if s.truncate:
        out += ["set rollout truncation enable on", f"set rollout truncation plies {s.truncate}"]
        out += _context("set rollout truncation cubedecision", fix(trunc))
    else:
        out.append("set rollout truncation enable off")
    return out


@dataclass(frozen=True)
class GnubgResult:
    """One alternative as gnubg printed it: W WG WBG LG LBG CL [CF] and their SEs
    (CF and CL as gnubg displays them: money per the first cube, match EMG)."""

    label: str
    means: tuple[float, ...]
    errors: tuple[float, ...]
    trials: int


DEFAULT_CACHE = 524288  # gnubg's default number of cache entries (2^19, ``set cache``)


def _empty_cache(entries: int) -> None:
    command("set cache 0")  # frees every entry
    if entries:
        command(f"set cache {entries}")


def rollout(job: RolloutJob, cache: int = DEFAULT_CACHE) -> list[GnubgResult]:
    """gnubg's rollout of the job (one thread, an emptied cache of ``cache``
    entries; 0: no cache, every value computed afresh)."""
    g = _gnubg()
    match_id = job.match_id or job.match.match_id()  # money: player 0 on roll, as ours
    captured(g.setgnubgid, f"{job.position_id}:{match_id}")
    for c in settings_commands(job.settings, job.cubeful):
        command(c)
    if job.candidates is None:
        action = "rollout"
    elif job.candidates == "cube":
        action = "analyse rollout cube"
    else:
        hint = command("hint 1000").replace("\r", "\n")
        # gnubg's notation may differ from ours ("13/1*(2)"): match by the resulting position
        pos = job.position
        index = {pos.play(Move.parse(m)): int(i) for i, m in _HINT.findall(hint)}
        try:
            action = "analyse rollout move " + " ".join(
                str(index[pos.play(Move.parse(m))]) for m in job.candidates)
        except KeyError as exc:
            raise RuntimeError(f"gnubg's hint list has no play {exc}:\n{hint}") from None
    _empty_cache(cache)
    text = command(action)
    final = text[text.rfind("Rollout done"):]
    values, errors = _VALUES.findall(final), _ERRORS.findall(final)
    if not values or len(values) != len(errors):
        raise RuntimeError("cannot parse gnubg's rollout output:\n" + text[-3000:])
    labels = job.labels()
    games = [int(n) for n in re.findall(r"^(\d+) games,", final, re.M)]
    games += [job.settings.trials] * (len(labels) - len(games))
    out = []
    # parsed text: as many alternatives as gnubg printed (values and errors agree, checked above)
    for label, v, e, n in zip(labels, values, errors, games, strict=False):
        # printed: W WG WBG - (1-W) LG LBG CL [CF]; the loss column's SE is se(W)
        means = [float(v[i]) for i in (0, 1, 2, 4, 5, 6)] + ([float(v[7])] if v[7] else [])
        errs = [float(e[i]) for i in (0, 1, 2, 4, 5, 6)] + ([float(e[7])] if e[7] else [])
        out.append(GnubgResult(label, tuple(means), tuple(errs), n))
    return out


def dice_log(position_id: str, match_id: str, settings: RolloutSettings) -> list[list[str]]:
    """The rolls of every trial of a cubeless 0-ply rollout as gnubg logs them
    (one SGF file per trial, larger die first)."""
    with tempfile.TemporaryDirectory() as folder:
        g = _gnubg()
        captured(g.setgnubgid, f"{position_id}:{match_id}")
        for c in settings_commands(settings, False):
            command(c)
        command("set rollout log on")
        command(f"set rollout logfile {os.path.join(folder, 'trial')}")
        try:
            command("rollout")
        finally:
            command("set rollout log off")
        files = sorted(glob.glob(os.path.join(folder, "trial-*-a.sgf")))
        return [[a + b for a, b in _ROLL.findall(open(f).read())] for f in files]

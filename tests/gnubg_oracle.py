"""The `gnubg` PyPI package (1.1.0a16) as a test oracle: 0-ply evaluations and
cube hints. Not a test module; imported by tests that skip without gnubg."""

from __future__ import annotations

import re

from engine.bench.harness import captured as capture

_READY = False


def gnubg():
    global _READY
    import gnubg as g

    if not _READY:
        for c in ["set threads 1", "set display off", "set sound enable off",
                  "set player 0 human", "set player 1 human", "set automatic roll off",
                  "set evaluation cubedecision evaluation plies 0",
                  "set evaluation cubedecision evaluation prune off",
                  "set evaluation cubedecision evaluation noise 0",
                  "set evaluation cubedecision evaluation cubeful on",
                  "set output digits 6"]:
            capture(g.command, c)
        _READY = True
    return g


def command(cmd: str) -> str:
    return capture(gnubg().command, cmd)


def evaluate(board, noise: float = 0.0, deterministic: bool = True) -> tuple[float, ...]:
    """gnubg's 0-ply cubeless outputs (5 probabilities) of a 2x25 board."""
    g = gnubg()
    b = (tuple(board[0]), tuple(board[1]))
    ci = g.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)  # explicit: the session state may be a finished match
    return tuple(g.evaluate(b, ci, g.evalcontext(0, 0, int(deterministic), 0, noise))[:5])


_RX = {
    "nd": re.compile(r"No (?:re)?double\s+([+-]\d+\.\d+)"),
    "dt": re.compile(r"(?:Re)?[dD]ouble, take\s+([+-]\d+\.\d+)"),
    "dp": re.compile(r"(?:Re)?[dD]ouble, pass\s+([+-]\d+\.\d+)"),
    "proper": re.compile(r"Proper cube action:\s*(.+?)(?:\s+\(\S+%\))?\s*$", re.M),
}


def cube_hint(position_id: str, match_id: str) -> dict | None:
    """gnubg's 0-ply cube analysis: nd, dt, dp (EMG) and the proper action text;
    None when gnubg says the side on roll cannot double."""
    g = gnubg()
    capture(g.setgnubgid, f"{position_id}:{match_id}")
    text = command("hint")
    if "Proper cube action" not in text:
        return None
    out: dict = {}
    for k, rx in _RX.items():
        m = rx.search(text)
        if m is None:
            raise RuntimeError("cannot parse gnubg's cube hint:\n" + text)
        out[k] = m.group(1).strip() if k == "proper" else float(m.group(1))
    out["text"] = text
    return out


_RESIGN_RX = re.compile(r"Equity before resignation\s*:\s*([+-]\d+\.\d+).*?"
                        r"Equity after resignation\s*:\s*([+-]\d+\.\d+).*?"
                        r"Correct resign decision\s*:\s*(\w+)", re.S)


def resign_hint(position_id: str, match_id: str, level: int) -> tuple[float, float, bool]:
    """gnubg's analysis of a resignation by the side on roll (no dice rolled):
    (equity before, equity after, accept), equities from the accepter's side."""
    g = gnubg()
    capture(g.setgnubgid, f"{position_id}:{match_id}")
    command("resign " + ("normal", "gammon", "backgammon")[level - 1])
    text = command("hint")
    m = _RESIGN_RX.search(text)
    if m is None:
        raise RuntimeError("cannot parse gnubg's resignation hint:\n" + text)
    return float(m.group(1)), float(m.group(2)), m.group(3).lower() == "accept"


def bot_resigns(position_id: str, match_id: str) -> int:
    """Let gnubg's bot (0-ply) take its turn as the side on roll (no dice rolled)
    and return the resignation it offers (0 = none, 1..3)."""
    from engine.match import MatchState

    g = gnubg()
    m = MatchState.from_match_id(match_id)
    p = m.on_roll
    for c in [f"set player {p} gnubg", f"set player {p} chequerplay evaluation plies 0",
              f"set player {p} cubedecision evaluation plies 0",
              f"set player {p} chequerplay evaluation prune off",
              f"set player {p} cubedecision evaluation prune off"]:
        command(c)
    try:
        capture(g.setgnubgid, f"{position_id}:{match_id}")
        capture(g.nextturn)
        import base64

        bits = int.from_bytes(base64.b64decode(g.matchid()), "little")
        return (bits >> 13) & 3  # the match ID's resignation field (raw: the game may be over)
    finally:
        command(f"set player {p} human")


_ENGINE = None


def c_engine():
    """Our C engine loaded from the gnubg package's data (an ``engine.native.EngineHandle``), or None."""
    global _ENGINE
    if _ENGINE is None:
        import importlib.util
        import pathlib

        from engine.errors import DataFileError
        from engine.native import EngineHandle

        spec = importlib.util.find_spec("gnubg")
        if spec is None or not spec.submodule_search_locations:
            return None
        d = pathlib.Path(list(spec.submodule_search_locations)[0]) / "data"
        try:
            _ENGINE = EngineHandle(d / "gnubg.wd", d / "gnubg_os0.bd", d / "gnubg_ts0.bd", verify=False,
                                   cache_log2=0)
        except DataFileError:
            return None
    return _ENGINE

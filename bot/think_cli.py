"""``fibsbot hint --think SECONDS`` / ``--level "fibsbot strong"`` and ``--json``:
hints of thinking-time levels (engine/think.py), naming the depth reached (the options:
bot/cli/hint.py)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from engine.levels import Think, is_think_level, think_level
from engine.levels import level as gnubg_level
from engine.match import MatchState
from engine.position import Position


def wants_think(args: argparse.Namespace) -> bool:
    return getattr(args, "think", None) is not None or bool(getattr(args, "json", False)) \
        or is_think_level(getattr(args, "level", ""))


def _probs(p: Any) -> list[float]:
    return [round(float(x), 6) for x in p]


def hint_data(engine: Any, position: Position, match: MatchState | None, dice: tuple[int, int] | None,
              level: Any, max_moves: int = 10) -> dict[str, Any]:
    """The hint as data: for a thinking-time level the depth reached and each
    depth searched, for a gnubg level its fixed depth."""
    from engine.think import think_cube, think_move

    out: dict[str, Any] = {"position_id": position.position_id(),
                           "match_id": match.match_id() if match is not None else None,
                           "dice": list(dice) if dice else None}
    think = think_level(level) if isinstance(level, (Think, dict)) or is_think_level(level) else None
    if think is not None and think.mode == "time":
        # the engine's first search sets up its cache and tables: paid before the budget's clock runs
        engine.best_move(position, dice or (2, 1), match=match, level="expert")
    if dice is not None:
        if think is not None:
            result = think_move(engine, position, dice, match=match, think=think, threads=None)
            decision = result.decision
            out.update(level=think.label, think=result.as_json(), note=result.note)
        else:
            decision = engine.best_move(position, dice, match=match, level=level)
            out.update(level=gnubg_level(level).name, plies=gnubg_level(level).checker.plies)
        out["plies"] = out.get("think", {}).get("plies", out.get("plies"))
        out["chosen"] = str(decision.move)
        out["candidates"] = [{"move": str(c.move), "equity": round(float(c.equity), 6), "plies": c.plies,
                              "probabilities": _probs(c.probabilities)} for c in decision.candidates[:max_moves]]
        return out
    if think is not None:
        result = think_cube(engine, position, match=match, think=think, threads=None)
        cube = result.decision
        out.update(level=think.label, think=result.as_json(), note=result.note, plies=result.plies)
    else:
        cube = engine.cube_decision(position, match=match, level=level)
        out.update(level=gnubg_level(level).name, plies=gnubg_level(level).cube.plies)
    nd, dt, dp = cube.equities
    out.update(action=cube.action, optimal=round(float(cube.optimal), 6),
               equities={"no_double": round(float(nd), 6), "double_take": round(float(dt), 6),
                         "double_pass": round(float(dp), 6)})
    return out


def hint_text(data: dict[str, Any]) -> str:
    lines = [f"Position ID: {data['position_id']}" + (f"  Match ID: {data['match_id']}" if data["match_id"] else "")]
    depth = data.get("note") or f"{data['plies']}-ply"
    if data["dice"] is not None:
        d1, d2 = data["dice"]
        lines.append(f"Dice {d1}{d2}; {data['level']}: {depth}")
        if not data["candidates"]:
            lines.append("    (no legal play)")
        best = data["candidates"][0]["equity"] if data["candidates"] else 0.0
        for rank, c in enumerate(data["candidates"], 1):
            diff = "" if rank == 1 else f" ({c['equity'] - best:+.6f})"
            lines.append(f"{rank:5d}. {c['plies']}-ply  {c['move']:<28} Eq.: {c['equity']:+.6f}{diff}")
        return "\n".join(lines)
    eq = data["equities"]
    lines.append(f"Cube analysis; {data['level']}: {depth}")
    lines.append(f"  No double {eq['no_double']:+.6f}  Double, take {eq['double_take']:+.6f}  "
                 f"Double, pass {eq['double_pass']:+.6f}")
    lines.append(f"Proper cube action: {data['action']}")
    return "\n".join(lines)


def think_hint(args: argparse.Namespace, position: Position, match: MatchState | None,
               dice: tuple[int, int] | None) -> int:
    """The hint of ``fibsbot hint`` with ``--think``, a thinking-time ``--level`` or ``--json``."""
    from engine.evaluator import Engine

    level: Any = args.level
    if getattr(args, "think", None) is not None:
        level = Think(budget=args.think, mode=getattr(args, "think_mode", "time"))
    data = hint_data(Engine(), position, match, dice, level)
    print(json.dumps(data, indent=2) if args.json else hint_text(data))
    return 0

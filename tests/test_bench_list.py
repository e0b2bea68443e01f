"""``python -m engine.bench --list`` names every developer tool by a command that exists."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

from engine.bench.__main__ import COMMANDS, TOOLS

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_listed_tool_is_a_module_that_exists() -> None:
    for command, _ in TOOLS:
        words = command.split()
        assert words[:2] == ["python", "-m"], command
        assert importlib.util.find_spec(words[2]) is not None, command
        if words[2] == "engine.bench" and not words[3].startswith("--"):
            assert words[3] in COMMANDS, command


def test_list_prints_every_tool() -> None:
    out = subprocess.run([sys.executable, "-m", "engine.bench", "--list"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    listed = {line.split("  ")[0].strip() for line in out.splitlines()}
    assert listed == {command for command, _ in TOOLS}
    for module in ("bot.tournament.bench", "bot.rollout_scale", "bot.soak", "bot.fuzz", "bot.server.stress",
                   "engine.bench.rollout_parity", "engine.bench.rollout_speed"):
        assert any(f"python -m {module}" in line for line in out.splitlines()), module

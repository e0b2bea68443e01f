"""0-ply work is one task: it never asks how many cores there are (the question a thread
pool's dispatch starts with, a system call that made 0-ply cube decisions with the
default threads slower than with ``threads=1``).

The C engine asks with ``sched_getaffinity`` (pool.c). A small library loaded with
``LD_PRELOAD`` counts the calls in a child process; deeper searches ask (the count
can move), 0-ply decisions and plays with the default threads do not.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COUNTER = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

static long calls;

long counted_affinity_calls(void) { return calls; }

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    int (*real)(pid_t, size_t, cpu_set_t *) =
        (int (*)(pid_t, size_t, cpu_set_t *))dlsym(RTLD_NEXT, "sched_getaffinity");
    calls++;
    return real(pid, size, set);
}
"""

CHILD = r"""
import ctypes, json, sys
from engine import Engine
from engine.sampling import random_game_positions

counter = ctypes.CDLL(sys.argv[1]).counted_affinity_calls
engine = Engine()
positions = list(random_game_positions(20, seed=4))
calls = {}

def count(name, work):
    before = counter()
    for p in positions:
        work(p)
    calls[name] = counter() - before

count("cube 0-ply", lambda p: engine.cube_decision(p, None, "expert"))
count("play 0-ply", lambda p: engine.best_move(p, (3, 1), None, "expert"))
count("nply 0-ply", lambda p: engine.evaluate_nply(p, None, "expert"))
count("cube 2-ply", lambda p: engine.cube_decision(p, None, "world class"))
print(json.dumps(calls))
"""


def test_zero_ply_work_never_asks_for_the_cores(tmp_path: Path) -> None:
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    assert compiler, "a C compiler builds the engine; this test uses it too"
    library = tmp_path / "count_affinity.so"
    source = tmp_path / "count_affinity.c"
    source.write_text(COUNTER)
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", str(source), "-o", str(library), "-ldl"],
                   check=True, timeout=120)
    env = {**os.environ, "LD_PRELOAD": str(library), "PYTHONPATH": str(ROOT)}
    child = subprocess.run([sys.executable, "-c", CHILD, str(library)], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    calls = json.loads(child.stdout.strip().splitlines()[-1])
    assert calls["cube 2-ply"] > 0, calls  # the counter sees the engine's calls
    assert (calls["cube 0-ply"], calls["play 0-ply"], calls["nply 0-ply"]) == (0, 0, 0), calls

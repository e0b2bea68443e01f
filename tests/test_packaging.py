"""Packaging as a user meets it: the wheel (built from the sdist) installed into a fresh venv
and run from an empty folder; the package list; `fibsbot init` and `--version`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parent.parent
GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for top in ("engine", "bot")
               for p in (ROOT / top).rglob("__init__.py")}
    data = {"engine.gnubg_data", "engine.gnubg_data.met", "bot.defaults"}  # folders of data files
    assert listed == on_disk | data, f"add to pyproject.toml: {sorted(on_disk - listed)}"


def test_init_writes_configs_that_check_and_refuses_to_overwrite(tmp_path: Path, capsys) -> None:
    assert main(["init", str(tmp_path / "cfg")]) == 0
    assert sorted(p.name for p in (tmp_path / "cfg").iterdir()) == ["bot.yaml", "tournament.yaml"]
    assert main(["config", "check", str(tmp_path / "cfg" / "bot.yaml")]) == 0
    (tmp_path / "cfg" / "bot.yaml").write_text("# mine\n")
    assert main(["init", str(tmp_path / "cfg")]) == 2
    assert (tmp_path / "cfg" / "bot.yaml").read_text() == "# mine\n"  # untouched
    assert "already exist" in capsys.readouterr().err


def test_version_is_one_line_and_version_names_kernel_and_data(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("fibsbot ")
    assert main(["version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fibsbot ") and "engine kernel: " in out and "gnubg.wd" in out and "Kazaross" in out


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_wheel_from_sdist_installs_in_a_fresh_venv_and_runs_anywhere(tmp_path: Path) -> None:
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FIBSBOT_DATA")}
    # sdist first, then the wheel built from the unpacked sdist: a file missing from the sdist fails here
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], ROOT, env)
    wheels = list(dist.glob("fibsbot-*.whl"))
    assert len(wheels) == 1 and list(dist.glob("fibsbot-*.tar.gz"))
    assert "-abi3-" in wheels[0].name  # engine._core is built for the stable ABI
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    pip_out = _run([str(venv / "bin" / "pip"), "install", str(wheels[0])], work, env)
    assert "gnubg" not in pip_out.lower().replace("fibsbot", "")  # no gnubg package pulled in
    typed = _run([str(venv / "bin" / "python"), "-c",
                  "import engine, engine.analysis, engine.bench, pathlib; "
                  "d = pathlib.Path(engine.__file__).parent; "
                  "print((d / 'py.typed').is_file() and (d / 'gnubg_data' / 'gnubg-1.07.wd').is_file())"], work, env)
    assert typed.strip() == "True"  # the wheel ships its types, and its subpackages import without gnubg
    fibsbot = str(venv / "bin" / "fibsbot")
    version = _run([fibsbot, "version"], work, env)
    assert str(venv) in version and "gnubg_ts0.bd" in version  # the data inside the wheel
    assert "ok" in _run([fibsbot, "config", "check"], work, env)
    assert '"settings"' in _run([fibsbot, "calibrate", "--show", "--json"], work, env)  # the shipped table
    # the fuzzer reads its corpus from the wheel, not from a checkout
    fuzzed = _run([str(venv / "bin" / "python"), "-m", "bot.fuzz", "--sessions", "50"], work, env)
    assert fuzzed.strip().endswith("50 sessions, 0 violations"), fuzzed
    played = _run([fibsbot, "run", "--local", "--length", "1", "--status-port", "0"], work, env)
    assert "played a 1-point match" in played
    record = Path(played.split("record: ")[1].strip())
    assert record.is_file() and record.is_relative_to(work)
    if GNUBG:  # the real gnubg loads what an installed bot wrote
        done = subprocess.run([GNUBG, "-t", "-q", "-r"], input=f"load match {record}\n", capture_output=True,
                              text=True, timeout=120, cwd=work)
        assert done.returncode == 0 and "error" not in (done.stdout + done.stderr).lower()


SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed here")
def test_systemd_unit_verifies(tmp_path: Path) -> None:
    fibsbot = shutil.which("fibsbot")
    assert fibsbot is not None
    unit = (ROOT / "config" / "fibsbot.service").read_text()
    assert "Restart=always" in unit and "PYTHONUNBUFFERED=1" in unit and "EnvironmentFile=" in unit
    # the unit as installed, with the executable where this machine has it
    (tmp_path / "fibsbot.service").write_text(unit.replace("/opt/fibsbot/bin/fibsbot", fibsbot))
    assert SYSTEMD_ANALYZE is not None
    done = subprocess.run([SYSTEMD_ANALYZE, "verify", str(tmp_path / "fibsbot.service")], capture_output=True,
                          text=True, timeout=60)
    problems = [line for line in (done.stdout + done.stderr).splitlines() if "fibsbot.service" in line]
    assert not problems, problems


def test_dockerfile_builds_the_wheel_and_runs_unprivileged() -> None:
    lines = [line.strip() for line in (ROOT / "config" / "Dockerfile").read_text().splitlines()]
    steps = [line for line in lines if line and not line.startswith("#")]
    assert any("python -m build --wheel" in step for step in steps)  # the command CI runs
    assert any(step.startswith("RUN pip install") and ".whl" in step for step in steps)
    users = [step for step in steps if step.startswith("USER ")]
    assert users and users[-1] != "USER root"
    assert steps[-1].startswith('CMD ["fibsbot", "run", "/config/bot.yaml"')
    copied = {step.split()[1] for step in steps if step.startswith("COPY ") and "--from" not in step}
    assert {"bot", "engine", "csrc", "config"} <= copied  # what the sdist needs to build

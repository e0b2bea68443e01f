"""Check .sgf files with the real gnubg program: it must load each one without a
warning, and its own .mat export must equal ours byte for byte.

    python -m engine.records.validate FILE_OR_FOLDER ...

Needs Debian's gnubg (`apt-get install -y gnubg`); `$GNUBG` names another binary.
Recipe: shared/specs/sgf-validation.md (commands on stdin with ``-t -q -r``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import RecordParseError
from engine.records import load_sgf, mat

COMPLAINTS = ("warning", "unrecognised", "illegal", "not a valid")


def gnubg_program() -> str | None:
    """The gnubg binary: $GNUBG, then PATH, then /usr/games (not on PATH for root)."""
    return os.environ.get("GNUBG") or shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


def run_gnubg(commands: list[str], cwd: Path, timeout_s: float = 600) -> subprocess.CompletedProcess[str]:
    program = gnubg_program()
    if program is None:
        raise FileNotFoundError("the gnubg program is not installed (apt-get install -y gnubg)")
    return subprocess.run([program, "-t", "-q", "-r"], input="\n".join(commands) + "\n", cwd=cwd,
                          capture_output=True, text=True, timeout=timeout_s)


def complaints(output: str) -> list[str]:
    return [line for line in output.splitlines() if any(w in line.lower() for w in COMPLAINTS)]


@dataclass
class Report:
    files: list[Path]
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.problems


def validate(files: list[Path]) -> Report:
    """Load every file in one gnubg run; compare gnubg's .mat export with ours."""
    report = Report(files)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        commands = ["set confirm new off", "set confirm save off"]
        for i, path in enumerate(files):
            commands += [f'load match "{path.resolve()}"', f"export match mat {i}.mat"]
        done = run_gnubg(commands, folder)
        report.problems += [f"gnubg stderr: {line}" for line in done.stderr.splitlines()]
        report.problems += [f"gnubg: {line}" for line in complaints(done.stdout)]
        for i, path in enumerate(files):
            exported = folder / f"{i}.mat"
            if not exported.exists():
                report.problems.append(f"{path}: gnubg exported nothing")
                continue
            try:
                ours = mat.dumps(load_sgf(path)).encode()
            except RecordParseError as exc:
                report.problems.append(f"{path}: {exc}")
                continue
            if exported.read_bytes() != ours:
                report.problems.append(f"{path}: gnubg's .mat export differs from ours")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.records.validate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path, help=".sgf files or folders holding them")
    args = parser.parse_args(argv)
    files = sorted(p for path in args.paths for p in ([path] if path.is_file() else path.rglob("*.sgf")))
    if not files:
        print("no .sgf files found", file=sys.stderr)
        return 2
    report = validate(files)
    for line in report.problems:
        print(line)
    print(f"{len(files)} files: {'clean' if report.clean else f'{len(report.problems)} problems'}")
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())

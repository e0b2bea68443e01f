"""Check .sgf files with the real gnubg program: it must load each one without a
warning, and its own .mat export must equal ours byte for byte. A record that stops
before its match is over (a game without a result, or a match short of its length) is
reported as incomplete: gnubg loads a cut record without a word.

    python -m engine.records.validate FILE_OR_FOLDER ...

Needs Debian's gnubg (`apt-get install -y gnubg`); `$GNUBG` names another binary.
Recipe: commands on stdin with ``-t -q -r`` (text mode, no sound, no ``.gnubgrc``): gnubg's
exit status is 0 even on errors, so the verdict comes from its output and the files it writes.
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
from engine.records import MatchRecord, load_sgf, mat

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
    incomplete: list[str] = field(default_factory=list)
    """One line per record that stops before its match is over."""

    @property
    def clean(self) -> bool:
        return not self.problems and not self.incomplete


def incompleteness(record: MatchRecord) -> str | None:
    """Why ``record`` stops before its end (None if it is whole): a game without a result
    and the match not over; or, in a match, a score short of its length. A game abandoned
    without a result before the next one began makes a record incomplete too."""
    games = record.games
    abandoned = [str(n) for n, game in enumerate(games[:-1], 1) if game.result is None]
    if abandoned:
        return f"game{'s' if len(abandoned) > 1 else ''} {', '.join(abandoned)} abandoned without a result"
    if record.is_over():
        return None
    if not games:
        return "no game"
    if games[-1].result is None:
        them, us = record.score()
        return (f"game {len(games)} has no result and the match is not over "
                f"({them}-{us}{f' of {record.length}' if record.length else ''})")
    if record.length:
        them, us = record.score()
        return f"the {record.length}-point match stops at {them}-{us}"
    return None


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
                record = load_sgf(path)
                ours = mat.dumps(record).encode()
            except RecordParseError as exc:
                report.problems.append(f"{path}: {exc}")
                continue
            if (why := incompleteness(record)) is not None:
                report.incomplete.append(f"{path}: incomplete: {why}")
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
    for line in [*report.problems, *report.incomplete]:
        print(line)
    parts = [f"{len(report.problems)} problems"] if report.problems else []
    parts += [f"{len(report.incomplete)} incomplete"] if report.incomplete else []
    print(f"{len(files)} files: {', '.join(parts) or 'clean'}")
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())

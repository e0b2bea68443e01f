"""Write the commented default configs into a folder, to edit (and the shipped examples)."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "write the commented default configs into a folder, to edit"
INIT_FILES = ("bot.yaml", "tournament.yaml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), help="where (default: here)")
    parser.add_argument("--examples", action="store_true",
                        help="also the example tournaments (expert-vs-beginner.yaml, levels.yaml, ...)")


def run(args: argparse.Namespace) -> int:
    from bot.cli.errors import CommandError
    from bot.yamlconfig import SHIPPED_EXAMPLES, shipped_config

    folder: Path = args.folder
    names = INIT_FILES + (SHIPPED_EXAMPLES if args.examples else ())
    targets = [folder / name for name in names]
    existing = [str(t) for t in targets if t.exists()]
    if existing:
        raise CommandError(f"{', '.join(existing)} already exist(s); nothing written")
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in zip(names, targets, strict=True):
        target.write_bytes(shipped_config(name).read_bytes())
        print(f"wrote {target}")
    where = "" if folder == Path(".") else f" (from {folder}: `fibsbot config check` reads ./bot.yaml)"
    print(f"edit them, then: fibsbot config check{where}")
    return 0

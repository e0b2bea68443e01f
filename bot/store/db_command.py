"""The match database: sync, import, export, upgrade, analyse (``fibsbot db ACTION``)."""

from __future__ import annotations

import argparse

HELP = "the match database: sync, import, export, upgrade, analyse"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.store.cli import COMMANDS

    actions = parser.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    for name, (adder, _, text) in COMMANDS.items():
        words = name.split()
        if words[0] == "db":
            adder(actions.add_parser(words[1], help=text))


def run(args: argparse.Namespace) -> int:
    from bot.store.cli import COMMANDS

    return COMMANDS[f"db {args.db_command}"][1](args)

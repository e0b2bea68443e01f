"""Check a bot config file: validate the YAML (unknown keys are errors) and summarise it."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli.run import CONFIG_HELP

HELP = "check a bot config file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="config_command", required=True)
    check = actions.add_parser("check", help="validate the YAML (unknown keys are errors) and summarise it")
    check.add_argument("config", nargs="?", type=Path, default=None, help=CONFIG_HELP)


def run(args: argparse.Namespace) -> int:
    from bot.run import cmd_config_check

    return cmd_config_check(args)

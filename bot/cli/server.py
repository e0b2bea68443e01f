"""Run the FIBS-compatible local server (an adapter over :mod:`bot.server.cli`)."""

from __future__ import annotations

import argparse

HELP = "run the FIBS-compatible local server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.server import cli

    cli.build_parser(parser)


def run(args: argparse.Namespace) -> int:
    from bot.server import cli

    return cli.run(args)

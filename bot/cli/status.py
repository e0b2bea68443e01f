"""Show a running bot's status endpoint as a table."""

from __future__ import annotations

import argparse

HELP = "show a running bot's status endpoint as a table"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8130",
                        help="the endpoint (default: http://127.0.0.1:8130, bot.yaml's default)")


def run(args: argparse.Namespace) -> int:
    import http.client
    import json

    from bot.cli.errors import CommandError
    from bot.status import fetch, render

    try:
        snapshot = fetch(args.url)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        # refused, not HTTP (a FIBS port answers with text), not JSON, or not a URL
        reason = exc.__class__.__name__ if not str(exc) else str(exc)
        raise CommandError(f"no status at {args.url}: {reason}") from None
    if not isinstance(snapshot, dict):
        raise CommandError(f"no status at {args.url}: the answer is {json.dumps(snapshot)[:60]}, not a status")
    print(render(snapshot))
    return 0

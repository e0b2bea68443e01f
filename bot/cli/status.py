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
    except http.client.HTTPException as exc:  # a FIBS port, say, answers with text
        began = f" (it began {str(exc).strip()[:40]!r})" if str(exc).strip() else ""
        raise CommandError(f"no status at {args.url}: the answer is not HTTP{began}") from None
    except (OSError, ValueError) as exc:  # refused, timed out, not JSON, or not a URL
        reason = str(exc) or exc.__class__.__name__
        raise CommandError(f"no status at {args.url}: {reason}") from None
    if not isinstance(snapshot, dict):
        raise CommandError(f"no status at {args.url}: the answer is {json.dumps(snapshot)[:60]}, not a status")
    print(render(snapshot))
    return 0

"""``fibsbot serve``: the external-player socket (``--external``) and/or the HTTP API (``--http``)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.serve.emulation import Emulation
    from engine import Engine
    from engine.levels import Level, Think

log = logging.getLogger(__name__)

HELP = "the engine as a service: gnubg's external-player socket and an HTTP JSON API"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--external", metavar="HOST:PORT|PATH",
                        help="gnubg's external-player socket (a path without ':' is a Unix socket)")
    parser.add_argument("--http", metavar="HOST:PORT", help="the HTTP JSON API")
    parser.add_argument("--level", default=None,
                        help="chequer and cube level, or \"fibsbot strong\" (default: the --config file's "
                             "engine.level, else expert)")
    parser.add_argument("--think", type=float, default=None, metavar="S",
                        help="play moves and cube decisions at a thinking budget of S seconds per decision")
    parser.add_argument("--think-mode", choices=("time", "nodes"), default="time",
                        help="with --think: S is seconds (time) or search nodes (nodes: repeatable)")
    parser.add_argument("--config", metavar="BOT_YAML", default=None,
                        help="take the level and data folder from a bot config's engine section")
    parser.add_argument("--flavour", default=None, choices=("gnubg-1.07", "gnubg-1.1"),
                        help="the gnubg to answer as. The external socket's default is gnubg-1.07 (gnubg 1.07's "
                             "weights and rules, as Debian's gnubg); gnubg-1.1: the newer weights and gnubg 1.1's "
                             "rules. The HTTP API's default is the library's (the newer weights)")
    parser.add_argument("--score-order", choices=("gnubg", "fibs"), default="gnubg",
                        help="gnubg: read a board line's scores swapped, as gnubg does (default); fibs: as FIBS sends")
    parser.add_argument("--jacoby", choices=("on", "off"), default="on", help="money play default (gnubg's set jacoby)")
    parser.add_argument("--beavers", choices=("on", "off"), default="on", help="gnubg's set beavers")
    parser.add_argument("--data-dir", default=None, help="the engine's data folder (weights, bearoff, MET)")
    parser.add_argument("--gnubg-weights", metavar="FILE", default=None,
                        help="load these gnubg weights (format 1.00 or 1.01) instead of the flavour's")
    parser.add_argument("--workers", type=int, default=0, help="engine threads (default: the cores + 1)")
    parser.add_argument("--queue", type=int, default=64, help="requests that may wait for a worker")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one request may take")
    parser.add_argument("--executor", choices=("threads", "dask"), default="threads",
                        help="where HTTP rollout jobs run: here, or on a Dask cluster (--scheduler)")
    parser.add_argument("--scheduler", default=None, help="the Dask scheduler's address (--executor dask)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="let the external socket listen on a non-loopback address (firewall it)")
    parser.add_argument("--token", default=os.environ.get("FIBSBOT_SERVE_TOKEN"),
                        help="HTTP Bearer token (required to bind --http beyond loopback; or $FIBSBOT_SERVE_TOKEN)")


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(a[4][0]).is_loopback for a in socket.getaddrinfo(host, None))
        except OSError:
            return False


def check_binds(args: argparse.Namespace) -> str | None:
    """The reason the requested binds are refused, or None."""
    if not args.external and not args.http:
        return "give --external HOST:PORT|PATH and/or --http HOST:PORT"
    if args.external and ":" in args.external:
        host = args.external.rpartition(":")[0]
        if not is_loopback(host) and not args.allow_remote:
            return f"--external {args.external} is not loopback: add --allow-remote (and firewall the port)"
    if args.executor == "dask" and not args.scheduler:
        return "--executor dask needs --scheduler ADDRESS"
    if args.http:
        if ":" not in args.http:
            return "--http wants HOST:PORT"
        host = args.http.rpartition(":")[0]
        if not is_loopback(host) and not args.token:
            return f"--http {args.http} is not loopback: give --token (or $FIBSBOT_SERVE_TOKEN)"
    return None


async def serve(args: argparse.Namespace) -> None:
    import asyncio

    from bot.serve import decide
    from bot.serve.emulation import emulation, load
    from bot.serve.external import ExternalServer
    from bot.serve.pool import Pool

    engines: dict[Emulation, Engine] = {}

    def endpoint(external: bool) -> tuple[Engine, decide.ServerSettings]:
        e = emulation(args.flavour, args.gnubg_weights, args.data_dir, external=external)
        if e not in engines:
            engines[e] = load(e, args.data_dir)
        fixed, think = server_level(args, e.flavour)
        return engines[e], decide.ServerSettings(level=fixed, think=think, jacoby=args.jacoby == "on",
                                                 beavers=args.beavers == "on", score_order=args.score_order)

    pool = Pool(args.workers or None, args.queue, args.timeout)
    tasks = []
    if args.external:
        engine, settings = endpoint(external=True)
        ext = ExternalServer(engine, settings, pool)
        server = await ext.start(args.external)
        print(f"external: waiting for connections on {args.external}", flush=True)
        tasks.append(asyncio.create_task(server.serve_forever()))
    if args.http:
        import uvicorn

        from bot.serve.http import build_app, dask_rollouts, local_rollouts
        from bot.serve.http_guard import GuardedH11
        host, _, port = args.http.rpartition(":")
        runner = dask_rollouts(args.scheduler) if args.executor == "dask" else local_rollouts
        engine, settings = endpoint(external=False)
        app = build_app(engine, pool, settings, token=args.token or None, rollouts=runner)
        config = uvicorn.Config(app, host=host, port=int(port), log_level="warning", limit_concurrency=2000,
                                timeout_keep_alive=30, h11_max_incomplete_event_size=16384, http=GuardedH11)
        print(f"http: http://{args.http}/docs", flush=True)
        tasks.append(asyncio.create_task(uvicorn.Server(config).serve()))
    try:
        await asyncio.gather(*tasks)
    finally:
        pool.close()


def server_level(args: argparse.Namespace, flavour: str | None = None) -> tuple[Level, Think | None]:
    """The server's gnubg level and its thinking-time level (``--think``, ``"fibsbot strong"``;
    then expert judges resignations and evaluations). ValueError names a bad level."""
    from engine.levels import Think, is_think_level, level, think_level

    if getattr(args, "think", None) is not None:
        think: Think | None = Think(args.think, mode=args.think_mode)
    elif is_think_level(args.level):
        think = think_level(args.level)
    else:
        return level(args.level, flavour), None
    return level("expert", flavour), think


def apply_config(args: argparse.Namespace) -> None:
    """Fills ``--level`` and ``--data-dir`` from ``--config`` where not given (ConfigError
    names a bad file)."""
    if args.config:
        from bot.config import load

        engine = load(args.config).engine
        if args.level is None and getattr(args, "think", None) is None:
            from bot.yamlconfig import ThinkBudget

            if isinstance(engine.level, ThinkBudget):
                args.think, args.think_mode = engine.level.think, engine.level.think_mode
            else:
                args.level = engine.level
        if args.data_dir is None and engine.data_dir is not None:
            args.data_dir = str(engine.data_dir)
    if args.level is None:
        args.level = "expert"


def run(args: argparse.Namespace) -> int:
    import asyncio

    try:
        apply_config(args)
    except ValueError as exc:  # ConfigError is a ValueError naming the file and key
        print(f"fibsbot serve: {exc}", file=sys.stderr)
        return 2
    problem = check_binds(args)
    if problem:
        print(f"fibsbot serve: {problem}", file=sys.stderr)
        return 2
    try:
        server_level(args)
    except ValueError as exc:
        print(f"fibsbot serve: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"fibsbot serve: {exc}", file=sys.stderr)
        return 1
    return 0

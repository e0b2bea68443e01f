"""``fibsbot run`` and ``fibsbot config check``: thin wiring of config, session, player and engine.

``fibsbot run --local`` is the embedded default: a FIBS-compatible server in
this process (:mod:`bot.server`, loopback only), our bot and a sparring bot
that invites it, one match, the result and the record's path printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import logging.handlers
import secrets
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

from bot import config as bot_config
from bot import status
from bot.config import BotConfig
from bot.player import Challenge, Decider, Player, outcome
from bot.session import Opener, Session, telnet_opener
from bot.yamlconfig import ConfigError, choice_name

log = logging.getLogger(__name__)

LOCAL_HOST = "127.0.0.1"


def transcript_logger(cfg: BotConfig, user: str) -> logging.Logger:
    """A private logger writing the raw lines of ``user``'s connection to a rotating file."""
    path = Path(cfg.records.transcript.format(user=user))
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=cfg.records.transcript_max_bytes,
                                                   backupCount=cfg.records.transcript_backups, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s.%(msecs)03d %(message)s", "%Y-%m-%d %H:%M:%S"))
    logger = logging.Logger(f"fibsbot.transcript.{user}")  # not registered: one per session, closed with it
    logger.addHandler(handler)
    return logger


def close_transcript(logger: logging.Logger) -> None:
    for handler in list(logger.handlers):
        handler.close()
        logger.removeHandler(handler)


def engine_decider(cfg: BotConfig) -> Decider:
    """The engine, loaded once (its decisions are thread-safe and take the level per call);
    thinking-time levels are played by iterative deepening, each decision's depth noted."""
    from bot.player.thinking import ThinkingDecider
    from engine.evaluator import Engine

    decider = ThinkingDecider(Engine(cfg.engine.data_dir))
    decider.warm_up(cfg.engine.playing_level())
    return decider


async def start_status(cfg: BotConfig, session: Session, player: Player, meter: status.Meter,
                       timer: status.TimedDecider) -> status.Endpoint | None:
    """The status endpoint of ``cfg.status`` (None when off, or when its port cannot be had):
    ``/status``, ``/metrics`` and the operator's dashboard at ``/``, with today's numbers and
    the match history from the store."""
    from bot.status_db import attach  # the dashboard and the database side: loaded when served

    if not cfg.status.port:
        return None
    board = status.StatusBoard(session, player, meter, timer)
    try:
        return await status.serve(board, cfg.status.host, cfg.status.port, routes=attach(cfg, board))
    except OSError as exc:
        log.error("status endpoint %s:%d not started: %s", cfg.status.host, cfg.status.port, exc)
        return None


def install_signals(on_first: Callable[[], None], main: asyncio.Task[object]) -> None:
    """SIGINT/SIGTERM: the first drains gracefully, a second one exits at once."""
    loop = asyncio.get_running_loop()
    seen = []

    def handler() -> None:
        seen.append(1)
        if len(seen) == 1:
            log.warning("signal: finishing up (send it again to stop at once)")
            on_first()
        else:
            main.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread, or Windows
            loop.add_signal_handler(sig, handler)


async def _results(players: tuple[Player, ...], count: int) -> None:
    for player in players:
        while len(player.results) < count:
            await player.new_result()
        await player.settle()  # the ledger line waits for the new rating


def local_players(cfg: BotConfig, ours: Decider, theirs: Decider, *, matches: int = 1,
                  length: int | None = None) -> tuple[Player, Player]:
    """Our bot and the sparring bot, which invites ours to ``matches`` matches."""
    us, them = cfg.account.user or "fibsbot", cfg.local.opponent
    if us == them:
        raise ConfigError(f"local.opponent and account.user are both {us!r}")
    length = cfg.local.length if length is None else length
    if not cfg.invitations.min_length <= length <= cfg.invitations.max_length:
        raise ConfigError(f"a {length}-point match is outside invitations.min_length..max_length "
                          f"({cfg.invitations.min_length}..{cfg.invitations.max_length}): the bot would decline it")
    sparring_cfg = cfg.model_copy(update={
        "account": cfg.account.model_copy(update={"user": them, "address": None}),
        "engine": cfg.engine.model_copy(update={"level": cfg.local.opponent_level}),
        "play": cfg.play.model_copy(update={"greeting": "", "goodbye": ""}),
    })
    return (Player(cfg.model_copy(update={"account": cfg.account.model_copy(update={"user": us})}), ours),
            Player(sparring_cfg, theirs, records=False, challenge=Challenge(us, length, matches)))


async def play_local(player: Player, sparring: Player, *, seed: int | None = None,
                     wrap: Callable[[Opener], Opener] | None = None, signals: bool = False,
                     timer: status.TimedDecider | None = None) -> None:
    """Both bots on an in-process server until the sparring bot's challenge is played out
    (TimeoutError after ``local.timeout_s``). ``wrap`` may decorate the bots' connections
    (the soak test drops them). With ``timer`` (our player's decider), our bot serves its status."""
    from bot.server import FibsServer

    assert sparring.challenge is not None
    matches = sparring.challenge.matches
    cfg = player.cfg
    password = secrets.token_hex(8)  # the accounts exist only in this run's server
    with tempfile.TemporaryDirectory(prefix="fibsbot-local-") as tmp:
        async with FibsServer(LOCAL_HOST, cfg.local.port, db_path=Path(tmp) / "server.db", seed=seed,
                              auto_register=True, scrypt_n=2**10) as server:
            sessions = []
            meter = status.Meter()  # our side's last byte, for the status endpoint
            for who in (player, sparring):
                opener = telnet_opener(LOCAL_HOST, server.port)
                opener = meter.wrap(opener) if who is player else opener
                name = who.cfg.account.user
                session = Session(who.cfg, name, password, who, host=LOCAL_HOST, port=server.port,
                                  opener=wrap(opener) if wrap else opener, transcript=transcript_logger(who.cfg, name))
                who.attach(session)
                sessions.append(session)
            endpoint = await start_status(cfg, sessions[0], player, meter, timer) if timer else None
            tasks = [asyncio.create_task(s.run(), name=f"session {s.user}") for s in sessions]
            done = asyncio.create_task(asyncio.wait_for(_results((player, sparring), matches), cfg.local.timeout_s))
            if signals:
                current = asyncio.current_task()
                assert current is not None

                def drain() -> None:
                    player.drain()
                    sparring.drain()
                install_signals(drain, cast(asyncio.Task[object], current))
            try:
                await asyncio.wait([done, *tasks], return_when=asyncio.FIRST_COMPLETED)
                for task in tasks:
                    if task.done():
                        task.result()  # LoginFailed and other errors surface here; else a drain ended it
                if done.done():
                    done.result()
            finally:
                if endpoint is not None:
                    await endpoint.stop()
                done.cancel()
                for session in sessions:
                    session.close()
                await asyncio.wait(tasks, timeout=10)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(done, *tasks, return_exceptions=True)
                for who in (player, sparring):
                    await who.close()
                for session in sessions:
                    close_transcript(session.transcript)


async def _run_fibs(cfg: BotConfig, password: str) -> int:
    timer = status.TimedDecider(engine_decider(cfg))
    player = Player(cfg, timer)
    meter = status.Meter()
    session = Session(cfg, cfg.account.user, password, player,
                      opener=meter.wrap(telnet_opener(cfg.server.host, cfg.server.port)),
                      transcript=transcript_logger(cfg, cfg.account.user))
    player.attach(session)
    endpoint = await start_status(cfg, session, player, meter, timer)
    current = asyncio.current_task()
    assert current is not None
    install_signals(player.drain, cast(asyncio.Task[object], current))
    try:
        await session.run()
    except asyncio.CancelledError:
        log.warning("stopped at once; the server saves a running match")
    finally:
        if endpoint is not None:
            await endpoint.stop()
        await player.close()
        close_transcript(session.transcript)
    return 0


def configure_logging(level: str | None, log_file: Path | None) -> None:
    """stderr, and with ``log_file`` also a rotating file (10 MB x 5) of the same lines.
    The level defaults to INFO with a log file (an operator's record), WARNING without."""
    level = level or ("INFO" if log_file is not None else "WARNING")
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.handlers.RotatingFileHandler(log_file, maxBytes=10_000_000, backupCount=5,
                                                             encoding="utf-8"))
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)


def load_config(path: Path | None) -> tuple[Path, BotConfig]:
    """The config in use (:func:`bot.config.find`), named on stderr, and its settings."""
    where, why = bot_config.find(path)
    if why != "given":
        print(f"fibsbot: config {where} ({why})", file=sys.stderr)
    return where, bot_config.load(where)


def _level_arg(text: object) -> object:
    """A level option: a name, or a YAML mapping as bot.yaml writes it (``{think: 0.5}``)."""
    if isinstance(text, str) and text.lstrip().startswith("{"):
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError:
            raise ConfigError(f"not a level: {text!r} (a name, {{think: S}} or {{fibs_rating: R}})") from None
    return text


def cmd_run(args: argparse.Namespace) -> int:
    from bot.store.live import live_store  # the database layer: loaded by the commands that use it

    try:
        configure_logging(args.log_level, args.log_file)
    except OSError as exc:
        raise ConfigError(f"log file {args.log_file}: {exc.strerror}") from None
    path, cfg = load_config(args.config)
    if args.status_port is not None:
        cfg = cfg.model_copy(update={"status": cfg.status.model_copy(update={"port": args.status_port})})
    if getattr(args, "think", None) is not None:
        args.level = {"think": args.think, "think_mode": args.think_mode}
    if args.level or args.opponent_level:
        data = cfg.model_dump()
        data["engine"]["level"] = _level_arg(args.level) or data["engine"]["level"]
        data["local"]["opponent_level"] = _level_arg(args.opponent_level) or data["local"]["opponent_level"]
        cfg = BotConfig.model_validate(data)  # checks the level names
    if not args.local:
        if not cfg.account.user:
            raise ConfigError(f"{path}: account.user is empty (or use --local)")
        with live_store(cfg):
            return asyncio.run(_run_fibs(cfg, bot_config.password(cfg.account)))
    decider = engine_decider(cfg)
    timer = status.TimedDecider(decider)
    player, sparring = local_players(cfg, timer, decider, length=args.length)
    try:
        with live_store(cfg):
            asyncio.run(play_local(player, sparring, signals=True, timer=timer))
    except TimeoutError:
        print("fibsbot: the local match did not finish in time", file=sys.stderr)
        return 1
    except asyncio.CancelledError:
        print("fibsbot: stopped at once (a running match is saved by the server)", file=sys.stderr)
        return 1
    if not player.results:
        print("fibsbot: stopped before the match ended", file=sys.stderr)
        return 1
    result = player.results[-1]
    print(f"{player.name} played a {result.length}-point match against {result.opponent}: {outcome(result)} "
          f"(level {cfg.engine.level_name} vs {choice_name(cfg.local.opponent_level)})")
    print(f"record: {result.record.resolve() if result.record else None}")
    return 0


def cmd_config_check(args: argparse.Namespace) -> int:
    path, cfg = load_config(args.config)
    user = cfg.account.user or "(none: only --local)"
    limits = cfg.invitations
    print(f"{path}: ok")
    print(f"  account {user} at {cfg.server.host}:{cfg.server.port}, level {cfg.engine.level_name}")
    print(f"  accepts {limits.min_length}-{limits.max_length} points, unlimited "
          f"{'yes' if limits.unlimited else 'no'}; records in {cfg.records.dir}")
    return 0

"""``fibsbot db sync|import|export|upgrade|analyse`` and ``fibsbot stats``.

Each subcommand is a pair ``add_arguments(parser)`` / ``run(args) -> exit status``
(:data:`COMMANDS`); bot.store.db_command and bot.store.stats_command register them
in the ``fibsbot`` table. The store
is ``--store URL``, else bot.yaml's ``store:`` (``--config``), else the SQLite file
beside that config's records.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from bot.store.errors import StoreError

Adder = Callable[[argparse.ArgumentParser], None]
Runner = Callable[[argparse.Namespace], int]


def _store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="URL",
                        help="sqlite:///PATH or postgresql://USER@HOST/DB (${NAME} from the environment); "
                             "default: the config's store")
    parser.add_argument("--config", type=Path, help="the bot's YAML settings (default: the shipped bot.yaml)")


def _config(args: argparse.Namespace) -> object:
    from bot import config as bot_config

    return bot_config.load(args.config) if args.config else bot_config.load()


def store_url(args: argparse.Namespace) -> str:
    """The store's URL text from the options (a ConfigError for a bad config)."""
    if args.store:
        return str(args.store)  # no config to read: the bot's modules (and the engine) stay unloaded
    from bot.config import BotConfig
    from bot.store.live import configured_url

    cfg = _config(args)
    assert isinstance(cfg, BotConfig)
    url = configured_url(cfg)
    if url is None:
        raise StoreError("the config says store: off; give --store URL")
    return url


def _fail(exc: Exception) -> int:
    print(f"fibsbot: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 2


def _guarded(work: Runner) -> Runner:
    def run(args: argparse.Namespace) -> int:
        try:
            return work(args)
        except (StoreError, ValueError) as exc:  # a ConfigError is a ValueError
            return _fail(exc)
    return run


# -- db upgrade --------------------------------------------------------------------------

def add_upgrade(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)


@_guarded
def run_upgrade(args: argparse.Namespace) -> int:
    from bot.store.store import open_store

    store = open_store(store_url(args))
    try:
        from bot.store.db import current_revision

        print(f"{store.shown}: schema version {current_revision(store.engine)}")
    finally:
        store.close()
    return 0


# -- db sync -----------------------------------------------------------------------------

def add_sync(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)
    parser.add_argument("--records", type=Path, help="the records folder (default: the config's records.dir)")
    parser.add_argument("--ledger", type=Path, help="the ledger (default: the config's records.ledger)")
    parser.add_argument("--json", action="store_true", help="the report as JSON")


@_guarded
def run_sync(args: argparse.Namespace) -> int:
    from bot.config import BotConfig
    from bot.store.store import open_store
    from bot.store.sync import sync_folder

    cfg = _config(args)
    assert isinstance(cfg, BotConfig)
    records = args.records or cfg.records.dir
    ledger = args.ledger or cfg.records.ledger
    store = open_store(store_url(args))
    try:
        report = sync_folder(store, records, ledger, us_name=cfg.account.user or None)
    finally:
        store.close()
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(f"{report.records} records synced ({report.actions} actions added), {report.ledger} ledger lines")
        for line in report.skipped:
            print(f"skipped {line}", file=sys.stderr)
    return 0


# -- db import / export --------------------------------------------------------------------

def add_import(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)
    parser.add_argument("paths", nargs="+", type=Path,
                        help=".sgf/.mat records, ledgers (.jsonl), tournament folders, or folders holding them")
    parser.add_argument("--us", help="our name in the records (default: player 1, as fibsbot records)")
    parser.add_argument("--server", help="the server the matches were played on (default: the record's place)")
    parser.add_argument("--json", action="store_true", help="the report as JSON")


@_guarded
def run_import(args: argparse.Namespace) -> int:
    from bot.store.imports import import_paths
    from bot.store.store import open_store

    store = open_store(store_url(args))
    try:
        report = import_paths(store, args.paths, us_name=args.us, server=args.server)
    finally:
        store.close()
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(f"imported {report.records} records ({report.actions} actions added), {report.ledger} ledger lines, "
              f"{report.tournaments} tournaments")
    return 0


def add_export(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)
    parser.add_argument("folder", type=Path, help="where to write the records")
    parser.add_argument("--format", choices=["sgf", "mat"], default="sgf")
    parser.add_argument("--opponent", help="only the matches against this player")


@_guarded
def run_export(args: argparse.Namespace) -> int:
    from bot.store.imports import export
    from bot.store.store import open_store

    store = open_store(store_url(args), create=False)
    try:
        written = export(store, args.folder, suffix=f".{args.format}", opponent=args.opponent)
    finally:
        store.close()
    print(f"wrote {len(written)} records into {args.folder}")
    return 0


# -- db analyse ----------------------------------------------------------------------------

def add_analyse(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)
    parser.add_argument("--level", default="expert", help="the judge's level (default expert)")
    parser.add_argument("--limit", type=int, help="at most this many matches (default: all not yet judged)")


@_guarded
def run_analyse(args: argparse.Namespace) -> int:
    from bot.store import judge
    from bot.store.imports import rebuild
    from bot.store.store import open_store
    from engine.evaluator import Engine
    from engine.levels import level as engine_level

    name = engine_level(args.level).name
    store = open_store(store_url(args))
    engine = Engine()
    done = 0
    try:
        with store.begin() as conn:
            todo = judge.unanalysed(conn, name, args.limit)
        for match_id in todo:
            with store.begin() as conn:
                record = rebuild(conn, match_id)
            analysis = judge.analyse(engine, record, name)
            store.transaction(judge.store_analysis, match_id, analysis)
            done += 1
    finally:
        store.close()
    print(f"judged {done} matches at {name}")
    return 0


# -- stats ----------------------------------------------------------------------------------

def add_stats(parser: argparse.ArgumentParser) -> None:
    _store_options(parser)
    parser.add_argument("--opponent", help="only the matches against this player")
    parser.add_argument("--since", help="only matches since: 30d, 12h, 2w or a date YYYY-MM-DD")
    parser.add_argument("--by", choices=["day", "week", "opponent"], help="also per day, week or opponent")
    parser.add_argument("--worst", type=int, default=10, help="how many of the worst decisions (default 10)")
    parser.add_argument("--json", action="store_true", help="the answer as JSON")


@_guarded
def run_stats(args: argparse.Namespace) -> int:
    from bot.store import stats
    from bot.store.store import open_store

    since = stats.parse_since(args.since) if args.since else None
    store = open_store(store_url(args), create=False)
    try:
        with store.begin() as conn:
            found = stats.query(conn, opponent=args.opponent, since=since, by=args.by, worst=args.worst)
    finally:
        store.close()
    print(json.dumps(found) if args.json else stats.render(found))
    return 0


COMMANDS: dict[str, tuple[Adder, Runner, str]] = {
    "db sync": (add_sync, run_sync, "write into the store what it lacks of the records, journals and ledger"),
    "db import": (add_import, run_import, "load .sgf/.mat records, ledgers and tournament folders"),
    "db export": (add_export, run_export, "write the stored matches as .sgf or .mat files"),
    "db upgrade": (add_upgrade, run_upgrade, "create the store's tables or bring them to this version"),
    "db analyse": (add_analyse, run_analyse, "judge the stored matches at a level (decisions, error rates)"),
    "stats": (add_stats, run_stats, "matches, win rate, rating, error rates and worst decisions from the store"),
}

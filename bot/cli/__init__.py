"""The ``fibsbot`` command line: one table of subcommands, errors handled once.

Adding a subcommand is one line in :data:`COMMANDS` (its name and module path;
the module may live in its own package, e.g. ``("serve", "bot.serve.cli")``)
plus that module, which has this registration shape::

    '''One line: what the command does.'''            # the module docstring
    from __future__ import annotations
    import argparse                                   # stdlib only at the top

    HELP = "one line for `fibsbot --help`"

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(...)

    def run(args: argparse.Namespace) -> int:         # the exit status
        from heavy.module import thing                # heavy imports here, when run
        ...

Only the chosen command's module fills its parser, and a module imports its
heavy dependencies (numpy, rich, pydantic, the engine) inside ``run`` (or
inside ``add_arguments`` at worst; tests/test_cli.py imports every listed
module and fails if one loads them at the top), so
``fibsbot --version`` and ``fibsbot hint`` start fast. A command reports a
mistake by raising one of the project's named errors (:class:`CommandError`,
``ConfigError``, the engine's errors, ``OSError``...): :func:`main` prints it
as one line ``fibsbot COMMAND: message`` and exits 2. Ctrl-C exits 130 with
one line; a closed pipe (``fibsbot --version | head -1``) exits quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from bot.cli.errors import CommandError

COMMANDS: tuple[tuple[str, str], ...] = (
    ("init", "bot.cli.init"),
    ("config", "bot.cli.config"),
    ("run", "bot.cli.run"),
    ("status", "bot.cli.status"),
    ("hint", "bot.cli.hint"),
    ("rollout", "bot.cli.rollout"),
    ("analyse", "bot.cli.analyse"),
    ("convert", "bot.cli.convert"),
    ("diagram", "bot.report.cli"),
    ("db", "bot.store.db_command"),
    ("stats", "bot.store.stats_command"),
    ("tournament", "bot.cli.tournament"),
    ("calibrate", "bot.cli.calibrate"),
    ("server", "bot.cli.server"),
    ("serve", "bot.serve.cli"),
    ("version", "bot.cli.version"),
)
"""Every subcommand: its name and the module that registers it (the shape above)."""

# The project's named errors by (module, class): caught only if their module is loaded,
# so that main() itself imports none of them.
NAMED_ERRORS: tuple[tuple[str, str], ...] = (
    ("engine.errors", "BoardParseError"), ("engine.errors", "IllegalMoveError"),
    ("engine.errors", "RecordParseError"), ("engine.errors", "DataFileError"), ("engine.errors", "EngineError"),
    ("bot.yamlconfig", "ConfigError"), ("bot.session", "LoginFailed"),
    ("bot.tournament.results", "ResultsMismatch"), ("bot.store.errors", "StoreError"), ("http.client", "HTTPException"),
)


def command_module(name: str) -> ModuleType:
    """The module registered for subcommand ``name``."""
    return importlib.import_module(dict(COMMANDS)[name])


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in dict(COMMANDS) else None
    return None


class _Version(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from bot.cli.version import package_version

        print(f"fibsbot {package_version()}")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in ``argv`` (every one when None) gets its arguments."""
    parser = argparse.ArgumentParser(prog="fibsbot", description="A FIBS backgammon bot with a gnubg-grade engine.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the version (`fibsbot version` also names the engine's kernel and data)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = None if argv is None else _chosen(argv)
    for name, _ in COMMANDS:
        module = command_module(name)
        p = sub.add_parser(name, help=module.HELP, description=(module.__doc__ or "").strip().splitlines()[0])
        if argv is None or name == chosen:
            module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def _named(exc: BaseException) -> bool:
    if isinstance(exc, (CommandError, OSError)):
        return True
    for module, name in NAMED_ERRORS:
        loaded = sys.modules.get(module)
        cls = getattr(loaded, name, None) if loaded else None
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return False


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that the exit's flush stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fibsbot ARGV``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _chosen(argv)
    prefix = f"fibsbot {command}" if command else "fibsbot"
    try:
        args = build_parser(argv).parse_args(argv)
        status = int(args.run(args))
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        _quiet_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if not _named(exc):
            raise
        text = " ".join(str(exc).split("\n")) or exc.__class__.__name__  # one line; TimeoutError() says nothing
        print(f"{prefix}: {text}", file=sys.stderr)
        return 2

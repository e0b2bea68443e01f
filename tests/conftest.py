"""Fixtures shared by the test files: one engine, the shipped configs, a local FIBS server.

The helper modules beside this file (``botkit``, ``fibs_script``, ``gnubg_oracle``,
``recordkit``) import by their plain names: pyproject's ``[tool.pytest.ini_options]``
puts this folder on the import path (``pythonpath = ["tests"]``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.config import BotConfig
from bot.server import FibsServer
from bot.store import pgcluster
from engine import Engine

from botkit import config
from fibs_script import make_server

ROOT = Path(__file__).resolve().parent.parent
"""The checkout the tests run from."""
CONFIG_DIR = ROOT / "config"
"""The shipped configs (installed as the ``bot.defaults`` package)."""


@pytest.fixture(scope="session")
def engine() -> Engine:
    """One engine for the whole run: loading the weights and bearoff databases takes a while,
    and evaluations do not depend on what was evaluated before (the cache holds exact results)."""
    return Engine()


@pytest.fixture(scope="session")
def shipped_configs() -> dict[str, Path]:
    """Every shipped YAML config by file name (``bot.yaml``, ``tournament.yaml``, ...)."""
    found = {path.name: path for path in sorted(CONFIG_DIR.glob("*.yaml"))}
    assert {"bot.yaml", "tournament.yaml"} <= set(found), found
    return found


@pytest.fixture
def bot_config(tmp_path: Path) -> BotConfig:
    """The shipped bot.yaml with its records, transcripts and ledger under ``tmp_path``."""
    return config(tmp_path)


@pytest.fixture
async def fibs_server(tmp_path: Path) -> AsyncIterator[FibsServer]:
    """The local FIBS server on a free loopback port (database ``tmp_path / "f.db"``, seed 1,
    accounts created at first login), stopped after the test."""
    async with make_server(tmp_path / "f.db") as server:
        yield server


@pytest.fixture(scope="module")
def cluster() -> Iterator[pgcluster.Cluster]:
    """A PostgreSQL cluster: CI's ($FIBSBOT_TEST_POSTGRES) or a throwaway one; skips only where
    PostgreSQL cannot be started at all."""
    try:
        found, owned = pgcluster.for_tests()
    except pgcluster.ClusterError as exc:
        pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    yield found
    if owned:
        found.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database on each backend: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    cluster: pgcluster.Cluster = request.getfixturevalue("cluster")
    return cluster.create_database()

"""Load: 50 connections play 25 matches at once; the server logs no error."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from fibs_script import MatchPlayer, Result, make_server, start_match

MATCHES = 25


def _name(prefix: str, i: int) -> str:
    return f"{prefix}_{chr(97 + i // 26)}{chr(97 + i % 26)}"  # names are letters and '_' only


async def _match(port: int, i: int) -> tuple[Result, Result]:
    a, b = await start_match(port, _name("white", i), _name("black", i), 3)
    results = await asyncio.gather(MatchPlayer(a, b.name, 3, seed=i, p_resign=0.01).run(),
                                   MatchPlayer(b, a.name, 3, seed=1000 + i, p_resign=0.01).run())
    await a.close()
    await b.close()
    return results


async def test_50_connections_25_matches(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.server")
    async with make_server(tmp_path / "f.db", seed=3) as server:
        # the bound only stops a stuck run: a busy machine may be slow, never a test's verdict
        results = await asyncio.wait_for(asyncio.gather(*(_match(server.port, i) for i in range(MATCHES))), 600)
        assert len(server.sessions) <= 2 * MATCHES
    for white, black in results:
        assert white.winner == black.winner and max(white.score) >= 3
    assert sum(1 for r in caplog.records if "finished" in r.getMessage()) == MATCHES
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []

"""The server's switches that misbehave on purpose: each does what it says, and only that."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.fibsboard import move_command, parse
from bot.server import FibsServer

from fibs_script import Client, MatchPlayer, make_server, start_match


async def _gone(server: FibsServer, name: str) -> None:
    """Until the server has seen ``name`` leave."""
    while server.find(name) is not None:
        await asyncio.sleep(0.01)


async def test_forget_saved_starts_without_saved_matches(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    async with make_server(db) as server:
        await start_match(server.port, "alice", "bob", 3)
    async with make_server(db) as server:  # a plain restart keeps it
        assert server.store.saved_match("alice", "bob") is not None
    async with make_server(db, forget_saved=True) as server:
        alice = await Client.connect(server.port, "alice")
        await alice.send("show saved")
        await alice.expect(r"no saved games\.")


async def test_keep_games_runs_the_match_on_across_a_drop(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", seed=2, keep_games=True) as server:
        a, b = await start_match(server.port, "alice", "bob", 1)
        pb = MatchPlayer(b, "alice", 1, seed=4, p_double=0, p_resign=0)
        bob_plays = asyncio.create_task(pb.run())
        first = await MatchPlayer(a, "bob", 1, seed=3, p_double=0, p_resign=0, drop_after_moves=2).run()
        assert first.saved  # alice vanished when she had to move
        await asyncio.wait_for(_gone(server, "alice"), 60)
        bob = server.find("bob")
        assert server.store.saved_match("alice", "bob") is None and bob is not None and bob.table is not None

        a = await Client.connect(server.port, "alice")
        await a.send("board")
        board = parse((await a.until(r"board:.*"))[-1])
        assert board.player_on_turn and board.dice  # her roll still waits for her move
        pa = MatchPlayer(a, "bob", 1, seed=5, p_double=0, p_resign=0)
        pa.board = board
        await a.send(move_command(board, board.position.legal_plays(*board.dice)[0][0]))
        ra, rb = await asyncio.gather(pa.run(), bob_plays)
        assert ra.winner == rb.winner != "" and not rb.saved
        assert "8 alice alice drops connection." in b.transcript
        assert not [line for line in b.transcript if "saved" in line]


async def test_keep_games_saves_when_both_players_are_gone(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", keep_games=True) as server:
        a, b = await start_match(server.port, "alice", "bob", 3)
        a.writer.transport.abort()
        await b.until(r"8 alice alice drops connection\.")
        assert server.store.saved_match("alice", "bob") is None
        b.writer.transport.abort()
        await asyncio.wait_for(_gone(server, "bob"), 60)
        assert server.store.saved_match("alice", "bob") is not None
        assert server.lobby.kept == {}


async def test_unanswered_commands_are_swallowed(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", unanswered={"board", "rawwho"}) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        await alice.until(r"board:.*")
        for command in ("board", "b", "rawwho", "toggle report"):
            await alice.send(command)
        await alice.expect(r"\*\* You will be informed about starting and ending matches\.")


def test_unknown_switch_values_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown command.*frobnicate"):
        make_server(tmp_path / "f.db", unanswered={"frobnicate"})
    with pytest.raises(ValueError, match="unknown wording 'fibs2'"):
        make_server(tmp_path / "f.db", wordings=["fibs2"])


async def test_jibs_wordings(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", wordings=["jibs"]) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        banner = await Client(reader, writer, "-").read_until(b"login: ")
        assert b"\n" in banner and b"\r" not in banner  # bare LF
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        assert "6 " in alice.transcript  # bob logged in: the who list ends padded
        lines = {c: await c.until(r"board:.*") for c in (alice, bob)}
        mover, other = (alice, bob) if "It's your turn to move." in lines[alice] else (bob, alice)
        board = parse(lines[mover][-1])
        assert board.dice
        await mover.send(move_command(board, board.position.legal_plays(*board.dice)[0][0]))
        moved = (await other.until(rf"{mover.name} moves .*"))[-1]
        assert re.fullmatch(rf"{mover.name} moves( \d+-\d+)+\.", moved), moved  # no blank before the period


async def test_gibbon_leave_wording(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", wordings=["left-terminated"]) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        await alice.send("leave")
        await bob.until(r"\*\* Player alice terminated the game\. The game was saved\.")


async def test_glued_lines(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", wordings=["glued"]) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        lines = {c: await c.until(r"board:.*") for c in (alice, bob)}
        mover, other = (alice, bob) if "It's your turn to move." in lines[alice] else (bob, alice)
        board = parse(lines[mover][-1])  # the opening board: nothing followed it, so it ends as usual
        assert board.dice
        await mover.send(move_command(board, board.position.legal_plays(*board.dice)[0][0]))
        glued = (await other.until(r"board:.*"))[-1]  # the board after the move, and the offer to roll
        fields = glued.split(":")
        head = re.match(r"\d+", fields[52])
        assert len(fields) == 53 and head is not None
        assert fields[52][head.end():] == "It's your turn. Please roll or double"
        parse(":".join(fields[:52] + [head.group()]))

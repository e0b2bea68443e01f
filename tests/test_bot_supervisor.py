"""Nothing the server sends ends or wedges the bot: impossible boards, a missed match
change, handlers that fail (scripted dialogues, no network)."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from test_bot_session import Connection, login, start, stop

from bot import clip, commands, fibsboard
from bot.player.chat import OperatorChat
from engine.position import Move, Position

from botkit import Dialogue, board, config

LATER = Position.from_position_id("4HPwATDgc/ABMA").swap().play(Move.parse("13/11 13/8")).swap()


def corrupt(line: str, **fields: str) -> str:
    """``line`` with board fields (by index, ``f5="7"``) replaced."""
    tokens = line.split(":")
    for name, value in fields.items():
        tokens[int(name[1:])] = value
    return ":".join(tokens)


def legal_commands(line: str) -> set[str]:
    b = fibsboard.parse(line)
    assert b.dice is not None
    return {commands.move(b, m) for m in b.position.legal_moves(*b.dice)}


def one_more_checker(line: str) -> str:
    """Our (O, colour 1) checker count raised on the first point we hold: 16 checkers."""
    tokens = line.split(":")
    point = next(i for i in range(7, 31) if int(tokens[i]) > 0)
    tokens[point] = str(int(tokens[point]) + 1)
    return ":".join(tokens)


VALID = board(LATER, dice=(5, 2))
IMPOSSIBLE = {
    "score at the length": corrupt(VALID, f5="5"),
    "our score at the length": corrupt(VALID, f4="3"),
    "16 checkers": one_more_checker(VALID),
    "negative count off": corrupt(VALID, f45="-1"),
    "die 7": corrupt(VALID, f33="7"),
    "die 0": corrupt(VALID, f33="0"),
    "52 fields": VALID.rsplit(":", 1)[0],
    "54 fields": corrupt(VALID, f5="0:0"),
    "huge number": corrupt(VALID, f37="9" * 5000),
}


async def in_match(d: Dialogue, length: int = 3) -> None:
    await d.login()
    await d.say(f"** You are now playing a {length} point match with bob", "Starting a new game with bob.")


@pytest.mark.parametrize("kind", sorted(IMPOSSIBLE))
async def test_an_impossible_board_gets_no_action_then_the_valid_one_is_played(
        tmp_path: pathlib.Path, kind: str) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    assert await d.say(IMPOSSIBLE[kind]) == ["board"]  # nothing but a new look
    [answer] = await d.say(VALID)
    assert answer in legal_commands(VALID)
    assert d.player.match is not None and d.player.match.length == 3


async def test_a_board_of_another_match_length_resyncs_match_and_record(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    first = board(LATER, turn=0)
    await d.say(first)
    old = d.player.match
    assert old is not None and old.recorder is not None
    five = board(LATER, dice=(5, 2), length=5, score=(3, 1))
    sent = await d.say(five, settle=False)  # the old match's ledger line waits for our rating
    sent += await d.say("5 GnuBot - - 1 0 1650.00 2396 0 1041253132 host fibsbot -")
    assert sent[0] == "rawwho GnuBot" and sent[1] in legal_commands(five) and len(sent) == 2
    m = d.player.match
    assert m is not None and m.length == 5 and m.opponent == "bob"
    assert m.recorder is not None and m.recorder is not old.recorder and m.recorder.record.length == 5
    assert m.recorder.record.games[-1].score == (1, 3)  # gnubg's order: the opponent first


async def test_a_board_with_another_opponent_keeps_the_first_match_saved(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    other = board(LATER, dice=(5, 2), opponent="carol")
    [answer] = await d.say(other)
    assert answer in legal_commands(other)
    assert d.player.match is not None and d.player.match.opponent == "carol" and "bob" in d.player.interrupted


# -- the session's guard -----------------------------------------------------------------------


async def boards(conn: Connection, count: int) -> None:
    while conn.lines().count("board") < count:
        await asyncio.sleep(0.01)


async def test_a_failing_handler_is_logged_and_the_bot_resyncs(tmp_path: pathlib.Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    def boom(self: object, event: clip.Says) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(OperatorChat, "on_says", boom)
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("show saved")
    await conn.expect("board", "show saved")  # the login's look at the board
    conn.feed("12 carol hello\r\n")
    await asyncio.wait_for(boards(conn, 2), 5)  # resynchronising
    assert "handling '12 carol hello' failed" in caplog.text and "RuntimeError: a bug" in caplog.text
    assert not task.done() and session.connections == 1
    await stop(session, task)


async def test_failures_that_keep_coming_mean_a_new_connection(tmp_path: pathlib.Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: object, event: clip.Says) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(OperatorChat, "on_says", boom)
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("show saved")
    conn.feed("12 carol hello\r\n" * 6)
    second = await login(server)  # not an exit: a reconnect
    await second.expect("show saved")
    assert conn.closed and not task.done() and session.connections == 2
    await stop(session, task)


async def test_an_impossible_board_over_the_session_does_not_end_the_run(tmp_path: pathlib.Path) -> None:
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("show saved")
    conn.feed("** You are now playing a 3 point match with bob\r\nStarting a new game with bob.\r\n")
    await conn.expect("board", "show saved")
    conn.feed(IMPOSSIBLE["score at the length"] + "\r\n")
    await asyncio.wait_for(boards(conn, 2), 5)
    conn.feed(VALID + "\r\n")

    async def moved() -> str:
        while not any(line.startswith("move ") for line in conn.lines()):
            await asyncio.sleep(0.01)
        return next(line for line in conn.lines() if line.startswith("move "))
    assert await asyncio.wait_for(moved(), 10) in legal_commands(VALID)
    assert not task.done()
    await stop(session, task)


async def test_a_64_kib_glued_line_then_a_valid_board_is_answered(tmp_path: pathlib.Path) -> None:
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("board", "show saved")
    conn.feed("** You are now playing a 3 point match with bob\r\nStarting a new game with bob.\r\n")
    glued = VALID[:-1] + "1" * (1 << 16) + "12 bob hi"  # a long digit run glued between two messages
    conn.incoming.put_nowait(glued.encode() + b"\r\n" + b"7" * 12_000 + VALID.encode() + b"\r\n" + VALID.encode()
                             + b"\r\n")

    async def moved() -> str:
        while not any(line.startswith("move ") for line in conn.lines()):
            await asyncio.sleep(0.01)
        return next(line for line in conn.lines() if line.startswith("move "))
    assert await asyncio.wait_for(moved(), 10) in legal_commands(VALID)
    await stop(session, task)

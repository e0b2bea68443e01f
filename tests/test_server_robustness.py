"""Bad commands, garbage bytes, floods, failed logins, idle and kicked sessions."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import socket
from pathlib import Path

import pytest

from bot.fibsboard import parse
from bot.server import FibsServer

from fibs_script import Client, MatchPlayer, make_server, start_match

# Replies (FIBS's wording) to commands of a user who is not playing; bob is online, not ready.
IDLE_ERRORS = [
    ("frobnicate now", r"\*\* Unknown command: 'frobnicate'"),
    ("roll", r"\*\* You're not playing\."),
    ("move 24-18 13-11", r"\*\* You're not playing\."),
    ("double", r"\*\* You're not playing\."),
    ("accept", r"\*\* You're not playing\."),
    ("reject", r"\*\* You're not playing, so you can't give up\."),
    ("resign n", r"\*\* You're not playing\."),
    ("invite", r"\*\* invite who\?"),
    ("invite nobody 3", r"\*\* There is no one called nobody"),
    ("invite alice 3", r"\*\* You can't invite yourself\."),
    ("invite bob 3", r"\*\* bob is refusing games\."),
    ("join", r"\*\* Error: Join who\?"),
    ("join bob", r"\*\* bob didn't invite you\."),
    ("join nobody", r"\*\* Error: can't find player nobody"),
    ("leave", r"\*\* Error: No one to leave\."),
    ("watch", r"\*\* Watch who\?"),
    ("watch nobody", r"\*\* There's no one called nobody\."),
    ("unwatch", r"\*\* You're not watching\."),
    ("toggle nonsense", r"\*\* Don't know how to toggle nonsense"),
    ("set boardstyle 0", r"\*\* Valid arguments are the numbers 1 to 3\."),
    ("kibitz hello", r"\*\* You're not watching or playing\."),
    ("say hello", r"\*\* 'say' can't be used outside a game"),
    ("back", r"\*\* You're not away\."),
    ("tell nobody hello", r"\*\* There is no one called nobody"),
    ("message nobody hello", r"\*\* Don't know user nobody\."),
    ("message bob", r"\*\* usage: message <user> <text>"),
    ("address nonsense", r"\*\* 'nonsense' is not an email address\."),
    ("oldmoves", r"\*\* usage: oldmoves <name>"),
    ("pip", r"\*\* You're not playing or watching\."),
]


async def test_bad_commands_get_fibs_error_lines(fibs_server: FibsServer) -> None:
    alice = await Client.connect(fibs_server.port, "alice")
    bob = await Client.connect(fibs_server.port, "bob")
    for command, reply in IDLE_ERRORS:
        await alice.send(command)
        await alice.expect(reply)
    await alice.send("toggle silent")
    await alice.expect(r"\*\* You won't hear what other players shout\.")
    await alice.send("shout hello")
    await alice.expect(r"\*\* Please type 'toggle silent' again before you shout\.")
    await bob.send("toggle ready")
    await bob.expect(r"\*\* You're now ready to invite or join someone\.")
    await alice.send("invite bob many")
    await alice.expect(r"\*\* The second argument to 'invite' has to be a number or the word 'unlimited'")
    await alice.send("invite bob")
    await alice.expect(r"\*\* There's no saved match with bob\. Please give a match length\.")


async def test_game_command_errors(fibs_server: FibsServer) -> None:
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 3)
    carol = await Client.connect(fibs_server.port, "carol")
    boards = {}
    for client in (alice, bob):
        board = parse((await client.until(r"board:.*"))[-1])
        boards[client.name] = board
    mover, waiter = (alice, bob) if boards["alice"].player_on_turn else (bob, alice)
    board = boards[mover.name]
    checks = [
        (waiter, "roll", r"\*\* It's not your turn to roll the dice\."),
        (waiter, "move 1-2 3-4", r"\*\* It's not your turn to move\."),
        (waiter, "double", rf"\*\* Please wait until {mover.name} has moved\."),
        (mover, "roll", r"\*\* You did already roll the dice\."),
        (mover, "double", r"\*\* You can only double before you roll the dice\."),
        (mover, "move", r"\*\* You must give 2 moves\."),
        (mover, "move 8-2", r"\*\* You must give 2 moves\."),
        (mover, "move 1-2 3-4 5-6", r"\*\* Please don't give more than 2 moves\."),
        (mover, "move x-2 3-4", r"\*\* first move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'\."),
        (mover, "move 20-19 20-18" if board.colour == 1 else "move 5-6 5-7",
         r"\*\* You can't move from (20|5) in your first move\."),
        (mover, "move 13-6 13-6" if board.colour == 1 else "move 12-19 12-19",
         r"\*\* You can't move 7 points in your first move\."),
        (mover, "accept", rf"\*\* {waiter.name} didn't double or resign\."),
        (mover, "resign x", r"\*\* Type 'n' \(normal\), 'g' \(gammon\) or 'b' \(backgammon\) after resign\."),
        (mover, "invite carol 1", r"\*\* You are already playing\."),
        (mover, "join carol", r"\*\* You can't play two games at once"),
        (mover, "watch carol", r"\*\* You can't watch another game while you're playing\."),
        (mover, "off", r"\*\* You can't bear off with every number you have rolled\."),
        (mover, "resign n", rf"You want to resign\. {waiter.name} will win 1 point\."),
        (mover, "resign g", r"\*\* You already did that\."),
        (mover, "roll", rf"\*\* {waiter.name} hasn't accepted or rejected your resign yet\."),
        (waiter, "roll", rf"\*\* {mover.name} wanted to resign\. Type 'accept' or 'reject'\."),
        (waiter, "reject", r"You reject\. The game continues\."),
        (waiter, "leave", r"\*\* You terminated the game\. The game was saved\."),
    ]
    for client, command, reply in checks:
        await client.send(command)
        await client.until(reply)
    await mover.until(rf"\*\* Player {waiter.name} has left the game\. The game was saved\.")
    assert carol


async def test_garbage_bytes_never_hurt_anyone(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", max_line=512) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        match = asyncio.gather(MatchPlayer(alice, "bob", 3, seed=1).run(), MatchPlayer(bob, "alice", 3, seed=2).run())
        mallory = await Client.connect(server.port, "mallory")
        garbage = [
            b"\xff\xfb\x01\xff\xfd\x03\xff\xfa\x18\x01\xff\xf0",  # telnet negotiation, a subnegotiation
            b"\xc3\x28\xa0\xa1\xf0\x28\x8c\xbc\xfe\xff\xff\x00\x01\x1b[2J",  # invalid UTF-8, NUL, escapes
            b"tell mallory \xe2\x98\x83 snow\x07",  # non-ASCII chat
            b"A" * 100_000,  # one huge line, cut at max_line
            b"\r\n",
            b"\x00" * 1000 + b"\r\n",
        ]
        for chunk in garbage:
            mallory.writer.write(chunk)
        await mallory.send("")
        await mallory.send("rawwho mallory")
        lines = await mallory.until(r"6")
        errors = [line for line in lines if line.startswith("** ")]
        assert errors and all(re.fullmatch(r"\*\* Unknown command: '.*'", line) for line in errors), errors
        assert max(len(line) for line in lines) < 600
        ra, rb = await asyncio.wait_for(match, 60)
        assert ra.winner == rb.winner  # the match went on undisturbed
        await mallory.send("rawwho mallory")
        await mallory.until(r"5 mallory .*")


async def test_client_that_does_not_read_is_cut_off(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", max_output=32 * 1024) as server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        reader, writer = await asyncio.open_connection(sock=sock)
        deaf = Client(reader, writer, "deaf")
        await deaf.until("login: ")
        await deaf.send("login x 1008 deaf secret")
        await deaf.until("6")
        shouter = await Client.connect(server.port, "shouter")
        echoes = asyncio.create_task(shouter.until("never", timeout=60))  # shouter does read
        for _ in range(10_000):  # up to 20 MB for deaf, who never reads again
            await shouter.send("shout " + "x" * 2000)
            if server.find("deaf") is None:
                break
            await asyncio.sleep(0)
        assert server.find("deaf") is None
        echoes.cancel()


async def test_idle_connection_times_out_and_its_match_is_saved(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", idle_timeout_s=1.0) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)

        async def keep_alive() -> None:
            while True:
                await bob.send("time")
                await asyncio.sleep(0.1)  # ten lines a second: never idle for the 1 s limit
        task = asyncio.create_task(keep_alive())
        lines = await alice.until(r"Connection timed out\.", timeout=5)
        assert lines
        await bob.until(r"Connection with alice timed out\. The game was saved\.", timeout=5)
        task.cancel()
        assert server.store.saved_match("alice", "bob") is not None


async def test_second_login_kicks_the_first(fibs_server: FibsServer) -> None:
    watcher = await Client.connect(fibs_server.port, "carol")
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 3)
    reader, writer = await asyncio.open_connection("127.0.0.1", fibs_server.port)
    again = Client(reader, writer, "alice")
    await again.until("login: ")
    await again.send("login x 1008 alice secret")
    assert (await again.until("6"))[0] == "** Warning: You are already logged in."
    await watcher.until(r"8 alice Closed old connection with user alice\.")
    await watcher.until(r"7 alice alice logs in again\.")
    await bob.until(r"alice drops connection\. The game was saved\.")
    with pytest.raises(EOFError):
        await alice.until("never")


async def test_telnet_negotiation_before_login(fibs_server: FibsServer) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", fibs_server.port)
    client = Client(reader, writer, "alice")
    writer.write(b"\xff\xfd\x01\xff\xfb\x1f\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0")  # DO ECHO, NAWS
    await client.until("login: ")
    await client.send("login telnetlib3 1008 alice secret")
    await client.until(r"1 alice \d+ \S+")


async def test_random_commands_never_raise(fibs_server: FibsServer, caplog: pytest.LogCaptureFixture) -> None:
    """Seeded command fuzzing by two players and a watcher, mid-match and after: no command fails."""
    commands = ["roll", "move", "double", "accept", "reject", "resign", "off", "join", "leave", "board", "pip",
                "invite", "watch", "unwatch", "tell", "say", "kibitz", "whisper", "shout", "message", "away",
                "back", "toggle", "set", "rawwho", "whois", "show", "oldmoves", "ratings", "address", "m", "b"]
    words = ["", "alice", "bob", "carol", "al", "3", "0", "99", "unlimited", "n", "g", "b", "24-18", "13-11",
             "bar-3", "1-off", "o", "h", "-", "x-y", "boardstyle", "saved", "games", "savedcount", "ready",
             "moves", "greedy", "automove", "@", "a@b", "\x7f"]
    rng = random.Random(5)
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 3)
    carol = await Client.connect(fibs_server.port, "carol")
    drains = [asyncio.create_task(c.until("never", timeout=30)) for c in (alice, bob, carol)]
    for _ in range(600):
        client = rng.choice((alice, bob, carol))
        args = " ".join(rng.choice(words) for _ in range(rng.randint(0, 3)))
        await client.send(f"{rng.choice(commands)} {args}".strip())
    await alice.send("set timezone The_End")  # answered after every command before it

    async def answered() -> None:
        while "Value of 'timezone' set to The_End." not in alice.transcript:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(answered(), 60)
    for task in drains:
        task.cancel()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not [line for c in (alice, bob, carol) for line in c.transcript if "command failed" in line]


async def test_corrupt_saved_match_is_refused_and_dropped(fibs_server: FibsServer) -> None:
    alice = await Client.connect(fibs_server.port, "alice")
    bob = await Client.connect(fibs_server.port, "bob")
    await bob.setup(ready=True)
    fibs_server.store.save_match("alice", "bob", '{"names": ["alice", "bob"], "length": "x"}', 0.0)
    await alice.send("invite bob")
    await alice.until(r"\*\* You invited bob to resume a saved match\.")
    await bob.until(r"Type 'join alice' to accept\.")
    await bob.send("join alice")
    await bob.until(r"\*\* ERROR: Saved match is corrupt\. Please start another one\.")
    assert fibs_server.store.saved_match("alice", "bob") is None

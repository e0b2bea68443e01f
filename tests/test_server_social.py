"""Watching, talking, away, reports, unlimited matches, telnet-style login."""

from __future__ import annotations

import asyncio
import re

from bot.fibsboard import FibsBoard, parse, parse_move_line
from bot.server import FibsServer

from fibs_script import WHO, Client, MatchPlayer, start_match

P = r"(?:alice|bob)"
WATCHER_LINES = [  # rolls, moves, doubles, resignations, game ends: what a watcher sees
    rf"{P} rolls \d and \d\.", rf"{P} can't move\.", r"alice rolled \d, bob rolled \d",
    rf"{P} makes the first move\.", rf"{P} doubles\.", rf"{P} accepts the double\.",
    rf"{P} wants to resign\. {P} will win \d+ points?\.", rf"{P} accepts and wins \d+ points?\.",
    rf"{P} rejects\. The game continues\.", rf"{P} wins the game and gets \d+ points?\.",
    rf"{P} gives up\. {P} wins \d+ points?\.", r"score in 3 point match: alice-\d+ bob-\d+",
    r"14 dave .*", r"18 .*", r"19 .*", r"\*\* (?:1 user|\d+ users|But nobody) heard you\.",
]


async def _watch_match(carol: Client, board: FibsBoard) -> str:
    """Follow alice's match as a watcher from ``board`` on, checking every line; returns the result line."""
    expected = None
    while True:
        line = await carol.line()
        if WHO.fullmatch(line):
            continue
        if line.startswith("board:"):
            board = parse(line)
            assert (board.player, board.opponent) == ("alice", "bob")
            assert expected is None or board.position == expected, line
            expected = None
            continue
        if m := re.fullmatch(rf"({P} moves(?: \S+-\S+)+ \.)", line):
            move = parse_move_line(board, m[1])
            mover = board.position if board.player_on_turn else board.position.swap()
            after = mover.play(move)
            expected = after if board.player_on_turn else after.swap()
            continue
        if re.fullmatch(rf"{P} wins the 3 point match \d+-\d+ \.", line):
            return line
        assert any(re.fullmatch(p, line) for p in WATCHER_LINES), line


async def test_watchers_see_the_match_in_watcher_wording(fibs_server: FibsServer) -> None:
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 3)
    carol = await Client.connect(fibs_server.port, "carol")
    dave = await Client.connect(fibs_server.port, "dave")
    boards = []
    for watcher, watched in ((carol, "alice"), (dave, "bob")):
        await watcher.setup(ready=False)
        await watcher.send(f"watch {watched}")
        await watcher.expect(rf"You're now watching {watched}\.")
        boards.append(parse((await watcher.until(rf"board:{watched}:.*"))[-1]))
    await carol.send("kibitz nice game")
    await carol.send("whisper psst")
    await dave.send("whisper hush")
    players = asyncio.gather(MatchPlayer(alice, "bob", 3, seed=1).run(), MatchPlayer(bob, "alice", 3, seed=2).run())
    result, (ra, _) = await asyncio.gather(_watch_match(carol, boards[0]), players)
    assert result.startswith(ra.winner)
    assert "carol is watching you." in alice.transcript and "15 carol nice game" in bob.transcript
    assert "14 carol psst" not in bob.transcript  # whispers are for watchers only
    await dave.until(r"14 carol psst", timeout=5)
    await carol.send("unwatch")
    await carol.until(r"You stop watching alice\.")
    await alice.until(r"carol stops watching you\.")
    await alice.send("bye")
    await carol.send("watch bob")
    await carol.until(r"You're now watching bob\.")
    await carol.until(r"bob is not doing anything interesting\.")
    await bob.send("bye")
    await carol.until(r"bob logs out\.\. You're not watching anymore\.")


async def test_talking(fibs_server: FibsServer) -> None:
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 1)
    carol = await Client.connect(fibs_server.port, "carol")
    await carol.send("toggle silent")
    await carol.until(r"\*\* You won't hear what other players shout\.")
    steps = [
        (alice, "tell bo hello there", alice, r"16 bob hello there"),  # name completion
        (alice, "", bob, r"12 alice hello there"),
        (alice, "tell alice myself", alice, r"You say to yourself: myself"),
        (alice, "say good luck", alice, r"16 bob good luck"),
        (alice, "", bob, r"12 alice good luck"),
        (bob, "shout anybody here?", bob, r"17 anybody here\?"),
        (bob, "", alice, r"13 bob anybody here\?"),
        (alice, "kibitz hi", alice, r"19 hi"),
        (alice, "", alice, r"\*\* 1 user heard you\."),
        (bob, "", bob, r"15 alice hi"),
        (carol, "away having lunch", carol, r"You're away\. Please type 'back'"),
        (alice, "tell carol are you there?", alice, r"16 carol are you there\?"),
        (alice, "", alice, r"carol is away: having lunch"),
        (carol, "away", carol, r"The following users are away:"),
        (carol, "", carol, r"  carol: having lunch"),
        (carol, "", carol, r"You're away\. Please type 'back'"),
        (carol, "back", carol, r"Welcome back\."),
        (alice, "away", alice, r"None of the users is away\."),
        (alice, "pip", alice, r"Pipcounts: You 167   bob 167"),
        (carol, "show games", carol, r"alice - bob \(1 point match 0-0\)"),
        (carol, "wave", carol, r"You wave goodbye\."),
        (alice, "", alice, r"carol waves goodbye\."),
        (carol, "wave", carol, r"You wave goodbye again and log out\."),
        (alice, "", alice, r"carol waves goodbye again\."),
        (alice, "", alice, r"8 carol carol logs out\."),
    ]
    for sender, command, receiver, reply in steps:
        if command:
            await sender.send(command)
        await receiver.until(reply, timeout=5)
    assert not [line for line in carol.transcript if line.startswith("13 ")]  # silent


async def test_reports_and_rated_match_end(fibs_server: FibsServer) -> None:
    dave = await Client.connect(fibs_server.port, "dave")
    await dave.send("toggle report")
    await dave.until(r"\*\* You will be informed about starting and ending matches\.")
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 1)
    await dave.until(r"alice and bob start a 1 point match\.")
    await bob.send("resign g")
    await alice.until(r"bob wants to resign\. You will win 2 points\. Type 'accept' or 'reject'\.")
    await alice.send("accept")
    await alice.until(r"You accept and win 2 points\.")
    await alice.until(r"You win the 1 point match 2-0 \.")
    await bob.until(r"alice accepts and wins 2 points\.")
    await bob.until(r"alice wins the 1 point match 2-0 \.")
    await dave.until(r"alice wins a 1 point match against bob  2-0 \.")
    await bob.send("bye")
    await bob.until(r"Goodbye\.")
    await dave.until(r"8 bob bob logs out\.")


async def test_unlimited_match_saved_and_resumed(fibs_server: FibsServer) -> None:
    alice, bob = await start_match(fibs_server.port, "alice", "bob", 0)
    ra, rb = await asyncio.gather(MatchPlayer(alice, "bob", 0, seed=1, stop_after_games=2).run(),
                                  MatchPlayer(bob, "alice", 0, seed=2, stop_after_games=2).run())
    await alice.send("leave")
    await alice.until(r"\*\* You terminated the game\. The game was saved\.")
    await bob.until(r"\*\* Player alice has left the game\. The game was saved\.")
    await bob.send("show saved")
    await bob.until(rf"\*\*alice {{19}}unlimited {{8}}{rb.score[0]} - {rb.score[1]:2d}")
    await alice.send("invite bob 3")
    await alice.until(r"\*\* You invited bob to a 3 point match\.")
    await bob.until(r"WARNING: Don't accept if you want to continue the saved unlimited match!")
    await alice.send("invite bob")
    await bob.until(r"alice wants to resume a saved match with you\.")
    await bob.send("join alice")
    pa = MatchPlayer(alice, "bob", 0, seed=3, stop_after_games=1)
    pb = MatchPlayer(bob, "alice", 0, seed=4, stop_after_games=1)
    await alice.until(r"bob has joined you\. Your running match was loaded\.")
    await bob.until(r"You are now playing with alice\. Your running match was loaded\.")
    await asyncio.gather(pa.resume(), pb.resume())
    assert tuple(pa.score) == ra.score
    await asyncio.gather(pa.run(), pb.run())


async def test_telnet_style_login(fibs_server: FibsServer) -> None:
    fibs_server.add_user("alice", "secret")
    reader, writer = await asyncio.open_connection("127.0.0.1", fibs_server.port)
    client = Client(reader, writer, "alice")
    await client.until("login: ")
    await client.send("alice")
    prompt = await client.read_until(b"Please give your password: ")
    assert prompt.endswith(b"\xff\xfb\x01Please give your password: ")  # IAC WILL ECHO first
    await client.send("secret")
    await client.until(r"1 alice \d+ \S+")

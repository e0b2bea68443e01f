"""Whole matches between scripted clients: every line checked, reproducible, interrupted and resumed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.clip import Error, Unknown, parse_all
from bot.server import FibsServer

from fibs_script import Client, MatchPlayer, game_lines, make_server, start_match


async def _play_match(db: Path, server_seed: int) -> tuple[list[str], list[str], str]:
    async with make_server(db, seed=server_seed) as server:
        a, b = await start_match(server.port, "alice", "bob", 3)
        try:
            ra, rb = await asyncio.gather(MatchPlayer(a, "bob", 3, seed=11).run(),
                                          MatchPlayer(b, "alice", 3, seed=22).run())
            assert ra.winner == rb.winner and ra.score == rb.score[::-1]
            assert max(ra.score) >= 3 and ra.games >= 1
        except BaseException as exc:  # keep the run's whole log: a rare failure must be readable afterwards
            log = db.with_suffix(".transcripts.log")
            log.write_text("\n".join([f"server seed {server_seed}", "--- alice", *a.transcript,
                                       "--- bob", *b.transcript]) + "\n")
            exc.add_note(f"both clients' transcripts: {log}")
            raise
        await a.close()
        await b.close()
        return a.transcript, b.transcript, ra.winner


async def test_full_match_every_line_checked_and_reproducible(tmp_path: Path) -> None:
    first = await _play_match(tmp_path / "1.db", server_seed=7)
    again = await _play_match(tmp_path / "2.db", server_seed=7)
    assert game_lines(first[0]) == game_lines(again[0])
    assert game_lines(first[1]) == game_lines(again[1])
    other = await _play_match(tmp_path / "3.db", server_seed=8)
    assert game_lines(other[0]) != game_lines(first[0])  # the seed drives the dice


async def test_ratings_and_experience_after_the_match(fibs_server: FibsServer) -> None:
    a, b = await start_match(fibs_server.port, "alice", "bob", 3)
    ra, _ = await asyncio.gather(MatchPlayer(a, "bob", 3, seed=1).run(), MatchPlayer(b, "alice", 3, seed=2).run())
    await a.send("rawwho")
    lines: dict[str, list[str]] = {}
    while (line := await a.line()) != "6" or len(lines) < 2:  # the who updates at the match end, or rawwho
        if line.startswith("5 "):
            lines[line.split()[1]] = line.split()
    winner, loser = (lines["alice"], lines["bob"]) if ra.winner == "alice" else (lines["bob"], lines["alice"])
    # equal ratings, experience 0 (K = 5): +-4*5*sqrt(3)*0.5
    assert (winner[6], loser[6]) == ("1517.32", "1482.68")
    assert winner[7] == loser[7] == "3" and winner[2] == loser[2] == "-"


async def test_dropped_player_leaves_a_saved_match_that_resumes_and_completes(fibs_server: FibsServer) -> None:
    a, b = await start_match(fibs_server.port, "alice", "bob", 3)
    ra, rb = await asyncio.gather(MatchPlayer(a, "bob", 3, seed=3, p_double=0, drop_after_moves=4).run(),
                                  MatchPlayer(b, "alice", 3, seed=4, p_double=0).run())
    assert ra.saved and rb.saved  # bob saw "alice drops connection. The game was saved."
    await b.send("show saved")
    await b.expect(r"  opponent          matchlength   score \(your points first\)")
    await b.expect(rf"  alice {{19}}3 {{16}}{rb.score[0]} - {rb.score[1]:2d}")  # alice is offline: no **
    await b.send("show savedcount alice")
    await b.expect(r"alice has 1 saved game\.")

    a = await Client.connect(fibs_server.port, "alice")
    await a.send("invite bob")
    await a.expect(r"\*\* You invited bob to resume a saved match\.")
    await b.expect(r"alice wants to resume a saved match with you\.")
    await b.expect(r"Type 'join alice' to accept\.")
    await b.send("join alice")
    await b.expect(r"You are now playing with alice\. Your running match was loaded\.")
    await a.expect(r"bob has joined you\. Your running match was loaded\.")
    pa, pb = MatchPlayer(a, "bob", 3, seed=5), MatchPlayer(b, "alice", 3, seed=6)
    await asyncio.gather(pa.resume(), pb.resume())
    assert tuple(pa.score) == ra.score and tuple(pb.score) == rb.score
    ra2, rb2 = await asyncio.gather(pa.run(), pb.run())
    assert ra2.winner == rb2.winner and max(ra2.score) >= 3
    await b.send("show saved")
    await b.expect(r"no saved games\.")


async def test_shutdown_saves_running_matches(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    async with make_server(db) as server:
        a, b = await start_match(server.port, "alice", "bob", 5)
        await a.expect(r"Starting a new game with bob\.")
        await b.expect(r"Starting a new game with alice\.")
    assert "Your game with bob was saved." in await a.rest()  # then the server closed the connection
    async with make_server(db) as server:
        c = await Client.connect(server.port, "alice")
        await c.send("show saved")
        await c.expect(r"  opponent .*")
        await c.expect(r"  bob {21}5 {16}0 -  0")


async def test_the_bots_parser_knows_every_line_of_a_match(tmp_path: Path) -> None:
    """bot.clip (the bot's own reader) finds a known event in every line players and watchers get."""
    async with make_server(tmp_path / "f.db", seed=4) as server:
        a, b = await start_match(server.port, "alice", "bob", 5)
        carol = await Client.connect(server.port, "carol")
        await carol.setup(ready=False)
        await carol.send("watch bob")
        await carol.until(r"You're now watching bob\.")
        await asyncio.gather(MatchPlayer(a, "bob", 5, seed=1, p_resign=0.05).run(),
                             MatchPlayer(b, "alice", 5, seed=2, p_resign=0.05).run())
        await carol.until(r"\w+ wins the 5 point match .*")
    unknown = [line for line in a.transcript + b.transcript + carol.transcript
               for event in parse_all(line) if isinstance(event, (Unknown, Error))]
    assert unknown == []

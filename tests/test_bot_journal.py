"""Crash-safe records: every accepted action is in the journal before the next command,
and a restarted bot continues the same record with nothing lost or doubled."""

from __future__ import annotations

import json
import pathlib

from bot import fibsboard
from bot.config import BotConfig
from bot.journal import Journal, encode_action, replay
from bot.recorder import Recorder, SavedIndex
from engine.position import Position
from engine.records import Double, MatchRecord, Resign, Roll, Take, load_sgf

from botkit import Dialogue, board, config

OPENING = Position.initial()
RESUMED = "You are now playing with bob. Your running match was loaded."


def actions(recorder: Recorder | None) -> list[object]:
    assert recorder is not None
    return [(type(a).__name__, a.player, getattr(a, "dice", None), str(getattr(a, "move", "")), a.comment)
            for game in recorder.record.games for a in game.actions]


async def first_game(d: Dialogue) -> tuple[Position, str]:
    """We open with 6-2, bob answers with 3-1: two actions; returns the position and our last command."""
    await d.login()
    await d.say("** You are now playing a 3 point match with bob", "Starting a new game with bob.")
    line = board(OPENING, dice=(6, 2))
    [move] = await d.say("You rolled 6, bob rolled 2", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(6, 2)[0])
    await d.say("You moves 13-7 13-11 .", board(after, turn=0))
    bob = after.swap()
    bob_move = bob.legal_moves(3, 1)[1]
    before_bob = board(after, turn=0, dice=(3, 1))
    text = fibsboard.move_command(fibsboard.parse(before_bob), bob_move).replace("move", "bob moves") + " ."
    bob_after = bob.play(bob_move).swap()
    await d.say("bob rolls 3 and 1.", before_bob, text, board(bob_after, turn=1))
    return bob_after, move


async def restarted(tmp_path: pathlib.Path) -> Dialogue:
    """A new process on the same folders (the old one was killed: nothing flushed, no goodbye)."""
    d = Dialogue(config(tmp_path))
    await d.login()
    assert await d.say(RESUMED) == ["board"]
    return d


async def test_a_killed_bot_continues_the_same_record(tmp_path: pathlib.Path, bot_config: BotConfig) -> None:
    first = Dialogue(bot_config)
    position, _ = await first_game(first)
    before = actions(first.player.match.recorder if first.player.match else None)
    assert len(before) == 2 and not list(tmp_path.rglob("*.sgf"))  # no game over yet: only the journal
    d = await restarted(tmp_path)
    line = board(position, dice=(5, 5))
    [move] = await d.say(line)
    assert move.startswith("move ")
    m = d.player.match
    assert m is not None and m.recorder is not None and m.recorder.path == first.player.match.recorder.path  # type: ignore[union-attr]
    assert actions(m.recorder) == before  # nothing lost, nothing doubled, nothing reconstructed


async def test_a_move_sent_just_before_the_kill_is_recorded_with_its_dice(tmp_path: pathlib.Path,
                                                                         bot_config: BotConfig) -> None:
    first = Dialogue(bot_config)
    await first.login()
    await first.say("** You are now playing a 3 point match with bob", "Starting a new game with bob.")
    line = board(OPENING, dice=(4, 3))
    [sent] = await first.say("You rolled 4, bob rolled 3", "It's your turn to move.", line)
    # killed before the server's answer: on restart the board shows our move played
    played = OPENING.play(OPENING.legal_moves(4, 3)[0])
    d = await restarted(tmp_path)
    await d.say(board(played, turn=0))
    got = actions(d.player.match.recorder if d.player.match else None)
    assert got == [("Roll", 1, (4, 3), str(OPENING.legal_moves(4, 3)[0]), "")]  # the true dice, not rebuilt


async def test_the_journal_ends_with_the_match_and_the_index_follows(tmp_path: pathlib.Path,
                                                                    bot_config: BotConfig) -> None:
    d = Dialogue(bot_config)
    await first_game(d)
    index = SavedIndex(tmp_path / "records" / "saved.json")
    recorder = d.player.match.recorder if d.player.match else None
    assert recorder is not None and index.get("bob") == recorder.path and recorder.journal.exists
    await d.say("bob gives up. You win 1 point.", "You win the 3 point match 3-0 .", settle=False)
    assert not recorder.journal.exists and load_sgf(recorder.path).games[0].result is not None
    assert index.get("bob") is None


def test_replay_rebuilds_every_kind_of_action_and_ignores_a_torn_line(tmp_path: pathlib.Path) -> None:
    record = MatchRecord(("bob", "GnuBot"), 5)
    journal = Journal(tmp_path / "m.sgf")
    journal.start(record)
    game = record.new_game((0, 0), False)
    journal.write({"game": [0, 0], "crawford": False})
    for action in [Roll(1, (6, 2), OPENING.legal_moves(6, 2)[0], comment="x"), Double(0), Take(1), Resign(0, 2)]:
        game.append(action)
        journal.write({"action": encode_action(action)})
    journal.write({"state": {"dice": {"0": [3, 1]}, "pending": None, "broken": False, "expect_game": False}})
    journal.close()
    with open(journal.path, "a", encoding="utf-8") as f:
        f.write('{"action": {"kind": "Ro')  # killed while writing
    again, state = replay(journal.path)
    assert again == record and state["dice"] == {"0": [3, 1]}
    assert json.loads(journal.path.read_text().splitlines()[0])["match"]["players"] == ["bob", "GnuBot"]

"""The player's dialogues: real FIBS wording in, the exact commands out (no network)."""

from __future__ import annotations

import json
import pathlib
import time

import pytest

from bot import commands, fibsboard
from bot.player.game import GamePlayer
from engine.position import Move, Position

from botkit import Cube, Dialogue, FakeDecider, board, config

OPENING = Position.initial()
# after bob (X) played 13/11 13/8 from the opening, we (O) are on roll
LATER = Position.from_position_id("4HPwATDgc/ABMA").swap().play(Move.parse("13/11 13/8")).swap()


def first_move(line: str, index: int = 0) -> str:
    b = fibsboard.parse(line)
    assert b.dice is not None
    return commands.move(b, b.position.legal_moves(*b.dice)[index])


async def in_match(d: Dialogue, length: int = 3) -> None:
    await d.login()
    sent = await d.say(f"** You are now playing a {length} point match with bob")
    assert sent[0].startswith("kibitz Hi bob, I am a computer program (fibsbot, level expert).")


# -- invitations ---------------------------------------------------------------------


async def test_login_asks_for_saved_matches(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, account={"address": "ComputerPlayer___GnuBot@example.org"}))
    assert await d.login() == ["board", "show saved", "address ComputerPlayer___GnuBot@example.org"]


async def test_invitation_accepted_after_the_saved_count(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await d.login()
    sent = await d.say("bob wants to play a 3 point match with you.\a", "Type 'join bob' to accept.", settle=False)
    assert sent == ["show savedcount bob"]
    assert await d.say("bob has 1 saved game.") == ["join bob"]


async def test_declines_say_why_once(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await d.login()
    invite9 = ("bob wants to play a 9 point match with you.", "Type 'join bob' to accept.")
    assert await d.say(*invite9) == ["tell bob Sorry, I play matches of 1 to 7 points."]
    assert await d.say(*invite9) == []  # told once per minute, not at every invitation
    assert await d.say("carol wants to play an unlimited match with you.", "Type 'join carol' to accept.") == [
        "tell carol Sorry, I do not play unlimited matches."]


async def test_droppers_and_blocked_players_are_declined(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"block": ["pest"], "max_saved": 3}))
    await d.login()
    await d.say("bob wants to play a 3 point match with you.", "Type 'join bob' to accept.", settle=False)
    assert await d.say("bob has 4 saved games.") == [
        "tell bob Sorry, you have 4 saved matches; please finish some first."]
    assert await d.say("pest wants to play a 1 point match with you.", "Type 'join pest' to accept.") == [
        "tell pest Sorry, I do not play with you."]


async def test_rating_bounds_look_the_inviter_up(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"min_rating": 1600, "max_saved": None}))
    await d.login()
    sent = await d.say("bob wants to play a 3 point match with you.", "Type 'join bob' to accept.", settle=False)
    assert sent == ["rawwho bob"]
    assert await d.say("5 bob - - 1 0 1550.00 320 5 1041253132 host client -", "6") == [
        "tell bob Sorry, I play opponents with rating from 1600."]


async def test_resumes_are_always_accepted(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"allow": ["alice"]}))
    await d.login()
    assert await d.say("bob wants to resume a saved match with you.", "Type 'join bob' to accept.") == ["join bob"]


async def test_a_new_match_over_a_saved_one_is_turned_into_a_resume(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await d.login()
    sent = await d.say("bob wants to play a 3 point match with you.", "Type 'join bob' to accept.",
                       "WARNING: Don't accept if you want to continue the saved 5 point match!", settle=False)
    assert sent == ["invite bob"]  # the server confirms the saved match by accepting the invitation
    assert await d.say("** You invited bob to resume a saved match.") == [
        "tell bob We have a saved 5-point match: please resume it first."]


# -- turns -------------------------------------------------------------------------------


async def test_opening_move_and_later_rolls(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    line = board(OPENING, dice=(6, 2))
    sent = await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    assert sent == [first_move(line)]
    assert await d.say(board(LATER), "It's your turn. Please roll or double") == ["roll"]
    line = board(LATER, dice=(4, 4))
    sent = await d.say("You roll 4 and 4.", line, "Please move 4 pieces.")
    assert sent == [first_move(line)] and len(sent[0].split()) == 5


async def test_forced_and_impossible_moves(tmp_path: pathlib.Path) -> None:
    decider = FakeDecider()
    d = Dialogue(config(tmp_path), decider)
    await in_match(d)
    # our two checkers on the bar against a closed board: no move, FIBS passes the turn
    closed = Position.from_board(((2,) * 6 + (0,) * 19, (2, 2, 2, 2, 2) + (0,) * 19 + (2,)))
    assert await d.say(board(closed, dice=(6, 6)), "You can't move.") == []
    assert "move" not in decider.calls


async def test_double_take_and_crawford(tmp_path: pathlib.Path) -> None:
    decider = FakeDecider(forced={"cube": Cube(True, True)})
    d = Dialogue(config(tmp_path), decider)
    await in_match(d)
    await d.say("Starting a new game with bob.", board(LATER, turn=0))
    assert await d.say(board(LATER), "It's your turn. Please roll or double") == ["double"]
    assert await d.say("You double. Please wait for bob to accept or reject.",
                       "bob accepts the double. The cube shows 2.") == []
    # bob redoubles; we take (the take decision is the doubler's cube decision)
    assert await d.say(board(LATER, turn=0, cube=2, owner=1), "bob doubles. Type 'accept' or 'reject'.") == ["accept"]
    decider.forced["cube"] = Cube(True, False)
    assert await d.say(board(LATER, turn=0, cube=4, owner=1), "bob doubles. Type 'accept' or 'reject'.") == ["reject"]


async def test_no_double_in_the_crawford_game(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path), FakeDecider(forced={"cube": Cube(True, True)}))
    await in_match(d)
    # FIBS may show the cube available in the Crawford game; we track the rule ourselves
    assert await d.say("Starting a new game with bob.", board(LATER, score=(2, 0)),
                       "It's your turn. Please roll or double") == ["roll"]
    # the next game is post-Crawford: doubling is allowed again
    await d.say("bob wins the game and gets 1 point. Sorry.", "Starting a new game with bob.")
    assert await d.say(board(LATER, score=(2, 1)), "It's your turn. Please roll or double") == ["double"]


async def test_resignations(tmp_path: pathlib.Path) -> None:
    decider = FakeDecider()
    d = Dialogue(config(tmp_path), decider)
    await in_match(d)
    await d.say("Starting a new game with bob.", board(LATER, turn=0))
    assert await d.say("bob wants to resign. You will win 2 points. Type 'accept' or 'reject'.") == ["accept"]
    decider.accept_resignations = False
    assert await d.say("bob wants to resign. You will win 1 point. Type 'accept' or 'reject'.") == ["reject"]
    # we offer one when the engine says so; refused, the turn goes on, and it is not offered again
    decider.forced["resign"] = 1
    sent = await d.say(board(LATER), "It's your turn. Please roll or double", settle=False)
    assert sent == ["resign n"]
    assert await d.say("You want to resign. bob will win 1 point.", "bob rejects. The game continues.") == ["roll"]
    assert await d.say(board(LATER, dice=(3, 1))) == [first_move(board(LATER, dice=(3, 1)))]


async def test_an_unanswered_resignation_offer_counts_as_refused(tmp_path: pathlib.Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that never answers our offer does not keep the turn waiting: the turn goes on
    as after a refusal, and the same offer is not made again."""
    monkeypatch.setattr(GamePlayer, "RESIGN_ANSWER_S", 0.05)
    decider = FakeDecider()
    d = Dialogue(config(tmp_path), decider)
    await in_match(d)
    await d.say("Starting a new game with bob.")
    decider.forced["resign"] = 1
    assert await d.say(board(LATER), "It's your turn. Please roll or double", settle=False) == ["resign n"]
    assert await d.say() == ["roll"]  # no answer came
    assert await d.say(board(LATER, dice=(3, 1))) == [first_move(board(LATER, dice=(3, 1)))]


async def test_game_and_match_end(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    await d.say("Starting a new game with bob.", board(LATER, turn=0))
    assert await d.say("You win the game and get 2 points. Congratulations!", "score in 3 point match: GnuBot-2 bob-0",
                       "Type 'join' if you want to play the next game, type 'leave' if you don't.") == ["join"]
    sent = await d.say("You win the 3 point match 3-0 .", settle=False)
    assert sent == ["tell bob Thanks for the match, bob.", "rawwho GnuBot"]
    await d.say("5 GnuBot - - 1 0 1662.50 2399 0 1041253132 host fibsbot -")
    result = d.player.results[-1]
    assert (result.opponent, result.score, result.won) == ("bob", (3, 0), True)
    entry = json.loads((tmp_path / "ledger.jsonl").read_text().splitlines()[-1])
    assert entry["result"] == "won" and entry["rating_before"] == 1650.0 and entry["rating_after"] == 1662.5
    assert entry["record"] == str(result.record) and d.player.match is None


# -- trouble ---------------------------------------------------------------------------------


async def test_a_refused_move_is_recomputed_from_a_fresh_board(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    line = board(LATER, dice=(5, 2))
    assert await d.say(line) == [first_move(line)]
    assert await d.say("** You can't move from 13 in your first move.") == ["board"]
    assert await d.say(line) == [first_move(line, 1)]  # never the refused move again
    assert d.player.stats.refused_moves == 1


async def test_unclear_state_asks_for_the_board(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    bad = board(LATER, dice=(5, 2)).rsplit(":", 1)[0]  # 52 fields
    assert await d.say(bad) == ["board"]
    assert await d.say("** It's not your turn to move.") == ["board"]
    # glued lines are split: the move is answered and the tell too
    glued = board(LATER, dice=(5, 2)) + "12 carol help"
    sent = await d.say(glued)
    assert sorted(sent)[0] == first_move(board(LATER, dice=(5, 2)))  # the tell comes first: no engine call
    assert sorted(sent)[1].startswith("tell carol I am a backgammon")


async def test_an_invitation_error_during_a_match_leaves_the_game_alone(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    line = board(LATER, dice=(5, 2))
    assert await d.say(line) == [first_move(line)]
    # the answer to a second 'join' for a resume: no reason to ask for the board (and move again)
    assert await d.say("** You can't play two games at once") == []
    assert await d.say("** Error: bob is already playing with someone else.") == []
    assert await d.say("** It's not your turn to move.") == ["board"]  # a game error still asks


async def test_a_hung_engine_hits_its_deadline(tmp_path: pathlib.Path) -> None:
    decider = FakeDecider(hang={"move"}, hang_s=1.0, forced={"move": Move.parse("13/8 13/11")})
    d = Dialogue(config(tmp_path, engine={"deadline_s": 0.1}), decider)
    await in_match(d)
    line = board(LATER, dice=(5, 2))
    assert await d.say(line) == [first_move(line)]  # the safe default, not the engine's late answer
    assert d.player.stats.deadline_misses == 1


async def test_resume_after_the_opponent_dropped(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    line = board(OPENING, dice=(6, 2))
    await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(6, 2)[0])
    await d.say(board(after, turn=0))
    assert await d.say("bob drops connection. The game was saved.") == []
    assert d.player.match is None
    assert await d.say("7 bob bob logs in.", "5 bob - - 1 0 1600.00 320 0 1041253132 host client -") == ["invite bob"]
    assert await d.say("** You invited bob to resume a saved match.",
                       "bob has joined you. Your running match was loaded.") == ["board"]
    line = board(after.swap().play(after.swap().legal_moves(3, 1)[0]).swap(), dice=(3, 1))
    sent = await d.say("turn: GnuBot.", "match length: 3", "points for bob: 0", "points for GnuBot: 0", line)
    assert sent == [first_move(line)]
    record = d.player.match.recorder if d.player.match else None
    assert record is not None and len(record.record.games[0].actions) == 2  # bob's lost move was rebuilt


async def test_resume_after_our_own_reconnect(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    await d.say("Starting a new game with bob.", board(LATER, turn=0))
    d.player.on_disconnected()
    assert d.player.match is None and d.player.stats.interruptions == 1
    assert await d.login() == ["board", "show saved"]
    assert await d.say("  opponent          matchlength   score (your points first)",
                       "**bob                     3                0 -  0") == ["invite bob"]
    assert await d.say("bob wants to resume a saved match with you.", "Type 'join bob' to accept.") == ["join bob"]
    assert await d.say("You are now playing with bob. Your running match was loaded.") == ["board"]
    assert await d.say(board(LATER, turn=0), "bob doubles. Type 'accept' or 'reject'.") == ["accept"]


async def test_a_match_that_ended_while_we_were_away(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    d.player.on_disconnected()
    await d.login()
    assert await d.say("no saved games.", settle=False) == ["rawwho GnuBot"]  # the rating, for the ledger
    assert d.player.results[-1].opponent == "bob" and d.player.results[-1].won is None


async def test_no_record_file_before_the_first_game(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    d.player.on_disconnected()  # saved before its first game: an empty .sgf would be no record
    assert not list(tmp_path.rglob("*.sgf"))
    entry = json.loads((tmp_path / "ledger.jsonl").read_text().splitlines()[-1])
    assert entry["result"] == "saved" and entry["record"] is None
    await d.login()
    assert await d.say("You are now playing with bob. Your running match was loaded.") == ["board"]
    line = board(OPENING, dice=(6, 2))
    await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    d.player.on_disconnected()
    [written] = tmp_path.rglob("*.sgf")
    entry = json.loads((tmp_path / "ledger.jsonl").read_text().splitlines()[-1])
    assert entry["result"] == "saved" and entry["record"] == str(written)


async def test_a_saved_list_cut_off_by_a_drop_ends_no_match(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    d.player.on_disconnected()
    assert await d.login() == ["board", "show saved"]
    await d.say("  opponent          matchlength   score (your points first)", settle=False)
    d.player.on_disconnected()  # gone before the list's rows came
    await d.say("login: ", settle=False)  # the next connection's first line must not close the old list
    assert await d.login() == ["board", "show saved"]
    assert "bob" in d.player.interrupted and d.player.results == []
    assert await d.say("  opponent          matchlength   score (your points first)",
                       "**bob                     3                0 -  0") == ["invite bob"]


# -- operators ---------------------------------------------------------------------------------


async def test_tells_and_operator_commands(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, tell={"operators": ["boss"]}))
    await d.login()
    assert await d.say("12 bob level") == ["tell bob I play at gnubg's expert level."]
    assert await d.say("12 bob level") == []  # queued: answered once tell.interval_s has passed
    assert (await d.say("12 carol version"))[0].startswith("tell carol fibsbot ")
    assert await d.say("12 bob pause") == []  # not an operator: chatter, queued behind the answer above
    assert await d.say("12 boss pause") == ["tell boss Paused.", "toggle ready"]
    assert await d.say("dave wants to play a 3 point match with you.", "Type 'join dave' to accept.") == [
        "tell dave Sorry, I am not taking matches right now."]
    assert await d.say("12 boss resume") == ["tell boss Taking matches again.", "toggle ready"]
    assert await d.say("12 boss quit") == ["tell boss Stopping after the running match.", "toggle ready"]
    assert d.link.closed


async def test_drain_finishes_the_running_match(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    d.player.drain()
    assert d.link.take() == ["toggle ready"] and not d.link.closed
    assert await d.say("Type 'join' if you want to play the next game, type 'leave' if you don't.") == ["join"]
    await d.say("bob wins the 3 point match 3-1 .", settle=False)
    assert d.link.closed


async def test_drain_can_save_the_match_instead(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, play={"drain": "save"}))
    await in_match(d)
    d.player.drain()
    assert d.link.take() == ["toggle ready", "leave"]
    await d.say("** You terminated the game. The game was saved.")
    assert d.link.closed and "bob" in d.player.interrupted


@pytest.mark.parametrize("field", ["greeting", "goodbye"])
def test_templates_are_checked(tmp_path: pathlib.Path, field: str) -> None:
    from bot.yamlconfig import ConfigError

    with pytest.raises(ConfigError, match=f"play.{field}: unknown placeholder {{oponent}}"):
        config(tmp_path, play={field: "Hi {oponent}"})


async def test_a_resumed_match_repeats_a_pending_double(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await in_match(d)
    line = board(OPENING, dice=(6, 2))
    await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(6, 2)[0])
    assert await d.say(board(after, turn=0), "bob doubles. Type 'accept' or 'reject'.") == ["accept"]
    d.player.on_disconnected()  # before the server heard the accept
    await d.login()
    assert await d.say("You are now playing with bob. Your running match was loaded.") == ["board"]
    pending = board(after, doubled=True)
    assert await d.say("turn: bob.", "match length: 3", "points for bob: 0", "points for GnuBot: 0", pending,
                       "bob doubles. Type 'accept' or 'reject'.", pending) == ["accept"]
    await d.say("You accept the double. The cube shows 2.")
    assert d.player.match is not None and d.player.match.recorder is not None
    actions = d.player.match.recorder.record.games[0].actions
    assert [type(a).__name__ for a in actions] == ["Roll", "Double", "Take"]


@pytest.mark.parametrize("resigner", ["bob", "us"])
async def test_a_saved_match_drops_a_pending_resignation(tmp_path: pathlib.Path, resigner: str) -> None:
    from bot.recorder import LAPSED
    from engine.records import AcceptResign, RejectResign, Resign

    decider = FakeDecider()
    d = Dialogue(config(tmp_path), decider)
    await in_match(d)
    line = board(OPENING, dice=(6, 2))
    await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(6, 2)[0])
    await d.say(board(after, turn=0))
    offer = {"bob": "bob wants to resign. You will win 1 point. Type 'accept' or 'reject'.",
             "us": "You want to resign. bob will win 1 point."}[resigner]
    await d.say(offer)
    d.player.on_disconnected()  # before any answer: the saved match drops the offer
    await d.login()
    assert await d.say("You are now playing with bob. Your running match was loaded.") == ["board"]
    await d.say("turn: bob.", "match length: 3", "points for bob: 0", "points for GnuBot: 0", board(after, turn=0))
    # the offer comes again and is answered this time
    if resigner == "bob":
        assert await d.say(offer) == ["accept"]
        await d.say("You accept and win 1 point.")
    else:
        await d.say(offer, "bob accepts and wins 1 point.")
    assert d.player.match is not None and d.player.match.recorder is not None
    game = d.player.match.recorder.record.games[0]
    kinds = [type(a) for a in game.actions]
    assert kinds[1:] == [Resign, RejectResign, Resign, AcceptResign], kinds
    assert game.actions[2].comment == LAPSED and not d.player.match.recorder.broken
    winner = 1 if resigner == "bob" else 0  # we are gnubg's player 1
    assert game.result is not None and (game.result.winner, game.result.points) == (winner, 1)


def test_a_move_sent_twice_is_recorded_once(tmp_path: pathlib.Path) -> None:
    from bot import clip
    from bot.recorder import Recorder

    recorder = Recorder.create(tmp_path, "bob", "GnuBot", 3)
    for line in ("Starting a new game with bob.", "You rolled 6, bob rolled 2"):
        recorder.event(clip.parse(line))
    recorder.board(fibsboard.parse(board(OPENING, dice=(6, 2))), False)
    move = OPENING.legal_moves(6, 2)[0]
    after = OPENING.play(move)
    recorder.sent_move((6, 2), move, after)
    recorder.board(fibsboard.parse(board(after, turn=0)), False)  # the server played it
    # a stale board made the player send it again; the refusal was lost in a drop
    recorder.sent_move((6, 2), move, after)
    recorder.board(fibsboard.parse(board(after, turn=0)), False)
    assert not recorder.broken and len(recorder.record.games[0].actions) == 1


async def test_think_time_delays_the_answer(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, engine={"think_time_s": [0.3, 0.3]}))
    await in_match(d)
    line = board(LATER, dice=(5, 2))
    start = time.monotonic()
    assert await d.say(line) == [first_move(line)]
    assert time.monotonic() - start >= 0.3


async def test_a_game_the_record_cannot_follow_is_abandoned_in_the_same_file(tmp_path: pathlib.Path) -> None:
    """The record loses game 1 (a move line it cannot play); the game stays without a result
    and game 2 goes on in the same file at the server's score (no -part2), also after a restart."""
    from bot.recorder import Recorder
    from engine.records import Double, Drop, Roll, load_sgf

    d = Dialogue(config(tmp_path), FakeDecider(forced={"cube": Cube(False, False)}))
    await in_match(d)
    line = board(OPENING, dice=(6, 2))
    await d.say("Starting a new game with bob.", "You rolled 6, bob rolled 2", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(6, 2)[0])
    await d.say(board(after, turn=0), "bob rolls 3 and 1.", "bob moves 13-3")  # no play of 3-1: lost track
    m = d.player.match
    assert m is not None and m.recorder is not None and m.recorder.broken
    path = m.recorder.path
    assert await d.say("bob wins the game and gets 1 point. Sorry.", "score in 3 point match: bob-1 GnuBot-0",
                       "Type 'join' if you want to play the next game, type 'leave' if you don't.") == ["join"]
    line = board(OPENING, dice=(5, 3), score=(0, 1))
    await d.say("Starting a new game with bob.", "You rolled 5, bob rolled 3", "It's your turn to move.", line)
    after = OPENING.play(OPENING.legal_moves(5, 3)[0])
    assert await d.say(board(after, turn=0, score=(0, 1), doubled=True),
                       "bob doubles. Type 'accept' or 'reject'.") == ["reject"]
    await d.say("You give up. bob wins 1 point.")
    assert m.recorder.path == path and not list(tmp_path.glob("records/*part*"))
    for record in (m.recorder.record, load_sgf(path), Recorder.open(path).record):
        first, second = record.games
        assert first.result is None and [type(a) for a in first.actions] == [Roll]
        assert second.score == (1, 0) and [type(a) for a in second.actions[1:]] == [Double, Drop]
        assert second.result is not None and (second.result.winner, second.result.points) == (0, 1)

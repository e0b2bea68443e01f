"""The bot's beliefs about the server are checked, never assumed: a saved match the
server no longer has, a game kept running across a drop, questions left unanswered,
``**`` notices that answer nothing of ours (FIBS's wordings and another server's)."""

from __future__ import annotations

import asyncio
import pathlib

import pytest

from bot import commands, fibsboard
from engine.position import Move, Position

from botkit import Dialogue, board, config

LATER = Position.from_position_id("4HPwATDgc/ABMA").swap().play(Move.parse("13/11 13/8")).swap()
WHO_US = "5 GnuBot - - 1 0 1650.00 2396 0 1041253132 host fibsbot -"
INVITE3 = ("bob wants to play a 3 point match with you.", "Type 'join bob' to accept.")


def legal_commands(line: str) -> set[str]:
    b = fibsboard.parse(line)
    assert b.dice is not None
    return {commands.move(b, m) for m in b.position.legal_moves(*b.dice)}


async def saved_with_bob(d: Dialogue) -> None:
    """We were playing bob when the connection dropped: we believe in a saved match."""
    await d.login()
    await d.say("** You are now playing a 3 point match with bob", "Starting a new game with bob.",
                board(LATER, turn=0))
    d.player.on_disconnected()
    assert "bob" in d.player.interrupted


# -- a saved match the server does not confirm -------------------------------------------------


@pytest.mark.parametrize("refusal", [
    "** There's no saved match with bob.",  # FIBS
    "** bob has no saved game with you.",  # another server's wording
    "** Error: no saved match between you and bob",
])
async def test_a_refused_resume_ends_the_belief_and_the_invitation_is_joined(tmp_path: pathlib.Path,
                                                                            refusal: str) -> None:
    d = Dialogue(config(tmp_path, invitations={"max_saved": None}))
    await saved_with_bob(d)
    assert await d.login() == ["board", "show saved"]
    # this server answers `show saved` in words we do not know: no listing confirms or denies
    await d.say("Your saved games: none", "** You're not playing or watching.")
    assert await d.say(*INVITE3, settle=False) == ["invite bob"]
    sent = await d.say(refusal, settle=False)
    sent += await d.say(WHO_US)  # the ledger line of the lapsed match waits for our rating
    assert sent == ["join bob", "rawwho GnuBot"] or sent == ["rawwho GnuBot", "join bob"]
    assert "bob" not in d.player.interrupted and d.player.results[-1].won is None


async def test_an_unanswered_resume_invitation_ends_the_belief(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"max_saved": None, "screen_timeout_s": 0.05}))
    await saved_with_bob(d)
    await d.login()
    sent = await d.say(*INVITE3, settle=False)
    await asyncio.sleep(0.1)  # the wait for the server's answer runs out
    sent += await d.say(WHO_US)
    assert sorted(sent) == ["invite bob", "join bob", "rawwho GnuBot"] and sent[0] == "invite bob"
    assert "bob" not in d.player.interrupted


async def test_a_confirmed_saved_match_still_declines_a_new_one(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"max_saved": None}))
    await saved_with_bob(d)
    await d.login()
    assert await d.say(*INVITE3, settle=False) == ["invite bob"]
    assert await d.say("** You invited bob to resume a saved match.") == [
        "tell bob We have a saved 3-point match: please resume it first."]
    assert "bob" in d.player.interrupted


@pytest.mark.parametrize("busy", ["** bob is already playing with someone else.", "** bob is refusing games.",
                                  "** bob is away."])
async def test_a_busy_answer_is_not_a_refusal(tmp_path: pathlib.Path, busy: str) -> None:
    d = Dialogue(config(tmp_path))
    await saved_with_bob(d)
    await d.login()
    assert await d.say("7 bob bob logs in.", "5 bob - - 1 0 1600.00 320 0 1041253132 host client -") == [
        "invite bob"]
    assert await d.say(busy) == []
    assert "bob" in d.player.interrupted


async def test_a_new_match_with_the_opponent_ends_the_belief(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await saved_with_bob(d)
    await d.login()
    await d.say("** Player bob has joined you for a 5 point match.")
    assert d.player.match is not None and d.player.match.length == 5 and "bob" not in d.player.interrupted


async def test_a_resume_refused_after_bob_logs_in_ends_the_belief(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await saved_with_bob(d)
    await d.login()
    assert await d.say("7 bob bob logs in.", "5 bob - - 1 0 1600.00 320 0 1041253132 host client -") == [
        "invite bob"]
    await d.say("** bob has no saved game with you.", settle=False)
    assert "bob" not in d.player.interrupted
    await d.say(WHO_US)


# -- a game kept running across a drop -------------------------------------------------------------


async def test_after_a_login_the_bot_asks_for_the_board_and_plays_its_turn(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await saved_with_bob(d)
    assert await d.login() == ["board", "show saved"]
    line = board(LATER, dice=(5, 2))
    recorder = d.player.interrupted["bob"].recorder
    [answer] = await d.say(line, "no saved games.")  # the server kept the game running
    assert answer in legal_commands(line)
    assert d.player.match is not None and d.player.match.opponent == "bob"
    assert d.player.match.recorder is recorder and d.player.results == []  # the same match, the same record


async def test_after_a_restart_the_bot_asks_for_the_board_and_plays_its_turn(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))  # a fresh process: no belief at all
    assert await d.login() == ["board", "show saved"]
    line = board(LATER, doubled=True)
    assert await d.say(line) == ["accept"]  # bob's double waits for our answer


# -- questions the server leaves unanswered ------------------------------------------------------


async def test_an_unanswered_saved_count_joins_with_the_shipped_config(tmp_path: pathlib.Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    d = Dialogue(config(tmp_path, invitations={"screen_timeout_s": 0.05}))
    await d.login()
    sent = await d.say(*INVITE3, settle=False)
    sent += await d.say()
    assert sent == ["show savedcount bob", "join bob"]
    assert "did not answer show savedcount bob: joining without checking" in caplog.text


async def test_an_unanswered_who_can_be_configured_to_decline(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, invitations={"screen_timeout_s": 0.05, "min_rating": 1500,
                                               "unanswered": "decline", "max_saved": None}))
    await d.login()
    sent = await d.say(*INVITE3, settle=False)
    sent += await d.say()
    assert sent == ["rawwho bob", "tell bob Sorry, I could not look you up; please try again."]


# -- ** notices that answer nothing of ours --------------------------------------------------------


async def test_unrelated_notices_during_a_match_are_not_game_errors(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    await d.login()
    await d.say("** You are now playing a 3 point match with bob", "Starting a new game with bob.")
    notices = ["** carol is not logged in.", "** The message system is full.", "** Sorry, no shouts right now.",
               "** Don't forget to vote!", "** bob is away.", "** There is no one called dave."]
    for notice in notices:
        assert await d.say(notice) == []  # no board asked, no decision dropped
    for _ in range(3):
        line = board(LATER, dice=(5, 2))
        [answer] = await d.say(line)
        assert answer in legal_commands(line)
        assert await d.say(*notices) == []
        d.player.game.invalidate()  # the same board again is a new decision (as after the opponent's turn)
    # an answer to our own command still is one
    line = board(LATER, dice=(6, 1))
    [answer] = await d.say(line)
    assert await d.say("** You can't move from 13 in your first move.") == ["board"]


async def test_a_board_with_the_wrong_field_count_is_logged(tmp_path: pathlib.Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    d = Dialogue(config(tmp_path))
    await d.login()
    await d.say("** You are now playing a 3 point match with bob")
    assert await d.say(board(LATER, dice=(5, 2)).rsplit(":", 2)[0]) == ["board"]
    assert "board line has 51 fields, not 53" in caplog.text

"""Server wording lives in clip only: typed notices, dialect tables chosen at login, the
player matching on types; and what other servers do that FIBS does not (JIBS's dance and
line order, BaldLies's bear-off notation and silent rolls, a server without kibitz or
``show savedcount``), each met by the bot. Tells, logs and records checked on the way."""

from __future__ import annotations

import asyncio
import doctest
import pathlib
import re
import time
from types import ModuleType

import pytest

from bot import clip, fibsboard, policy
from bot.clip import YOU, dialect, notice
from bot.player import chat
from bot.player.game import GamePlayer
from bot.recorder import Recorder
from bot.server import texts, wordings
from engine.position import Move, Position
from engine.records import MatchRecord, Roll, save_sgf
from engine.records.validate import gnubg_program, incompleteness
from engine.records.validate import main as validate_main

from botkit import Dialogue, board, config

OPENING = Position.initial()
BOT_PACKAGE = pathlib.Path(__file__).parent.parent / "bot"


@pytest.mark.parametrize("module", [dialect, notice, policy, wordings])
def test_doctests(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module)
    assert tried and not failures


# -- typed notices ----------------------------------------------------------------------------

NOTICES = [
    ("** You can't move from 7 in your first move.", clip.MoveRefused),
    ("** You must give 2 moves.", clip.MoveRefused),
    ("** Please don't give more than 2 moves.", clip.MoveRefused),
    ("** first move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.", clip.MoveRefused),
    ("** It's not your turn to move.", clip.NotYourTurn),
    ("** It's not your turn to roll the dice.", clip.NotYourTurn),
    ("** You did already roll the dice.", clip.GameError),
    ("** bob wanted to resign. Type 'accept' or 'reject'.", clip.ResignPending),
    ("** You're not playing.", clip.NotPlaying),
    ("** bob is refusing games.", clip.Busy),
    ("** Error: bob is already playing with someone else.", clip.Busy),
    ("** bob didn't invite you.", clip.Busy),
    ("** You can't play two games at once", clip.Busy),
    ("** There is no one called bob", clip.NoSuchUser),
    ("** Error: can't find player bob", clip.NoSuchUser),
    ("** There's no saved match with bob. Please give a match length.", clip.NoSavedMatch),
    ("** You have no saved match with bob.", clip.NoSavedMatch),
    ("** Unknown command: 'kibitz'", clip.UnknownCommand),
    ("** Unknown timezone.", clip.Error),
]


@pytest.mark.parametrize(("line", "kind"), NOTICES)
def test_every_notice_the_bot_reacts_to_is_typed(line: str, kind: type[clip.Error]) -> None:
    event = clip.parse(line)
    assert type(event) is kind and isinstance(event, clip.Error) and event.text == line[3:]


def test_notices_name_their_user() -> None:
    assert clip.parse("** bob is refusing games.") == clip.Busy("bob is refusing games.", "bob")
    assert clip.parse("** There is no one called carol") == clip.NoSuchUser("There is no one called carol", "carol")
    assert clip.parse("** Unknown command: 'kibitz'") == clip.UnknownCommand("Unknown command: 'kibitz'", "kibitz")


def test_the_player_reads_no_server_text() -> None:
    """No regular expression and no quoted server sentence in the player: it matches on types."""
    for path in sorted((BOT_PACKAGE / "player").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"^import re$|re\.compile|\.search\(|\.match\(", source, re.MULTILINE), path


def test_invitation_reasons_are_an_enum_with_a_human_text() -> None:
    for reason in policy.Reason:
        assert reason.human and reason == reason.value
    assert policy.decide(config("x").invitations, policy.Inviter("bob", 99)).reason is policy.Reason.TOO_LONG


# -- dialects -----------------------------------------------------------------------------------

def _banner(names: list[str]) -> list[str]:
    w = wordings.Wordings.named(names)
    return [w.encode(line).decode("ascii").rstrip("\r\n") for line in texts.BANNER]


@pytest.mark.parametrize(("names", "expected"), [([], "fibsbot server"), (["jibs"], "JIBS"),
                                                 (["baldlies"], "BaldLies")])
def test_the_dialect_is_chosen_by_what_the_server_says_before_login(names: list[str], expected: str) -> None:
    parser = clip.Parser()
    assert parser.dialect is clip.ANY
    for line in _banner(names):
        for event in parser.parse_all(line):
            if isinstance(event, clip.Unknown):
                parser.identify(event.line)
    assert parser.dialect.name == expected


@pytest.mark.parametrize("line", ["** You can't move.", "You cannot move.", "You have no legal moves."])
def test_jibs_dance_wordings(line: str) -> None:
    assert clip.Parser(clip.JIBS).parse_all(line) == [clip.CantMove(YOU)]
    assert clip.Parser().parse_all(line) == [clip.CantMove(YOU)]  # a server not yet known: every wording


def test_jibs_dance_of_the_opponent_and_fibs_keeps_its_refusal() -> None:
    assert clip.Parser(clip.JIBS).parse_all("bob cannot move.") == [clip.CantMove("bob")]
    assert clip.Parser(clip.FIBS).parse_all("** You can't move.") == [clip.MoveRefused("You can't move.")]


@pytest.mark.parametrize("word", ["home", "off", "o", "h"])
def test_baldlies_bear_off_notation(word: str) -> None:
    events = clip.Parser(clip.BALDLIES).parse_all(f"bob moves 19-{word} 20-{word} .")
    assert events == [clip.Moves("bob", (("19", "off"), ("20", "off")))]
    assert clip.Parser().parse_all(f"bob moves b-21 3-{word} .") == [clip.Moves("bob", (("bar", "21"), ("3", "off")))]


# -- the player on servers that are not FIBS ------------------------------------------------------

async def _in_match(d: Dialogue, opponent: str = "bob") -> list[str]:
    await d.login()
    return await d.say(f"** You are now playing a 3 point match with {opponent}")


async def _later(d: Dialogue, seconds: float) -> list[str]:
    await asyncio.sleep(seconds)
    return d.link.take()


async def test_a_board_that_says_it_is_our_roll_gets_a_roll_when_no_prompt_comes(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GamePlayer, "PROMPT_WAIT_S", 0.05)
    d = Dialogue(config(tmp_path))
    await _in_match(d)
    assert await d.say(board(OPENING, score=(2, 1), crawford=True), settle=False) == []  # no prompt, no roll
    assert await _later(d, 0.5) == ["roll"]


async def test_a_board_with_a_double_to_answer_is_answered_when_no_line_says_so(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GamePlayer, "PROMPT_WAIT_S", 0.05)
    d = Dialogue(config(tmp_path))
    await _in_match(d)
    await d.say(board(OPENING, cube=1, doubled=True), settle=False)
    assert await _later(d, 0.5) == ["accept"]


async def test_a_prompt_that_comes_is_answered_once(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GamePlayer, "PROMPT_WAIT_S", 0.05)
    d = Dialogue(config(tmp_path))
    await _in_match(d)
    assert await d.say(board(OPENING), "It's your turn. Please roll or double") == ["roll"]
    assert await _later(d, 0.3) == []


async def test_a_server_without_kibitz_gets_the_greeting_by_tell(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path))
    assert (await _in_match(d))[0].startswith("kibitz Hi bob")
    told = await d.say("** Unknown command: 'kibitz'")
    assert len(told) == 1 and told[0].startswith("tell bob Hi bob, I am a computer program")
    assert (await d.say("** You are now playing a 3 point match with carol"))[0].startswith("tell carol Hi carol")


INVITE = "{0} wants to play a 3 point match with you.", "Type 'join {0}' to accept."


async def test_an_unanswered_saved_count_is_not_asked_again(tmp_path: pathlib.Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    d = Dialogue(config(tmp_path, invitations={"screen_timeout_s": 0.05}))
    await d.login()
    sent = await d.say(*(line.format("bob") for line in INVITE), settle=False)
    sent += await d.say()
    assert sent == ["show savedcount bob", "join bob"]
    assert await d.say(*(line.format("carol") for line in INVITE)) == ["join carol"]  # no 10 s question
    assert "not asking it again" in caplog.text


# -- tells ----------------------------------------------------------------------------------------

async def test_a_second_question_within_the_interval_is_answered_later(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, tell={"interval_s": 0.1}))
    await d.login()
    first = await d.say("12 bob hello", settle=False)
    assert len(first) == 1 and first[0].startswith("tell bob I am a backgammon program")
    assert await d.say("12 bob version", settle=False) == []  # queued, not dropped
    later = await _later(d, 0.5)
    assert len(later) == 1 and later[0].startswith("tell bob fibsbot ")


async def test_too_many_questions_get_a_note_not_silence(tmp_path: pathlib.Path) -> None:
    d = Dialogue(config(tmp_path, tell={"interval_s": 0.2}))
    await d.login()
    d.player.chat._answered["bob"] = time.monotonic()  # bob was just answered: the questions wait in the queue
    await d.say(*["12 bob level"] * (chat.QUEUE_MAX + 3), settle=False)
    told = d.link.take() + await _later(d, 1.5)
    assert told[:-1] == ["tell bob I play at gnubg's expert level."] * chat.QUEUE_MAX
    assert told[-1].startswith("tell bob Too many questions at once")  # the rest: a note, not silence


async def test_chatter_is_answered_once_a_minute_and_a_canned_reply_never_twice(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat, "CHATTER_INTERVAL_S", 0.1)
    d = Dialogue(config(tmp_path, tell={"interval_s": 0.0}))
    await d.login()
    assert len(await d.say("12 robo Hello, I am RoboBot.", settle=False)) == 1
    assert await d.say("12 robo Sorry, I do not understand.", settle=False) == []  # within the interval
    await asyncio.sleep(0.2)
    # the same canned sentence again: another bot answering our help text; never a loop
    assert await d.say("12 robo Sorry, I do not understand.", settle=False) == []
    await asyncio.sleep(0.2)
    assert await d.say("12 robo Sorry, I do not understand.", settle=False) == []
    assert len(await d.say("12 robo What is your rating?", settle=False)) == 1  # new words, a minute on


# -- records --------------------------------------------------------------------------------------

def test_a_score_the_server_and_the_record_disagree_on_is_logged(tmp_path: pathlib.Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder.create(tmp_path, "bob", "GnuBot", 7)
    recorder.event(clip.MatchScore(7, "GnuBot", 0, "bob", 0))
    assert "the server says" not in caplog.text
    recorder.event(clip.MatchScore(7, "GnuBot", 2, "bob", 0))
    assert "the server says the score is 2-0 (GnuBot-bob), the record says 0-0" in caplog.text


def test_dice_missed_in_a_disconnect_are_marked_unknown_and_logged(tmp_path: pathlib.Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder.create(tmp_path, "bob", "GnuBot", 3)
    recorder.board(fibsboard.parse(board(OPENING, turn=0, dice=(3, 1))), False)  # bob's opening roll
    after = OPENING.swap().play(Move.parse("8/5 6/5")).swap()
    recorder.resync(fibsboard.parse(board(after)), False)  # reconnected: bob has moved
    roll = recorder.record.games[0].actions[0]
    assert isinstance(roll, Roll) and roll.move == Move.parse("8/5 6/5")
    assert roll.comment.startswith("dice unknown")
    assert "were not seen (connection lost)" in caplog.text


def _cut_record(folder: pathlib.Path) -> pathlib.Path:
    record = MatchRecord(("bob", "GnuBot"), 3)
    record.append_action(Roll(0, (3, 1), Move.parse("8/5 6/5")))
    path = folder / "cut.sgf"
    save_sgf(record, path)
    return path


def test_a_record_cut_before_its_end_is_incomplete(tmp_path: pathlib.Path) -> None:
    record = MatchRecord(("bob", "GnuBot"), 3)
    assert incompleteness(record) == "no game"
    record.append_action(Roll(0, (3, 1), Move.parse("8/5 6/5")))
    assert incompleteness(record) == "game 1 has no result and the match is not over (0-0 of 3)"


@pytest.mark.skipif(gnubg_program() is None, reason="the gnubg program is not installed (apt-get install gnubg)")
def test_validate_reports_a_cut_record_as_incomplete(tmp_path: pathlib.Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert validate_main([str(_cut_record(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "incomplete: game 1 has no result" in out and "1 files: 1 incomplete" in out


def test_a_game_resumed_at_its_opening_takes_its_late_announcement(tmp_path: pathlib.Path) -> None:
    """A drop between games; on the resume JIBS sends the next game's opening board, then
    "Starting a new game": one game, in the same file."""
    recorder = Recorder.create(tmp_path, "bob", "GnuBot", 3)
    recorder.board(fibsboard.parse(board(OPENING, turn=0, dice=(3, 1))), False)
    recorder.event(clip.ResignOffer("bob", YOU, 1))
    recorder.event(clip.ResignAccepted(YOU, 1))
    recorder.close(over=False)  # the connection drops between games
    recorder.resync(fibsboard.parse(board(OPENING, score=(1, 0), dice=(5, 2))), False)
    recorder.event(clip.GameStart("bob"))
    assert recorder.forks == 0 and len(recorder.record.games) == 2 and recorder.game is not None
    recorder.sent_move((5, 2), Move.parse("13/8 13/11"), OPENING.play(Move.parse("13/8 13/11")))
    recorder.board(fibsboard.parse(board(OPENING.play(Move.parse("13/8 13/11")), score=(1, 0),
                                         turn=0)), False)
    assert len(recorder.record.games[1].actions) == 1


def test_a_lost_game_then_the_next_opening_board_first_stays_in_one_file(tmp_path: pathlib.Path) -> None:
    """The record loses game 1; JIBS then sends game 2's opening roll and board before
    "Starting a new game": game 1 is kept without a result, game 2 is recorded from its
    opening in the same file."""
    recorder = Recorder.create(tmp_path, "bob", "GnuBot", 3)

    def lines(*texts: str) -> None:
        for text in texts:
            for event in clip.parse_all(text):
                recorder.event(event)

    lines("Starting a new game with bob.", "You rolled 6, bob rolled 2")
    recorder.board(fibsboard.parse(board(OPENING, dice=(6, 2))), False)
    move = OPENING.legal_moves(6, 2)[0]
    recorder.sent_move((6, 2), move, OPENING.play(move))
    recorder.board(fibsboard.parse(board(OPENING.play(move), turn=0)), False)
    lines("bob rolls 3 and 1.", "bob moves 13-3")  # no play of 3-1: the record loses the game
    assert recorder.broken
    lines("bob wins the game and gets 1 point. Sorry.", "You rolled 3, bob rolled 5")  # bob opens
    recorder.board(fibsboard.parse(board(OPENING, score=(0, 1), turn=0, dice=(5, 3))), False)
    lines("Starting a new game with bob.", "bob moves 17-22 19-22")  # his 8/3 6/3
    first, second = recorder.record.games
    assert recorder.forks == 0 and first.result is None and len(first.actions) == 1
    assert second.score == (1, 0) and [(a.player, a.dice, str(a.move)) for a in second.actions] == \
        [(0, (5, 3), "8/3 6/3")]
    assert incompleteness(recorder.record) == "game 1 abandoned without a result"

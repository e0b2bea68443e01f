"""The server's parts on their own: move checking, table rules, lines, passwords, saved state."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.server.account import Account
from bot.server.dice import SeededDice
from bot.server.lines import LineReader
from bot.server.matchdata import MatchData
from bot.server.moves import MoveRejected, parse_move
from bot.server.passwords import hash_password, verify_password
from bot.server.ratings import k_factor, rate_match
from bot.server.table import Listener, Table
from engine.position import Position


def _position(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """Own-point counts (25 = bar) of the side on roll and of the opponent."""
    rows = []
    for counts in (theirs, mine):
        row = [0] * 25
        for point, n in counts.items():
            row[point - 1] = n
        rows.append(row)
    return Position.from_board(rows)


# -- move commands (O: own points = FIBS points) --------------------------------

MOVE_ERRORS = [
    # (mine, theirs, dice, command, FIBS's reply)
    ({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (6, 1), "24-18 6-4",
     "** You can't move 2 points in your second move."),
    ({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (5, 3), "24-19 13-10",
     "** You can't move to 19 in your first move."),
    ({25: 1, 13: 6, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (4, 2), "13-9 bar-23",
     "** You have to remove pieces from the bar in your first move."),
    ({13: 1, 6: 14}, {24: 15}, (6, 5), "6-off 13-8", "** You can't move home in your first move."),
    ({5: 2, 3: 13}, {24: 15}, (6, 1), "3-off 5-4", "** You can't remove this piece in your first move."),
    ({3: 15}, {24: 15}, (2, 1), "3-off 3-2", "** You can't move 3 points in your first move."),
    ({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (3, 1), "8-5 7-6",
     "** You can't move from 7 in your second move."),
    ({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (3, 1), "8-5 6-bar",
     "** You can't move to bar in your second move."),
    ({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, (3, 1), "8-5 6 q",
     "** second move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'."),
    # only one die can be played: it must be the larger one
    ({1: 1}, {23: 14, 12: 1}, (6, 5), "1-off", None),
]


@pytest.mark.parametrize("mine, theirs, dice, command, reply", MOVE_ERRORS)
def test_move_errors(mine: dict[int, int], theirs: dict[int, int], dice: tuple[int, int], command: str,
                     reply: str | None) -> None:
    position = _position(mine, theirs)
    plays = position.legal_plays(*dice)
    if reply is None:
        assert str(parse_move(command, position, dice, -1, plays)) == "1/off"
        return
    with pytest.raises(MoveRejected) as error:
        parse_move(command, position, dice, -1, plays)
    assert str(error.value) == reply


def test_larger_die_rule() -> None:
    # the checker on 8 can move 6 to the 2 point, or 5 to the 3 point, but not both
    position = _position({24: 1, 8: 1}, {7: 2, 6: 2, 13: 11})  # 24 is shut in, 8 not yet home
    plays = position.legal_plays(6, 5)
    assert len(plays[0][0].steps) == 1
    assert str(parse_move("8-2", position, (6, 5), -1, plays)) == "8/2"
    with pytest.raises(MoveRejected, match="You can't move 5 points in your first move"):
        parse_move("8-3", position, (6, 5), -1, plays)


def test_x_moves_use_the_other_numbering_and_enter_from_0() -> None:
    position = _position({25: 1, 13: 14}, {24: 2, 6: 13})
    plays = position.legal_plays(3, 1)
    assert str(parse_move("bar-3 12-13", position, (3, 1), 1, plays)) == "bar/22 13/12"
    assert str(parse_move("0 3 12 13", position, (3, 1), 1, plays)) == "bar/22 13/12"


# -- the table's rules, with scripted dice --------------------------------------

@dataclass(eq=False)
class FakeSeat:
    name: str
    account: Account
    lines: list[str] = field(default_factory=list)
    watchers: set[Listener] = field(default_factory=set)

    def send(self, line: str) -> None:
        self.lines.append(line)


class FakeHub:
    def __init__(self, *, silent_roll: bool = False) -> None:
        self.reports: list[str] = []
        self.finished = False
        self.silent_roll = silent_roll

    def report(self, line: str, players: tuple[str, str]) -> None:
        self.reports.append(line)

    def match_finished(self, table: Table[Any]) -> None:
        self.finished = True


class ScriptedDice:
    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def die(self) -> int:
        return self.values.pop(0)

    def state(self) -> None:
        return None


def _table(data: MatchData, *dice: int, silent_roll: bool = False) -> tuple[Table[FakeSeat], FakeSeat, FakeSeat,
                                                                          FakeHub]:
    a, b = FakeSeat("alice", Account("alice")), FakeSeat("bob", Account("bob"))
    for seat in (a, b):
        seat.account.settings["boardstyle"] = "3"
    hub = FakeHub(silent_roll=silent_roll)
    return Table(hub, (a, b), data, ScriptedDice(*dice)), a, b, hub


def test_crawford_game_has_no_doubling_and_post_crawford_has() -> None:
    data = MatchData(("alice", "bob"), 3, score=[2, 0], games=1)
    # game 2: colours swap (bob is O), alice opens with 3-1, then bob rolls 2-2
    table, alice, bob, _ = _table(data, 3, 1, 2, 2)
    table.start()
    assert data.crawford_game and data.crawford_done and data.o_player == 1
    table.move(0, "1-4 1-2")  # alice is X: 24/21 24/23 in her own numbers
    assert "It's your turn. Please roll or double" not in bob.lines
    assert "You roll 2 and 2." in bob.lines  # rolled for him at once
    table.double(1)
    assert bob.lines[-1] == "** You can only double before you roll the dice."

    # a server that rolls for nobody (BaldLies): the board alone says it is bob's turn to roll
    data = MatchData(("alice", "bob"), 3, score=[2, 0], games=1)
    table, alice, bob, _ = _table(data, 3, 1, 2, 2, silent_roll=True)
    table.start()
    table.move(0, "1-4 1-2")
    assert bob.lines[-1].startswith("board:") and not any(line.startswith("You roll ") for line in bob.lines)
    table.roll(1)
    assert "You roll 2 and 2." in bob.lines

    after = MatchData(("alice", "bob"), 3, score=[2, 1], games=2, crawford_done=True)
    table, alice, bob, _ = _table(after, 3, 1)
    table.start()
    assert not after.crawford_game
    table.move(0, "1-4 1-2")
    assert bob.lines[-1] == "It's your turn. Please roll or double"  # the trailer may double again


def test_gammons_backgammons_and_the_cube() -> None:
    data = MatchData(("alice", "bob"), 0, phase="move", turn=0, dice=(6, 5), cube=4, owner=1,
                     position=_position({1: 1}, {23: 15}).position_id())
    table, alice, bob, hub = _table(data)
    table.move(0, "1-off" if data.o_player == 0 else "24-off")
    assert alice.lines[-3] == "You win the game and get 12 points. Congratulations!"  # backgammon x 4
    assert bob.lines[-3] == "alice wins the game and gets 12 points. Sorry."
    assert data.score == [12, 0] and data.phase == "over"
    assert bob.lines[-2] == "score in unlimited match: bob-0 alice-12"
    assert not hub.finished


def test_forced_move_with_automove_and_dead_cube() -> None:
    data = MatchData(("alice", "bob"), 3, score=[1, 1], phase="roll", turn=0, cube=2, owner=0, games=3,
                     crawford_done=True, position=_position({6: 2, 2: 13}, {24: 2, 6: 13}).position_id())
    table, alice, bob, _ = _table(data, 6, 6, 1, 2)
    alice.account.toggles["automove"] = True
    table.resume()
    # the cube (2) already wins alice the match: no doubling, rolled at once; 6-6 has one play
    assert "It's your turn. Please roll or double" not in alice.lines
    assert "You roll 6 and 6." in alice.lines
    only = next(line for line in alice.lines if line.startswith("The only possible move is"))
    assert only.endswith(" .") and bob.lines.count(f"alice moves {only[len('The only possible move is '):-2]} .") == 1


def test_resume_tells_both_players_where_the_match_stands() -> None:
    data = MatchData(("alice", "bob"), 5, score=[3, 1], phase="roll", turn=1, games=4)
    table, alice, bob, _ = _table(data, 4, 2)
    table.resume()
    assert alice.lines[:4] == ["turn: bob.", "match length: 5", "points for alice: 3", "points for bob: 1"]
    assert bob.lines[:4] == alice.lines[:4]


def test_match_end_rates_and_finishes() -> None:
    data = MatchData(("alice", "bob"), 1, phase="move", turn=1, dice=(2, 1), games=1,
                     position=_position({18: 15}, {2: 1, 1: 1}).position_id())
    table, alice, bob, hub = _table(data)
    table.move(1, "2-off 1-off" if data.o_player == 1 else "23-off 24-off")
    assert bob.lines[-1] == "You win the 1 point match 2-0 ."
    assert alice.lines[-1] == "bob wins the 1 point match 2-0 ."
    assert hub.finished and hub.reports == ["bob wins a 1 point match against alice  2-0 ."]
    assert bob.account.rating > 1500 > alice.account.rating
    assert bob.account.experience == alice.account.experience == 1


# -- lines, passwords, dice, saved state -----------------------------------------

def test_line_reader_drops_telnet_and_cuts_long_lines() -> None:
    reader = LineReader(max_line=10)
    assert reader.feed(b"ro\xff") == []
    assert reader.feed(b"\xfb") == []
    assert reader.feed(b"\x01ll\r\n\xff\xfa\x18 junk \xff\xf0who") == ["roll"]
    assert reader.feed(b"\n" + b"x" * 50 + b"\nbye\n") == ["who", "x" * 10, "bye"]
    assert reader.feed(b"\xff\xff\xe9\x00\x07\tok\n") == ["?? ok"]


def test_passwords_are_salted_and_never_stored() -> None:
    one, two = hash_password("secret", n=2**8), hash_password("secret", n=2**8)
    assert one != two and "secret" not in one
    assert verify_password("secret", one) and not verify_password("secret!", one)
    assert not verify_password("secret", "plain$secret") and not verify_password("x", "scrypt$1$2$3$zz$zz")


def test_seeded_dice_continue_after_a_save() -> None:
    dice = SeededDice.for_match(5, ("a", "b"), 1)
    [dice.die() for _ in range(7)]
    copy = SeededDice.restore(json.loads(json.dumps(dice.state())))
    assert [dice.die() for _ in range(20)] == [copy.die() for _ in range(20)]
    assert SeededDice.for_match(5, ("a", "b"), 2).state() != SeededDice.for_match(5, ("a", "b"), 1).state()


def test_saved_match_round_trip_and_corruption() -> None:
    data = MatchData(("alice", "bob"), 5, score=[2, 3], phase="move", dice=(3, 1), history=["O: (3 1) 8-5 6-5"])
    assert MatchData.from_json(data.to_json()) == data
    for bad in ["", "{}", '{"names": ["a"]}', data.to_json().replace('"move"', '"dancing"'),
                data.to_json().replace('"dice":[3,1]', '"dice":null'), data.to_json().replace("4HPw", "!!!!")]:
        with pytest.raises(ValueError):
            MatchData.from_json(bad)


def test_rating_formula() -> None:
    assert k_factor(0) == 5 and k_factor(400) == 1 and k_factor(187) == pytest.approx(3.13)
    even = rate_match("a", 1500, 0, "b", 1500, 0, 1)
    assert even.winner == pytest.approx(10) and even.loser == pytest.approx(-10)
    upset = rate_match("low", 1500, 1000, "high", 2000, 1000, 1)
    assert upset.winner == pytest.approx(4 * (1 - 1 / (10 ** 0.25 + 1)))

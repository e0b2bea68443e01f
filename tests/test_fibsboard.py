"""bot.fibsboard: board lines <-> engine state, FIBS move syntax, checked by a small FIBS referee."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot import commands, fibsboard
from bot.fibsboard import FibsBoard, move_command, parse_move_line
from engine.errors import BoardParseError, IllegalMoveError
from engine.match import CENTRED, MatchState
from engine.position import Move, Position

# FIBS's CLIP documentation's example: you are O, opening roll 6-2.
SPEC_O = ("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0:1:1:1:0:1"
          ":-1:0:25:0:0:0:0:2:0:0:0")
# A JIBS board line (same layout as FIBS): you are X, opening roll 4-2.
SPEC_X = ("board:You:alpha:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:2:0:0:1:1:1:0:-1"
          ":1:25:0:0:0:0:0:2:0:0:0")


# -- the worked examples --------------------------------------------------------------

def test_spec_example_o_opening() -> None:
    b = fibsboard.parse(SPEC_O)
    assert b.position == Position.initial() and b.player_on_turn and b.dice == (6, 2)
    assert b.match == MatchState(length=3, on_roll=1, turn=1, dice=(6, 2), jacoby=False)
    assert move_command(b, Move.parse("24/18 13/11")) == "move 24-18 13-11"
    assert move_command(b, Move.parse("24/16")) in ("move 24-18 18-16", "move 24-22 22-16")


def test_spec_example_x_opening() -> None:
    b = fibsboard.parse(SPEC_X)
    assert b.position == Position.initial() and b.player_on_turn and b.dice == (4, 2)
    assert move_command(b, Move.parse("24/22 22/18")) in ("move 1-3 3-7", "move 1-5 5-7")
    assert move_command(b, Move.parse("13/9 13/11")) in ("move 12-16 12-14", "move 12-14 12-16")
    assert str(parse_move_line(b, "move 12-16 12-14")) == "13/11 13/9"


def test_bar_and_off_words() -> None:
    # X (moves up, enters from 0) has a checker on the bar; O has one on its bar too.
    line = ("board:You:bob:5:0:0:-1:-1:0:0:0:1:4:0:3:0:0:0:-4:5:0:0:0:-3:-1:-5:0:1:0:0:1:0:-1:3:2:0:0:1:1:1:0"
            ":-1:1:25:0:0:0:1:0:2:1:0:0")
    b = fibsboard.parse(line)
    assert move_command(b, Move.parse("bar/22 13/11")) == "move bar-3 12-14"
    assert parse_move_line(b, "You moves bar-3 12-14 .") == Move.parse("bar/22 13/11")
    # O bearing off: O moves down and bears off below 1
    race = fibsboard.FibsBoard.from_state(
        Position.from_board([[2, 3, 3, 3, 2, 2] + [0] * 19, [3, 3, 3, 3, 3] + [0] * 20]),
        MatchState(length=3, on_roll=1, turn=1, dice=(6, 5)), player="You", opponent="bob")
    assert move_command(race, Move.parse("5/off 5/off")) == "move 5-off 5-off"
    assert parse_move_line(race, "5-off 5-off") == Move.parse("5/off(2)")


# -- line round trip and validation ----------------------------------------------------

@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Random legal positions: random layouts (often bearing off) or random games from the start."""
    rng = draw(st.randoms(use_true_random=False))
    if draw(st.booleans()):
        position = Position.initial()
        for _ in range(draw(st.integers(0, 60))):
            moves = position.legal_moves(rng.randint(1, 6), rng.randint(1, 6))
            position = position.play(rng.choice(moves)).swap()
            if position.winner() is not None:
                break
        if position.winner() is None:
            return position
    home = draw(st.booleans())
    rows = [[0] * 25, [0] * 25]
    for side in (0, 1):
        for _ in range(15 - draw(st.integers(0, 14 if home else 3))):
            while True:
                index = 24 if rng.random() < 0.04 else rng.randrange(6 if home else 24)
                if index == 24 or rows[1 - side][23 - index] == 0:
                    break
            rows[side][index] += 1
    return Position.from_board(rows)


@st.composite
def match_states(draw: st.DrawFn) -> MatchState:
    """Consistent FIBS match states (no Jacoby on FIBS)."""
    length = draw(st.sampled_from([0, 1, 2, 3, 5, 7, 11]))
    top = length - 1 if length else 30
    score = (draw(st.integers(0, top)), draw(st.integers(0, top)))
    cube = 1 << draw(st.integers(0, 6))
    on_roll = draw(st.integers(0, 1))
    doubled = draw(st.booleans())
    owner = CENTRED if cube == 1 else on_roll if doubled else draw(st.integers(0, 1))
    one_away = length > 0 and sum(length - s == 1 for s in score) == 1
    dice = None if doubled else draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    return MatchState(length=length, score=score, cube=cube, cube_owner=owner, on_roll=on_roll,
                      turn=1 - on_roll if doubled else on_roll, crawford_game=one_away and draw(st.booleans()),
                      jacoby=False, crawford_rule=length > 0, dice=dice, doubled=doubled)


colours = st.sampled_from([-1, 1])


@settings(max_examples=150, deadline=None)
@given(positions(), match_states(), colours, colours)
def test_state_to_line_and_back(position: Position, match: MatchState, colour: int, direction: int) -> None:
    board = FibsBoard.from_state(position, match, player="You", opponent="bob", colour=colour, direction=direction)
    line = board.format()
    parsed = fibsboard.parse(line)
    assert parsed == board and parsed.format() == line
    assert parsed.position == position and parsed.match == match


@settings(max_examples=150, deadline=None)
@given(positions(), match_states(), colours, colours, st.data())
def test_any_valid_fields_round_trip(position: Position, match: MatchState, colour: int, direction: int,
                                     data: st.DataObject) -> None:
    board = FibsBoard.from_state(position, match, player="GammonBot_VII", opponent="pip_cat", colour=colour,
                                 direction=direction)
    dice = st.sampled_from([(0, 0)]) | st.tuples(st.integers(1, 6), st.integers(1, 6))
    board = dataclasses.replace(
        board, turn=data.draw(st.integers(-1, 1)), player_dice=data.draw(dice), opponent_dice=data.draw(dice),
        player_may_double=data.draw(st.booleans()), opponent_may_double=data.draw(st.booleans()),
        was_doubled=data.draw(st.booleans()), home=data.draw(st.sampled_from([0, 25])),
        bar=data.draw(st.sampled_from([0, 25])), can_move=data.draw(st.integers(0, 4)),
        forced_move=data.draw(st.integers(0, 99)), did_crawford=data.draw(st.integers(0, 1)),
        redoubles=data.draw(st.integers(0, 99)), match_length=data.draw(st.sampled_from([1, 5, 9999])),
        player_score=data.draw(st.integers(0, 20)), opponent_score=data.draw(st.integers(0, 20)))
    line = board.format()
    assert fibsboard.parse(line) == board
    assert fibsboard.parse(line).format() == line


@pytest.mark.parametrize("index", range(3, 53))
def test_bad_field_is_named(index: int) -> None:
    tokens = SPEC_O.split(":")
    tokens[index] = "x"
    with pytest.raises(BoardParseError, match=f"board field {index} "):
        fibsboard.parse(":".join(tokens))


@pytest.mark.parametrize(("index", "value"), [
    (1, "a b"), (2, ""), (3, "0"), (4, "-1"), (6, "16"), (32, "2"), (33, "7"), (35, "7"), (37, "3"), (38, "2"),
    (40, "-1"), (41, "0"), (42, "2"), (43, "1"), (44, "24"), (45, "1"), (46, "16"), (47, "16"), (49, "5"),
    (51, "2"), (52, "-1"), (12, "05"), (12, "-0"), (12, "+5"),
])
def test_bad_value_is_named(index: int, value: str) -> None:
    tokens = SPEC_O.split(":")
    tokens[index] = value
    with pytest.raises(BoardParseError, match=f"board field {index} "):
        fibsboard.parse(":".join(tokens))


def test_bad_shape() -> None:
    with pytest.raises(BoardParseError, match="54 fields"):
        fibsboard.parse(SPEC_O + ":0")
    with pytest.raises(BoardParseError, match="field 0"):
        fibsboard.parse("boord" + SPEC_O[5:])


def test_checker_totals_are_checked() -> None:
    tokens = SPEC_O.split(":")
    tokens[19] = "4"  # O's 13 point: 4 instead of 5
    with pytest.raises(BoardParseError, match="field 45 .*14 checkers"):
        fibsboard.parse(":".join(tokens))


def test_pending_double_and_game_over() -> None:
    tokens = SPEC_O.split(":")
    tokens[32], tokens[33], tokens[34], tokens[37:41] = "-1", "0", "0", ["2", "0", "0", "1"]
    m = fibsboard.parse(":".join(tokens)).match
    assert (m.doubled, m.turn, m.on_roll, m.cube_owner, m.dice) == (True, 0, 1, 1, None)
    tokens[32] = "0"
    assert fibsboard.parse(":".join(tokens)).dice is None


# -- moves: engine -> FIBS command -> parsed back, refereed like FIBS ---------------------

def fibs_referee(board: FibsBoard, text: str) -> tuple[tuple[int, ...], int, int, int, int]:
    """Play FIBS sub-moves one by one in absolute numbering, as the server checks them.

    Written from FIBS's rules without the code under test. Returns points 1..24,
    then bar and off counts of the player and of the opponent.
    """
    points = list(board.points)
    me = board.turn == board.colour
    sign = board.colour if me else -board.colour
    up = (board.direction if me else -board.direction) == 1
    bar = {True: board.player_bar, False: board.opponent_bar}
    off = {True: board.player_off, False: board.opponent_off}
    assert board.dice
    dice = list(board.dice) * (2 if board.dice[0] == board.dice[1] else 1)
    home = range(19, 25) if up else range(1, 7)
    for token in text.split():
        a, b = token.split("-")
        if a == "bar":
            assert bar[me] > 0, "no checker on the bar"
            start = 0 if up else 25
        else:
            assert bar[me] == 0, "must enter from the bar first"
            start = int(a)
            assert points[start] * sign > 0, f"no checker on {start}"
        if b == "off":
            assert all(points[p] * sign <= 0 for p in range(1, 25) if p not in home), "not all home"
            distance = 25 - start if up else start
            behind = [p for p in home if points[p] * sign > 0 and (p < start if up else p > start)]
            die = distance if distance in dice else min((d for d in dice if d > distance and not behind), default=0)
            assert die, f"cannot bear off from {start}"
            off[me] += 1
        else:
            end = int(b)
            die = end - start if up else start - end
            assert die in dice, f"no die for {token}"
            assert points[end] * sign >= -1, f"{end} is blocked"
            if points[end] * sign == -1:
                points[end] = 0
                bar[not me] += 1
            points[end] += sign
        dice.remove(die)
        if a == "bar":
            bar[me] -= 1
        else:
            points[start] -= sign
    return tuple(points[1:25]), bar[True], off[True], bar[False], off[False]


def _board(position: Position, dice: tuple[int, int], colour: int, direction: int, player_moves: bool) -> FibsBoard:
    """A parsed board line where the mover in ``position`` (board[1]) is the player or the opponent."""
    mover = 1 if player_moves else 0
    match = MatchState(length=7, on_roll=mover, turn=mover, dice=dice, jacoby=False)
    seen = position if player_moves else position.swap()
    line = FibsBoard.from_state(seen, match, player="You", opponent="bob", colour=colour,
                                direction=direction).format()
    return fibsboard.parse(line)


@settings(max_examples=80, deadline=None)
@given(positions(), st.integers(1, 6), st.integers(1, 6), colours, colours, st.booleans())
# 2-1 from the 6 point: 6/4*/3 and 6/5/3 are different plays with the same start and end
@example(Position.from_position_id("4HPwARLgc/ABMA"), 1, 2, -1, -1, False)
def test_every_legal_move_round_trips(position: Position, d1: int, d2: int, colour: int, direction: int,
                                      player_moves: bool) -> None:
    board = _board(position, (d1, d2), colour, direction, player_moves)
    name = board.player if player_moves else board.opponent
    for move, result in position.legal_plays(d1, d2):
        if not move.steps:
            with pytest.raises(IllegalMoveError):
                move_command(board, move)
            assert parse_move_line(board, f"{name} moves  .") == move
            continue
        command = move_command(board, move)
        assert command.startswith("move ") and len(command.split()) == 1 + len(move.steps)
        after = _board(result if player_moves else result.swap(), (d1, d2), colour, direction, True)
        expected = (after.points[1:25], after.player_bar, after.player_off, after.opponent_bar, after.opponent_off)
        assert fibs_referee(board, command[5:]) == expected
        assert parse_move_line(board, f"{name} moves {command[5:]} .") == move
        assert parse_move_line(board, command) == move


def test_illegal_move_lines() -> None:
    b = fibsboard.parse(SPEC_O)  # O to play 6-2 from the start
    for text in ("You moves 24-18 .", "You moves 24-17 13-11 .", "You moves 24-18 6-4 6-4 .", "You moves 1-7 1-3 .",
                 "bob moves 24-18 13-11 .", "You moves 24-18 13-11 extra", "You moves 25-19 13-11 .",
                 "You moves 13-off 13-11 ."):
        with pytest.raises(IllegalMoveError):
            parse_move_line(b, text)
    with pytest.raises(IllegalMoveError):
        move_command(b, Move.parse("24/18 24/20"))
    rolled_by_nobody = fibsboard.parse(SPEC_O.replace(":1:6:2:0:0:", ":1:0:0:0:0:"))
    with pytest.raises(IllegalMoveError, match="not rolled"):
        move_command(rolled_by_nobody, Move.parse("24/18 13/11"))


def test_commands_move_uses_the_board() -> None:
    assert commands.move(fibsboard.parse(SPEC_X), Move.parse("24/20 20/18")) in ("move 1-5 5-7", "move 1-3 3-7")

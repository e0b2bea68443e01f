"""XGID: the published opening string, round trips, errors."""

import random

import pytest

from engine.errors import BoardParseError
from engine.match import CENTRED, MatchState
from engine.sampling import random_game_positions
from engine.xgid import from_xgid, to_xgid

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_opening_position():
    position, match = from_xgid(OPENING)
    assert position.position_id() == "4HPwATDgc/ABMA"
    assert (match.length, match.cube, match.cube_owner, match.on_roll, match.dice) == (0, 1, CENTRED, 1, None)


def test_round_trip_random_positions_and_states():
    rng = random.Random(3)
    for position in random_game_positions(2000, seed=9):
        length = rng.choice([0, 1, 3, 5, 7, 11])
        on_roll = rng.randrange(2)
        match = MatchState(
            length=length, score=(rng.randrange(length), rng.randrange(length)) if length else (0, 0),
            cube=1 << rng.randrange(6), cube_owner=rng.choice([CENTRED, 0, 1]), on_roll=on_roll, turn=on_roll,
            crawford_game=bool(length and rng.random() < 0.2), jacoby=not length and rng.random() < 0.5,
            dice=(rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.5 else None)
        text = to_xgid(position, match)
        back_position, back_match = from_xgid(text)
        assert back_position == position and back_match == match, text
        assert to_xgid(back_position, back_match) == text


@pytest.mark.parametrize("bad", [
    "", "XGID=", OPENING.replace("-b--", "-z--"), OPENING[:-3], OPENING.replace(":1:00:", ":2:00:"),
    OPENING.replace(":00:", ":77:"), "XGID=B" + OPENING[6:], OPENING.replace("E-C", "P-C"),
])
def test_bad_xgids(bad):
    with pytest.raises(BoardParseError):
        from_xgid(bad)


def test_hint_accepts_an_xgid(capsys):
    from bot.cli import main

    assert main(["hint", OPENING, "--dice", "31"]) == 0
    out = capsys.readouterr().out
    assert "4HPwATDgc/ABMA" in out and "8/5 6/5" in out

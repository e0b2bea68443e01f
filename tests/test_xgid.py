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
            beavers=bool(length) or rng.random() < 0.5,
            dice=(rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.5 else None)
        text = to_xgid(position, match)
        back_position, back_match = from_xgid(text)
        assert back_position == position and back_match == match, text
        assert to_xgid(back_position, back_match) == text


@pytest.mark.parametrize("bad", [
    "", "XGID=", OPENING.replace("-b--", "-z--"), OPENING[:-3], OPENING.replace(":1:00:", ":2:00:"),
    OPENING.replace(":00:", ":77:"), "XGID=B" + OPENING[6:], OPENING.replace("E-C", "P-C"),
    OPENING.replace(":0:0:1:", ":11:0:1:"), OPENING[:-2] + "16", OPENING.replace(":0:0:0:10", ":0:0:4:0:10"),
    OPENING.replace(":0:0:0:10", ":0:0:2:5:10"),
])
def test_bad_xgids(bad):
    with pytest.raises(BoardParseError):
        from_xgid(bad)


def test_hint_accepts_an_xgid(capsys):
    from bot.cli import main

    assert main(["hint", OPENING, "--dice", "31"]) == 0
    out = capsys.readouterr().out
    assert "4HPwATDgc/ABMA" in out and "8/5 6/5" in out


# A money position gnubg 1.07 (``set xgid`` then ``hint``) calls "No double, take" with
# flags 0 and "No double, beaver" with flags 2; its ``show jacoby`` / ``show beavers``
# after ``set xgid`` say: flags 1 = the Jacoby rule, 2 = beavers allowed, 3 = both.
UNDERDOG = "XGID=-b-A--E-B-A-bD---bce---aB-:0:0:1:00:0:0:{flags}:0:10"


@pytest.mark.parametrize("flags, jacoby, beavers", [(0, False, False), (1, True, False),
                                                    (2, False, True), (3, True, True)])
def test_money_flags_are_jacoby_and_beavers(flags, jacoby, beavers):
    _, match = from_xgid(UNDERDOG.format(flags=flags))
    assert (match.jacoby, match.beavers) == (jacoby, beavers)
    assert to_xgid(*from_xgid(UNDERDOG.format(flags=flags))) == UNDERDOG.format(flags=flags)


def test_beaver_flag_decides_the_cube_action(engine):
    without = engine.cube_decision(*from_xgid(UNDERDOG.format(flags=0)), "expert")
    with_beavers = engine.cube_decision(*from_xgid(UNDERDOG.format(flags=2)), "expert")
    assert (without.action, with_beavers.action) == ("No double, take", "No double, beaver")
    assert not without.should_beaver and with_beavers.should_beaver


def test_match_flag_is_crawford_and_max_cube_covers_the_cube():
    _, match = from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:0:1:5:10")
    assert match.crawford_game and match.score == (0, 4)
    position, big = from_xgid("XGID=-b----E-C---eE---c-e----B-:12:1:1:00:0:0:0:0:12")
    assert big.cube == 4096 and to_xgid(position, big).endswith(":12")

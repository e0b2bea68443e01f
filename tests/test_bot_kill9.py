"""kill -9 of a real ``fibsbot run`` against the local server, three times in one match
(early in game 1, in the middle of game 2, right after a double), restarted each time:
every game of its final record equals the opponent's record, action for action."""

from __future__ import annotations

import pathlib

from engine.records import Double, load_sgf

from botkit import Cube
from livekit import LiveMatch, normalised

LENGTH = 11  # long enough that the Crawford rule cannot stop the double after game 2


async def test_kill9_at_three_points_keeps_our_record_equal_to_the_opponents(tmp_path: pathlib.Path) -> None:
    async with LiveMatch(tmp_path, LENGTH, seed=11) as live:
        def actions_in(game: int) -> int:
            running = live.games()
            return len(running[game - 1].actions) if len(running) >= game else 0

        def count_doubles() -> int:
            return sum(isinstance(a, Double) for g in live.games() for a in g.actions)

        await live.start()
        await live.until(lambda: actions_in(1) >= 3, "game 1 under way")
        await live.kill()
        await live.until(lambda: actions_in(2) >= 6, "the middle of game 2")
        await live.kill()
        doubles = count_doubles()
        live.decider.forced["cube"] = Cube(True, True)
        await live.until(lambda: count_doubles() > doubles, "a double")
        live.decider.forced["cube"] = Cube(False, True)
        await live.kill()  # its next move after the double
        await live.finish()

    [result] = live.sparring.results
    assert result.record is not None
    records = sorted((tmp_path / "us" / "records").glob("*.sgf"))
    assert len(records) == 1, records  # one file: no part was split off
    assert not list((tmp_path / "us" / "records").glob("*.journal"))  # the match is over
    mine, theirs_record = load_sgf(records[0]), load_sgf(result.record)
    assert mine.is_over() and theirs_record.is_over() and len(mine.games) >= 2
    assert normalised(mine, 1) == normalised(theirs_record, 0)
    assert not any(a.comment for game in mine.games for a in game.actions)  # nothing was reconstructed

"""Broken and hostile records: a clear RecordParseError, or a documented recovery."""

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.records
from engine.errors import RecordParseError
from engine.records import MatchRecord, Roll, load_mat, load_sgf, mat, sgf

DATA = Path(__file__).parent / "data" / "golden-sgf"
BROKEN = DATA / "broken"

# file -> the error message (with the line and property it names)
ERRORS = {
    "bad_dice.sgf": "line 3: B[71abae]: expected two dice 1-6",
    "bad_move_garbage.sgf": "line 3: B[xyz]: expected two dice 1-6",
    "bad_move_zz.sgf": "line 3: B[41abzz]: expected two dice 1-6",
    "gm_only.sgf": "line 3: B[64xrxt]: step 1/7 does not move forward",
    "illegal_move.sgf": "line 2: W[21nlfe]: cannot play 14/12 6/5",
    "mi_bad.sgf": "line 50: MI: game 2 starts at 0-7 but the earlier games give 0-2",
    "no_gm.sgf": "no backgammon game (GM[6]) in the file",
    "not_sgf.sgf": "no backgammon game (GM[6]) in the file",
    "re_no_r.sgf": "line 1: RE[B+2] but the game is not over (a resignation is written with R)",
    "re_wrong.sgf": "line 1: RE[W+1R]: 1 is not a single, gammon or backgammon at cube 2",
    "truncated.sgf": "line 132: syntax error: W: unterminated value",
    "wrong_player.sgf": "line 3: W[41abae]: it is B's turn",
}


def _same_as_base(record: MatchRecord) -> None:
    assert record == load_sgf(BROKEN / "base.sgf")


def _money_without_mi(record: MatchRecord) -> None:
    # gnubg loads every game as money at 0-0; we keep the session's running score
    assert (record.length, record.crawford) == (0, False)
    assert [g.score for g in record.games] == [(0, 0), (0, 2), (1, 2)]
    assert not any(g.crawford_game for g in record.games)


def _no_crawford(record: MatchRecord) -> None:
    assert not record.crawford and not any(g.crawford_game for g in record.games)
    assert [g.result for g in record.games] == [g.result for g in load_sgf(BROKEN / "base.sgf").games]


def _unfinished(record: MatchRecord) -> None:
    # a resignation without RE leaves the game unfinished, as in gnubg
    assert len(record.games) == 1 and record.games[0].result is None
    assert record.games[0].state.turn is not None


def _extras(record: MatchRecord) -> None:
    # unknown MI item, RU token and property are dropped; the comment is kept
    game = record.games[0]
    assert record.crawford and game.result is not None and game.result.points == 2
    assert game.actions[0].comment == "opening ] bracket and back\\slash\nsecond line"
    assert "dice:" not in sgf.dumps(record) and "Holland" not in sgf.dumps(record)


RECOVERIES = {
    "base.sgf": lambda r: None,
    "extras.sgf": _extras,
    "no_mi.sgf": _money_without_mi,
    "no_re.sgf": _unfinished,
    "no_ru.sgf": _no_crawford,
    "unknown_prop.sgf": _same_as_base,
}


def test_every_broken_file_has_an_expectation() -> None:
    assert sorted(p.name for p in BROKEN.iterdir()) == sorted([*ERRORS, *RECOVERIES])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_broken_file_gives_a_clear_error(name: str) -> None:
    with pytest.raises(RecordParseError) as info:
        load_sgf(BROKEN / name)
    assert str(info.value).startswith(f"{BROKEN / name}: {ERRORS[name]}")


@pytest.mark.parametrize("name", sorted(RECOVERIES))
def test_broken_file_recovery(name: str) -> None:
    record = load_sgf(BROKEN / name)
    RECOVERIES[name](record)
    assert sgf.loads(sgf.dumps(record)) == record


def test_setup_nodes_are_refused() -> None:
    with pytest.raises(RecordParseError, match="line 2: PL: edited positions"):
        load_sgf(DATA / "position.sgf")


@pytest.mark.parametrize("text, message", [
    ("", "no backgammon game"),
    ("   \n\t ", "no backgammon game"),
    ("(", "line 1: syntax error: a game tree must start with a node"),
    ("(;GM[6]", "line 1: syntax error: file ends inside a game tree"),
    ("(;GM[6])", None),
    ("(;GM[6]MI[length:3]\n;W[31hefe]\n;W[31hefe])", "line 3: W[31hefe]: it is B's turn"),
    ("(;GM[6];W[31hefe]B[42])", "line 1: B: two actions in one node"),
    ("(;GM[6]MI[length:99999999999999999999999])", "line 1: MI: '99999999999999999999999' is not a number"),
    ("(;GM[6]MI[length:1000])", "line 1: MI: match length must be 0 (money) to 999"),
    ("(;GM[6]MI[length:3][ws:3])", "line 1: MI: score 3-0 is outside a 3-point match"),
    ("(;GM[6]RE[W+123456789012345678901R])", "line 1: RE: '123456789012345678901' is not a number"),
    ("(;GM[6]RE[W+1])", "line 1: RE[W+1] but the game is not over"),
    ("(;GM[6]CV[2])", "line 1: CV: games starting with automatic doubles"),
    ("(;GM[6]MI[length:3][ws:2][bs:0]RU[Crawford:CrawfordGame];W[31hefe];B[double])",
     "line 1: B[double]: B may not double now (cube 1, Crawford game)"),
    ("(;GM[6];W[31hefe];B[take])", "line 1: B[take]: Take without a double"),
    ("(;GM[6];W[31hefe];RS[B:9])", "line 1: RS[B:9]: expected RS[W|B:1|2|3|accept|reject]"),
    ("(;GM[6];W[31hefe];RS[B:accept])", "line 1: RS[B:accept]: B has no resignation to answer"),
    ("(;GM[6];W[31he])", "line 1: W[31he]: 8/5 is not a legal play for 31"),
    ("(;GM[6];W[31hefef])", "line 1: W[31hefef]: expected two dice"),
    ("(;GM[6];W[31hefe](;B[42])(;B[66]);W[11])", "line 1: syntax error: node after a variation"),
    ("(;GM[6] foo)", "line 1: syntax error: foo: property without a value"),
    ("(;GM[6];W[31hefe] # )", "line 1: syntax error: unexpected '#'"),
    ("(;GM[6]W[31hefe])", None),  # an action in the root is ignored, as gnubg does
])
def test_hostile_sgf(text: str, message: str | None) -> None:
    if message is None:
        record = sgf.loads(text)
        assert len(record.games) == 1 and not record.games[0].actions
        return
    with pytest.raises(RecordParseError) as info:
        sgf.loads(text)
    assert str(info.value).startswith(message)


def test_variations_follow_the_first_branch() -> None:
    record = sgf.loads("(;GM[6];W[21mkfe](;B[41abae](;W[32yvmk])(;W[66]))(;B[66]))")
    assert [str(a.move) for a in record.games[0].actions if isinstance(a, Roll)] == [
        "13/11 6/5", "24/23 24/20*", "bar/22 13/11"]
    assert len(record.games[0].actions) == 3


def test_deep_nesting_and_huge_input_do_not_hang_or_recurse() -> None:
    deep = "(;GM[6]" + "(;" * 100_000 + ")" * 100_001
    assert sgf.loads(deep).games[0].actions == ()
    with pytest.raises(RecordParseError, match="100001 unclosed"):
        sgf.loads("(;GM[6]" + "(;" * 100_000)
    long_value = "(;GM[6]GC[" + "\\]x" * 1_000_000 + "])"
    assert len(sgf.loads(long_value).comment) == 2_000_000
    with pytest.raises(RecordParseError, match="unterminated"):
        sgf.loads("(;GM[6]GC[" + "x" * 3_000_000)


def test_oversized_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine.records, "MAX_FILE_BYTES", 1000)
    with pytest.raises(RecordParseError, match="larger than"):
        load_sgf(BROKEN / "base.sgf")


def test_bad_utf8_is_read_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "latin1.sgf"
    path.write_bytes(b"(;GM[6]PW[J\xf6rg]PB[bob];W[31hefe])")
    assert load_sgf(path).players == ("J\ufffdrg", "bob")


MAT_GOLD = (DATA / "match_3pt.mat").read_text()


@pytest.mark.parametrize("text, message", [
    ("hello\n", "not a .mat file"),
    ("; [Variation \"NackGammon\"]\n 3 point match\n", "line 2: variation 'NackGammon'"),
    (" 1000 point match\n", "line 1: match length 1000 is over 999"),
    (" 3 point match\n\n Game 1\n nobody here\n", "line 4: expected a score line"),
    (MAT_GOLD.replace("24/23 24/20*", "24/23 24/19*"), "line 7: cannot play 24/23 24/19* in 0HPkATDgc/ABMA"),
    (MAT_GOLD.replace("  2) 32: 25/22 13/11", "  2) 32: 13/11 13/10"), "line 8: cannot play 13/11 13/10"),
    (MAT_GOLD.replace(" Takes", " Grumbles"), "line 14: unrecognised action 'Grumbles'"),
    (MAT_GOLD.replace(" alice : 0                      bob : 2", " alice : 0                      bob : 1"),
     "line 34: game 2 starts at 0-1 but the earlier games give 0-2"),
    (MAT_GOLD.replace("41: 24/23 24/20*", "41: 24/2x/1"), "line 7: '41: 24/2x/1': cannot parse"),
])
def test_hostile_mat(text: str, message: str) -> None:
    with pytest.raises(RecordParseError) as info:
        mat.loads(text)
    assert str(info.value).startswith(message)


def test_mat_extra_games_after_the_end_are_ignored() -> None:
    record = mat.loads(MAT_GOLD + " Game 4\n alice : 5                      bob : 2\n  1) 31: 8/5 6/5\n")
    assert len(record.games) == 3


def _mutations(text: str, seed: int, count: int) -> str:
    rng = random.Random(seed)
    chars = list(text)
    for _ in range(count):
        i = rng.randrange(len(chars) + 1)
        kind = rng.randrange(3)
        if kind == 0 and i < len(chars):
            del chars[i]
        else:
            c = rng.choice("()[];\\:abcxyzWBRC0123456789+\n ")
            chars[i:i + (kind == 1)] = [c]
    return "".join(chars)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 8))
def test_mutated_files_parse_or_fail_cleanly(seed: int, count: int) -> None:
    for loads, text in ((sgf.loads, (BROKEN / "base.sgf").read_text()), (mat.loads, MAT_GOLD)):
        try:
            loads(_mutations(text, seed, count))
        except RecordParseError:
            pass


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("()[];\\:abexyzWBGM6MI length:RE+R\n 0123"), max_size=200))
def test_arbitrary_text_parses_or_fails_cleanly(text: str) -> None:
    for loads in (sgf.loads, mat.loads):
        try:
            loads(text)
        except RecordParseError:
            pass


def test_load_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.mat"
    path.write_text("nothing")
    with pytest.raises(RecordParseError, match=r"x\.mat: not a \.mat file"):
        load_mat(path)

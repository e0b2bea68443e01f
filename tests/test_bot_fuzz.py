"""The state-machine fuzzer: a seeded sample of mutated sessions in the suite, and proof
that its invariants do catch a player that misbehaves."""

from __future__ import annotations

import random

import pytest

from bot import commands, fuzz


async def test_a_seeded_sample_of_mutated_sessions_has_no_violation() -> None:
    report = await fuzz.fuzz(200, seed=20261126, window=120)
    assert report.sessions == 200
    assert report.violations == []


async def test_the_fuzzer_catches_an_illegal_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "move", lambda board, move: "move 1-2")  # a player that lost its way
    report = await fuzz.fuzz(5, seed=3, window=200)
    assert any("is not legal on the last valid board" in v for v in report.violations)


async def test_the_fuzzer_catches_an_ill_formed_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "roll", lambda: "roll\nmove 1-2")
    report = await fuzz.fuzz(5, seed=3, window=200)
    assert any("ill-formed command" in v for v in report.violations)


def test_mutations_cover_every_kind() -> None:
    rng = random.Random(5)
    dialogue = fuzz.load_dialogues(fuzz.DATA / "dialogues")[0]
    chunks = fuzz.mutate(rng, dialogue, fuzz.server_lines(fuzz.DATA / "fibs-lines"), rate=1.0)
    sizes = [len(c) for c in chunks if c is not None]
    assert max(sizes) >= 1 << 16  # 64 KiB lines
    assert any(c is not None and not c.endswith((b"\r\n", b"\n", b"\r")) for c in chunks)  # glued
    assert sum(c is not None and c.startswith(b"board:") for c in chunks) > 10


def test_the_command_prints_its_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz.main(["--sessions", "3", "--seed", "1", "--window", "50"]) == 0
    assert capsys.readouterr().out.strip().endswith("3 sessions, 0 violations")

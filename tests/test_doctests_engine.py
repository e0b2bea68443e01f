"""Runs the doctests of every engine module that has them (bot/ ones run in test_clip.py)."""

import doctest
import importlib
import pathlib

import pytest

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "engine"
MODULES = sorted(
    "engine." + ".".join(p.relative_to(ENGINE).with_suffix("").parts)
    for p in ENGINE.rglob("*.py")
    if ">>>" in p.read_text() and p.name != "__init__.py"
)


def test_modules_found():
    assert "engine.position" in MODULES and "engine.match" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    failures, tried = doctest.testmod(importlib.import_module(name))
    assert tried > 0 and failures == 0

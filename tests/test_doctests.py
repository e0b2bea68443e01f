"""Runs the doctests of every engine and bot module that has them."""

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts)
    for package in ("engine", "bot")
    for p in (ROOT / package).rglob("*.py")
    if ">>>" in p.read_text() and p.name not in ("__init__.py", "__main__.py")
)


def test_modules_found():
    assert {"engine.position", "engine.match", "bot.clip.glue", "bot.config"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    failures, tried = doctest.testmod(importlib.import_module(name))
    assert tried > 0 and failures == 0

"""The one door to the compiled engine: who imports it, its error table, and a public API without Any."""

from __future__ import annotations

import ast
import inspect
import pathlib
import typing

import numpy as np
import numpy.typing as npt
import pytest

import engine
from engine import native, rollout, search
from engine.errors import EngineError, SearchCancelled

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _imports_core(path: pathlib.Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.startswith("engine._core") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.startswith("engine._core") or any(a.name == "_core" for a in node.names):
                return True
    return False


def test_only_native_imports_the_compiled_engine() -> None:
    users = sorted(str(p.relative_to(ROOT)) for package in ("engine", "bot")
                   for p in (ROOT / package).rglob("*.py") if p.name != "_build.py" and _imports_core(p))
    assert users == ["engine/native.py"]


@pytest.mark.parametrize("code, what, kind, text", [
    (-1, "search", ValueError, "a side has more than 15 chequers"),
    (-2, "search", ValueError, "dice must be 1..6"),
    (-3, "rollout", ValueError, "bad rollout settings"),
    (-4, "search", EngineError, "out of memory in the search"),
    (-5, "rollout", ValueError, "a candidate's board is not a legal position"),
    (-6, "search", SearchCancelled, "the search was cancelled"),
    (-99, "rollout", EngineError, "rollout error -99"),
])
def test_one_error_table(code: int, what: str, kind: type[Exception], text: str) -> None:
    with pytest.raises(kind) as info:
        native.check(code, what)
    assert type(info.value) is kind and str(info.value) == text


def test_results_that_are_not_errors_pass_through() -> None:
    assert native.check(0) == 0 and native.check(7, "rollout") == 7


def _has_any(hint: object) -> bool:
    if hint is typing.Any:
        return True
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is np.ndarray:  # numpy's array types leave the shape open (Any): only the dtype counts
        args = args[1:]
    return any(_has_any(a) for a in args if a is not Ellipsis)


# names the annotations refer to from inside their own modules (forward references; numpy
# and engine.rollout are imported there for type checking only, so that `import engine` needs neither)
_NAMES = {**vars(rollout), **vars(search), "np": np, "npt": npt, "rollout": rollout}


def _public_callables(obj: type) -> list[tuple[str, object]]:
    return [(name, member) for name, member in vars(obj).items()
            if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))]


def test_the_public_api_is_typed_without_any() -> None:
    offenders = []
    for name in engine.__all__:
        obj = getattr(engine, name)
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        try:
            fields = typing.get_type_hints(obj)
        except TypeError:
            fields = {}
        offenders += [f"{name}.{f}" for f, hint in fields.items() if _has_any(hint)]
        for attr, member in _public_callables(obj):
            fn = member.fget if isinstance(member, property) else member
            hints = typing.get_type_hints(fn, localns=_NAMES)
            offenders += [f"{name}.{attr}({p})" for p, hint in hints.items() if _has_any(hint)]
    assert offenders == []


def test_engine_methods_take_position_dice_match_level_in_that_order() -> None:
    order = ("position", "positions", "dice", "match", "level")
    for name in ("best_move", "best_moves", "cube_decision", "cube_decisions", "evaluate_nply", "resign_offer",
                 "accept_resignation"):
        params = [p for p in inspect.signature(getattr(engine.Engine, name)).parameters if p in order]
        assert params == sorted(params, key=order.index), (name, params)
        assert "level" in params and "match" in params, name

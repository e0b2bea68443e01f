"""No import circle among the project's modules (engine/, bot/), read statically with ``ast``.

Every import counts: top-level, inside a function, under ``if TYPE_CHECKING:``
(a circle hidden in a function or in annotations is still a circle). A
submodule importing its own parent package (``engine.cube`` -> ``engine``) is
how packages work, not a circle, and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bot")


def project_modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> source file (a package is named by its ``__init__.py``)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imported(module: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The project modules one import statement in ``module`` names."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: count up from the module's package
            package = module.split(".")
            if modules[module].name != "__init__.py":
                package = package[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [base] + [f"{base}.{alias.name}" for alias in node.names]
    found = set()
    for name in names:
        parts = name.split(".")
        while parts and ".".join(parts) not in modules:  # ``from pkg.mod import func`` names pkg.mod
            parts.pop()
        if parts:
            found.add(".".join(parts))
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets |= imported(module, node, modules)
        graph[module] = {t for t in targets if t != module and not module.startswith(t + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def test_no_new_import_circle() -> None:
    modules = project_modules(ROOT, PACKAGES)
    assert "bot.server.server" in modules and "engine" in modules  # the walk found the project
    found = [sorted(group) for group in circles(import_graph(modules))]
    assert found == [], "import circles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_checker_sees_hidden_and_relative_circles(tmp_path: Path) -> None:
    """A circle through a function-level import, one through ``TYPE_CHECKING``, one relative; a parent is no circle."""
    files = {
        "pkg/__init__.py": "from pkg import low\n",
        "pkg/low.py": "import pkg\n",  # a submodule importing its package: not a circle
        "pkg/a.py": "from pkg.b import thing\n",
        "pkg/b.py": "def thing():\n    from pkg import a\n",
        "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import D\n",
        "pkg/d.py": "from .c import C\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/e.py": "from .. import low\n",  # one way only
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(project_modules(tmp_path, ("pkg",)))
    assert graph["pkg.sub.e"] == {"pkg.low"}
    assert sorted(sorted(group) for group in circles(graph)) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]

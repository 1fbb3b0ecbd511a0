"""The import graph of our modules has no cycles, lazy imports included.

The layers contract (pyproject.toml, ``lint-imports``) keeps the packages one-way; this test
keeps the modules inside each package one-way too. It reads every ``import`` statement with
``ast``, wherever it stands (module level, inside a function, under ``TYPE_CHECKING``): an
import inside a function is how a cycle hides, not how it goes away. ``from pkg import name``
counts as importing the module ``pkg.name`` when there is one, else ``pkg``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "tablevar",
    "web",
    "tracking",
    "vision",
    "simulator",
    "hardware",
    "calibration",
    "rules",
)


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """``dotted.name -> file`` of every module of ``packages`` under ``root``."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = module.split(".")[: len(module.split(".")) - node.level + is_package]
        base = ".".join([*parent, *([node.module] if node.module else [])])
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module -> the modules of ``modules`` it imports anywhere in its text."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = _imported(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):
                # ``from pkg import sub``: the submodule when there is one, else ``pkg`` itself.
                subs = [n for n in names[:-1] if n in modules]
                names = subs if len(subs) == len(names) - 1 else [*subs, names[-1]]
            for name in names:
                while name and name not in modules:  # ``import a.b.c`` of a name inside a.b
                    name = name.rpartition(".")[0]
                if name and name != module:
                    targets.add(name)
        graph[module] = targets
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # a -> b -> a, the second import inside a function: still a cycle
        (
            {"a.py": "import p.b", "b.py": "def f():\n    from p import a"},
            [["p.a", "p.b"]],
        ),
        # relative imports and a three-module ring
        (
            {"a.py": "from . import b", "b.py": "from .c import X", "c.py": "from .a import Y"},
            [["p.a", "p.b", "p.c"]],
        ),
        # a chain, and a name imported from a module (not a submodule): no cycle
        ({"a.py": "from p.b import f", "b.py": "from p.c import g", "c.py": "import os"}, []),
        # the package re-exports a module that imports a sibling: no cycle
        ({"__init__.py": "from p.a import f", "a.py": "from p import b", "b.py": ""}, []),
    ],
)
def test_cycles_are_found(tmp_path, files, expected):
    package = tmp_path / "p"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    assert cycles(import_graph(module_files(tmp_path, ["p"]))) == expected


def test_our_modules_import_one_way():
    graph = import_graph(module_files(ROOT, PACKAGES))
    assert len(graph) > 100  # the packages were found
    assert cycles(graph) == []

"""Architecture rules that import-linter cannot see, checked on the source text.

- ``rules/`` and ``tracking/`` never read the clock: time is an input (frame timestamps), which
  is what makes a recording replay to the same calls every time.
- ``picamera2`` and ``gpiozero`` exist on a Pi only: they are imported inside the one module
  that wraps each, never at the top of any module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLOCK_CALLS = {
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "monotonic"),
    ("time", "monotonic_ns"),
    ("time", "perf_counter"),
    ("time", "perf_counter_ns"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
}
PI_ONLY = {"picamera2": "hardware/picamera_source.py", "gpiozero": "hardware/gpio.py"}


def _modules(*packages: str) -> list[Path]:
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


def clock_reads(tree: ast.AST) -> list[str]:
    """``module.function`` calls and ``from time import ...`` that read the wall clock."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in CLOCK_CALLS:
                found.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            names = [a.name for a in node.names if ("time", a.name) in CLOCK_CALLS]
            found += [f"from time import {n} (line {node.lineno})" for n in names]
    return found


def top_level_imports(tree: ast.Module) -> set[str]:
    """Root package names imported at module level (not inside a function or class)."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import time\nt = time.monotonic()", ["time.monotonic (line 2)"]),
        ("from datetime import datetime\nd = datetime.now()", ["datetime.now (line 2)"]),
        ("from time import perf_counter", ["from time import perf_counter (line 1)"]),
        ("def f(t_s):\n    return t_s * 2", []),
        ("from time import sleep", []),
    ],
)
def test_clock_reads_finds_them(source, expected):
    assert clock_reads(ast.parse(source)) == expected


@pytest.mark.parametrize("path", _modules("rules", "tracking"), ids=lambda p: p.name)
def test_rules_and_tracking_never_read_the_clock(path):
    assert clock_reads(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_pi_only_libraries_are_imported_lazily():
    offenders = []
    for path in _modules(
        "tablevar", "web", "tracking", "vision", "simulator", "hardware", "calibration", "rules"
    ):
        imported = top_level_imports(ast.parse(path.read_text(encoding="utf-8")))
        offenders += [
            f"{path.relative_to(ROOT)} imports {m} at module level (only {PI_ONLY[m]} may, lazily)"
            for m in sorted(imported & set(PI_ONLY))
        ]
    assert offenders == []

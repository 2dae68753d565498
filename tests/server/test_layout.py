"""The server's house: small modules, and the complexity rules on.

No module of ``server/``, ``client/`` or ``protocol/`` is over 500 lines (a newcomer
finds what owns what; a class of 1,000 lines owns too much), and ruff's complexity rules
(PLR0911, PLR0912, PLR0913, PLR0915) are not switched off for the whole tree: an exception
is a per-file entry in ``pyproject.toml`` with its reason.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]
MAX_LINES = 500
COMPLEXITY = {"PLR0911", "PLR0912", "PLR0913", "PLR0915"}


def test_no_module_is_over_500_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for package in ("server", "client", "protocol")
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert len(sizes) > 100
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}


def test_the_complexity_rules_are_on() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert "PL" in lint["select"]
    assert not COMPLEXITY & set(lint["ignore"])
    excepted = {
        path
        for path, rules in lint["per-file-ignores"].items()
        if COMPLEXITY & set(rules) and not path.startswith(("tests/", "bench/"))
    }
    assert {path for path in excepted if path.startswith("server/")} == {
        "server/engine/_fast.py",
        "server/engine/_step.py",
    }

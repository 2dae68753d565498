"""The browser table's files travel in the distribution: a wheel built from the sources
(as the Docker image's ``pip install .`` builds one) holds every file the page serves, and
a server installed from it finds them.

Slow: pip builds the wheel in an isolated environment (setuptools from the package index).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from server.adapters.web.files import CONTENT_TYPES, web_root

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
SOURCES = ("pyproject.toml", "README.md", "protocol", "server", "client", "vocabulary")


def test_the_wheel_ships_every_file_the_page_serves(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("family_war-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    root = web_root()
    served = [
        path.relative_to(root.parent.parent).as_posix()
        for path in root.rglob("*")
        if path.is_file() and (path.suffix in CONTENT_TYPES or path.name == "LICENSE")
    ]
    assert "client/web/index.html" in served and "client/web/js/main.js" in served
    missing = [name for name in served if name not in names]
    assert not missing, missing

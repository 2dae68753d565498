"""Shared test settings.

In CI (the ``CI`` environment variable set, as ``.ci/run`` is run), hypothesis tries the
same examples on every run, so a red CI run means the code changed, not a lucky draw.
Local runs stay random and keep exploring; a failure they find is saved in
``.hypothesis/`` and should become an ``@example`` or a test of its own.

The suite runs in parallel: ``make test`` runs pytest on six worker processes
(pytest-xdist, ``--dist loadgroup``) on two cores, often beside other work. So every test
holds on a loaded machine, next to five others:

- **Wait on the event itself**, with a bound far above what it takes under load; never
  on a sleep, and never on a race between two timers. When a test waits for one of the
  server's timers or limits (a send timeout, a buffer cap), set its other timers out of
  the way (``ping_interval``, ``close_timeout``, ``opening_timeout``...): websockets'
  keepalive ended a stuck connection before the send-buffer cap it waited for as soon as
  the machine was slow enough (tests/server/adapters/test_app_sendbuffer.py).
- **Nothing fixed on the machine**: servers listen on port 0 and report the port they
  bound (``bench._server.free_port`` only where a server must come back on the same
  port); files go under ``tmp_path`` / ``tmp_path_factory`` (each worker has its own).
- **What a module shares is per worker**: a module-scoped fixture (a browser, a
  certificate) is set up once in each worker that runs tests of the module; a browser
  module is marked ``xdist_group`` with its own name, so one worker runs it and launches
  one Chromium. Tests that must share one copy across the whole run (the Docker image and
  its containers) are
  marked ``pytest.mark.xdist_group("name")``: one worker runs them all (the mark needs
  pytest below 9.2 for now, see `pytest_configure`).
- Per process and safe: structlog's ``capture_logs`` (tests in one worker run one at a
  time), hypothesis' example database (one file per example, written atomically).
- **The page is minified once per run**, not at each of the 200-odd server starts:
  `pytest_configure` sets ``FAMILY_WAR_MINIFY_CACHE`` to a fresh folder (the workers and
  every ``war-server`` they start inherit it; it goes at the end), where the minifying
  child's answer is kept by a digest of its inputs (server/adapters/web/minify_cache.py).
  Set it yourself to keep one folder across runs. tests/server/adapters/test_web.py
  unsets it: the minifier's own tests run the child each time.
- **Compiled modules are kept**: ``make pytest`` unsets ``PYTHONDONTWRITEBYTECODE``, so
  the workers' rewritten test modules and the project's modules that every ``war-server``
  and ``war-client`` a test starts imports are compiled once into ``__pycache__``, not in
  each process (docs/performance.md, "The test suite's cost: compiled modules kept").
- **Tests that take tens of seconds are marked ``slow``** (hypothesis tests count as
  such): they start first, so that no worker is left with a long test at the end, and
  their hang guard is `SLOW_TIMEOUT` instead of the 120 s of the others (a CPU-bound
  test runs several times slower on a shared, loaded machine).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import is_hypothesis_test, settings

from server.adapters.web.minify_cache import CACHE_VARIABLE

# No per-example deadline: hypothesis' default (200 ms) is a wall-clock assertion, which a
# loaded machine fails (six workers and browsers on two cores) whatever the code does.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

SLOW_TIMEOUT = 600.0
"""seconds a slow test may run before pytest-timeout ends it as hung"""


def _slow(item: pytest.Item) -> bool:
    function = getattr(item, "function", None)
    return item.get_closest_marker("slow") is not None or (
        function is not None and is_hypothesis_test(function)
    )


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run on workers where ``xdist_group`` would not group: pytest 9.2 changed
    how test ids are kept, and pytest-xdist's loadgroup silently sends grouped tests to any
    worker (pytest-xdist#1386). Lift this with the pin in pyproject.toml."""
    grouping = getattr(config.option, "numprocesses", None) and (
        getattr(config.option, "dist", "no") == "loadgroup"
    )
    if grouping and pytest.version_tuple[:2] >= (9, 2):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} breaks pytest-xdist's xdist_group: install "
            "pytest<9.2 (pip install -e '.[dev]'), or run without workers (-n 0)"
        )
    _minify_once(config)


def _minify_once(config: pytest.Config) -> None:
    """Give the run one folder for the minified page (``FAMILY_WAR_MINIFY_CACHE``) unless
    it is set already: by hand, or by the main process for its xdist workers, which start
    after this and inherit the environment. The process that made the folder removes it."""
    if os.environ.get(CACHE_VARIABLE, "").strip():
        return
    folder = tempfile.mkdtemp(prefix="war-minified-")
    os.environ[CACHE_VARIABLE] = folder

    def cleanup() -> None:
        os.environ.pop(CACHE_VARIABLE, None)
        shutil.rmtree(folder, ignore_errors=True)

    config.add_cleanup(cleanup)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first (every worker collects the same order), with their own hang guard."""
    for item in items:
        if _slow(item) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
    items.sort(key=lambda item: not _slow(item))

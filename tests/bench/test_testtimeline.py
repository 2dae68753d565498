"""`bench.testtimeline`: the plugin writes a line per test with its group, and the summary
adds each worker's and each module's or group's seconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.testtimeline import VARIABLE, main, summary

pytest_plugins = ["pytester"]


def test_the_summary_adds_workers_modules_and_groups() -> None:
    rows = [
        {"w": "gw0", "id": "tests/a.py::one", "t0": 100.0, "t1": 103.0},
        {"w": "gw0", "id": "tests/a.py::two", "t0": 103.0, "t1": 104.0},
        {"w": "gw1", "id": "tests/b.py::one@browser", "t0": 100.5, "t1": 110.0},
        {"w": "gw1", "id": "tests/c.py::one@browser", "t0": 110.0, "t1": 111.0},
    ]
    found = summary([json.dumps(row) for row in rows] + [""])
    assert found.tests == 4
    assert found.span == pytest.approx(11.0)
    assert found.busy == pytest.approx(14.5)
    assert found.workers == {"gw0": (4.0, 4.0), "gw1": (10.5, 11.0)}
    assert found.units == [("@browser", 10.5, 2), ("tests/a.py", 4.0, 2)]


def test_an_empty_timeline_is_an_empty_summary() -> None:
    assert summary([]).tests == 0


def test_the_plugin_writes_a_line_per_test_with_its_group(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    timeline = tmp_path / "timeline.jsonl"
    monkeypatch.setenv(VARIABLE, str(timeline))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")  # as a worker of xdist has it
    pytester.makepyfile(
        """
        import pytest

        def test_plain():
            pass

        @pytest.mark.xdist_group("together")
        def test_grouped():
            pass
        """
    )
    result = pytester.runpytest_inprocess(
        "-p", "bench.testtimeline", "-p", "no:xdist", "-p", "no:asyncio",
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    rows = [json.loads(line) for line in timeline.read_text(encoding="utf-8").splitlines()]
    assert [row["id"].split("::")[1] for row in rows] == ["test_plain", "test_grouped@together"]
    assert all(row["w"] == "gw7" and row["t0"] <= row["t1"] for row in rows)
    assert main([str(timeline)]) == 0

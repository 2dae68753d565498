"""server.adapters.web.minify_cache: with ``FAMILY_WAR_MINIFY_CACHE`` set, the minifying child
runs once for given inputs, and again for any change to them; unset, it runs every time.

The child is the real one (tdewolff-minify), counted by a wrapper around
`server.adapters.web.compact._in_a_child`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.adapters.web import compact as _compact
from server.adapters.web.files import WebFiles
from server.adapters.web.minify_cache import CACHE_VARIABLE, cache_folder, keep

SOURCE = "const longName = 1; // a comment\nexport { longName };\n"
ITEMS = [(SOURCE, ".js"), ("a {\n  color: red;\n}\n", ".css"), ('{"a": 1}', ".json")]


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str]]]:
    """What each run of the real minifying child was given, in order."""
    if not _compact.MINIFIER.startswith("tdewolff-minify"):
        pytest.skip("tdewolff-minify is not installed here: no child runs")
    given: list[list[tuple[str, str]]] = []
    real = _compact._in_a_child

    def counted(items: list[tuple[str, str]]) -> list[str]:
        given.append(items)
        return real(items)

    monkeypatch.setattr(_compact, "_in_a_child", counted)
    return given


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    chosen = tmp_path / "minified"
    monkeypatch.setenv(CACHE_VARIABLE, str(chosen))
    return chosen


def test_the_same_inputs_are_minified_once(runs: list[list[tuple[str, str]]], folder: Path) -> None:
    first = _compact.compact_all(ITEMS)
    assert len(runs) == 1 and len(list(folder.glob("*.json"))) == 1
    assert _compact.compact_all(ITEMS) == first
    assert len(runs) == 1  # read back, not minified again
    assert "a comment" not in first[0] and first[1] == "a{color:red}" and first[2] == '{"a":1}'


def test_a_changed_file_is_minified_again(runs: list[list[tuple[str, str]]], folder: Path) -> None:
    before = _compact.compact_all(ITEMS)
    changed = [(SOURCE.replace("1", "2"), ".js"), *ITEMS[1:]]
    after = _compact.compact_all(changed)
    assert len(runs) == 2 and runs[1][0] == (".js", changed[0][0])
    assert after[0] != before[0] and after[1:] == before[1:]
    assert len(list(folder.glob("*.json"))) == 2
    assert _compact.compact_all(ITEMS) == before and len(runs) == 2  # both kept


def test_another_minifier_version_minifies_again(
    runs: list[list[tuple[str, str]]], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _compact.compact_all(ITEMS)
    monkeypatch.setattr(_compact, "MINIFIER", "tdewolff-minify 99.0.0")
    _compact.compact_all(ITEMS)
    assert len(runs) == 2


def test_a_change_to_the_minifying_code_minifies_again(
    runs: list[list[tuple[str, str]]], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a setting of the minifier (say JS_VERSION) changed in _compact.py
    _compact.compact_all(ITEMS)
    edited = (b"JS_VERSION = 2022\n", b"")
    monkeypatch.setattr(_compact, "_minifying_code", lambda: edited)
    _compact.compact_all(ITEMS)
    assert len(runs) == 2


def test_a_damaged_file_is_minified_and_written_again(
    runs: list[list[tuple[str, str]]], folder: Path
) -> None:
    good = _compact.compact_all(ITEMS)
    [kept] = folder.glob("*.json")
    for damage in (b"", b"[1, 2]", b'["only one"]', b"{not json"):
        kept.write_bytes(damage)
        assert _compact.compact_all(ITEMS) == good
    assert len(runs) == 5
    assert json.loads(kept.read_bytes()) == good[:2]  # the code's texts, whole again


def test_unset_the_child_runs_every_time(
    runs: list[list[tuple[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    assert cache_folder() is None
    _compact.compact_all(ITEMS)
    _compact.compact_all(ITEMS)
    assert len(runs) == 2


def test_two_page_loads_run_one_child_and_serve_the_same_page(
    runs: list[list[tuple[str, str]]], folder: Path
) -> None:
    first, second = WebFiles.load(), WebFiles.load()
    assert len(runs) == 1
    assert first.paths == second.paths
    assert first.page_bytes == second.page_bytes


def test_a_folder_that_cannot_be_written_serves_the_page_all_the_same(
    runs: list[list[tuple[str, str]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(CACHE_VARIABLE, str(blocked / "minified"))
    assert _compact.compact_all(ITEMS)[0] == _compact.compact_all(ITEMS)[0]
    assert len(runs) == 2
    assert "cannot keep the minified page" in capsys.readouterr().err


def test_keep_leaves_no_temporary_file(tmp_path: Path) -> None:
    keep(tmp_path, "k.json", ["a", "b"])
    assert [p.name for p in tmp_path.iterdir()] == ["k.json"]
    assert json.loads((tmp_path / "k.json").read_text()) == ["a", "b"]


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_variable_is_no_folder(value: str) -> None:
    assert cache_folder({CACHE_VARIABLE: value}) is None
    assert cache_folder({}) is None
    assert cache_folder({CACHE_VARIABLE: "/x/y"}) == Path("/x/y")

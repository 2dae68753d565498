"""The second path's merge (`protocol.paths.PathMerge`): every message once, in order,
whichever path brought it; what the second path holds ahead is bounded; the shared
vectors (tests/vectors/paths.json) are the class's answers and are current."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import CloseCode, ErrorCode, SecondPath, decode_client_message, encode
from protocol.closecodes import CLOSE_CODE_FOR_ERROR
from protocol.paths import (
    FIRST,
    MAX_AFTER,
    MOST_HELD,
    MOST_HELD_BYTES,
    SECOND,
    PathMerge,
    PathOverflowError,
)
from tests.vectors import paths as vectors

KEY = "A" * 11 + "b-_9" + "z" * 7


def _merge(**bounds: int) -> PathMerge[bytes]:
    return PathMerge(**bounds)


# --- the shared vectors ------------------------------------------------------------------
def _vectors() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(vectors.FILE.read_text(encoding="utf-8"))
    return loaded


def test_the_vectors_file_is_current() -> None:
    assert vectors.FILE.read_text(encoding="utf-8") == vectors.render(vectors.table()), (
        "tests/vectors/paths.json is stale: run make vectors"
    )


@pytest.mark.parametrize("case", _vectors()["cases"], ids=lambda case: case["about"])
def test_the_class_gives_each_vector_case(case: dict[str, Any]) -> None:
    """Played step by step from the file alone (as the JavaScript port's test does)."""
    limits = case.get("limits", _vectors()["limits"])
    merge: PathMerge[str] = PathMerge(most_messages=limits["messages"], most_bytes=limits["bytes"])
    delivered: list[str] = []
    for step in case["steps"]:
        if "attach" in step:
            merge.attach(step["attach"])
            continue
        if "detach" in step:
            merge.detach()
            continue
        assert merge.index(step["path"]) == step["index"]
        try:
            now = merge.receive(step["path"], step["message"])
        except PathOverflowError:
            assert step.get("overflow") is True
            assert not merge.attached
            now = []
        else:
            assert "overflow" not in step
        assert now == step["deliver"]
        delivered += now
    assert delivered == case["delivered"]
    assert merge.next == case["next"]


def test_the_vectors_cover_the_cases_the_port_must_meet() -> None:
    steps = [step for case in _vectors()["cases"] for step in case["steps"]]
    arrivals = [step for step in steps if "path" in step]
    assert any(step.get("overflow") for step in arrivals)
    assert any(len(step["deliver"]) > 1 for step in arrivals)  # held ones let through
    assert any(step["path"] == SECOND and step["deliver"] for step in arrivals)
    assert any(step["path"] == FIRST and not step["deliver"] for step in arrivals)
    assert any("detach" in step for step in steps)


# --- the property --------------------------------------------------------------------
@st.composite
def _two_streams(draw: st.DrawFn) -> tuple[int, int, list[int]]:
    """(count, after, order): ``count`` messages on the first path, the same from index
    ``after`` on the second, and the order in which the paths' next messages arrive."""
    count = draw(st.integers(0, 40))
    after = draw(st.integers(0, count))
    turns = [FIRST] * count + [SECOND] * (count - after)
    order = draw(st.permutations(turns))
    return count, after, list(order)


@given(_two_streams())
def test_two_streams_interleaved_give_the_list_once_in_order(
    streams: tuple[int, int, list[int]],
) -> None:
    """Any two in-order streams of one message list, arbitrarily interleaved, deliver the
    list exactly once and in order (bounds large enough to hold any lead)."""
    count, after, order = streams
    messages = [f"message {i}".encode() for i in range(count)]
    merge = _merge(most_messages=count + 1, most_bytes=1 << 20)
    merge.attach(after)
    sent = {FIRST: 0, SECOND: after}
    delivered: list[bytes] = []
    for path in order:
        delivered += merge.receive(path, messages[sent[path]])
        sent[path] += 1
    assert delivered == messages
    assert merge.held == 0


@given(_two_streams(), st.integers(1, 4), st.integers(8, 64))
def test_with_the_bounds_an_overflow_loses_nothing(
    streams: tuple[int, int, list[int]], most: int, most_bytes: int
) -> None:
    """With small bounds the second path may fall out of step (detached); the first
    connection still brings every message once, in order."""
    count, after, order = streams
    messages = [f"m{i}".encode() for i in range(count)]
    merge = _merge(most_messages=most, most_bytes=most_bytes)
    merge.attach(after)
    sent = {FIRST: 0, SECOND: after}
    delivered: list[bytes] = []
    for path in order:
        if path == SECOND and not merge.attached:
            continue
        try:
            delivered += merge.receive(path, messages[sent[path]])
        except PathOverflowError:
            assert path == SECOND
            assert not merge.attached
        sent[path] += 1
        assert merge.held <= most
    assert delivered == messages


# --- units ---------------------------------------------------------------------------------
def test_without_a_second_path_every_message_goes_straight_through() -> None:
    merge = _merge()
    assert [merge.receive(FIRST, bytes([i])) for i in range(3)] == [[b"\0"], [b"\1"], [b"\2"]]
    assert merge.next == 3
    assert merge.index(SECOND) is None
    with pytest.raises(RuntimeError):
        merge.receive(SECOND, b"x")


def test_the_bounds_are_the_documented_ones() -> None:
    merge = _merge()
    merge.attach(1)
    for _ in range(MOST_HELD):
        assert merge.receive(SECOND, b"x") == []
    assert merge.held == MOST_HELD
    with pytest.raises(PathOverflowError):
        merge.receive(SECOND, b"x")
    assert not merge.attached
    assert merge.held == 0
    big = _merge()
    big.attach(1)
    assert big.receive(SECOND, b"x" * MOST_HELD_BYTES) == []
    with pytest.raises(PathOverflowError):
        big.receive(SECOND, b"x")


def test_attach_refuses_an_after_out_of_range() -> None:
    merge = _merge()
    for after in (-1, MAX_AFTER + 1):
        with pytest.raises(ValueError, match="after"):
            merge.attach(after)
    merge.attach(MAX_AFTER)
    assert merge.index(SECOND) == MAX_AFTER


def test_a_newer_second_path_drops_what_the_older_held() -> None:
    merge = _merge()
    merge.attach(2)
    assert merge.receive(SECOND, b"c") == []
    merge.attach(3)
    assert merge.held == 0
    assert merge.receive(FIRST, b"a") == [b"a"]
    assert merge.receive(FIRST, b"b") == [b"b"]
    assert merge.receive(SECOND, b"d") == []  # index 3: held, 2 is still on the way
    assert merge.receive(FIRST, b"c") == [b"c", b"d"]


# --- the wire -------------------------------------------------------------------------------
def test_second_path_is_an_opening_message_with_its_limits() -> None:
    message = SecondPath(key=KEY, after=5)
    assert decode_client_message(encode(message)) == message
    for bad in ({"key": KEY[:-1]}, {"key": KEY + "x"}, {"key": KEY[:-1] + "="}, {"after": -1}):
        fields: dict[str, Any] = {"key": KEY, "after": 5} | bad
        with pytest.raises(ValueError, match=r"key|after"):
            encode(SecondPath(**fields))
    with pytest.raises(ValueError, match="after"):
        encode(SecondPath(key=KEY, after=MAX_AFTER + 1))


def test_a_bad_path_key_closes_as_a_refused_opening() -> None:
    assert CLOSE_CODE_FOR_ERROR[ErrorCode.BAD_PATH_KEY] is CloseCode.REFUSED
    assert int(CloseCode.SECOND_PATH_CLOSED) == 4006

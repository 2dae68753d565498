"""The Python client's pure decisions against the shared vectors (tests/vectors/functions/).

The browser table's JavaScript is checked against the same files by
tests/client/web/functions.test.mjs. The files are made by ``python -m
tests.vectors.functions`` from the Python client; the last test here fails when they are
out of date (an answer changed) or were edited by hand. The rest check that the files
hold what they promise and that the Python client still gives every answer in them.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import pytest

from client.net.policy import Ending, Policy, decide, should_reconnect
from client.state.view import ViewState, apply
from client.words.catalog import available, catalog
from client.words.countdown import Countdown, clock_text, follow, warning
from client.words.sentences import closed_because
from protocol import AutoPlay, Error, decode_server_message
from server.core.room import phases
from tests.vectors.functions import (
    FOLDER,
    decision_dict,
    intent_dict,
    press,
    render,
    tables,
    view_of,
)
from tests.vectors.samples import value_from_json, value_json

EN = catalog("en", strict=True)


def load(name: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    return value


def error_of(value: dict[str, str] | None) -> Error | None:
    return None if value is None else Error(code=value["code"], message=value["message"])


COMMAND_OF_KEY = {"space": "ready", "a": "set_auto_play", "f": "vote_finish", "r": "rematch"}
COMMAND_OF_KEY["d"] = "rematch"


# --- intents ---------------------------------------------------------------------------------
def test_the_intents_say_what_the_vectors_say() -> None:
    vector = load("intents")
    for case in vector["cases"]:
        view = view_of(vector["views"][case["view"]])
        assert intent_dict(press(view, case)) == case["out"], case


def test_the_double_tap_is_told_not_resent() -> None:
    """A second tap before the server answered the first sends nothing and says what the
    tap after the server's answer says: both clients, from the same vector."""
    vector = load("intents")
    cases = {(c["view"], c["press"], c.get("sent")): c["out"] for c in vector["cases"]}
    ready = {"say": {"key": "keys.ready_already", "values": {}}}
    assert cases["seat 0, my turn", "space", None] == {"send": {"type": "ready", "step": 3}}
    assert cases["seat 0, my turn", "space", 3] == ready
    assert cases["seat 0, my turn", "space", 2] == {"send": {"type": "ready", "step": 3}}
    assert cases["seat 0, my turn, the ready confirmed", "space", None] == ready


def test_an_intent_sent_is_one_the_server_accepts_in_that_phase() -> None:
    """Every message the vectors send is accepted by the room core's own phase table for
    that sender in that phase; every phase refusal the table makes is met by a sentence."""
    vector = load("intents")
    for case in vector["cases"]:
        view = view_of(vector["views"][case["view"]])
        who = phases.Who.SPECTATOR if view.me is None else phases.Who.SEAT
        stage = phases.Stage(view.phase.value)
        command = COMMAND_OF_KEY[case["press"].split(" ")[0]]
        verdict = phases.TABLE[command, stage, who]
        if "send" in case["out"]:
            assert case["out"]["send"]["type"] == command
            assert verdict is None, case
        elif verdict is not None:
            assert "say" in case["out"], case


def test_the_intents_cover_every_key_phase_and_sender() -> None:
    vector = load("intents")
    presses = {c["press"] for c in vector["cases"]}
    assert presses >= {"space", "a", "f", "r", "d"} | {f"a {mode.value}" for mode in AutoPlay}
    sent = {c["out"]["send"]["type"] for c in vector["cases"] if "send" in c["out"]}
    assert sent == {"ready", "set_auto_play", "vote_finish", "rematch"}
    seen = set()
    for frames in vector["views"].values():
        view = view_of(frames)
        seen.add((view.phase, view.me is None))
    assert len(seen) == 6  # three phases, a seat and a spectator in each


# --- the reconnect policy and the close reasons ----------------------------------------------
def ending_of(vector: dict[str, Any], case: dict[str, Any]) -> Ending:
    fields = {"url": vector["url"], **case["ending"]}
    fields["error"] = error_of(fields.get("error"))
    return Ending(**fields)


def test_the_policy_decides_what_the_vectors_say() -> None:
    vector = load("reconnect")
    assert vector["policy"] == dataclasses.asdict(Policy())
    for case in vector["cases"]:
        policy = Policy(**case.get("policy", {}))
        decision = decide(ending_of(vector, case), policy, case["jitter"])
        assert decision_dict(decision) == case["decision"], case


def test_the_reconnect_vectors_cover_every_decision() -> None:
    cases = load("reconnect")["cases"]
    kinds = {(c["decision"]["kind"], c["decision"].get("reopen")) for c in cases}
    assert kinds == {
        ("stop", None),
        ("join_anew", None),
        ("retry", "resume"),
        ("retry", "watch"),
        ("retry", "first"),
    }
    said = [
        value_from_json(c["decision"].get("reason", c["decision"].get("notice"))) for c in cases
    ]
    reasons = " ".join(EN.word(reason) for reason in said)
    for words in ("gave up reconnecting", "cannot connect to", "cannot reach the server"):
        assert words in reasons
    assert "the server still cannot save games" in reasons


def test_the_close_reasons_are_what_the_vectors_say() -> None:
    for case in load("close-reasons")["cases"]:
        reason = closed_because(case["code"], error_of(case["error"]))
        assert value_json(reason) == case["reason"], case
        assert should_reconnect(case["code"]) is case["reconnect"], case


# --- the countdown ---------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(len(load("countdown")["scripts"])))
def test_the_countdown_counts_what_the_vectors_say(index: int) -> None:
    script = load("countdown")["scripts"][index]
    view, timer = ViewState(), Countdown()
    for step in script["steps"]:
        at = step["at"]
        if "frame" in step:
            message = decode_server_message(base64.b64decode(step["frame"]))
            before, view = view, apply(view, message)
            timer = follow(timer, before, message, view, at)
        else:
            timer, line = warning(timer, at)
            assert (None if line is None else value_json(line)) == step["line"], step
        assert dataclasses.asdict(timer) == step["countdown"], (script["about"], step)
        assert timer.left(at) == step["left"], (script["about"], step)


def test_the_clock_texts() -> None:
    for seconds, text in load("countdown")["clock_text"]:
        assert clock_text(seconds) == text


def test_the_countdown_vectors_say_the_lines() -> None:
    said = [s.get("line") for c in load("countdown")["scripts"] for s in c["steps"]]
    lines = {EN.word(value_from_json(line)) for line in said if line is not None}
    assert {"One minute left.", "Less than a minute left: 0:55."} <= lines


# --- the catalogs ----------------------------------------------------------------------------
@pytest.mark.parametrize("tag", available())
def test_the_catalog_says_what_the_format_vectors_say(tag: str) -> None:
    vector = load(f"format-{tag}")
    words = catalog(tag, strict=True)
    assert vector["language"] == tag and len(vector["cases"]) > 1000
    for case in vector["cases"]:
        values = {name: value_from_json(value) for name, value in case["values"].items()}
        assert words.text(case["key"], **values) == case["text"], case


# --- the files are current -------------------------------------------------------------------
def test_the_function_vectors_are_current() -> None:
    made = {name: render(table) for name, table in tables().items()}
    stored = {path.stem: path.read_text(encoding="utf-8") for path in FOLDER.glob("*.json")}
    assert sorted(stored) == sorted(made), "run: python -m tests.vectors.functions"
    for name, text in made.items():
        assert stored[name] == text, f"{name}.json is stale: run python -m tests.vectors.functions"


def test_the_fair_checks_say_every_check_message_and_the_python_client_says_them() -> None:
    """tests/vectors/functions/fair-checks.json: every message of the catalogs' ``check``
    section is said by some case, as `client.fair.words.check_said` says it."""
    from client.fair.words import check_said  # noqa: PLC0415 - this test alone
    from protocol.fairness import Finding  # noqa: PLC0415
    from server.engine.check import Mismatch  # noqa: PLC0415

    vector = load("fair-checks")
    keys = {case["said"]["key"] for case in vector["cases"]}
    assert keys == {f"check.{name}" for name in EN.data["messages"]["check"]}
    for case in vector["cases"]:
        data = dict(case["found"])
        found = Finding(data.pop("code"), data) if "code" in data else Mismatch(**data)
        said_ = check_said(found, vector["names"])
        assert value_json(said_) == case["said"], case
        for tag in available():
            assert catalog(tag, strict=True).say(said_) == case["text"][tag], (tag, case)

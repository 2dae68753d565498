"""The Python client against the shared sentence vectors (tests/vectors/, one set of words).

The browser table's JavaScript is checked against the same files by
tests/client/web/vectors.test.mjs. The files are made by ``python -m tests.vectors.generate``
from games the room core plays; the last test here fails when they are out of date (a
sentence changed, a scene changed) or were edited by hand.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from client.sentences import describe, status, votes_sentence
from client.view import ViewState, apply
from protocol import decode_server_message
from tests.vectors.generate import FOLDER, digest, render, scenes

FILES = sorted(FOLDER.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def test_the_vectors_cover_what_they_promise() -> None:
    kinds: set[str] = set()
    said: list[str] = []
    seats: set[int | None] = set()
    touch: set[str] = set()
    players: set[int] = set()
    for path in FILES:
        for viewpoint in load(path)["viewpoints"]:
            seats.add(viewpoint["seat"])
            for step in viewpoint["steps"]:
                kinds.add(step["type"])
                said += step["say"]
                touch.add(step.get("touch", step["status"]))
                if "seats" in step["view"]:
                    players.add(len(step["view"]["seats"]))
    assert players == {2, 3, 4}
    assert {0, 1, None} <= seats
    assert kinds >= {
        "welcome", "snapshot", "error", "player_joined", "player_left", "connection_changed",
        "ready_changed", "waiting_for", "auto_play_changed", "finish_voted", "rematch_voted",
        "spectators_changed", "game_started", "time_up", "cards_turned", "cards_laid_down",
        "war_declared", "cards_taken", "cards_returned", "player_out", "game_over",
    }  # fmt: skip
    assert not any("Press" in line for line in touch), "a touch screen is never told keys"
    assert {"Tap Turn over.", "Game over. Tap a rematch button to play again."} <= touch
    assert any(line.startswith("War! Tap Turn over to lay") for line in touch)
    assert any("Tap off under Auto-play" in line for line in touch)
    text = "\n".join(said)
    for words in (
        "Double war!",
        "sits this one out",
        "too few cards to finish the war",
        "only 2 face down",
        "stands again",
        "the limit of 12 rounds",
        "Time is up: the game ends once this war is settled.",
        "Game over: time is up.",
        "to finish the game.",
        "asks for this deal again",
        "The votes were split between a new deal and this deal again: a new deal won.",
        "Rematch: game 2 begins",
        "The computer plays for Ben from now on.",
        "Still to vote:",
        "The computer's",
        "It takes",
        "Rules: Aces are high.",
        "Ben leaves the table.",
        "The game waits for Ben, away for now.",
        "Ben is back.",
        "Some messages went missing",
        "The server says:",
        "1 person is watching.",
        "each takes their own cards back",
        "would never end",
    ):
        assert words in text, words


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_python_client_says_what_the_vectors_say(path: Path) -> None:
    for viewpoint in load(path)["viewpoints"]:
        me = viewpoint["seat"]
        view = ViewState()
        shown: dict[str, Any] = {}
        for index, step in enumerate(viewpoint["steps"]):
            where = f"{path.stem} {viewpoint['who']} step {index} ({step['type']})"
            message = decode_server_message(base64.b64decode(step["frame"]))
            assert step["type"] == message.TYPE, where
            before, view = view, apply(view, message)
            said = list(describe(before, message, view, me))
            assert said == step["say"], where
            assert list(describe(before, message, view, me, table=True)) == step.get("table", said)
            assert status(view, me) == step["status"], where
            assert status(view, me, touch=True) == step.get("touch", step["status"]), where
            assert votes_sentence(view, me) == step.get("votes"), where
            shown.update(step["view"])
            assert digest(view) == shown, where


def test_the_vectors_are_current() -> None:
    made = {vector["name"]: render(vector) for vector in scenes()}
    stored = {path.stem: path.read_text(encoding="utf-8") for path in FILES}
    assert sorted(stored) == sorted(made), "run: python -m tests.vectors.generate"
    for name, text in made.items():
        assert stored[name] == text, f"{name}.json is stale: run python -m tests.vectors.generate"

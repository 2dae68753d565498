"""The Python client against the shared sentence vectors (tests/vectors/), in every language.

The browser table's JavaScript is checked against the same files by
tests/client/web/vectors.test.mjs. The files are made by ``python -m tests.vectors.generate``
from games the room core plays (the scenes, tests/vectors/*.json) and what each viewpoint
is told in each language (tests/vectors/words/<language>/*.json); the last test here fails
when they are out of date (a sentence or a translation changed, a scene changed) or were
edited by hand.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from client.state.view import ViewState, apply
from client.words.catalog import available, catalog
from client.words.sentences import describe, describe_table, rules_sentence, status, votes_sentence
from client.words.talk import evening_lines, evening_score
from protocol import decode_server_message
from tests.vectors.generate import FOLDER, WORDS, digest, scene_files, written

FILES = scene_files()
LANGUAGES = available()


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
        english = load(WORDS / "en" / path.name)["viewpoints"]
        for viewpoint, words in zip(load(path)["viewpoints"], english, strict=True):
            seats.add(viewpoint["seat"])
            for step, line in zip(viewpoint["steps"], words["steps"], strict=True):
                kinds.add(step["type"])
                said += line["say"]
                touch.add(line.get("touch", line["status"]))
                if step["view"].get("seats"):  # (none before an asker's welcome)
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
        "Someone wants to take Ben's seat from another device — let them?",
        "Someone asks to take Ben's seat from another device.",
        "The device it was on can take it back within 10 minutes.",
    ):
        assert words in text, words
    # a player who comes in while a request is open is asked: a welcome says it
    welcomes = [
        line["say"]
        for viewpoint, words in _scene_and_words("seat-request.json")
        for step, line in zip(viewpoint["steps"], words["steps"], strict=True)
        if step["type"] == "welcome"
    ]
    assert any(said[-1].endswith("let them?") for said in welcomes)
    assert any(said[-1].startswith("Someone asks to take") for said in welcomes)


def _scene_and_words(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    scene = load(FOLDER / name)["viewpoints"]
    return list(zip(scene, load(WORDS / "en" / name)["viewpoints"], strict=True))


def test_every_scene_is_told_in_every_language() -> None:
    for tag in LANGUAGES:
        told = sorted(path.name for path in (WORDS / tag).glob("*.json"))
        assert told == [path.name for path in FILES], tag
    assert sorted(path.name for path in WORDS.iterdir()) == sorted(LANGUAGES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_python_client_follows_the_scenes(path: Path) -> None:
    for viewpoint in load(path)["viewpoints"]:
        view = ViewState()
        shown: dict[str, Any] = {}
        for index, step in enumerate(viewpoint["steps"]):
            where = f"{path.stem} {viewpoint['who']} step {index} ({step['type']})"
            message = decode_server_message(base64.b64decode(step["frame"]))
            assert step["type"] == message.TYPE, where
            view = apply(view, message)
            shown.update(step["view"])
            assert digest(view) == shown, where


@pytest.mark.parametrize("tag", LANGUAGES)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_python_client_says_what_the_vectors_say(path: Path, tag: str) -> None:
    words = catalog(tag, strict=True)
    scene = load(path)["viewpoints"]
    for viewpoint, told in zip(scene, load(WORDS / tag / path.name)["viewpoints"], strict=True):
        me = viewpoint["seat"]
        view = ViewState()
        rules = evening = None
        for index, (step, line) in enumerate(zip(viewpoint["steps"], told["steps"], strict=True)):
            where = f"{tag} {path.stem} {viewpoint['who']} step {index} ({step['type']})"
            message = decode_server_message(base64.b64decode(step["frame"]))
            before, view = view, apply(view, message)
            said = list(describe(before, message, view, me, words=words))
            assert said == line["say"], where
            table = list(describe_table(before, message, view, me, words=words))
            assert table == line.get("table", said), where
            assert status(view, me, words=words) == line["status"], where
            touch = status(view, me, words=words, touch=True)
            assert touch == line.get("touch", line["status"]), where
            assert votes_sentence(view, me, words=words) == line.get("votes"), where
            rules = line.get("rules", rules)
            assert rules_sentence(view.rules, view.minutes, words=words) == rules, where
            evening = line.get("evening", evening)
            score = [evening_score(view.evening, words=words, view=view)]
            lines = evening_lines(view.evening, words=words, view=view)
            assert [*score, *lines] == evening, where


def test_the_vectors_are_current() -> None:
    made = written()
    stored = {path: path.read_text(encoding="utf-8") for path in FILES}
    stored |= {path: path.read_text(encoding="utf-8") for path in WORDS.glob("*/*.json")}
    assert sorted(stored) == sorted(made), "run: python -m tests.vectors.generate"
    for path, text in made.items():
        assert stored[path] == text, f"{path} is stale: run python -m tests.vectors.generate"

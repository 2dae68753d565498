"""A server stand-in that tampers with a fair deal: each change is caught by both clients.

An honest game is played by the room core (two players, both committed); its messages, as
Ann's connection received them, are then changed in one place each — one card of one flip,
one seat's revealed seed, the deal commitment shown from the start, the server's revealed
seed — and fed to war-client's check (`client.fair.watch.FairWatch`) and to the page's
(`client/web/js/fair.js`, in node). The honest stream passes both; every tampered one fails
both, saying what did not match — in the viewer's language, with no English left but the
names (war-client in German, the page in Polish). The record the page saves holds the
last game alone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from client.fair.watch import FairVerdict, FairWatch, verdict_line
from client.lines import LineRenderer, Streams
from client.net.connection import Received
from client.state.view import ViewState, apply
from client.words.catalog import catalog, said
from client.words.language import Viewer
from protocol import (
    CardsTaken,
    CardsTurned,
    CreateRoom,
    Fairness,
    GameOver,
    GameStarted,
    JoinRoom,
    Ready,
    RulesSpec,
    ServerMessage,
    Snapshot,
    Welcome,
    encode,
)
from protocol.fairness import commitment
from protocol.record import read_record
from tests.client._fake import TIMEOUT, FakeLink
from tests.e2e._english import english_left
from tests.server.core._roomkit import RoomKit

NODE = shutil.which("node")
DRIVER = Path(__file__).parent / "web" / "_fair_driver.mjs"
ANN, BEN = bytes([7]) * 32, bytes([9]) * 32
OTHER = bytes([5]) * 32

Tamper = Callable[[ServerMessage], ServerMessage]


def honest_game() -> list[ServerMessage]:
    """Ann's messages of a whole game with a fair deal (round limit 40: short)."""
    kit = RoomKit(seed=3)
    ann, ben = kit.connect(), kit.connect()
    rules = RulesSpec(players=2, round_limit=40)
    kit.send(ann, CreateRoom(name="Ann", rules=rules, seed_commitment=commitment(ANN)))
    code = ann.welcome.player_code
    assert code is not None
    kit.send(ben, JoinRoom(code=code, name="Ben", seed_commitment=commitment(BEN)))
    kit.send(ann, Ready(step=0, seed=ANN.hex()))
    kit.send(ben, Ready(step=0, seed=BEN.hex()))
    kit.play_round_robin([ann, ben])
    assert isinstance(ann.inbox[-2], GameOver) or any(isinstance(m, GameOver) for m in ann.inbox)
    return list(ann.inbox)


def _one_card(message: ServerMessage) -> ServerMessage:
    if isinstance(message, CardsTurned) and message.step == 5:
        (seat, card), *rest = message.cards
        changed = "2C" if card != "2C" else "3C"
        return dataclasses.replace(message, cards=((seat, changed), *rest))
    return message


def _reveal(change: Callable[[Fairness], Fairness]) -> Tamper:
    def tamper(message: ServerMessage) -> ServerMessage:
        if isinstance(message, GameOver) and message.fairness is not None:
            return dataclasses.replace(message, fairness=change(message.fairness))
        return message

    return tamper


def _commitment(message: ServerMessage) -> ServerMessage:
    other = commitment(OTHER)
    if isinstance(message, GameStarted):
        return dataclasses.replace(message, deal_commitment=other)
    if isinstance(message, Welcome | Snapshot):
        state = dataclasses.replace(message.state, deal_commitment=other)
        return dataclasses.replace(message, state=state)
    return message


def _one_take(message: ServerMessage) -> ServerMessage:
    if isinstance(message, CardsTaken) and message.step == 5:
        return dataclasses.replace(message, seat=1 - message.seat)
    return message


def _the_winner(message: ServerMessage) -> ServerMessage:
    if isinstance(message, GameOver) and message.winner is not None:
        return dataclasses.replace(message, winner=1 - message.winner)
    return message


TAMPERED: dict[str, Tamper] = {
    "one card": _one_card,
    "one take": _one_take,
    "the winner": _the_winner,
    "a seat's seed hidden": _reveal(lambda f: dataclasses.replace(f, seeds=(f.seeds[0], None))),
    "one seat's seed": _reveal(lambda f: dataclasses.replace(f, seeds=(f.seeds[0], OTHER.hex()))),
    "the commitment": _commitment,
    "the revealed server seed": _reveal(lambda f: dataclasses.replace(f, server_seed=OTHER.hex())),
}
PROBLEMS = {
    "one card": "the card shown for Ann is",
    "one take": "was shown taking",
    "the winner": "is not the deal's: another winner",
    "a seat's seed hidden": "Ben committed to a seed, but none was used",
    "one seat's seed": "the seed revealed for Ben does not match",
    "the commitment": "does not match the deal commitment",
    "the revealed server seed": "does not match the deal commitment",
}
NAMES = ["Ann", "Ben"]


def python_check(messages: list[ServerMessage]) -> FairVerdict:
    watch = FairWatch()
    found = None
    view = ViewState()
    for message in messages:
        view = apply(view, message)
        found = watch.follow(message, ANN, [seat.name for seat in view.seats]) or found
    assert found is not None
    return found


def page_checks(
    streams: Sequence[Sequence[ServerMessage | str]], lang: str = "en"
) -> list[dict[str, object]]:
    """What the page's check says of each stream (a ``"connect"`` in one: the page opened
    a new connection there; the first is opened before the stream)."""
    assert NODE is not None
    batch = [
        {
            "frames": [m if isinstance(m, str) else encode(m).hex() for m in s],
            "seed": ANN.hex(),
            "game": 1,
            "lang": lang,
        }
        for s in streams
    ]
    done = subprocess.run(
        [NODE, str(DRIVER)],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results: list[dict[str, object]] = json.loads(done.stdout)
    return results


@pytest.fixture(scope="module")
def honest() -> list[ServerMessage]:
    return honest_game()


def test_the_honest_game_is_checked_by_both_clients(honest: list[ServerMessage]) -> None:
    verdict = python_check(honest)
    assert verdict.ok, verdict
    proved = [catalog("en", strict=True).say(item) for item in verdict.proved]
    assert "this client's seed (Ann) is in the deal" in proved
    if NODE is not None:
        (page,) = page_checks([honest])
        assert page["ok"] is True, page


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_page_saves_the_record_of_the_last_game_alone(honest: list[ServerMessage]) -> None:
    """A rematch starts a new record: the last welcome (the rules, the seat), then the
    game; the games before it are not kept (an evening of rematches would grow it)."""
    start = next(i for i, m in enumerate(honest) if isinstance(m, GameStarted))
    assert isinstance(honest[0], Welcome)
    last = max(getattr(m, "seq", 0) for m in honest)
    first = honest[start]
    assert isinstance(first, GameStarted)
    shift = last - first.seq + 1  # the same game once more, as the room's next messages
    again: list[ServerMessage] = [
        dataclasses.replace(m, seq=getattr(m, "seq", 0) + shift)  # type: ignore[arg-type]
        for m in honest[start:]
    ]
    (page,) = page_checks([honest + again])
    assert page["ok"] is True, page
    lines = str(page["record"]).splitlines()
    assert len(lines) == 1 + len(honest) - start
    assert [json.loads(line)["type"] for line in lines[:2]] == ["welcome", "game_started"]
    (game,) = read_record(lines)
    assert game.end is not None and game.server_seed is not None


@pytest.mark.parametrize("what", sorted(TAMPERED))
def test_a_tampering_server_is_caught_by_war_client(honest: list[ServerMessage], what: str) -> None:
    verdict = python_check([TAMPERED[what](m) for m in honest])
    assert verdict.ok is False, verdict
    assert verdict.problem is not None, verdict
    assert PROBLEMS[what] in catalog("en", strict=True).say(verdict.problem), verdict


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_a_tampering_server_is_caught_by_the_page(honest: list[ServerMessage]) -> None:
    names = sorted(TAMPERED)
    results = page_checks([[TAMPERED[what](m) for m in honest] for what in names])
    for what, page in zip(names, results, strict=True):
        assert page["ok"] is False, (what, page)
        assert PROBLEMS[what] in str(page["problem"]), (what, page)


@pytest.mark.parametrize("what", sorted(TAMPERED))
def test_war_client_in_german_says_what_failed_with_no_english_but_names(
    honest: list[ServerMessage], what: str
) -> None:
    """What --plain prints (and the TUI's fair line shows) with ``--lang de``."""
    verdict = python_check([TAMPERED[what](m) for m in honest])
    german = catalog("de", strict=True)
    line = german.say(verdict_line(verdict))
    assert line.startswith("Faire Mischung: FEHLGESCHLAGEN — "), line
    said = [line, *(german.say(item) for item in verdict.proved)]
    assert not [text for text in said if english_left(text, NAMES)], said


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_the_page_in_polish_says_what_failed_with_no_english_but_names(
    honest: list[ServerMessage],
) -> None:
    names = sorted(TAMPERED)
    results = page_checks([[TAMPERED[what](m) for m in honest] for what in names], "pl")
    for what, page in zip(names, results, strict=True):
        assert page["ok"] is False, (what, page)
        said = [str(page["problem"]), *(str(item) for item in page["proved"])]  # type: ignore[attr-defined]
        assert not [text for text in said if english_left(text, NAMES)], (what, said)


@pytest.mark.parametrize("what", ["one card", "one seat's seed", "the winner"])
async def test_war_client_plain_with_lang_de_prints_the_failed_check_in_german(
    honest: list[ServerMessage], what: str
) -> None:
    """``war-client --plain --lang de`` at a table whose server tampered with the game: the
    check's line, and every other line, has no English but the names."""
    link, watch, view = FakeLink(), FairWatch(), ViewState()
    for message in (TAMPERED[what](m) for m in honest):
        before, view = view, apply(view, message)
        fair = watch.follow(message, ANN, [seat.name for seat in view.seats])
        no_seed = tuple(watch.no_seed())
        link.event(Received(message, before, view, fair, watch.fingerprint, no_seed))
    out, err = io.StringIO(), io.StringIO()
    viewer = Viewer(catalog("de", strict=True))
    renderer = LineRenderer(link, Streams(out, err), json_lines=False, viewer=viewer)
    assert await asyncio.wait_for(renderer.run(), TIMEOUT) == 0, err.getvalue()
    failed = [line for line in out.getvalue().splitlines() if "FEHLGESCHLAGEN" in line]
    assert len(failed) == 1 and failed[0].startswith("Faire Mischung: FEHLGESCHLAGEN — ")
    assert english_left(out.getvalue(), NAMES) == [], out.getvalue()


def test_a_game_shown_with_two_commitments_is_said_so(honest: list[ServerMessage]) -> None:
    """A server that shows a reconnecting client another commitment than at the start."""
    over = next(i for i, m in enumerate(honest) if isinstance(m, GameOver))
    snapshot = next(m for m in reversed(honest[:over]) if isinstance(m, Snapshot | Welcome))
    other = dataclasses.replace(snapshot.state, deal_commitment=commitment(OTHER), step=1)
    again = dataclasses.replace(snapshot, state=other)
    verdict = python_check([*honest[:over], again, *honest[over:]])
    assert verdict.ok is False
    assert verdict.problem == said("check.commitment_changed")
    assert "Verpflichtungen" in catalog("de", strict=True).say(verdict_line(verdict))

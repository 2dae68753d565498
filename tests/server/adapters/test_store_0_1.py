"""Games stored by version 0.1 replay to the same steps with today's code.

``stored_0_1/store.sqlite3`` is a store written by 0.1's own server code, and
``stored_0_1/expected.json`` what each of its rooms sent at the table then (both made by
``stored_0_1/make.py`` running 0.1). Two rules changed since (fixed returns start from the
winner; everyone short in a war with someone else still in no longer ends a 3–4 player
game): opening the store migrates it (schema 5) so that every stored room keeps the rules
it was played by, and each room, rebuilt as a restart rebuilds it, replays every step it
had played to the same events.

One reported figure changed on purpose (issue 11): a game's summary counts only the rounds
somebody took, so a ``both_short`` end no longer counts its unsettled round's war. For the
games recorded to their end, the expected summary is worked out from the recorded events
themselves (rounds taken, the rounds of those that went to war, their deepest war, the
biggest haul), and every other field must be exactly as 0.1 sent it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol import encode
from server import engine
from server.adapters.store.schema import SCHEMA_VERSION
from server.adapters.store.sqlite import SqliteStore
from server.core.hub.hub import Hub
from server.core.room.wire import event_message, game_over_message
from server.core.settings import HubSettings

FIXTURE = Path(__file__).parent / "stored_0_1"
OLD_RULES = {"fixed_order": "seat0", "both_short": "end"}


def _rooms() -> list[dict[str, Any]]:
    rooms: list[dict[str, Any]] = json.loads(
        (FIXTURE / "expected.json").read_text(encoding="utf-8")
    )["rooms"]
    return rooms


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    path = tmp_path / "store.sqlite3"
    shutil.copyfile(FIXTURE / "store.sqlite3", path)
    return SqliteStore(path)


def _wire(message: object) -> dict[str, Any]:
    data: dict[str, Any] = msgpack.unpackb(encode(message))  # type: ignore[arg-type]
    del data["seq"]
    data.pop("evening", None)  # the room's evening, not the game's
    if data.get("fairness", "") is None:
        del data["fairness"]  # added since 0.1 (a chosen deal's game_over carries none)
    return data


def replay(rules: engine.Rules, room: dict[str, Any]) -> list[dict[str, Any]]:
    """The game events of ``room``'s game under ``rules``, as its table got them."""
    game = engine.Game(rules, room["deal"])
    events = []
    for _ in range(room["stepped"]):
        events += [_wire(event_message(event, game, 0)) for event in game.step()]
    if room["finished"]:
        game.finish()
        events.append(_wire(game_over_message(game, 0)))
    for event in events:  # 0.1's game_over had no standings (0.3 added them)
        event.pop("standings", None)
    return events


def figures(events: list[dict[str, Any]], deal: int) -> dict[str, int]:
    """A summary worked out from a game's events: only the rounds somebody took count."""
    taken = {e["round"]: e["count"] for e in events if e["type"] == "cards_taken"}
    depths: dict[int, int] = {}
    for e in events:
        if e["type"] == "war_declared" and e["round"] in taken:
            depths[e["round"]] = max(depths.get(e["round"], 0), e["depth"])
    return {
        "rounds": len(taken),
        "wars": len(depths),
        "longest_war": max(depths.values(), default=0),
        "biggest_haul": max(taken.values(), default=0),
        "deal": deal,
    }


def expected_today(room: dict[str, Any]) -> list[dict[str, Any]]:
    """What 0.1 sent, with a both_short end's summary as it is counted today."""
    events = [dict(e) for e in room["events"]]
    if events and events[-1]["type"] == "game_over" and not room["finished"]:
        events[-1]["summary"] = figures(events, room["deal"])
    return events


def test_the_0_1_store_is_migrated_and_every_room_keeps_its_rules(store: SqliteStore) -> None:
    records = {record.room_id: record for record in store.load_all()}
    store.close()
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()
    assert set(records) == {room["room"] for room in _rooms()}
    for room in _rooms():
        rules = records[room["room"]].rules
        assert rules == engine.Rules.from_dict({**room["rules"], **OLD_RULES}), room["label"]


def test_every_stored_room_replays_to_the_steps_it_played(store: SqliteStore) -> None:
    hub = Hub(store.load_all(), HubSettings(), now=2_000_000.0)  # as a restart rebuilds them
    try:
        for room in _rooms():
            rebuilt = hub.room(room["room"])
            assert rebuilt is not None, room["label"]
            assert rebuilt.phase.value == room["phase"], room["label"]
            assert rebuilt.game.steps == room["steps"], room["label"]
            assert replay(rebuilt.rules, room) == expected_today(room), room["label"]
            if room["events"]:
                last = room["events"][-1]
                assert rebuilt.game.counts == tuple(last["counts"]), room["label"]
    finally:
        store.close()


def test_the_both_short_ends_are_the_only_summaries_counted_anew() -> None:
    """The adjustment above touches exactly the recorded both_short ends, and only their
    war figures: 0.1 counted the unsettled round's war, today does not."""
    for room in _rooms():
        events = room["events"]
        if not events or events[-1]["type"] != "game_over" or room["finished"]:
            continue
        old, new = events[-1]["summary"], figures(events, room["deal"])
        if events[-1]["termination"] == "both_short":
            assert new["wars"] == old["wars"] - 1, room["label"]
            assert {k: v for k, v in new.items() if k not in ("wars", "longest_war")} == {
                k: v for k, v in old.items() if k not in ("wars", "longest_war")
            }
        else:
            assert new == old, room["label"]


def test_without_the_migration_today_s_rules_would_change_these_games() -> None:
    """The test can fail: replayed by today's defaults, the stored games go otherwise."""
    changed = set()
    for room in _rooms():
        today = engine.Rules.from_dict(room["rules"])
        assert (today.fixed_order, today.both_short) == (
            engine.FixedOrder.WINNER,
            engine.BothShort.PLAY_ON,
        )
        if replay(today, room) != expected_today(room):
            changed.add(room["label"])
    assert changed == {
        "fixed-two",
        "fixed-three-finished",
        "four-players-1684",
        "three-players-short",
    }

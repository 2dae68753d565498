"""Rooms stored by 0.2 keep the rule they were played by: cards taken back from a war
nobody could settle went under in the order laid (``taken_back = as_laid``).

0.2 wrote every rule setting of its day into a room's rules JSON, and ``taken_back`` came
later: the store reads a room without the key through ``Rules.from_dict``, which gives it
the value of the games stored before it existed (docs/rules.md, "Changing a rule"). No
migration is needed, and a room created today is stored with ``as_won``.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

from server import engine
from server.adapters.store import SqliteStore
from server.core.records import GameRecord, RoomRecord, SeatRecord

RULES_0_2 = {
    "players": 4,
    "face_down": 3,
    "aces": "high",
    "short_war": "lose",
    "both_short": "play_on",
    "won_cards": "shuffle",
    "fixed_order": "winner",
    "round_limit": None,
    "tie_break": "draw",
    "ranks": 13,
    "suits": 4,
}
"""What 0.2's ``Rules.to_dict()`` wrote for four players, three cards down."""


def _room(room_id: str, rules: engine.Rules) -> RoomRecord:
    return RoomRecord(
        room_id=room_id,
        player_code=f"P{room_id}",
        watch_code=f"W{room_id}",
        rules=rules,
        minutes=None,
        seats=tuple(SeatRecord(name, None) for name in ("Ann", "Ben", "Cat", "Dan")),
        game=GameRecord(number=1, deal=290, revealed=False, started=True, steps=40),
        created=1.0,
        last_active=2.0,
        seq=5,
    )


def test_a_room_stored_by_0_2_takes_cards_back_as_laid(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = SqliteStore(path)
    store.save_room(_room("old", engine.Rules(players=4, face_down=3)), before=None)
    store.save_room(_room("new", engine.Rules(players=4, face_down=3)), before=None)
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE rooms SET rules = ? WHERE room_id = 'old'", (json.dumps(RULES_0_2),))
    db.commit()
    db.close()
    reopened = SqliteStore(path)
    rooms = {room.room_id: room for room in reopened.load_all()}
    reopened.close()
    assert rooms["old"].rules == engine.Rules(
        players=4, face_down=3, taken_back=engine.TakenBack.AS_LAID
    )
    assert rooms["new"].rules.taken_back is engine.TakenBack.AS_WON
    assert (
        dataclasses.replace(
            rooms["old"],
            rules=rooms["new"].rules,
            room_id="new",
            player_code="Pnew",
            watch_code="Wnew",
        )
        == rooms["new"]
    )


def test_today_s_rooms_are_stored_with_the_setting(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = SqliteStore(path)
    store.save_room(_room("r", engine.Rules(players=3)), before=None)
    store.close()
    db = sqlite3.connect(path)
    (text,) = db.execute("SELECT rules FROM rooms").fetchone()
    db.close()
    assert json.loads(text)["taken_back"] == "as_won"

"""Write ``store.sqlite3`` and ``expected.json`` here with the code of schema 8.

A store written by the room core of schema 8 (talk, the evening and fair deals stored; the
tokens of a device whose seat was taken over kept in memory only), with a room whose seat
was taken over on another device, one that talked and played under a fair deal, and one
with an evening: `test_store_schema_8.py` opens it with today's code (which migrates it
to schema 9) and checks that every room comes back as it was and its people play on.

This script must run against that code, not today's: check out commit b8321ea (the last
of schema 8) and put it first on the path::

    git archive b8321ea | tar -x -C /tmp/war-schema-8
    PYTHONPATH=/tmp/war-schema-8 .venv/bin/python tests/server/adapters/stored_schema_8/make.py

It drives that code's own room core (``server.core.hub.hub.Hub`` over
``server.adapters.store.sqlite.SqliteStore``, on the fake clock of its
``tests/server/core/_roomkit.RoomKit``). Its modules are imported by name, so this file
type-checks without them.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ANN_SEED = bytes(range(32))


def _old(name: str) -> Any:
    return importlib.import_module(name)


def main() -> int:
    schema = _old("server.adapters.store.schema")
    if schema.SCHEMA_VERSION != 8:
        sys.exit("run this with the code of schema 8 first on the path (see the docstring)")
    protocol = _old("protocol")
    requests = _old("protocol.seat_requests")
    hub_module = _old("server.core.hub.hub")
    kit_module = _old("tests.server.core._roomkit")
    store_module = _old("server.adapters.store.sqlite")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite3"
        kit = kit_module.RoomKit(
            hub_module.HubSettings(max_rooms_per_ip=100),
            store=store_module.SqliteStore(path),
        )
        rooms: list[dict[str, Any]] = []

        def note(label: str, peers: list[Any], **more: Any) -> None:
            room = kit.room(peers[0])
            rooms.append(
                {
                    "label": label,
                    "room": room.room_id,
                    "stage": room.stage.value,
                    "steps": room.game.steps,
                    "seq": room.seq,
                    "talk": [line.text or line.reaction for line in room.talk],
                    "evening": [entry.game for entry in room.evening],
                    "commitment": room.state(kit.now).deal_commitment,
                    "tokens": [peer.welcome.token for peer in peers],
                    **more,
                }
            )
            kit.now += 60.0

        # a seat taken over: Ben's phone locked, a new device asked by name, Ann allowed it
        ann, ben = kit.connect(), kit.connect()
        kit.send(ann, protocol.CreateRoom(name="Ann", deal=11))
        kit.send(ben, protocol.JoinRoom(code=ann.welcome.player_code, name="Ben"))
        kit.play_round_robin([ann, ben], max_steps=4)
        old_token = ben.welcome.token
        kit.drop(ben)
        phone = kit.connect()
        kit.send(phone, protocol.JoinRoom(code=ann.welcome.player_code, name="Ben"))
        kit.send(ann, requests.AnswerSeatRequest(seat=1, allow=True))
        note("taken", [ann, phone], displaced=old_token)

        # talk and a fair deal (the server's commitment and Ann's)
        commitment = hashlib.sha256(ANN_SEED).hexdigest()
        ann, ben = kit.connect(), kit.connect()
        kit.send(
            ann,
            protocol.CreateRoom(
                name="Ann", talk=protocol.TalkSetting.ALL, seed_commitment=commitment
            ),
        )
        kit.send(ben, protocol.JoinRoom(code=ann.welcome.player_code, name="Ben"))
        kit.send(ann, protocol.Say(text="Good luck, Ben"))
        kit.send(ben, protocol.React(reaction=protocol.Reaction.CLAP))
        note("fair", [ann, ben], seed=ANN_SEED.hex())

        # an evening: a game finished by vote, a rematch under way
        ann, ben = kit.connect(), kit.connect()
        kit.send(ann, protocol.CreateRoom(name="Ann", deal=7))
        kit.send(ben, protocol.JoinRoom(code=ann.welcome.player_code, name="Ben"))
        kit.send(ann, protocol.VoteFinish())
        kit.send(ben, protocol.VoteFinish())
        kit.run_until(kit.now + 5, stop=lambda: kit.room(ann).phase == "over")
        for peer in (ann, ben):
            kit.send(peer, protocol.Rematch(deal=protocol.RematchDeal.SAME))
        note("evening", [ann, ben])

        for room in rooms:
            print(room["label"], room["stage"], room["steps"], file=sys.stderr)
        kit.store.close()
        shutil.copyfile(path, HERE / "store.sqlite3")
    made = {"made_by": "b8321ea (schema 8) through tests/server/adapters/stored_schema_8/make.py"}
    text = json.dumps({**made, "rooms": rooms}, indent=1, sort_keys=True)
    (HERE / "expected.json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'store.sqlite3'} and expected.json: {len(rooms)} rooms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

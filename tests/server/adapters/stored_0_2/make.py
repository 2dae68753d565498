"""Write ``store.sqlite3`` and ``expected.json`` here with the code of release 0.2.

The store a 0.2 server wrote (schema 5, which keeps no room stage: 0.2 worked the stage
out from the record's flags and the replayed game), with a room in every stage and what
each seat's client held: `test_store_0_2.py` opens that store with today's code (which
migrates it, deriving each room's stage) and checks that every room comes back in the
stage it was in, at the step it was at, and that its people resume and play on.

This script must run against 0.2, not today's code: check out its tip (commit 6591dec)
and put it first on the path::

    git worktree add --detach /tmp/war-0.2 6591dec
    PYTHONPATH=/tmp/war-0.2 .venv/bin/python tests/server/adapters/stored_0_2/make.py

It drives 0.2's own room core (``server.core.hub.hub.Hub`` over
``server.adapters.store.sqlite.SqliteStore``, on the fake clock of 0.2's
``tests/server/core/_roomkit.RoomKit``) as its server did. The 0.2 modules are imported
by name, so this file type-checks without them.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
NAMES = ("Ann", "Ben", "Cy", "Di")


def _old(name: str) -> Any:
    return importlib.import_module(name)


def main() -> int:
    store_module = _old("server.adapters.store.sqlite")
    if store_module.SCHEMA_VERSION != 5:
        sys.exit("run this with release 0.2 first on the path (see the docstring)")
    protocol = _old("protocol")
    hub_module = _old("server.core.hub.hub")
    kit_module = _old("tests.server.core._roomkit")
    games = _old("tests._kit.games")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite3"
        kit = kit_module.RoomKit(
            hub_module.HubSettings(max_rooms_per_address=100),
            store=store_module.SqliteStore(path),
        )
        rooms: list[dict[str, Any]] = []

        def table(label: str, players: int, joining: int, **create: Any) -> list[Any]:
            ann = kit.connect()
            rules = create.pop("rules", protocol.RulesSpec(players=players))
            kit.send(ann, protocol.CreateRoom(name="Ann", rules=rules, **create))
            peers = [ann]
            for name in NAMES[1:joining]:
                peer = kit.connect()
                kit.send(peer, protocol.JoinRoom(code=ann.welcome.player_code, name=name))
                peers.append(peer)
            return peers

        def note(label: str, peers: list[Any]) -> None:
            room = kit.room(peers[0])
            record = room.record()
            rooms.append(
                {
                    "label": label,
                    "room": room.room_id,
                    "stage": room.stage.value,
                    "phase": room.phase.value,
                    "game": record.game.number,
                    "steps": room.game.steps,
                    "counts": list(room.game.counts),
                    "ready": list(record.game.ready),
                    "finish_votes": list(record.game.finish_votes),
                    "rematch_votes": [list(vote) for vote in record.game.rematch_votes],
                    "finished": record.game.finished,
                    "stop_step": record.game.stop_step,
                    "seq": room.seq,
                    "tokens": [peer.welcome.token for peer in peers],
                }
            )
            kit.now += 60.0

        peers = table("waiting", 3, 2, deal=5)
        note("waiting", peers)

        peers = table("playing", 2, 2, deal=11)
        kit.play_round_robin(peers, max_steps=30)
        kit.send(peers[0], protocol.Ready(step=30))
        kit.send(peers[1], protocol.VoteFinish())
        note("playing", peers)

        peers = table("over", 2, 2, deal=7, rules=protocol.RulesSpec(round_limit=40))
        kit.play_round_robin(peers)
        kit.send(peers[0], protocol.Rematch(deal=protocol.RematchDeal.SAME))
        note("over", peers)

        peers = table("over-by-vote", 3, 3, deal=2)
        kit.play_round_robin(peers, max_steps=20)
        for peer in peers:
            kit.send(peer, protocol.VoteFinish())
        note("over-by-vote", peers)

        peers = table("time-up", 2, 2, deal=8, minutes=1)
        kit.play_round_robin(peers, max_steps=12)
        kit.advance(60)
        note("time-up", peers)

        peers = table("rematched", 2, 2, deal=9, rules=protocol.RulesSpec(round_limit=10))
        kit.play_round_robin(peers)
        for peer in peers:
            kit.send(peer, protocol.Rematch(deal=protocol.RematchDeal.SAME))
        kit.play_round_robin(peers, max_steps=3)
        note("rematched", peers)

        # a finish vote's play-out under way: one slice played, the rest still to play
        # (last: no later wake of the kit plays more of it)
        eve = kit.connect()
        kit.send(
            eve,
            protocol.CreateRoom(
                name="Ann", rules=games.LONG_RULES, deal=games.LONG_DEAL, computers=3
            ),
        )
        kit.send(eve, protocol.VoteFinish())
        assert kit.room(eve).stage.value == "finishing"
        note("finishing", [eve])

        for room in rooms:
            print(room["label"], room["stage"], room["steps"], file=sys.stderr)
        kit.hub.close()
        shutil.copyfile(path, HERE / "store.sqlite3")
    made = {"made_by": "0.2 (6591dec) through tests/server/adapters/stored_0_2/make.py"}
    text = json.dumps({**made, "rooms": rooms}, indent=1, sort_keys=True)
    (HERE / "expected.json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'store.sqlite3'} and expected.json: {len(rooms)} rooms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

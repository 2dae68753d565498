"""Write ``store.sqlite3`` and ``expected.json`` here with the code of version 0.1.

The store a 0.1 server wrote, holding rooms played under the rules that changed since
(fixed returns from seat 0; a 3–4 player game ending when everyone in a war runs short),
and what each room sent at the table: `test_store_0_1.py` opens that store with today's
code (which migrates it) and checks that every room replays to the same steps.

This script must run against 0.1, not today's code: check out its tip (commit 81406d5)
and put it first on the path::

    git worktree add --detach /tmp/war-0.1 81406d5
    PYTHONPATH=/tmp/war-0.1 .venv/bin/python tests/server/adapters/stored_0_1/make.py

It drives 0.1's own room core (``server.hub`` with ``server.store.SqliteStore``, on the
fake clock of 0.1's ``tests/server/_roomkit.Bench``) as its server did: rooms created,
joined and played by ``ready`` messages (one finished by a finish vote); seat 0's
connection keeps every game event it was sent. The 0.1 modules are imported by name,
so this file type-checks without them.
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
# 0.1's protocol classes of the game's events (their TYPE is what the table got)
EVENTS = "CardsTurned CardsLaidDown WarDeclared CardsTaken CardsReturned PlayerOut GameOver"

# (label, rules, deal, players who join, steps to play: None = to the end, finish vote)
ROOMS: list[tuple[str, dict[str, Any], int, int, int | None, bool]] = [
    # fixed returns, two players: seat 1 wins rounds, so the order of its winnings counts
    ("fixed-two", {"won_cards": "fixed"}, 7, 2, 60, False),
    # the deal: seats 1 and 3 run short in round 16 while seats 0 and 2 are in
    ("four-players-1684", {"players": 4}, 1684, 4, None, False),
    # three players, three face down: seats 0 and 2 run short in round 56, seat 1 is in
    ("three-players-short", {"players": 3, "face_down": 3}, 3, 3, None, False),
    # fixed returns, three players, played out by a finish vote after 20 steps
    ("fixed-three-finished", {"players": 3, "won_cards": "fixed"}, 2, 3, 20, True),
    # the default rules (nothing changed for them), 40 steps into the game
    ("default-two", {}, 11, 2, 40, False),
    # fixed returns, four players, waiting for its last player (nothing played yet)
    ("fixed-four-waiting", {"players": 4, "won_cards": "fixed"}, 5, 3, 0, False),
]


def _old(name: str) -> Any:
    return importlib.import_module(name)


def main() -> int:
    store_module = _old("server.store")
    if store_module.SCHEMA_VERSION != 2 or hasattr(_old("server.engine").Rules, "fixed_order"):
        sys.exit("run this with version 0.1 first on the path (see the docstring)")
    protocol = _old("protocol")
    bench_module = _old("tests.server._roomkit")
    msgpack = _old("msgpack")
    event_types = {getattr(protocol, name).TYPE for name in EVENTS.split()}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite3"
        bench = bench_module.Bench(store=store_module.SqliteStore(path))
        rooms = []
        for number, (label, rules, deal, joining, steps, finish) in enumerate(ROOMS):
            ann = bench.connect()
            spec = protocol.RulesSpec(**rules)
            bench.send(ann, protocol.CreateRoom(name="Ann", rules=spec, deal=deal))
            code = ann.welcome.player_code
            peers = [ann]
            for name in ("Ben", "Cy", "Di")[: joining - 1]:
                peer = bench.connect()
                bench.send(peer, protocol.JoinRoom(code=code, name=name))
                peers.append(peer)
            room = bench.room(ann)
            if steps is None:
                bench.play_round_robin(peers)
            elif steps:
                bench.play_round_robin(peers, max_steps=steps)
            stepped = room.game.steps  # played one by one (a finish vote plays the rest)
            if finish:
                for peer in peers:
                    bench.send(peer, protocol.VoteFinish())
            events = [
                {k: v for k, v in msgpack.unpackb(protocol.encode(m)).items() if k != "seq"}
                for m in ann.inbox
                if m.TYPE in event_types
            ]
            if finish:  # a played-out game: its end must not be what today counts anew
                assert events[-1]["termination"] != "both_short", label
            rooms.append(
                {
                    "label": label,
                    "room": room.room_id,
                    "rules": rules,
                    "deal": deal,
                    "stepped": stepped,
                    "steps": room.game.steps,
                    "finished": finish,
                    "phase": room.phase,
                    "events": events,
                }
            )
            bench.now += 60.0 * (number + 1)
        bench.hub.close()
        shutil.copyfile(path, HERE / "store.sqlite3")
    (HERE / "expected.json").write_text(_compact(rooms), encoding="utf-8")
    print(f"wrote {HERE / 'store.sqlite3'} and expected.json: {len(rooms)} rooms")
    return 0


def _compact(rooms: list[dict[str, Any]]) -> str:
    """The rooms as JSON with one event per line (small, and readable in a diff)."""

    def dumps(value: object) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    lines = ["{", '"made_by": "0.1 (81406d5) through tests/server/adapters/stored_0_1/make.py",']
    lines.append('"rooms": [')
    for index, room in enumerate(rooms):
        head = dumps({k: v for k, v in room.items() if k != "events"})
        lines.append(head[:-1] + ',"events": [')
        lines += [
            dumps(e) + ("," if i < len(room["events"]) - 1 else "")
            for i, e in enumerate(room["events"])
        ]
        lines.append("]}" + ("," if index < len(rooms) - 1 else ""))
    lines += ["]", "}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""The CPU a flip takes in-process: the codec, the hub and its rooms, the batch and the store.

Run from the repository root::

    .venv/bin/python -m bench.flipcpu                    # readies apart, then back to back
    .venv/bin/python -m bench.flipcpu --flips 4000 --rounds 5

What the war-server does for a flip, less the network: each ``ready`` is decoded from
its bytes (`protocol.decode_client_message`), handed to the hub, its batch committed to
a real `SqliteStore` in a temporary folder, and every message the batch sends encoded
once (`protocol.encode_own`, as the outbox does). ``apart``: each ready is a batch of its
own (the second player readies after the first's commit, as at a table: every first
ready a durable write by itself); ``together``: a room's two readies share one batch
(bench.load's default, both read in one turn of the event loop). ``--rooms`` rooms of
two players and two spectators play round robin; the figure is the process's CPU time
(``time.process_time``) over the flips, the best of ``--rounds`` rounds.

Unlike bench.load this leaves out websockets and the event loop (shared by every
server), and it does not depend on how busy the machine is as much as a run of a whole
server does: on a shared machine, compare commits with it, alternated
(``--label``), and take bench.load's figures on a quiet one. ``--encode checked``
encodes the messages with `protocol.encode` (every field checked, as before
`encode_own`): what that check costs a flip. ``--instructions`` runs it
under valgrind's callgrind and reports instructions per flip instead (two runs, N and
2N flips, the difference over N: unmoved by whatever else the machine runs, but a WAL
checkpoint or a full collection falling in one run's last N flips and not the other's
weighs as much as hundreds of flips, so N must be thousands).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol import (
    CreateRoom,
    JoinRoom,
    Ready,
    WatchRoom,
    Welcome,
    decode_client_message,
    encode,
    encode_own,
)
from server.adapters.store.sqlite import SqliteStore
from server.adapters.ws.batch import Batch
from server.core.hub.hub import Hub
from server.core.room.actions import Action, Output, Send
from server.core.settings import HubSettings

MODES = ("apart", "together")
ENCODERS: dict[str, Callable[[Any], bytes]] = {"own": encode_own, "checked": encode}
"""How the messages a flip sends are encoded (``--encode``)."""


class _Table:
    """A hub with ``rooms`` rooms seated (two players, two spectators each), a store in
    ``folder`` and its batch; `flip` plays one flip of the next room."""

    def __init__(self, rooms: int, folder: Path, encoder: Callable[[Any], bytes]) -> None:
        self.encoder = encoder
        self.store = SqliteStore(folder / "flips.sqlite3")
        self.hub = Hub([], HubSettings(max_rooms_per_ip=rooms + 1), now=0.0)
        self.batch = Batch(self.store, self.hub)
        self.now = 0.0
        self.sent = 0
        self.rooms: list[tuple[Any, list[int]]] = []
        conn = 0
        for deal in range(1, rooms + 1):
            conns = list(range(conn + 1, conn + 5))
            conn += 4
            for c in conns:
                self._commit(self.hub.connect(c, "127.0.0.1", self.now))
            created = self._commit(
                self.hub.handle(conns[0], CreateRoom(name="Ann", deal=deal), self.now)
            )
            (welcome,) = [
                a.message for a in created if isinstance(a, Send) and isinstance(a.message, Welcome)
            ]
            assert welcome.player_code is not None and welcome.watch_code is not None
            join = JoinRoom(code=welcome.player_code, name="Ben")
            self._commit(self.hub.handle(conns[1], join, self.now))
            for c in conns[2:]:
                watch = WatchRoom(code=welcome.watch_code)
                self._commit(self.hub.handle(c, watch, self.now))
            self.rooms.append((self.hub.room(welcome.state.room), conns))
        self.next = 0

    def _commit(self, output: Output | None = None) -> list[Action]:
        if output is not None:
            self.batch.add(output, self.now)
        actions = self.batch.commit(self.now)
        for action in actions:
            if isinstance(action, Send):
                self.encoder(action.message)
                self.sent += 1
        return actions

    def _ready(self, conn: int, step: int) -> None:
        message = decode_client_message(encode(Ready(step=step)))
        self.batch.add(self.hub.handle(conn, message, self.now), self.now)
        self.hub.next_deadline()

    def flip(self, together: bool) -> None:
        """One flip of the next room still playing (a new game where one is over)."""
        for _ in range(len(self.rooms)):
            room, conns = self.rooms[self.next]
            self.next = (self.next + 1) % len(self.rooms)
            if room.phase == "playing":
                break
        else:
            raise RuntimeError("no room is playing")
        self.now += 0.001
        for seat in room.waiting_for():
            self._ready(conns[seat], room.game.steps)
            if not together:
                self._commit()
        self._commit()


def measure(
    flips: int, rounds: int, rooms: int, mode: str, encoder: Callable[[Any], bytes] = encode_own
) -> dict[str, Any]:
    """CPU microseconds per flip in ``mode``, best of ``rounds`` rounds of ``flips``."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        table = _Table(rooms, Path(folder), encoder)
        for _ in range(rooms):  # warm up: every room's first flip (its fair deal, caches)
            table.flip(mode == "together")
        for _ in range(rounds):
            start = time.process_time()
            for _ in range(flips):
                table.flip(mode == "together")
            best = min(best, (time.process_time() - start) / flips * 1e6)
        table.store.close()
        return {"mode": mode, "cpu_us_per_flip": round(best, 1), "flips": flips * rounds}


def _count(argv: list[str]) -> int:
    """Instructions callgrind counts for this module run with ``argv``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "bench.flipcpu",
            *argv,
            "--json",
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same sets and dicts each run
        subprocess.run(command, check=True, capture_output=True, env=env)
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no summary")


def instructions(flips: int, rooms: int, mode: str, encoder: str) -> dict[str, Any]:
    """Instructions per flip: (count with 2 x ``flips``) - (count with ``flips``), / flips."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found (apt-get install valgrind)")
    common = ["--rooms", str(rooms), "--modes", mode, "--rounds", "1", "--encode", encoder]
    one = _count([*common, "--flips", str(flips)])
    two = _count([*common, "--flips", str(2 * flips)])
    return {"mode": mode, "instructions_per_flip": round((two - one) / flips), "flips": flips}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=2000, help="flips a round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best is kept")
    parser.add_argument("--rooms", type=int, default=300, help="rooms playing round robin")
    parser.add_argument("--modes", default=",".join(MODES), help="apart, together or both")
    parser.add_argument("--label", default="", help="a name for this code in the output")
    parser.add_argument(
        "--encode",
        choices=ENCODERS,
        default="own",
        help="own: encode_own, as the server sends; checked: encode (what the check costs)",
    )
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    args = parser.parse_args(argv)
    run: Callable[[str], dict[str, Any]]
    if args.instructions:
        run = lambda mode: instructions(args.flips, args.rooms, mode, args.encode)  # noqa: E731
    else:
        encoder = ENCODERS[args.encode]
        run = lambda mode: measure(args.flips, args.rounds, args.rooms, mode, encoder)  # noqa: E731
    for mode in args.modes.split(","):
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
        result = {"label": args.label, "encode": args.encode, **run(mode)}
        if args.json:
            print(json.dumps(result))
        else:
            print("  ".join(f"{key}={value}" for key, value in result.items() if value != ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

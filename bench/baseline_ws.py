"""The bare-``websockets`` floor for ``bench/load.py``: the same frames, no game logic.

It speaks just enough of the War protocol for the load generator's clients to run
against it unchanged: ``create_room`` / ``join_room`` / ``watch_room`` answer a
``welcome`` with a room state of the real shape, and every ``ready`` is answered the way
the real server answers it in a two-player room, with frames of the same content and
size, encoded with bare ``msgpack.packb`` and sent with ``websockets.broadcast``:

- a ready that leaves the room still waiting → ``ready_changed`` + ``waiting_for``;
- the ready that completes the step → ``cards_turned`` + ``cards_taken`` +
  ``waiting_for`` (a round with no war; the cards are fixed, the counts swing by two).

With ``--frames one`` it sends instead a single frame per ready, as the issue words the
baseline literally ("receive ready, encode and broadcast one message"): ``ready_changed``
for the first ready, ``cards_turned`` (with an extra ``waiting`` list, so the load
generator's players know to ready again) for the one that completes the step.

There is no validation beyond what is needed not to crash, no engine, no store, no
limits, no logging. That is the point: the ratio of the real server to this one is the
cost of the project's own work (codec checks, room logic, engine, SQLite, logs) on top
of the library's floor. Run it alone with::

    .venv/bin/python -m bench.baseline_ws --port 8799
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import resource
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

__all__ = ["main"]

PLAYERS = 2
_CARDS = ("QH", "9S")
_pack = msgpack.Packer(use_bin_type=True).pack


@dataclass(slots=True)
class _Room:
    room_id: str
    player_code: str
    watch_code: str
    seats: list[ServerConnection | None] = field(default_factory=lambda: [None] * PLAYERS)
    names: list[str | None] = field(default_factory=lambda: [None] * PLAYERS)
    members: set[ServerConnection] = field(default_factory=set)
    spectators: int = 0
    seq: int = 0
    step: int = 0
    ready: set[int] = field(default_factory=set)
    counts: list[int] = field(default_factory=lambda: [26, 26])
    playing: bool = False

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def state(self) -> dict[str, Any]:
        """A room state with the same keys the real server sends."""
        waiting = [s for s in range(PLAYERS) if s not in self.ready] if self.playing else []
        return {
            "room": self.room_id,
            "phase": "playing" if self.playing else "waiting",
            "rules": {
                "players": PLAYERS,
                "face_down": 1,
                "aces": "high",
                "short_war": "lose",
                "won_cards": "shuffle",
                "round_limit": None,
                "tie_break": "draw",
            },
            "seats": [
                {
                    "seat": s,
                    "name": self.names[s],
                    "computer": False,
                    "connected": self.seats[s] is not None,
                    "ready": s in self.ready,
                    "auto": "off",
                    "out": False,
                    "count": self.counts[s],
                    "face_up": [],
                    "face_down": 0,
                    "finish_vote": False,
                    "rematch_vote": None,
                }
                for s in range(PLAYERS)
            ],
            "game": 1,
            "step": self.step,
            "round": self.step,
            "war_depth": 0,
            "war_seats": [],
            "waiting_for": waiting,
            "spectators": self.spectators,
            "minutes": None,
            "seconds_left": None,
            "deal": None,
            "result": None,
        }

    def send_all(self, message: dict[str, Any]) -> None:
        message["seq"] = self.next_seq()
        broadcast(self.members, _pack(message))


class _Lobby:
    def __init__(self, *, one_frame: bool = False) -> None:
        self.one_frame = one_frame
        self._ids = itertools.count(1)
        self.by_player_code: dict[str, _Room] = {}
        self.by_watch_code: dict[str, _Room] = {}

    async def handler(self, ws: ServerConnection) -> None:
        room: _Room | None = None
        seat: int | None = None
        try:
            async for data in ws:
                try:
                    message = msgpack.unpackb(data, raw=False)
                    kind = message["type"]
                except (ValueError, TypeError, KeyError, msgpack.UnpackException):
                    await ws.send(_pack({"type": "error", "code": "malformed", "message": ""}))
                    continue
                if room is None:
                    room, seat = await self._open(ws, kind, message)
                elif kind == "ready" and seat is not None:
                    await self._ready(ws, room, seat, message.get("step"))
                elif kind == "resync":
                    await ws.send(
                        _pack({"type": "snapshot", "seq": room.seq, "state": room.state()})
                    )
        except ConnectionClosed:
            pass
        finally:
            if room is not None:
                room.members.discard(ws)
                if seat is not None:
                    room.seats[seat] = None

    async def _open(
        self, ws: ServerConnection, kind: str, message: dict[str, Any]
    ) -> tuple[_Room | None, int | None]:
        if kind == "create_room":
            n = next(self._ids)
            room = _Room(f"r{n}", f"P-{n:06d}", f"W-{n:06d}")
            self.by_player_code[room.player_code] = room
            self.by_watch_code[room.watch_code] = room
            return room, await self._take_seat(ws, room, 0, str(message.get("name", "p")))
        if kind == "join_room":
            joined = self.by_player_code.get(str(message.get("code")))
            if joined is None or joined.seats[1] is not None:
                await ws.send(_pack({"type": "error", "code": "unknown_code", "message": ""}))
                return None, None
            seat = await self._take_seat(ws, joined, 1, str(message.get("name", "p")))
            joined.playing = True
            joined.send_all({"type": "game_started", "game": 1, "counts": [26, 26], "deal": None})
            joined.send_all({"type": "waiting_for", "seats": [0, 1]})
            return joined, seat
        if kind == "watch_room":
            watched = self.by_watch_code.get(str(message.get("code")))
            if watched is None:
                await ws.send(_pack({"type": "error", "code": "unknown_code", "message": ""}))
                return None, None
            watched.spectators += 1
            watched.send_all({"type": "spectators_changed", "count": watched.spectators})
            watched.members.add(ws)
            await ws.send(_pack(_welcome(watched, None, None)))
            return watched, None
        await ws.send(_pack({"type": "error", "code": "not_in_room", "message": ""}))
        return None, None

    async def _take_seat(self, ws: ServerConnection, room: _Room, seat: int, name: str) -> int:
        room.names[seat] = name[:24]
        room.seats[seat] = ws
        room.send_all({"type": "player_joined", "seat": seat, "name": name, "computer": False})
        room.members.add(ws)
        await ws.send(_pack(_welcome(room, seat, room.player_code)))
        return seat

    async def _ready(self, ws: ServerConnection, room: _Room, seat: int, step: object) -> None:
        if step != room.step or not room.playing:
            await ws.send(_pack({"type": "error", "code": "stale", "message": ""}))
            return
        if seat in room.ready:
            await ws.send(_pack({"type": "error", "code": "already_ready", "message": ""}))
            return
        room.ready.add(seat)
        if len(room.ready) < PLAYERS:
            room.send_all({"type": "ready_changed", "seat": seat, "ready": True})
            if self.one_frame:
                return
            waiting = [s for s in range(PLAYERS) if s not in room.ready]
            room.send_all({"type": "waiting_for", "seats": waiting})
            return
        room.ready.clear()
        room.step += 1
        winner = room.step % PLAYERS
        room.counts[winner] += 1
        room.counts[1 - winner] -= 1
        if min(room.counts) <= 1:
            room.counts = [26, 26]
        turned = [[s, _CARDS[(s + room.step) % 2]] for s in range(PLAYERS)]
        if self.one_frame:
            room.send_all(
                {"type": "cards_turned", "step": room.step, "round": room.step, "depth": 0,
                 "cards": turned, "waiting": [0, 1]}
            )  # fmt: skip
            return
        room.send_all(
            {"type": "cards_turned", "step": room.step, "round": room.step, "depth": 0,
             "cards": turned}
        )  # fmt: skip
        room.send_all(
            {"type": "cards_taken", "step": room.step, "round": room.step, "seat": winner,
             "count": 2, "counts": list(room.counts)}
        )  # fmt: skip
        room.send_all({"type": "waiting_for", "seats": [0, 1]})


def _welcome(room: _Room, seat: int | None, player_code: str | None) -> dict[str, Any]:
    return {
        "type": "welcome",
        "v": 1,
        "seq": room.seq,
        "seat": seat,
        "token": None if seat is None else f"token-{room.room_id}-{seat}-xxxxxxxxxxxxxxxxxxxxxx",
        "player_code": player_code,
        "watch_code": room.watch_code,
        "state": room.state(),
    }


async def _serve(host: str, port: int, *, one_frame: bool) -> None:
    lobby = _Lobby(one_frame=one_frame)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    async with serve(lobby.handler, host, port, compression=None, max_size=4096) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        print(f"baseline listening on {host}:{bound}", flush=True)
        await stop


def main(argv: list[str] | None = None) -> None:
    """Serve the baseline until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.baseline_ws",
        description="Bare websockets + msgpack server with the War server's frame pattern "
        "and no game logic: the floor bench/load.py compares the war-server to.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="listen address (default %(default)s)")
    parser.add_argument("--port", type=int, default=0, help="port; 0 picks a free one (printed)")
    parser.add_argument(
        "--frames",
        choices=("mirror", "one"),
        default="mirror",
        help="mirror: the war-server's frames per ready (2 or 3); one: a single frame per "
        "ready (default %(default)s)",
    )
    args = parser.parse_args(argv)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.host, args.port, one_frame=args.frames == "one"))
    sys.exit(0)


if __name__ == "__main__":
    main()

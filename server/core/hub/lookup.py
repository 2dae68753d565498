"""What a code opens, before a name is typed: ``look_up``'s answer, and the refusal of a
watch code where a player code belongs.

- `room_info`: the ``room_info`` that answers a ``look_up`` of a player code, and the
  close that ends the connection (1000): whose table it is (seat 0's name), its seats,
  how many are free and how many are away. Never a token, never the watch code.
- `not_found`: the refusal of an opening message whose code or room is unknown. A
  ``join_room`` or ``look_up`` with the room's *watch* code gets ``watch_code`` (the page
  offers to watch instead); it is no failed attempt (the code is the room's). Every other
  unknown code is ``unknown_code`` and counts as one (`server.core.hub.admission`), so a
  look-up lets a stranger try codes no faster than joining does.
"""

from __future__ import annotations

from protocol import CloseCode, ErrorCode, JoinRoom, LookUp, ResumeSeat, RoomInfo, WatchRoom
from server.core.hub.directory import Directory
from server.core.refusals import Refusal
from server.core.room.actions import Action, Close, ConnId, Send
from server.core.room.room import Room

__all__ = ["LOOKED_UP", "not_found", "room_info"]

LOOKED_UP = "looked up"
"""The close reason after ``room_info``."""


def room_info(conn: ConnId, room: Room) -> list[Action]:
    """The answer to ``conn``'s ``look_up`` of ``room``'s player code, then its close."""
    seats = room.seats
    info = RoomInfo(
        seq=room.seq,
        host=seats[0].record.name,
        players=len(seats),
        free=sum(1 for seat in seats if seat.record.name is None),
        away=sum(1 for seat in seats if seat.away),
        phase=room.phase,
    )
    return [Send((conn,), info), Close(conn, CloseCode.NORMAL, LOOKED_UP)]


def not_found(message: JoinRoom | WatchRoom | ResumeSeat | LookUp, directory: Directory) -> Refusal:
    """The refusal of an opening message whose code or room is unknown."""
    if isinstance(message, ResumeSeat):
        return Refusal(ErrorCode.BAD_TOKEN, "this seat token is unknown or was replaced")
    code = message.code[:32]
    if not isinstance(message, WatchRoom) and directory.by_watch_code(message.code) is not None:
        return Refusal(
            ErrorCode.WATCH_CODE,
            f"{code!r} is the room's watch code: it lets you watch (watch_room), not sit down",
        )
    return Refusal(ErrorCode.UNKNOWN_CODE, f"no room has the code {code!r}")

"""`Refusal`: a command the room core refused, as a value.

The core never raises a refusal: every check that can refuse a command (the phase table,
`server.core.room.phases`; admission, `server.core.hub.admission`; a room's checks of a command's
content) returns `Refusal | None`, a room call returns it in its
`server.core.room.actions.Effects`, and the hub answers it with an ``error`` message
(`server.core.hub.replies.refusal_actions`), and a close where ``protocol/PROTOCOL.md`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol import ErrorCode

__all__ = ["Refusal"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """A command refused: ``code`` goes back to the peer with ``text``, a lowercase
    sentence that shows the value (``ready for step 3, but the game is at step 4``).

    ``failed_attempt``: count it against the peer's address as a wrong guess, as
    `server.core.hub.admission` counts an unknown code or a bad token (a ``join_room`` naming
    no away seat of a started room: someone may be guessing the name of a seat to take).
    """

    code: ErrorCode
    text: str
    failed_attempt: bool = False

    def __str__(self) -> str:
        return self.text

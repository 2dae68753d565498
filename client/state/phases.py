"""Which room command a seat or a spectator may send in which phase (the server's).

Written by tools/generate_vocabulary.py (``make vocabulary``) from the room core's
phase table (``server/core/room/phases.py``), which the client may not import; never edit it
by hand (``tests/client/web/test_vocabulary.py`` fails when it is out of date). The
browser table reads the same table from ``client/web/js/vocabulary.js``.

``PHASE_TABLE[command][who]``: ``who`` is ``"seat"`` or ``"spectator"``; the phases (their
`protocol.RoomPhase` values) in which the server refuses the command, each with the error
code it refuses it with. A phase not listed accepts it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PHASE_TABLE"]

PHASE_TABLE: Final[dict[str, dict[str, dict[str, str]]]] = {
    "ready": {
        "seat": {"waiting": "game_not_started", "over": "game_over"},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "commit": {
        "seat": {"waiting": "game_not_started", "over": "game_over"},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "set_auto_play": {
        "seat": {"over": "game_over"},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "vote_finish": {
        "seat": {"waiting": "game_not_started", "over": "game_over"},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "rematch": {
        "seat": {"waiting": "game_not_started", "playing": "game_in_progress"},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "leave": {
        "seat": {},
        "spectator": {},
    },
    "resync": {
        "seat": {},
        "spectator": {},
    },
    "answer_seat_request": {
        "seat": {},
        "spectator": {"waiting": "not_seated", "playing": "not_seated", "over": "not_seated"},
    },
    "react": {
        "seat": {},
        "spectator": {},
    },
    "say": {
        "seat": {},
        "spectator": {},
    },
}

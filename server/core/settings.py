"""The settings of the room core: limits and paces, every time in seconds.

`server.adapters.config` reads them from flags and ``WAR_*`` variables.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.core.room import PLAY_OUT_SLICE, RoomSettings
from server.engine import STEP_WORK

__all__ = ["HubSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HubSettings:
    """Limits and paces of the room core (every time is in seconds).

    ``password``: needed to create rooms (None: anyone may). ``max_failed_joins``: wrong
    codes, tokens or passwords per address per minute. ``max_rooms_per_address``: rooms
    created from one address held at once. ``idle_room_seconds``: a room nobody is in
    is removed after this long without activity; ``idle_waiting_room_seconds`` while it
    still waits for players (the shorter of the two applies). ``away_timeout_seconds``:
    the server plays an away seat at the calm pace after this long, until its player
    returns (0: never; the game waits). ``computer_delay``: how long a computer seat
    takes to ready at most (it keeps pace with a quicker person's auto-play).
    ``play_out_slice``: the engine work (units of `server.engine.STEP_WORK`) of one
    slice of a finish vote's play-out; ``play_out_rate`` and ``play_out_burst``: the
    play-out work one address may have done a second, and at once (the defaults: about
    2,000 steps of a four-player game a second, a burst of about 32,000, the longest
    games seen); ``play_out_server_rate`` and ``play_out_server_burst``: the same for
    every address together (about 8,000 steps a second, some 5% of a core; a burst of
    64,000).
    """

    password: str | None = None
    max_rooms: int = 500
    max_spectators: int = 20
    max_failed_joins: int = 10
    max_rooms_per_address: int = 20
    idle_room_seconds: float = 24 * 60 * 60.0
    idle_waiting_room_seconds: float = 30 * 60.0
    away_timeout_seconds: float = 120.0
    calm_delay: float = 1.5
    quick_delay: float = 0.3
    computer_delay: float = 0.6
    play_out_slice: int = PLAY_OUT_SLICE
    play_out_rate: float = 2_048.0 * STEP_WORK
    play_out_burst: float = 32_768.0 * STEP_WORK
    play_out_server_rate: float = 8_192.0 * STEP_WORK
    play_out_server_burst: float = 65_536.0 * STEP_WORK

    def room_settings(self) -> RoomSettings:
        """The part of these settings each room uses."""
        return RoomSettings(
            max_spectators=self.max_spectators,
            away_timeout_seconds=self.away_timeout_seconds,
            calm_delay=self.calm_delay,
            quick_delay=self.quick_delay,
            computer_delay=self.computer_delay,
        )

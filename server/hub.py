"""The sans-I/O hub: every room of the server, and the dispatch of connections to them.

INTERIM VERSION: the signatures below are final (see /work/notes/server-contract.md);
the behaviour is being written. Calls return no actions yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol import ClientMessage, ProtocolError
from server.actions import Action, ConnId

__all__ = ["Hub", "HubSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HubSettings:
    """Limits and paces of the room core (every time is in seconds)."""

    password: str | None = None
    max_rooms: int = 500
    max_spectators: int = 20
    max_failed_joins: int = 10
    idle_room_seconds: float = 24 * 60 * 60.0
    away_timeout_seconds: float = 0.0
    calm_delay: float = 1.5
    quick_delay: float = 0.3
    computer_delay: float = 0.6


class Hub:
    """Every room of the server (interim: signatures only)."""

    def __init__(
        self, store: Any, settings: HubSettings, *, now: float, random: Any = None
    ) -> None:
        self._store = store
        self._settings = settings

    def connect(self, conn: ConnId, peer: str, now: float) -> list[Action]:
        """A new connection from address ``peer``."""
        return []

    def handle(self, conn: ConnId, message: ClientMessage, now: float) -> list[Action]:
        """A decoded, validated message from ``conn``."""
        return []

    def refuse(self, conn: ConnId, error: ProtocolError, now: float) -> list[Action]:
        """The app could not decode a frame from ``conn``: the error, and a close if due."""
        return []

    def disconnect(self, conn: ConnId, now: float) -> list[Action]:
        """``conn`` is gone."""
        return []

    def wake(self, now: float) -> list[Action]:
        """Run every timer due at or before ``now``."""
        return []

    def next_deadline(self) -> float | None:
        """The earliest time `wake` has something to do, or None."""
        return None

    def where(self, conn: ConnId) -> tuple[str, int | None] | None:
        """(room id, seat or None for a spectator) of ``conn``, for log binding."""
        return None

    @property
    def rooms(self) -> int:
        """How many rooms are held."""
        return 0

    @property
    def connections(self) -> int:
        """How many connections are known."""
        return 0

    def close(self) -> None:
        """Flush and close the store."""

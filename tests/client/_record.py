"""Recorded message sequences for the client's tests, made the way the server makes them.

A :class:`Recording` plays an engine game and writes down what a room would broadcast:
``welcome`` (to the seat under test), ``game_started``, ``ready_changed`` and
``waiting_for`` around every step, and each engine event as its protocol message (through
the server's own mapping, `server.core.room.wire`), every room message with the next ``seq``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from protocol import (
    GameStarted,
    ReadyChanged,
    RoomPhase,
    RoomState,
    SeatState,
    ServerMessage,
    WaitingFor,
    Welcome,
)
from server import engine
from server.core.room.wire import event_message, rules_spec

NAMES = ("Ann", "Ben", "Cy", "Dot")


@dataclass
class Recording:
    """Play ``game`` and record the room's messages; ``me`` is the seat being welcomed."""

    game: engine.Game
    me: int | None = 0
    names: tuple[str, ...] = NAMES
    messages: list[ServerMessage] = field(default_factory=list)
    seq: int = 0

    def __post_init__(self) -> None:
        rules = self.game.rules
        seats = tuple(
            SeatState(seat=s, name=self.names[s], connected=True) for s in range(rules.players)
        )
        self.seq = rules.players  # one player_joined per seat, all included in the welcome
        state = RoomState(
            room="r8k2", phase=RoomPhase.WAITING, rules=rules_spec(rules), seats=seats
        )
        self.messages.append(
            Welcome(
                seq=self.seq,
                seat=self.me,
                token=None if self.me is None else "t" * 20,
                player_code=None if self.me is None else "K7MX-QD4R",
                watch_code="9HWT-2CBN",
                state=state,
            )
        )
        self._room(GameStarted(seq=0, game=1, counts=self.game.counts))
        self._room(WaitingFor(seq=0, seats=self.game.next_seats))

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def _room(self, message: ServerMessage) -> None:
        """Append a room message, giving it the next seq."""
        self.messages.append(replace(message, seq=self._next()))  # type: ignore[arg-type]

    def step(self) -> list[ServerMessage]:
        """Everyone needed turns over: ready flags, then the step's events; returns them."""
        start = len(self.messages)
        for seat in self.game.next_seats:
            self._room(ReadyChanged(seq=0, seat=seat, ready=True))
        events = self.game.step()
        for event in events:
            self._room(event_message(event, self.game, 0))
        self._room(WaitingFor(seq=0, seats=self.game.next_seats))
        return self.messages[start:]

    def play(self, steps: int | None = None) -> list[ServerMessage]:
        """Step ``steps`` times, or to the end of the game."""
        done = 0
        while self.game.phase is not engine.Phase.OVER and (steps is None or done < steps):
            self.step()
            done += 1
        return self.messages

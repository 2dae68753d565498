"""Recorded message sequences for the client's tests, made the way the server makes them.

A :class:`Recording` plays an engine game and writes down what a room would broadcast:
``welcome`` (to the seat under test), ``game_started``, ``ready_changed`` and
``waiting_for`` around every step, and each engine event as its protocol message, every
room message with the next ``seq``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from protocol import (
    Aces,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    GameOver,
    GameStarted,
    OutReason,
    PlayerOut,
    ReadyChanged,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    ShortWar,
    Summary,
    Termination,
    TieBreak,
    WaitingFor,
    WarDeclared,
    Welcome,
    WonCards,
)
from server import engine

NAMES = ("Ann", "Ben", "Cy", "Dot")


def spec_of(rules: engine.Rules) -> RulesSpec:
    """The wire rules of an engine ``Rules``."""
    return RulesSpec(
        players=rules.players,
        face_down=rules.face_down,
        aces=Aces(rules.aces.value),
        short_war=ShortWar(rules.short_war.value),
        won_cards=WonCards(rules.won_cards.value),
        round_limit=rules.round_limit,
        tie_break=TieBreak(rules.tie_break.value),
    )


def arrange(rules: engine.Rules, piles: Sequence[str]) -> engine.Game:
    """A game whose seats hold ``piles`` (space-separated card codes, top first)."""
    hands = [[engine.parse_card(code, rules) for code in pile.split()] for pile in piles]
    deck = [hand[i] for i in range(len(hands[0])) for hand in hands]
    return engine.Game.arranged(rules, deck)


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
        state = RoomState(room="r8k2", phase=RoomPhase.WAITING, rules=spec_of(rules), seats=seats)
        self.messages.append(
            Welcome(
                seq=self.seq,
                seat=self.me,
                token=None if self.me is None else "t" * 20,
                player_code=None if self.me is None else "BLUE-OTTER-42",
                watch_code="CALM-FROG-17",
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
            self._room(self.convert(event))
        self._room(WaitingFor(seq=0, seats=self.game.next_seats))
        return self.messages[start:]

    def play(self, steps: int | None = None) -> list[ServerMessage]:
        """Step ``steps`` times, or to the end of the game."""
        done = 0
        while self.game.phase is not engine.Phase.OVER and (steps is None or done < steps):
            self.step()
            done += 1
        return self.messages

    def convert(self, event: engine.Event) -> ServerMessage:
        """The protocol message of one engine event (seq 0: the caller numbers it)."""
        rules = self.game.rules
        step = self.game.steps
        match event:
            case engine.CardsTurned(round=r, depth=d, cards=cards):
                labelled = tuple((s, engine.card_label(c, rules)) for s, c in cards)
                return CardsTurned(seq=0, step=step, round=r, depth=d, cards=labelled)
            case engine.CardsLaidDown(round=r, depth=d, counts=counts):
                return CardsLaidDown(seq=0, step=step, round=r, depth=d, counts=counts)
            case engine.WarDeclared(round=r, depth=d, seats=seats):
                return WarDeclared(seq=0, step=step, round=r, depth=d, seats=seats)
            case engine.CardsTaken(round=r, seat=s, count=n, counts=counts):
                return CardsTaken(seq=0, step=step, round=r, seat=s, count=n, counts=counts)
            case engine.CardsReturned(round=r, counts=counts):
                return CardsReturned(seq=0, step=step, round=r, counts=counts)
            case engine.PlayerOut(round=r, seat=s, reason=reason):
                return PlayerOut(seq=0, step=step, round=r, seat=s, reason=OutReason(reason))
            case engine.GameOver(outcome=outcome, summary=summary):
                return GameOver(
                    seq=0,
                    step=step,
                    winner=outcome.winner,
                    termination=Termination(outcome.termination.value),
                    summary=Summary(
                        rounds=summary.rounds,
                        wars=summary.wars,
                        longest_war=summary.longest_war,
                        biggest_haul=summary.biggest_haul,
                        deal=summary.deal,
                    ),
                    counts=self.game.counts,
                )
        raise AssertionError(f"unknown engine event {event!r}")

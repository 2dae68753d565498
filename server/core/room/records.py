"""What a room is stored as: `RoomRecord`, its `SeatRecord` values and its `GameRecord`.

A room is stored as what it takes to rebuild it, never as a game's inner state: its codes,
rules, time limit, seats (names, token *hashes* — the latest and, until the latest is
confirmed, the one it replaced —, computer, auto-play, left), the token hashes of the
devices its seats were taken from (for a while), the ``seq`` of the last
room message it sent, and its current game as rules + deal number + steps played (+ the
step at which the time limit stopped it, + whether it was played out by a finish vote)
with the seats ready for the next step and the finish and rematch votes.
The room's stage (waiting, playing, finishing, over) is stored with its game.
`server.core.room.room` replays the engine from that: a room is rebuilt from its record after
a restart and after a failed write alike.

The hub returns the records to write (`server.core.room.actions.Write`, with the record the
store holds, so that a store writes only what changed) and the rooms to delete; the
adapters store them (`server.adapters.store.sqlite`: the `Store` interface and SQLite).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.core.room.fairdeal import FairRecord
from server.core.room.phases import Stage
from server.engine import Game, Rules

__all__ = [
    "DisplacedRecord",
    "EveningRecord",
    "GameRecord",
    "RoomRecord",
    "SeatRecord",
    "TalkRecord",
    "same_state",
]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: ``name`` None = open; ``auto`` is "off", "calm" or "quick".

    ``token_hash``: the hash of the seat's latest token. ``previous_token_hash``: the hash
    of the token the seat was last resumed with, still accepted while the latest one is
    unconfirmed (its ``welcome`` may have been lost); None once the latest is confirmed,
    and for a seat never resumed. See `server.core.room.room.Room.resume`.
    """

    name: str | None = None
    token_hash: str | None = None
    computer: bool = False
    auto: str = "off"
    left: bool = False
    previous_token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The room's current game.

    ``stage``: where the room is in its state machine (`server.core.room.phases`): stored, not
    worked out from the other fields; ``waiting``: nothing was played yet. ``steps``:
    engine steps played one by one. ``stop_step``: the step count at which
    ``stop_by_time()`` was called, or None. ``finished``: ``finish()`` played the rest out
    after those steps. ``deadline``: the wall-clock time the time limit runs out, or None.
    ``ready``: the seats ready for the next step (in seat order). ``finish_votes``: the
    seats that voted to finish this game. ``rematch_votes``: (seat, "new" or "same") for
    each seat that voted for a rematch, in seat order. ``voids``: the fair deals each
    seat voided this evening (empty: none), kept across rematches.
    """

    number: int
    deal: int
    revealed: bool
    stage: Stage = Stage.WAITING
    steps: int = 0
    stop_step: int | None = None
    finished: bool = False
    deadline: float | None = None
    ready: tuple[int, ...] = ()
    finish_votes: tuple[int, ...] = ()
    rematch_votes: tuple[tuple[int, str], ...] = ()
    fair: FairRecord | None = None
    rematch_commitments: tuple[tuple[int, str], ...] = ()
    voids: tuple[int, ...] = ()

    @property
    def started(self) -> bool:
        """The game has started: the room no longer waits for players."""
        return self.stage.started

    def replay(self, rules: Rules) -> Game:
        """This game under ``rules``, replayed by the engine (`Game.replay`)."""
        return Game.replay(
            rules, self.deal, self.steps, stop_step=self.stop_step, finished=self.finished
        )


@dataclass(frozen=True, slots=True)
class TalkRecord:
    """One line of the room's talk: the ``seq`` of its ``said`` or ``reacted``, when
    (``at``, wall clock), who (``seat``, None: someone watching), and a ``text`` or a
    ``reaction`` (its name)."""

    seq: int
    at: float
    seat: int | None
    text: str | None = None
    reaction: str | None = None


@dataclass(frozen=True, slots=True)
class EveningRecord:
    """One finished game of the room: its number, its deal, the winner (None: a draw),
    the termination's name, its rounds, and the seats' names in it."""

    game: int
    deal: int
    winner: int | None
    termination: str
    rounds: int
    names: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class DisplacedRecord:
    """The token hashes seat ``seat`` had when it was taken over on another device
    (``by``: the seat that allowed it; None: nobody was there to ask). Until ``until``
    (wall clock, so that a restart neither extends nor shortens it) a resume with one of
    them takes the seat back; after it, such a resume is told the seat was taken
    (`server.core.room.takeover`). Hashes only, as a seat's: never a token."""

    seat: int
    token_hash: str | None
    previous_token_hash: str | None
    until: float
    by: int | None = None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """Everything needed to rebuild one room. ``rules`` are the engine's (a store keeps them
    as the JSON of ``Rules.to_dict()``).

    ``seq``: the seq of the last room message sent (stored before the message is sent, so
    a room's seq never goes backwards across a restart). ``room_id``, the codes,
    ``rules``, ``minutes``, ``talk_setting`` and ``created`` never change once the room
    is stored. ``talk``: the last messages and reactions (at most
    `protocol.MAX_TALK`, oldest first); ``evening``: the room's finished games (at most
    `protocol.MAX_EVENING`, oldest first), kept across rematches. ``displaced``: the
    tokens of the devices seats were taken from (oldest first, at most
    `server.core.room.takeover.MAX_DISPLACED`).
    """

    room_id: str
    player_code: str
    watch_code: str
    rules: Rules
    minutes: int | None
    seats: tuple[SeatRecord, ...]
    game: GameRecord
    created: float
    last_active: float
    seq: int = 0
    talk_setting: str = "players"
    talk: tuple[TalkRecord, ...] = ()
    evening: tuple[EveningRecord, ...] = ()
    displaced: tuple[DisplacedRecord, ...] = ()


def same_state(a: RoomRecord, b: RoomRecord) -> bool:
    """Whether ``a`` and ``b`` hold the same room state, ``last_active`` aside.

    ``last_active`` changes with every message; it is written along with the next real
    change (a message that changes nothing else is not worth a write).
    """
    return (
        a.seq == b.seq
        and a.game == b.game
        and a.seats == b.seats
        and a.talk == b.talk
        and a.evening == b.evening
        and a.displaced == b.displaced
        and a.talk_setting == b.talk_setting
        and a.room_id == b.room_id
        and a.player_code == b.player_code
        and a.watch_code == b.watch_code
        and a.minutes == b.minutes
        and a.created == b.created
        and a.rules == b.rules
    )

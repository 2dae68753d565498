"""Table talk and the evening: who may react or say what, its rate, the room's last lines,
and the room's finished games.

The room's ``talk`` setting (`protocol.TalkSetting`) says who may talk, from the most to
the least: ``all`` (everyone sends messages and reactions), ``players`` (the default:
seated players, out players too, send both; spectators react), ``reactions`` (everyone
reacts, nobody writes), ``off`` (nobody does either). A room asks for its setting when
it is created; the server's ``--talk`` is the most any room gets (`clamp`: a room that
asks for more gets the server's, and ``state.talk_setting`` says so; a server started
later with a lower ``--talk`` lowers every stored room's, the stored setting is kept).

Each address (an IPv6 /64 counts as one) has a bucket for its messages and one for its
reactions in each room, shared by all its connections there (`TalkSettings`,
`TalkBuckets`): past it, a ``rate_limited`` error and nothing else; the connection
stays open (the transport's own message rate still applies, and closes with 4001). The
room keeps the last `protocol.MAX_TALK` lines (stored: a restart and a late joiner see
them) and the last `protocol.MAX_EVENING` finished games; nothing of the talk is ever
written to the log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol import (
    MAX_EVENING,
    MAX_TALK,
    ErrorCode,
    EveningGame,
    Reacted,
    Reaction,
    Said,
    TalkLine,
    TalkSetting,
    Termination,
)
from protocol.names import visible
from server.core.budgets import TokenBucket
from server.core.refusals import Refusal
from server.core.room.records import EveningRecord, TalkRecord

__all__ = [
    "TalkBuckets",
    "TalkSettings",
    "clamp",
    "evening_wire",
    "invisible_refusal",
    "talk_line",
    "talk_message",
    "talk_refusal",
    "talk_wire",
    "with_game",
    "with_line",
]

_RANK = {TalkSetting.OFF: 0, TalkSetting.REACTIONS: 1, TalkSetting.PLAYERS: 2, TalkSetting.ALL: 3}


def clamp(asked: TalkSetting, most: TalkSetting) -> TalkSetting:
    """``asked``, or ``most`` if it allows less."""
    return asked if _RANK[asked] <= _RANK[most] else most


def invisible_refusal(text: str) -> Refusal | None:
    """The refusal of a ``say`` whose ``text`` shows no character (only U+3164, U+2800,
    U+115F, combining marks, …: `protocol.names.visible`), or None."""
    if visible(text):
        return None
    return Refusal(ErrorCode.BAD_VALUE, "say.text must show at least one visible character")


def talk_refusal(setting: TalkSetting, *, say: bool, seated: bool) -> Refusal | None:
    """The refusal of a ``say`` (``say``) or a ``react`` from a seat (``seated``) or a
    spectator under ``setting``, or None: it may."""
    if setting is TalkSetting.OFF:
        why = "talk is off in this room"
    elif not say:
        return None
    elif setting is TalkSetting.REACTIONS:
        why = "this room allows reactions only"
    elif setting is TalkSetting.PLAYERS and not seated:
        why = "in this room only the players write; spectators react"
    else:
        return None
    command = "say" if say else "react"
    return Refusal(ErrorCode.TALK_NOT_ALLOWED, f"cannot {command}: {why}")


@dataclass(frozen=True, slots=True)
class TalkSettings:
    """The rates of one connection's talk: messages (``say``) and reactions, each a
    token bucket of ``*_rate`` a second up to ``*_burst``."""

    say_rate: float
    say_burst: float
    react_rate: float
    react_burst: float


class TalkBuckets:
    """Each address's two buckets in a room (`server.core.budgets.address_key`: however
    many connections it opens, one address has one share of the room's talk). Made at
    its first talk; forgotten once the address has no connection in the room and its
    buckets are full again (forgetting them then gives nothing back: a reconnection
    finds the same tokens it left)."""

    def __init__(self, settings: TalkSettings) -> None:
        self._settings = settings
        self._buckets: dict[str, tuple[TokenBucket, TokenBucket]] = {}

    def refusal(self, address: str, *, say: bool, now: float) -> Refusal | None:
        """Take a token of ``address``'s bucket for a ``say`` or a ``react``; the refusal
        (``rate_limited``) if there is none."""
        buckets = self._buckets.get(address)
        if buckets is None:
            rates = self._settings
            buckets = self._buckets[address] = (
                TokenBucket(rates.say_rate, rates.say_burst, now),
                TokenBucket(rates.react_rate, rates.react_burst, now),
            )
        bucket = buckets[0] if say else buckets[1]
        if bucket.take(now):
            return None
        kind = "messages" if say else "reactions"
        wait = bucket.wait(now)
        return Refusal(ErrorCode.RATE_LIMITED, f"too many {kind}: wait {wait:.1f} s")

    def sweep(self, present: Callable[[str], bool], now: float) -> None:
        """Forget the buckets of the addresses not ``present`` whose buckets are full."""
        gone = [
            address
            for address, (says, reacts) in self._buckets.items()
            if not present(address)
            and says.tokens(now) >= says.burst
            and reacts.tokens(now) >= reacts.burst
        ]
        for address in gone:
            del self._buckets[address]

    def __len__(self) -> int:
        return len(self._buckets)


def with_line(talk: tuple[TalkRecord, ...], line: TalkRecord) -> tuple[TalkRecord, ...]:
    """``talk`` with ``line`` added last, the oldest dropped past `protocol.MAX_TALK`."""
    lines = (*talk, line)
    return lines[-MAX_TALK:]


def talk_line(
    seq: int, now: float, seat: int | None, text: str | None, reaction: Reaction | None
) -> TalkRecord:
    """The record of a message (``text``) or a reaction sent with ``seq`` at ``now``."""
    return TalkRecord(seq, now, seat, text, None if reaction is None else reaction.value)


def talk_wire(talk: tuple[TalkRecord, ...]) -> tuple[TalkLine, ...]:
    """The room's talk as ``state.talk`` shows it."""
    return tuple(
        TalkLine(
            seat=line.seat,
            text=line.text,
            reaction=None if line.reaction is None else Reaction(line.reaction),
        )
        for line in talk
    )


def talk_message(line: TalkRecord) -> Said | Reacted:
    """The room message that announced ``line``."""
    if line.text is not None:
        return Said(seq=line.seq, seat=line.seat, text=line.text)
    assert line.reaction is not None
    return Reacted(seq=line.seq, seat=line.seat, reaction=Reaction(line.reaction))


def with_game(
    evening: tuple[EveningRecord, ...], entry: EveningRecord
) -> tuple[EveningRecord, ...]:
    """``evening`` with ``entry`` added last (unless that game is there already), the
    oldest dropped past `protocol.MAX_EVENING`."""
    if evening and evening[-1].game >= entry.game:
        return evening
    return (*evening, entry)[-MAX_EVENING:]


def evening_wire(evening: tuple[EveningRecord, ...]) -> tuple[EveningGame, ...]:
    """The room's evening as ``state.evening`` and ``game_over.evening`` show it."""
    return tuple(
        EveningGame(
            game=entry.game,
            deal=entry.deal,
            winner=entry.winner,
            termination=Termination(entry.termination),
            rounds=entry.rounds,
            names=entry.names,
        )
        for entry in evening
    )

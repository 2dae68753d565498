"""A room's talk and evening as rows of their own (``talk``, ``evening``: schema 7).

Talk arrives often, so a message or a reaction is one ``INSERT`` of a small row, never a
rewrite of the room's row: the room's ``seq`` and ``last_active`` are those of its newest
talk row when they are newer than the room row's (`TalkRows.room_seq`), so a change that
is only talk (`talk_only`) leaves the room row alone. The window of the last 50 is kept by
one ``DELETE`` of the rows older than the oldest kept line, only when lines were dropped.
The evening is one ``INSERT`` per finished game (and a ``DELETE`` past 100).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

from protocol import Reaction, Termination
from server.core.room.records import EveningRecord, RoomRecord, TalkRecord

__all__ = ["TalkRows", "talk_only", "talk_statements"]

Statement = tuple[str, tuple[object, ...], str | None]

_INSERT_TALK = "INSERT INTO talk (room_id, seq, at, seat, text, reaction) VALUES (?, ?, ?, ?, ?, ?)"
_DROP_TALK = "DELETE FROM talk WHERE room_id = ? AND seq < ?"
_INSERT_GAME = (
    "INSERT INTO evening (room_id, game, deal, winner, termination, rounds, names) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_DROP_GAMES = "DELETE FROM evening WHERE room_id = ? AND game < ?"


def talk_only(record: RoomRecord, before: RoomRecord) -> bool:
    """Whether ``record`` differs from ``before`` only by new talk (and the ``seq`` and
    ``last_active`` that came with it): the room row need not be written."""
    return (
        record.talk is not before.talk
        and bool(record.talk)
        and record.seq == record.talk[-1].seq
        and (record.game is before.game or record.game == before.game)
        and record.evening == before.evening
    )


def talk_statements(record: RoomRecord, before: RoomRecord | None) -> list[Statement]:
    """The statements that take the stored talk and evening of ``before`` (None: a new
    room) to ``record``'s."""
    room_id = record.room_id
    statements: list[Statement] = []
    old_talk = () if before is None else before.talk
    if record.talk is not old_talk:
        newest = old_talk[-1].seq if old_talk else -1
        statements += [
            (_INSERT_TALK, (room_id, t.seq, t.at, t.seat, t.text, t.reaction), None)
            for t in record.talk
            if t.seq > newest
        ]
        if old_talk and record.talk and old_talk[0].seq < record.talk[0].seq:
            statements.append((_DROP_TALK, (room_id, record.talk[0].seq), None))
    old_evening = () if before is None else before.evening
    if record.evening is not old_evening and record.evening != old_evening:
        last = old_evening[-1].game if old_evening else 0
        statements += [
            (_INSERT_GAME, _game_row(room_id, g), None) for g in record.evening if g.game > last
        ]
        if old_evening and record.evening and old_evening[0].game < record.evening[0].game:
            statements.append((_DROP_GAMES, (room_id, record.evening[0].game), None))
    return statements


def _game_row(room_id: str, game: EveningRecord) -> tuple[object, ...]:
    return (
        room_id,
        game.game,
        str(game.deal),
        game.winner,
        game.termination,
        game.rounds,
        json.dumps(list(game.names)),
    )


class TalkRows:
    """Every room's stored talk and evening, read once when the store is loaded."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.talk: dict[str, list[TalkRecord]] = {}
        self._evening: dict[str, list[list[object]]] = {}
        for room_id, seq, at, seat, text, reaction in db.execute(
            "SELECT room_id, seq, at, seat, text, reaction FROM talk ORDER BY room_id, seq"
        ):
            self.talk.setdefault(room_id, []).append(TalkRecord(seq, at, seat, text, reaction))
        for room_id, *row in db.execute(
            "SELECT room_id, game, deal, winner, termination, rounds, names FROM evening "
            "ORDER BY room_id, game"
        ):
            self._evening.setdefault(room_id, []).append(row)

    def of(self, room_id: str) -> tuple[tuple[TalkRecord, ...], tuple[EveningRecord, ...]]:
        """The talk and the evening of ``room_id``. Raises ValueError (or TypeError) for
        a row that does not parse."""
        lines = tuple(self.talk.get(room_id, ()))
        for line in lines:
            if (line.text is None) == (line.reaction is None):
                raise ValueError(f"talk line {line.seq} has a text or a reaction, one of them")
            if line.reaction is not None:
                Reaction(line.reaction)  # raises ValueError for an unknown reaction
        return lines, tuple(_games(self._evening.get(room_id, [])))

    def room_seq(self, room_id: str, seq: int, last_active: float) -> tuple[int, float]:
        """The room's ``seq`` and ``last_active``: its row's, or its newest talk's."""
        lines = self.talk.get(room_id)
        if not lines:
            return seq, last_active
        return max(seq, lines[-1].seq), max(last_active, lines[-1].at)


def _games(rows: list[list[object]]) -> Iterator[EveningRecord]:
    for game, deal, winner, termination, rounds, names in rows:
        seats = json.loads(str(names))
        if not isinstance(seats, list) or not all(n is None or isinstance(n, str) for n in seats):
            raise ValueError(f"evening names {names!r} are not a list of names")
        Termination(str(termination))  # raises ValueError for an unknown termination
        yield EveningRecord(
            int(str(game)),
            int(str(deal)),
            None if winner is None else int(str(winner)),
            str(termination),
            int(str(rounds)),
            tuple(seats),
        )

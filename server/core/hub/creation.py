"""Room creation: the record of a new room, from a ``create_room``.

Seat 0 is the creator's (with the hash of a fresh token), then the open seats for the
people to come, then the computer's seats (named "Computer", or "Computer 1", "Computer
2"…). The deal is the one asked for (then it is revealed from the start: a family
replaying a deal) or one the server picks fairly (`server.core.room.fairdeal`: its seed is
drawn and committed now, the deal derived when the first cards are turned), kept secret
until the game ends. Its talk setting is the one asked for, lowered to the server's
``--talk`` (`server.core.room.talk.clamp`). The room id and
both codes are fresh (`server.core.hub.directory.Directory`).
"""

from __future__ import annotations

from collections.abc import Collection

from protocol import CreateRoom, ErrorCode
from server.core.codes import RandomSource, hash_token, new_deal, new_token
from server.core.hub.directory import Directory
from server.core.refusals import Refusal
from server.core.room.fairdeal import new_fair
from server.core.room.naming import name_refusal
from server.core.room.records import GameRecord, RoomRecord, SeatRecord
from server.core.room.wire import engine_rules

__all__ = ["new_room"]


def new_room(
    message: CreateRoom,
    now: float,
    *,
    directory: Directory,
    random: RandomSource,
    in_flight: Collection[str],
) -> tuple[RoomRecord, str] | Refusal:
    """The record of the room ``message`` asks for, created at ``now``, and the creator's
    token; or the `Refusal` of settings the rules do not allow (``bad_value``). The room
    id is one the directory does not know and not one ``in_flight`` (deleted since the
    last commit: the store may hold it still). The room
    gets the talk setting ``message`` asks for (the hub lowered it to the server's)."""
    try:
        message.validate()  # the codec did; a hub called directly must be as strict
        rules = engine_rules(message.rules)
    except ValueError as error:  # RulesError is a ValueError
        return Refusal(ErrorCode.BAD_VALUE, str(error))
    refused = name_refusal(message.name)
    if refused is not None:
        return refused
    token = new_token(random)
    seats = [SeatRecord(message.name, hash_token(token))]
    seats += [SeatRecord() for _ in range(1, rules.players - message.computers)]
    for number in range(1, message.computers + 1):
        name = "Computer" if message.computers == 1 else f"Computer {number}"
        seats.append(SeatRecord(name, None, computer=True))
    revealed = message.deal is not None
    deal = message.deal if message.deal is not None else new_deal(random)
    player_code = directory.fresh_code(random)
    room_id = directory.fresh_id(random, in_flight)  # drawn in this order since 0.1
    watch_code = directory.fresh_code(random, other_than=player_code)
    fair = None  # a chosen deal claims nothing; a deal the server picks is committed now
    if not revealed:
        commitments = [message.seed_commitment, *([None] * (rules.players - 1))]
        fair = new_fair(random, commitments)
    record = RoomRecord(
        room_id=room_id,
        player_code=player_code,
        watch_code=watch_code,
        rules=rules,
        minutes=message.minutes,
        seats=tuple(seats),
        game=GameRecord(number=1, deal=deal, revealed=revealed, fair=fair),
        created=now,
        last_active=now,
        talk_setting=message.talk.value,
    )
    return record, token

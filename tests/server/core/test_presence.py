"""A seat's presence is a small table (`server.core.room.seats.MOVES`): each move it holds
is made, any other is refused, and only the seats module moves a presence."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from server.core.room.records import SeatRecord
from server.core.room.seats import MOVES, BadMoveError, Move, Presence, Seats, moved

ROOT = Path(__file__).resolve().parents[3]

EXPECTED = {
    (Presence.OPEN, Move.TAKEN): Presence.AWAY,
    (Presence.AWAY, Move.ARRIVED): Presence.PRESENT,
    (Presence.PLAYED_AWAY, Move.ARRIVED): Presence.RETURNING,
    (Presence.PRESENT, Move.ARRIVED): Presence.PRESENT,
    (Presence.AWAY, Move.TAKEN_OVER): Presence.PRESENT,
    (Presence.PLAYED_AWAY, Move.TAKEN_OVER): Presence.RETURNING,
    (Presence.RETURNING, Move.HANDED_BACK): Presence.PRESENT,
    (Presence.PRESENT, Move.DROPPED): Presence.AWAY,
    (Presence.RETURNING, Move.DROPPED): Presence.PLAYED_AWAY,
    (Presence.AWAY, Move.AWAY_TIMEOUT): Presence.PLAYED_AWAY,
    (Presence.PRESENT, Move.LEFT_BEFORE_START): Presence.OPEN,
    (Presence.PRESENT, Move.LEFT): Presence.COMPUTER,
}


def test_the_table_holds_exactly_the_moves_a_seat_makes() -> None:
    assert MOVES == EXPECTED


@pytest.mark.parametrize(("before", "move"), sorted(EXPECTED, key=str))
def test_each_allowed_move(before: Presence, move: Move) -> None:
    assert moved(before, move) is EXPECTED[(before, move)]


REFUSED = [(before, move) for before in Presence for move in Move if (before, move) not in EXPECTED]


@pytest.mark.parametrize(("before", "move"), REFUSED, ids=str)
def test_every_other_move_is_refused(before: Presence, move: Move) -> None:
    with pytest.raises(BadMoveError):
        moved(before, move)


def test_a_computer_seat_cannot_arrive_and_an_open_seat_cannot_be_dropped() -> None:
    seats = Seats((SeatRecord("Ann", "h"), SeatRecord("Bot", computer=True), SeatRecord()))
    assert [seat.presence for seat in seats] == [
        Presence.AWAY,
        Presence.COMPUTER,
        Presence.OPEN,
    ]
    with pytest.raises(BadMoveError):
        seats.arrive(1, 7)
    with pytest.raises(BadMoveError):
        seats.drop(2, 0.0, None)
    assert seats[1].conn is None and seats[2].presence is Presence.OPEN


def test_a_returning_player_is_still_played_for_until_handed_back() -> None:
    """The order the messages rely on: attached first, the welcome shows the calm pace,
    then the server says it stops."""
    seats = Seats((SeatRecord("Ann", "h"), SeatRecord("Ben", "i")))
    seats.arrive(0, 1)
    seats.drop(0, 5.0, 125.0)
    assert seats[0].away and seats[0].away_since == 5.0 and seats[0].away_deadline == 125.0
    seats.time_out(0)
    assert seats[0].away_play and seats.paced
    seats.arrive(0, 2)
    assert seats[0].conn == 2 and seats[0].away_play and seats[0].away_deadline is None
    assert seats.hand_back(0) is True
    assert not seats[0].away_play and not seats.paced
    assert seats.hand_back(0) is False


def test_leaving_opens_the_seat_or_hands_it_to_the_computer() -> None:
    seats = Seats((SeatRecord("Ann", "h"), SeatRecord("Ben", "i")))
    seats.arrive(0, 1)
    seats.arrive(1, 2)
    seats.leave(0, started=False)
    assert seats[0].presence is Presence.OPEN and seats[0].record == SeatRecord()
    seats.leave(1, started=True)
    assert seats[1].computer and seats[1].record.left and seats[1].record.token_hash is None
    assert seats.connections == () and seats.abandoned


SEAT_STATE = {"presence", "away_play", "human", "computer", "conn"}


def _assigned_attributes(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        while targets:
            target = targets.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                targets += target.elts
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            elif isinstance(target, ast.Attribute):  # ``seat.presence = …``
                names.add(target.attr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                names.add(name.value)
    return names


def test_no_module_outside_seats_assigns_a_seats_presence() -> None:
    room = ROOT / "server" / "core"
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            _assigned_attributes(ast.parse(path.read_text())) & SEAT_STATE
        )
        for path in room.rglob("*.py")
        if path.name != "seats.py"
    }
    assert {path: names for path, names in offenders.items() if names} == {}

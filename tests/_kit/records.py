"""Game records as ``war-client --json`` prints them, made from the engine, for the tests of
the fair-deal check (`protocol.record`, ``war-sim verify``).

`game_record` plays a deal the way a server offering fair deals would show it to one
viewer: a ``welcome`` whose state carries the rules and the ``deal_commitment``, the
``game_started``, every game event of every step (through `server.core.room.wire`, the one
mapping from engine events to messages), and a ``game_over`` revealing the seeds in
``fairness``; each line is the JSON `client.lines.message_json` prints, with the fair-deal
fields added where the wire will carry them. Tests change lines of it to play a server
that cheats.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from client.lines import message_json
from protocol import GameStarted, RoomPhase, RoomState, SeatState, TimeUp, Welcome
from protocol.fairness import commitment, derive_deal
from server import engine
from server.core.room.wire import event_message, game_over_message, rules_spec

__all__ = ["Table", "edit", "game_record"]


@dataclass(frozen=True, slots=True)
class Table:
    """Who sits where: each seat's 32-byte seed (``None``: the computer, no seed)."""

    rules: engine.Rules
    server_seed: bytes
    seeds: tuple[bytes | None, ...]

    @property
    def deal(self) -> int:
        return derive_deal(self.server_seed, self.rules.to_dict(), self.seeds)


def _merge(body: dict[str, Any], fields: dict[str, Any]) -> None:
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            _merge(body[key], value)
        else:
            body[key] = value


def _line(message: Any, **fields: Any) -> str:
    """``message`` as ``war-client --json`` prints it, with ``fields`` merged in."""
    body = json.loads(message_json(message))
    _merge(body, fields)
    return json.dumps(body, separators=(",", ":"))


def _state(table: Table, step: int, number: int, phase: RoomPhase = RoomPhase.PLAYING) -> RoomState:
    players = table.rules.players
    return RoomState(
        room="r8k2fair00",
        phase=phase,
        rules=rules_spec(table.rules),
        seats=tuple(
            SeatState(
                seat=s,
                name=f"P{s}",
                connected=True,
                seed_commitment=None if seed is None else commitment(seed),
            )
            for s, seed in zip(range(players), table.seeds, strict=True)
        ),
        game=number,
        step=step,
    )


def game_record(
    table: Table,
    *,
    seat: int | None = 0,
    number: int = 1,
    join_at: int = 0,
    finish_at: int | None = None,
    stop_at: int | None = None,
    seq: int = 1,
) -> list[str]:
    """The lines one viewer's ``war-client --json`` prints for one game of ``table``.

    ``seat``: the viewer's (``None``: a spectator); ``join_at``: the step they join at (no
    events before it); ``finish_at``: a finish vote plays the rest out after that step;
    ``stop_at``: the time limit is reached after that step (``time_up``).
    """
    rules = table.rules
    deal_commitment = commitment(table.server_seed)
    taken_back = {"rules": {"taken_back": rules.taken_back.value}}
    game = engine.Game(rules, table.deal)
    lines: list[str] = []
    seats = [None if s is None else commitment(s) for s in table.seeds]
    if join_at == 0:
        waiting = _state(table, 0, number, RoomPhase.WAITING)  # before the start
        welcome = Welcome(seq=seq, seat=seat, state=waiting)
        lines.append(_line(welcome, state={**taken_back, "deal_commitment": deal_commitment}))
        seq += 1
        started = GameStarted(seq=seq, game=number, counts=game.counts)
        lines.append(_line(started, deal_commitment=deal_commitment, seed_commitments=seats))
    while game.outcome is None:
        if game.steps == finish_at:
            game.finish()
            break
        events = game.step()
        if game.steps == stop_at and game.outcome is None:
            events += game.stop_by_time()
        if game.steps < join_at:
            continue
        if game.steps == join_at:
            welcome = Welcome(seq=seq, seat=seat, state=_state(table, join_at, number))
            lines.append(_line(welcome, state={**taken_back, "deal_commitment": deal_commitment}))
            continue
        for event in events:
            if isinstance(event, engine.GameOver):
                break
            seq += 1  # every room message takes the next seq: none is skipped
            lines.append(_line(event_message(event, game, seq)))
        if game.steps == stop_at:
            seq += 1
            lines.append(_line(TimeUp(seq=seq)))
    seq += 1
    revealed = [None if s is None else s.hex() for s in table.seeds]
    fairness = {"server_seed": table.server_seed.hex(), "seeds": revealed}
    lines.append(_line(game_over_message(game, seq), fairness=fairness))
    return lines


def edit(lines: Sequence[str], index: int, change: Any) -> list[str]:
    """``lines`` with line ``index`` (negative counts from the end) parsed, passed to
    ``change`` (which edits the object in place) and written back."""
    out = list(lines)
    body = json.loads(out[index])
    change(body)
    out[index] = json.dumps(body)
    return out

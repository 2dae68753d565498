"""Reading a game record: the JSON lines ``war-client --json`` prints, game by game.

``war-client --json`` writes every server message it receives as one JSON object per
line (``{"type": "cards_turned", "seq": 7, ...}``, the seat token hidden). `read_record`
reads such lines as hostile input: each must be one JSON object (no NaN, no duplicate key,
at most `MAX_LINE_CHARS` characters) of a server message type, and every field the
protocol defines is checked exactly as the codec checks it on the wire (its unknown fields
are ignored, as a client ignores them). Anything else raises `RecordError` naming the line;
nothing else escapes.

It returns one `RecordedGame` per game the viewer saw, with what the fairness check needs
(docs/fairness.md): what was *pinned* at the game's start (the rules, the deal
commitment, each seat's commitment) and the first later difference from it, the voids,
the flips, takes, face-down cards, wars, outs and end shown, the steps the viewer saw
*whole*, and what the server revealed at game over.

The steps seen whole follow the ``seq`` numbers as a client's view does (PROTOCOL.md §5):
a room message with a ``seq`` already seen is a repeat, and is not read; after a ``seq``
gap nothing is read until the ``snapshot`` that answers the ``resync``. Only a ``welcome``
— a new connection — whose ``seq`` is past the last one seen excuses the steps between
(the viewer was away, or joined late); the last step seen before it may have been cut off
too. A gap inside one connection excuses nothing: an honest server never makes one (it
closes a connection it cannot keep up with), so the steps a server skipped while the
viewer was connected stay in the stretch it saw whole, and the check finds them missing.
A client reading live (`RecordReader.connected`) counts a ``welcome`` as a new connection
only when it is the first message of one. A client
feeding it live messages gives each one's arrival time, so that a ``time_up`` too early
is found too. The fair-deal fields (``deal_commitment`` in
``game_started`` and in ``state``, ``seed_commitment`` in a seat record, ``fairness`` in
``game_over``) are read from the raw objects, so a record is read the same whether or not
the protocol's message classes name them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Final

from protocol._schema import RecordConverter
from protocol.cards import RANKS, SUITS
from protocol.errors import ProtocolError
from protocol.fairness import FairnessError, Finding, parse_commitment, parse_seed
from protocol.messages import (
    SERVER_MESSAGE_TYPES,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    DealVoided,
    GameOver,
    GameStarted,
    PlayerOut,
    RoomInfo,
    Snapshot,
    TimeUp,
    WarDeclared,
    Welcome,
)
from protocol.seat_requests import SeatRequestWaiting
from protocol.state import RoomState

__all__ = [
    "MAX_LINE_CHARS",
    "TIME_SLACK",
    "RecordError",
    "RecordReader",
    "RecordedGame",
    "read_record",
]

MAX_LINE_CHARS: Final = 1 << 20
"""The longest line read (a server message is at most 64 KiB of msgpack)."""

TIME_SLACK: Final = 5.0
"""Seconds a ``time_up`` may come before the time limit by this client's clock: the
message that started the clock (or told what was left of it) took time to arrive."""

_CONVERTERS = {
    tag: RecordConverter(cls, reject_unknown=False, tag=tag)
    for tag, cls in SERVER_MESSAGE_TYPES.items()
}


class RecordError(ValueError):
    """A game record that cannot be read; the message names the line and the problem."""


@dataclass(slots=True)
class RecordedGame:
    """One game as a viewer saw it.

    ``number``: the game's number in the room; ``rules``: every setting, as
    `protocol.fairness.rules_text` reads them; ``seat``: the viewer's seat (``None`` for a
    spectator); ``first_step``: the step the viewer first saw the game at (0 from the
    start); ``deal_commitment`` (hex) and ``seed_commitments`` (one per seat, hex or
    ``None``) as shown, ``None`` when never shown; ``shown_deal``: the deal shown from the
    start (chosen by the creator, or the same deal again: nothing to prove); ``flips``,
    ``takes``, ``laid``, ``wars``, ``outs``: the ``cards_turned``, ``cards_taken``,
    ``cards_laid_down``, ``war_declared`` and ``player_out`` messages, in the order
    received; ``runs``: the stretches of steps ``(first, last)`` the viewer saw whole and
    that are closed (`seen_whole` adds the open one);
    ``time_up``: whether the time limit was announced; ``end``: the ``game_over``;
    ``server_seed`` and ``seeds``: what it revealed (``fairness``), hex or ``None``.

    What is *pinned* (docs/fairness.md, "Pinned at the start"): ``pinned`` once the game's
    ``game_started`` (or the first state of the game past ``waiting``) fixed the deal
    commitment, every seat's commitment (``seed_commitments``: ``None`` when the table was
    never shown them) and the rules; ``broken``: the first later difference, a `Finding`
    (``commitment_changed``, ``seat_commitment_changed`` with ``seat``, ``rules_changed``,
    ``time_up_early``), found when it was shown; ``voids``: deals of this game voided
    (``deal_voided``: the pin starts again at the next ``game_started``); ``deadline``:
    when the time limit runs out by this client's clock, as told (``game_started`` plus
    the limit, or a state's ``seconds_left``: each arrives late by the network's delay,
    hence `TIME_SLACK`); ``None``: no limit, or no clock given.
    """

    number: int
    rules: dict[str, object]
    seat: int | None
    first_step: int
    deal_commitment: str | None = None
    seed_commitments: tuple[str | None, ...] | None = None
    shown_deal: int | None = None
    flips: list[CardsTurned] = field(default_factory=list)
    takes: list[CardsTaken] = field(default_factory=list)
    laid: list[CardsLaidDown] = field(default_factory=list)
    wars: list[WarDeclared] = field(default_factory=list)
    outs: list[PlayerOut] = field(default_factory=list)
    runs: list[tuple[int, int]] = field(default_factory=list)
    run_from: int | None = None
    """The first step of the stretch being seen whole now (None: none open)."""
    run_last: int = 0
    """The last step shown in that stretch."""
    time_up: bool = False
    end: GameOver | None = None
    server_seed: str | None = None
    seeds: tuple[str | None, ...] | None = None
    pinned: bool = False
    broken: Finding | None = None
    voids: int = 0
    deadline: float | None = None
    voided_by: list[int | None] = field(default_factory=list)

    def differs(self, finding: Finding) -> None:
        """Note ``finding``, a difference from what was pinned (the first one stays)."""
        if self.broken is None:
            self.broken = finding

    def open_run(self, first: int) -> None:
        """Steps from ``first`` on are seen whole (a stretch open already goes on)."""
        if self.run_from is None:
            self.run_from, self.run_last = first, first - 1

    def close_run(self, *, cut: bool) -> None:
        """The stretch being seen whole ends (``cut``: by a lost connection, so its last
        step shown may have been cut off)."""
        if self.run_from is not None:
            last = self.run_last - 1 if cut else self.run_last
            if last >= self.run_from:
                self.runs.append((self.run_from, last))
        self.run_from = None

    def seen_whole(self) -> tuple[tuple[int, int], ...]:
        """Every stretch of steps seen whole: the closed ones, and the open one up to the
        last step shown (all of it once the game is over; else the last step may still
        be arriving)."""
        runs = list(self.runs)
        if self.run_from is not None:
            last = self.run_last if self.end is not None else self.run_last - 1
            if last >= self.run_from:
                runs.append((self.run_from, last))
        return tuple(runs)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice")
        result[key] = value
    return result


def _parse_line(text: str) -> dict[str, Any]:
    if len(text) > MAX_LINE_CHARS:
        raise RecordError(f"a line of {len(text):,} characters (at most {MAX_LINE_CHARS:,})")
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique)
    except (ValueError, RecursionError) as error:
        raise RecordError(f"not one JSON object: {str(error)[:120]}") from None
    if type(value) is not dict:
        raise RecordError(f"a message must be a JSON object, not {type(value).__name__}")
    return value


def _message(value: dict[str, Any]) -> Any:
    tag = value.get("type")
    if not isinstance(tag, str) or tag not in _CONVERTERS:
        raise RecordError(f"not a server message type: {str(tag)[:40]!r}")
    converter = _CONVERTERS[tag]
    if tag == "welcome" and value.get("token") is not None:
        value = {**value, "token": None}  # hidden by war-client: "<hidden>"
    try:
        return converter.decode(value, tag)
    except ProtocolError as error:
        raise RecordError(str(error)) from None


def _plain(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def _rules(state: RoomState) -> dict[str, object]:
    """Every setting of the state's rules (checked by the codec) and the wire's deck (13
    ranks, 4 suits)."""
    rules = {f.name: _plain(getattr(state.rules, f.name)) for f in fields(state.rules)}
    rules["ranks"], rules["suits"] = len(RANKS), len(SUITS)
    return rules


def _hex_list(value: object, what: str, players: int) -> tuple[str | None, ...]:
    if type(value) is not list or len(value) != players:
        raise RecordError(f"{what} must be a list of {players} (hex or null)")
    out: list[str | None] = []
    for seat, item in enumerate(value):
        if item is None:
            out.append(None)
            continue
        try:
            out.append(parse_seed(item, f"{what}[{seat}]").hex())
        except FairnessError as error:
            raise RecordError(str(error)) from None
    return tuple(out)


def _commitment(value: object, what: str) -> str | None:
    if value is None:
        return None
    try:
        return parse_commitment(value, what)
    except FairnessError as error:
        raise RecordError(str(error)) from None


def _commitments(values: list[Any], what: str) -> tuple[str | None, ...]:
    return tuple(_commitment(value, f"{what}[{i}]") for i, value in enumerate(values))


def _pin(
    game: RecordedGame,
    deal_commitment: str | None,
    seed_commitments: tuple[str | None, ...] | None,
    rules: dict[str, object],
) -> None:
    """Pin what the game shows now, or compare it with what was pinned: a difference is
    noted at once (`RecordedGame.differs`); the pin never moves."""
    if not game.pinned:
        game.pinned = True
        game.deal_commitment, game.seed_commitments = deal_commitment, seed_commitments
        game.rules = rules
        return
    if deal_commitment != game.deal_commitment:
        game.differs(Finding("commitment_changed"))
    elif rules != game.rules:
        game.differs(Finding("rules_changed"))
    elif seed_commitments != game.seed_commitments:
        pinned, shown = game.seed_commitments or (), seed_commitments or ()
        seats = min(len(pinned), len(shown))
        seat = next((i for i in range(seats) if pinned[i] != shown[i]), seats)
        game.differs(Finding("seat_commitment_changed", {"seat": seat}))


def _at(values: tuple[int, ...], index: int) -> int:
    return values[index] if index < len(values) else 0


class RecordReader:
    """Follows the messages of a record, game by game (`read_record` reads a file with
    one; a client feeds it each message it receives, `line`, to check at game over)."""

    def __init__(self) -> None:
        self.games: dict[int, RecordedGame] = {}
        self.current: RecordedGame | None = None
        self.rules: dict[str, object] | None = None
        self.seat: int | None = None
        self.minutes: int | None = None
        self.voids: tuple[int, ...] = ()
        """Each seat's voids this evening, as last told (a state, a ``deal_voided``)."""
        self.last_seq: int | None = None
        """The last room message's ``seq`` read (a client's ``last_seq``)."""
        self.gap = False
        """A ``seq`` gap inside a connection: nothing is read until a snapshot."""
        self.live = False
        self.fresh = False

    def connected(self) -> None:
        """A live client opened a new connection: its first message, a ``welcome``, may
        excuse the steps missed meanwhile (once `connected` was called, a ``welcome``
        that is not a connection's first message excuses nothing)."""
        self.live = self.fresh = True

    def game(self, number: int, first_step: int) -> RecordedGame:
        if self.rules is None:
            raise RecordError("a game message before any welcome (the record lacks the rules)")
        game = self.games.get(number)
        if game is None:
            game = RecordedGame(number, dict(self.rules), self.seat, first_step)
            self.games[number] = game
        game.first_step = min(game.first_step, first_step)
        self.current = game
        return game

    def line(self, text: str, at: float | None = None) -> RecordedGame | None:
        """Follow one line of the record (one JSON message; ``at``: when it was received);
        the game it belongs to, if any. Raises `RecordError` for a line that is not a
        valid server message."""
        raw = _parse_line(text)
        self.follow(_message(raw), raw, at)
        return self.current

    def follow(self, message: object, raw: dict[str, Any], at: float | None = None) -> None:
        """Follow one message (``at``: when this client received it, in seconds of a
        monotonic clock; a record read from a file has none, and its ``time_up`` is not
        timed)."""
        fresh, self.fresh = self.fresh, False
        if not self.in_order(message, fresh=fresh):
            return
        match message:
            case Welcome(seat=seat, state=state):
                self.seat = seat
                self.room(state, raw["state"], at)
            case Snapshot(state=state):
                self.room(state, raw["state"], at)
            case GameStarted(game=number, deal=deal):
                game = self.game(number, 0)
                game.close_run(cut=False)
                game.open_run(1)
                game.shown_deal = deal
                committed = _commitment(raw.get("deal_commitment"), "game_started.deal_commitment")
                seats = raw.get("seed_commitments")
                shown = None
                if isinstance(seats, list) and seats:
                    shown = _commitments(seats, "game_started.seed_commitments")
                assert self.rules is not None
                _pin(game, committed, shown, self.rules)
                if self.minutes is not None and at is not None and game.deadline is None:
                    game.deadline = at + self.minutes * 60.0  # the clock starts now
            case (
                CardsTurned()
                | CardsTaken()
                | CardsLaidDown()
                | WarDeclared()
                | PlayerOut()
                | CardsReturned()
                | TimeUp()
                | GameOver()
            ):
                self.event(message, raw, at)
            case DealVoided(seat=seat, voids=count):
                self.voided(seat)
                players = self.current.rules["players"] if self.current is not None else 0
                kept = list(self.voids) or [0] * (players if isinstance(players, int) else 0)
                if seat < len(kept):
                    kept[seat] = count
                    self.voids = tuple(kept)
            case _:
                pass  # room changes: nothing the fairness check reads

    def in_order(self, message: object, *, fresh: bool) -> bool:
        """Whether ``message`` is read, by its ``seq`` as a client's view applies it; a
        ``welcome`` that shows messages missed (a new connection's) ends the stretch seen
        whole, cut."""
        seq = getattr(message, "seq", None)
        if isinstance(message, Welcome):
            missed = self.last_seq is not None and message.seq > self.last_seq
            if missed and (fresh or not self.live) and self.current is not None:
                self.current.close_run(cut=self.current.end is None)
        if not isinstance(seq, int) or isinstance(message, SeatRequestWaiting | RoomInfo):
            return True  # error (no seq), or to one connection: not a room message
        if isinstance(message, Welcome | Snapshot) or self.last_seq is None:
            self.last_seq, self.gap = seq, False  # a state: the view starts again from it
            return True
        if seq > self.last_seq + 1:
            self.gap = True  # the view asks for a snapshot; this connection missed nothing
        read = not self.gap and seq == self.last_seq + 1  # else a repeat, or past a gap
        if read:
            self.last_seq = seq
        return read

    def voided(self, seat: int | None) -> None:
        """``deal_voided`` (``seat``: the seat it names; None: a void this client missed,
        told by a state's ``voids``): the current game's deal is void before any card;
        its next ``game_started`` (or state of the fresh deal) pins a fresh one."""
        game = self.current
        if game is None or game.flips or game.end is not None:
            if game is not None:
                game.differs(Finding("commitment_changed"))
            return
        game.voids += 1
        game.voided_by.append(seat)
        game.pinned = False
        game.deal_commitment = game.seed_commitments = None

    def room(self, state: RoomState, raw: dict[str, Any], at: float | None = None) -> None:
        rules = _rules(state)
        if self.rules is not None and rules != self.rules:
            raise RecordError("the rules changed within one room")
        self.rules = rules
        self.minutes = state.minutes
        game = self.game(state.game, state.step)
        if state.phase.value == "playing":
            game.open_run(state.step + 1)
        if at is not None and state.seconds_left is not None and state.phase.value == "playing":
            floor = at + state.seconds_left
            game.deadline = floor if game.deadline is None else max(game.deadline, floor)
        committed = _commitment(raw.get("deal_commitment"), "state.deal_commitment")
        seats = raw.get("seats")
        shown: tuple[str | None, ...] | None = None
        if isinstance(seats, list) and seats:
            shown = tuple(
                _commitment(
                    s.get("seed_commitment") if isinstance(s, dict) else None,
                    f"state.seats[{i}].seed_commitment",
                )
                for i, s in enumerate(seats)
            )
            if committed is None and all(c is None for c in shown):
                shown = None  # a deal shown (or none claimed): nothing per seat
        if state.phase.value == "waiting" and not game.pinned:
            return  # the commitments are fixed when the game starts
        if game.pinned and state.voids and state.voids != self.voids:
            # voids this client missed (away, a gap): the deal it pinned was voided
            rose: list[int | None] = [
                i for i, n in enumerate(state.voids) if n > _at(self.voids, i)
            ]
            for seat in rose or [None]:
                self.voided(seat)
        if state.voids:
            self.voids = state.voids
        if state.awaiting_commitments:  # a void: the fresh deal is pinned by its game_started
            if game.pinned:
                self.voided(None)  # (its deal_voided missed: a gap, a reconnect)
            return
        _pin(game, committed, shown, rules)

    def event(self, message: object, raw: dict[str, Any], at: float | None = None) -> None:
        game = self.current
        if game is None:
            raise RecordError("a game event before any game")
        step = getattr(message, "step", None)
        if isinstance(step, int) and not isinstance(message, GameOver):
            game.open_run(step)
            game.run_last = max(game.run_last, step)
        if isinstance(message, CardsTurned):
            game.flips.append(message)
        elif isinstance(message, CardsTaken):
            game.takes.append(message)
        elif isinstance(message, CardsLaidDown):
            game.laid.append(message)
        elif isinstance(message, WarDeclared):
            game.wars.append(message)
        elif isinstance(message, PlayerOut):
            game.outs.append(message)
        elif isinstance(message, TimeUp):
            game.time_up = True
            if at is not None and game.deadline is not None and at < game.deadline - TIME_SLACK:
                game.differs(Finding("time_up_early", {"seconds": int(game.deadline - at)}))
        elif isinstance(message, GameOver):
            game.end = message
            self.reveal(game, raw.get("fairness"))

    def reveal(self, game: RecordedGame, fairness: object) -> None:
        if fairness is None:
            return
        if type(fairness) is not dict:
            raise RecordError("game_over.fairness must be an object")
        players = game.rules["players"]
        assert isinstance(players, int)
        try:
            game.server_seed = parse_seed(
                fairness.get("server_seed"), "game_over.fairness.server_seed"
            ).hex()
        except FairnessError as error:
            raise RecordError(str(error)) from None
        game.seeds = _hex_list(fairness.get("seeds"), "game_over.fairness.seeds", players)


def read_record(lines: Iterable[str]) -> list[RecordedGame]:
    """The games of a ``war-client --json`` record, in the order of their numbers.

    Blank lines are skipped. Raises `RecordError` ("line 12: ...") for the first line that
    is not a valid server message, and for a record that holds no game.
    """
    reader = RecordReader()
    number = 0
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            raw = _parse_line(text)
            reader.follow(_message(raw), raw)
        except RecordError as error:
            raise RecordError(f"line {number}: {error}") from None
    if not reader.games:
        raise RecordError(f"no game in the record ({number} lines)")
    return [reader.games[n] for n in sorted(reader.games)]

"""Reading a game record: the JSON lines ``war-client --json`` prints, game by game.

``war-client --json`` writes every server message it receives as one JSON object per
line (``{"type": "cards_turned", "seq": 7, ...}``, the seat token hidden). `read_record`
reads such lines as hostile input: each must be one JSON object (no NaN, no duplicate key,
at most `MAX_LINE_CHARS` characters) of a server message type, and every field the
protocol defines is checked exactly as the codec checks it on the wire (its unknown fields
are ignored, as a client ignores them). Anything else raises `RecordError` naming the line;
nothing else escapes.

It returns one `RecordedGame` per game the viewer saw, with what the fairness check needs
(docs/fairness.md): the rules, the deal commitment shown at the start, each seat's
commitment where the table was shown them, the flips, takes and end shown, and what the
server revealed at game over. The fair-deal fields (``deal_commitment`` in
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
from protocol.fairness import FairnessError, parse_commitment, parse_seed
from protocol.messages import (
    SERVER_MESSAGE_TYPES,
    CardsTaken,
    CardsTurned,
    GameOver,
    GameStarted,
    SeedDropped,
    Snapshot,
    TimeUp,
    Welcome,
)
from protocol.state import RoomState

__all__ = [
    "MAX_LINE_CHARS",
    "CommitmentChangedError",
    "RecordError",
    "RecordReader",
    "RecordedGame",
    "read_record",
]

MAX_LINE_CHARS: Final = 1 << 20
"""The longest line read (a server message is at most 64 KiB of msgpack)."""

_CONVERTERS = {
    tag: RecordConverter(cls, reject_unknown=False, tag=tag)
    for tag, cls in SERVER_MESSAGE_TYPES.items()
}


class RecordError(ValueError):
    """A game record that cannot be read; the message names the line and the problem."""


class CommitmentChangedError(RecordError):
    """A game shown with two different deal commitments (a client says so in its
    viewer's language: ``check.commitment_changed``)."""


@dataclass(slots=True)
class RecordedGame:
    """One game as a viewer saw it.

    ``number``: the game's number in the room; ``rules``: every setting, as
    `protocol.fairness.rules_text` reads them; ``seat``: the viewer's seat (``None`` for a
    spectator); ``first_step``: the step the viewer first saw the game at (0 from the
    start); ``deal_commitment`` (hex) and ``seed_commitments`` (one per seat, hex or
    ``None``) as shown, ``None`` when never shown; ``shown_deal``: the deal shown from the
    start (chosen by the creator, or the same deal again: nothing to prove); ``flips``,
    ``takes``: the ``cards_turned`` and ``cards_taken`` messages, in the order received;
    ``time_up``: whether the time limit was announced; ``end``: the ``game_over``;
    ``server_seed`` and ``seeds``: what it revealed (``fairness``), hex or ``None``.
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
    time_up: bool = False
    end: GameOver | None = None
    server_seed: str | None = None
    seeds: tuple[str | None, ...] | None = None


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


def _commit(game: RecordedGame, value: object, what: str) -> None:
    """Note the deal commitment a message shows (if it shows one): one per game."""
    shown = _commitment(value, what)
    if shown is None:
        return
    if game.deal_commitment is not None and shown != game.deal_commitment:
        raise CommitmentChangedError("two different deal commitments for one game")
    game.deal_commitment = shown


class RecordReader:
    """Follows the messages of a record, game by game (`read_record` reads a file with
    one; a client feeds it each message it receives, `line`, to check at game over)."""

    def __init__(self) -> None:
        self.games: dict[int, RecordedGame] = {}
        self.current: RecordedGame | None = None
        self.rules: dict[str, object] | None = None
        self.seat: int | None = None

    def game(self, number: int, first_step: int) -> RecordedGame:
        if self.rules is None:
            raise RecordError("a game message before any welcome (the record lacks the rules)")
        game = self.games.get(number)
        if game is None:
            game = RecordedGame(number, self.rules, self.seat, first_step)
            self.games[number] = game
        game.first_step = min(game.first_step, first_step)
        self.current = game
        return game

    def line(self, text: str) -> RecordedGame | None:
        """Follow one line of the record (one JSON message); the game it belongs to, if
        any. Raises `RecordError` for a line that is not a valid server message."""
        raw = _parse_line(text)
        self.follow(_message(raw), raw)
        return self.current

    def follow(self, message: object, raw: dict[str, Any]) -> None:
        match message:
            case Welcome(seat=seat, state=state):
                self.seat = seat
                self.room(state, raw["state"])
            case Snapshot(state=state):
                self.room(state, raw["state"])
            case GameStarted(game=number, deal=deal):
                game = self.game(number, 0)
                game.shown_deal = deal
                _commit(game, raw.get("deal_commitment"), "game_started.deal_commitment")
                seats = raw.get("seed_commitments")
                if isinstance(seats, list) and seats:
                    game.seed_commitments = _commitments(seats, "game_started.seed_commitments")
            case SeedDropped(seat=seat):
                dropped = self.current
                if dropped is not None and dropped.seed_commitments is not None:
                    kept = list(dropped.seed_commitments)
                    if seat < len(kept):
                        kept[seat] = None
                    dropped.seed_commitments = tuple(kept)
            case CardsTurned() | CardsTaken() | TimeUp() | GameOver():
                self.event(message, raw)
            case _:
                pass  # room changes: nothing the fairness check reads

    def room(self, state: RoomState, raw: dict[str, Any]) -> None:
        rules = _rules(state)
        if self.rules is not None and rules != self.rules:
            raise RecordError("the rules changed within one room")
        self.rules = rules
        game = self.game(state.game, state.step)
        _commit(game, raw.get("deal_commitment"), "state.deal_commitment")
        seats = raw.get("seats")
        if isinstance(seats, list) and any(
            isinstance(s, dict) and "seed_commitment" in s for s in seats
        ):
            game.seed_commitments = tuple(
                _commitment(s.get("seed_commitment"), f"state.seats[{i}].seed_commitment")
                for i, s in enumerate(seats)
            )

    def event(self, message: object, raw: dict[str, Any]) -> None:
        game = self.current
        if game is None:
            raise RecordError("a game event before any game")
        if isinstance(message, CardsTurned):
            game.flips.append(message)
        elif isinstance(message, CardsTaken):
            game.takes.append(message)
        elif isinstance(message, TimeUp):
            game.time_up = True
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

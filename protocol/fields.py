"""Field types of the wire: constrained aliases the codec checks, and the string enums.

Each alias is ``Annotated[base, constraint]``: type checkers see the base type, the codec
reads the constraint. Integers are msgpack integers only (never bool, never float), so a
NaN or an infinity is always refused; strings are UTF-8 with the length caps below.

The game's words — the rule settings (`Aces`, `ShortWar`, `BothShort`, `WonCards`,
`FixedOrder`, `TakenBack`, `TieBreak`), how a
game ends (`Termination`), why a player is out (`OutReason`) and the game's bounds
(players, deal numbers, round limits) — are the `vocabulary` package's, which the engine
uses too; they are re-exported here. The wire-only enums are defined below.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from protocol.cards import CARD_PATTERN
from protocol.paths import MAX_AFTER, PATH_KEY_CHARS
from vocabulary import (
    MAX_DEAL,
    MAX_PLAYERS,
    MAX_ROUND_LIMIT,
    Aces,
    BothShort,
    FixedOrder,
    OutReason,
    ShortWar,
    TakenBack,
    Termination,
    TieBreak,
    WonCards,
)

__all__ = [
    "MAX_DEAL",
    "MAX_EVENING",
    "MAX_MINUTES",
    "MAX_PASSWORD_CHARS",
    "MAX_PLAYERS",
    "MAX_ROUND_LIMIT",
    "MAX_SAY_CHARS",
    "MAX_SEQ",
    "MAX_TALK",
    "UNPRINTABLE_CATEGORIES",
    "Aces",
    "AutoPlay",
    "BothShort",
    "Card",
    "CardCount",
    "Code",
    "ComputerNumber",
    "Counts",
    "Deal",
    "Depth",
    "ErrorCodeText",
    "ErrorText",
    "FixedOrder",
    "GameNumber",
    "Hex64",
    "IntRange",
    "MaxItems",
    "Minutes",
    "Name",
    "OutReason",
    "PageUrl",
    "PageUrls",
    "Password",
    "PathAfter",
    "PathKey",
    "Place",
    "Reaction",
    "RematchDeal",
    "RoomId",
    "RoomPhase",
    "Round",
    "RoundLimit",
    "SayText",
    "Seat",
    "SeatCount",
    "Seats",
    "Seq",
    "ShortWar",
    "Spectators",
    "Standings",
    "Steps",
    "TakenBack",
    "TalkSetting",
    "Termination",
    "Text",
    "TieBreak",
    "Token",
    "Voids",
    "WonCards",
    "unprintable",
]

MAX_SEQ = 2**63 - 1
MAX_MINUTES = 24 * 60
MAX_PASSWORD_CHARS = 128
"""The longest password a ``create_room`` may carry (a server's must fit in it)."""
MAX_SAY_CHARS = 120
"""The longest message a ``say`` may carry, in characters after NFC normalization."""
MAX_TALK = 50
"""How many messages and reactions a room keeps (``state.talk``)."""
MAX_EVENING = 100
"""How many finished games a room remembers (``state.evening``, ``game_over.evening``)."""


_UNPRINTABLE_ASCII = re.compile(r"[\x00-\x1f\x7f]")
UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""control characters (C0, DEL, C1), format characters (bidirectional overrides and
isolates, zero-width characters, the byte order mark…), surrogates, U+2028 and U+2029"""


def unprintable(text: str) -> bool:
    """True if ``text`` holds a character a name or password may not have."""
    if text.isascii():
        return _UNPRINTABLE_ASCII.search(text) is not None
    return any(unicodedata.category(char) in UNPRINTABLE_CATEGORIES for char in text)


@dataclass(frozen=True, slots=True)
class IntRange:
    """An ``int`` (not bool) with ``low <= value <= high``."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Text:
    """A ``str`` of ``min_len``..``max_len`` characters.

    ``pattern`` (full match) if given; ``printable`` refuses control characters (Unicode
    category Cc), format characters (Cf: bidirectional overrides and isolates such as
    U+202E and U+2066-U+2069, zero-width characters such as U+200B, U+FEFF), surrogates,
    U+2028/U+2029, and a text that is only whitespace.

    ``normalize``: the text is NFC-normalized and stripped of surrounding whitespace
    before it is checked (and is decoded so).
    """

    min_len: int
    max_len: int
    pattern: re.Pattern[str] | None = None
    printable: bool = False
    normalize: bool = False


@dataclass(frozen=True, slots=True)
class MaxItems:
    """An array of at most ``count`` items."""

    count: int


# --- integers -----------------------------------------------------------------------------
Seat = Annotated[int, IntRange(0, MAX_PLAYERS - 1)]
"""A seat index, 0..3 (seat 0 is the room's creator)."""
Seq = Annotated[int, IntRange(0, MAX_SEQ)]
"""A room's message sequence number."""
Steps = Annotated[int, IntRange(0, MAX_SEQ)]
"""Engine steps (flips) played in the current game."""
Round = Annotated[int, IntRange(0, MAX_SEQ)]
"""A round number (events number rounds from 1), or a count of rounds."""
CardCount = Annotated[int, IntRange(0, 52)]
"""A number of cards."""
Depth = Annotated[int, IntRange(0, 52)]
"""War depth: 0 = a round's first flip, 1 = single war, 2 = double war…"""
Deal = Annotated[int, IntRange(0, MAX_DEAL)]
"""A deal number (non-negative, at most 2**64-1)."""
RoundLimit = Annotated[int, IntRange(1, MAX_ROUND_LIMIT)]
"""A round limit (26, 50 and 100 are offered; any positive number up to 1,000,000).

The same bound as the engine's (`vocabulary.check_round_limit`)."""
Minutes = Annotated[int, IntRange(1, MAX_MINUTES)]
"""A time limit in minutes (1..1440), kept by the server's clock."""
Spectators = Annotated[int, IntRange(0, 1_000_000)]
"""How many spectators watch."""
GameNumber = Annotated[int, IntRange(1, MAX_SEQ)]
"""A room's game number: 1 for its first game, +1 per rematch."""
Voids = Annotated[int, IntRange(0, MAX_SEQ)]
"""How many fair deals one seat voided this evening (``deal_voided``)."""

# --- strings ------------------------------------------------------------------------------
Card = Annotated[str, Text(2, 2, CARD_PATTERN)]
"""A face-up card: rank char + suit char, e.g. "QH" (see protocol.cards)."""
Name = Annotated[str, Text(1, 24, printable=True)]
"""A player's name: 1..24 characters, no control or format characters, not only spaces."""
Code = Annotated[str, Text(4, 32, re.compile(r"[A-Za-z0-9-]+"))]
"""A room's player code or watch code: ASCII letters, digits and '-'."""
RoomId = Annotated[str, Text(1, 32, re.compile(r"[A-Za-z0-9-]+"))]
"""A room's public id (grants nothing by itself)."""
Token = Annotated[str, Text(16, 128, re.compile(r"[A-Za-z0-9_-]+"))]
"""A seat's secret token (URL-safe base64 alphabet)."""
Password = Annotated[str, Text(1, MAX_PASSWORD_CHARS, printable=True)]
"""The server's password to create rooms."""
SayText = Annotated[str, Text(1, MAX_SAY_CHARS, printable=True, normalize=True)]
"""A short message: NFC, stripped, 1..120 characters, one line, the characters a name may
have (no control or format characters: no newline, bidi override or zero-width)."""
Hex64 = Annotated[str, Text(64, 64, re.compile(r"[0-9a-f]{64}"))]
"""32 bytes as 64 lowercase hex digits: a fair deal's seed or commitment (PROTOCOL.md §10)."""
ErrorCodeText = Annotated[str, Text(1, 40, re.compile(r"[a-z][a-z0-9_]*"))]
"""An error code string (an ErrorCode value; newer servers may send new codes)."""
ErrorText = Annotated[str, Text(0, 500)]
"""An error's human sentence."""
PageUrl = Annotated[str, Text(8, 200, re.compile(r"https?://[!-~]+"))]
"""An address of the browser table (``http://192.168.1.20:8765/``): printable ASCII."""
PathKey = Annotated[
    str, Text(PATH_KEY_CHARS, PATH_KEY_CHARS, re.compile(rf"[A-Za-z0-9_-]{{{PATH_KEY_CHARS}}}"))
]
"""A connection's key for a second path (``welcome.path_key``, ``second_path.key``): 22
characters of the URL-safe base64 alphabet (16 random bytes; PROTOCOL.md §11)."""
PathAfter = Annotated[int, IntRange(0, MAX_AFTER)]
"""How many messages one side had sent on the first connection before it sent on both."""

# --- arrays -------------------------------------------------------------------------------
Seats = Annotated[tuple[Seat, ...], MaxItems(MAX_PLAYERS)]
"""Seat numbers (a war's players, the seats the game waits for)."""
Counts = Annotated[tuple[CardCount, ...], MaxItems(MAX_PLAYERS)]
"""Every seat's card count, index = seat."""
SeatCount = Annotated[int, IntRange(0, MAX_PLAYERS)]
ComputerNumber = Annotated[int, IntRange(1, MAX_PLAYERS - 1)]
"""A seat created for the computer, by its number (1 to ``create_room.computers``)."""
"""A number of seats."""
Place = Annotated[int, IntRange(1, MAX_PLAYERS)]
"""A seat's place at the end of a game: 1 is first."""
PageUrls = Annotated[tuple[PageUrl, ...], MaxItems(16)]
"""The addresses of the browser table another device may open."""
Standings = Annotated[tuple[Place, ...], MaxItems(MAX_PLAYERS)]
"""Every seat's place at game over, index = seat; seats that share a place have the same
number (RULES.md, "Standings")."""


# --- enums of the wire alone (the game's are the vocabulary's) ---------------------------
class AutoPlay(StrEnum):
    """A seat's auto-play: off, calm (about 1.5 s a flip) or quick (about 0.3 s)."""

    OFF = "off"
    CALM = "calm"
    QUICK = "quick"


class RematchDeal(StrEnum):
    """A rematch with a new deal, or replaying the same deal."""

    NEW = "new"
    SAME = "same"


class RoomPhase(StrEnum):
    """Where a room is: waiting for players, playing, or the game is over."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


class TalkSetting(StrEnum):
    """Who may talk in a room (the room setting ``talk``), from the most to the least.

    ``all``: players and spectators send messages and reactions; ``players`` (the
    default): players (out players too) do, spectators read; ``reactions``: everyone
    reacts, nobody writes; ``off``: neither.
    """

    ALL = "all"
    PLAYERS = "players"
    REACTIONS = "reactions"
    OFF = "off"


class Reaction(StrEnum):
    """A reaction: a name on the wire, never free text (each client shows its own emoji or
    phrase for it)."""

    CLAP = "clap"
    WOW = "wow"
    LAUGH = "laugh"
    SAD = "sad"
    LOVE = "love"
    PARTY = "party"
    SCARED = "scared"
    OOPS = "oops"
    GOOD_GAME = "good_game"
    WELL_PLAYED = "well_played"
    OH_NO = "oh_no"
    ONE_MORE = "one_more"

"""Fair deals: the server's commitment, the players' seeds, the derived deal, the fingerprint.

A deal the server picks is fixed by a commit–reveal (docs/fairness.md): the server draws a
32-byte secret seed and shows everyone its SHA-256 (`commitment`) before anyone contributes;
each player's client draws a 32-byte seed of its own and commits to it the same way, then
reveals it; the deal is the first 8 bytes of HMAC-SHA256 keyed with the server's seed over
the game's rules and every seat's seed (`derive_deal`); at game over the server reveals its
seed, and every client recomputes all of it (`check_reveal`) and replays the game with its
own engine. The exact bytes are in protocol/PROTOCOL.md, "Fair deals", with test vectors in
tests/vectors/fairness.json (the browser's `client/web/js/engine/fairness.js` is checked
against the same file).

Pure: the standard library's hashlib, hmac and secrets only; both the server and the
clients import it. Functions that read values from the network raise `FairnessError` (a
`ValueError`) with a sentence naming the value, and the same as a `Finding`. What
`check_reveal` finds is a `Finding` too: a code and its values, which each client words
in its viewer's language and ``war-sim verify`` in English (docs/fairness.md, "What the
check says").
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "DEAL_LABEL",
    "FINGERPRINT_ALPHABET",
    "FINGERPRINT_LABEL",
    "RULE_FIELDS",
    "SEED_BYTES",
    "Claim",
    "FairnessError",
    "Finding",
    "Reveal",
    "check_reveal",
    "commitment",
    "deal_message",
    "derive_deal",
    "fingerprint",
    "fingerprint_message",
    "fingerprint_symbols",
    "new_seed",
    "parse_commitment",
    "parse_seed",
    "rules_text",
]

SEED_BYTES: Final = 32
"""Bytes of every seed, the server's and each player's."""
DEAL_LABEL: Final = b"family-war deal v1\x00"
"""The first bytes of the derivation's message: the scheme and its version, then a 0 byte.
A change to the message's layout takes a new label, so an old deal never changes."""
RULE_FIELDS: Final = (
    "players",
    "face_down",
    "aces",
    "short_war",
    "both_short",
    "won_cards",
    "fixed_order",
    "taken_back",
    "round_limit",
    "tie_break",
    "ranks",
    "suits",
)
"""Every rule setting, in the order `rules_text` writes them (the engine's ``Rules``
fields; tests/protocol/test_fairness.py checks that they are the same)."""
FINGERPRINT_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
"""The room codes' 30 symbols (no 0 O 1 I L U): safe to read aloud in any language."""
FINGERPRINT_GROUPS: Final = 3
FINGERPRINT_GROUP: Final = 4

_HEX64 = re.compile(r"[0-9a-f]{64}")
_WORD = re.compile(r"[a-z][a-z0-9_]{0,31}")
_NO_SEED = b"\x00"
_SEED = b"\x01"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the check found, language-neutral: ``code`` (``"seed_mismatch"``…) and
    its ``values`` (``{"seat": 1}``: numbers, texts, lists, ``None``), the same as the
    browser's check gives (``{code, ...values}``, pinned by tests/vectors/engine/checks.json).
    docs/fairness.md lists every code and its values."""

    code: str
    values: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """As the browser's check has it: ``{"code": …, **values}``."""
        return {"code": self.code, **self.values}


class FairnessError(ValueError):
    """A seed, a commitment or a rules map is malformed; the message shows the value, and
    ``finding`` says the same as a `Finding`."""

    def __init__(self, message: str, finding: Finding) -> None:
        super().__init__(message)
        self.finding = finding


def new_seed() -> bytes:
    """A fresh secret seed: `SEED_BYTES` bytes from the operating system (`secrets`)."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The commitment to ``seed``: its SHA-256 as 64 lowercase hex digits."""
    return hashlib.sha256(seed).hexdigest()


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _not_hex(text: object, what: str, kind: str, seat: int | None) -> FairnessError:
    finding = Finding("malformed", {"what": kind, "seat": seat, "value": _short(text)})
    return FairnessError(f"{what} must be 64 lowercase hex digits, not {_short(text)}", finding)


def parse_seed(
    text: object, what: str = "seed", *, kind: str = "seed", seat: int | None = None
) -> bytes:
    """The bytes of a seed written as 64 lowercase hex digits (how the wire carries it).

    Raises `FairnessError` for anything else (``what`` names the value in its message;
    ``kind`` and ``seat`` in its `Finding`: ``malformed``).
    """
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise _not_hex(text, what, kind, seat)
    return bytes.fromhex(text)


def parse_commitment(text: object, what: str = "commitment", *, kind: str = "commitment") -> str:
    """``text`` if it is a commitment (64 lowercase hex digits); else `FairnessError`."""
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise _not_hex(text, what, kind, None)
    return text


def _value_text(name: str, value: object) -> str:
    if value is None and name == "round_limit":
        return "none"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and _WORD.fullmatch(value):
        return value
    finding = Finding("rules_value", {"setting": name, "value": _short(value)})
    raise FairnessError(f"rules setting {name} cannot be {_short(value)}", finding)


def rules_text(rules: Mapping[str, object]) -> bytes:
    """The rules as the derivation reads them: for every setting of `RULE_FIELDS`, in that
    order, ``name=value`` and a line feed, in ASCII. A number is written in decimal, an
    enum as its wire value (``high``, ``play_on``), no round limit as ``none``.

    ``rules`` holds exactly those keys (the engine's ``Rules.to_dict()``; the wire's rules
    map plus ``ranks`` 13 and ``suits`` 4). Raises `FairnessError` for a missing or extra
    key, or a value that is none of those.
    """
    keys = set(rules)
    if keys != set(RULE_FIELDS):
        missing = [name for name in RULE_FIELDS if name not in keys]
        extra = sorted(str(key) for key in keys - set(RULE_FIELDS))
        finding = Finding("rules_missing", {"missing": missing, "extra": extra})
        message = f"rules must hold every setting: missing {missing}, extra {extra}"
        raise FairnessError(message, finding)
    lines = [f"{name}={_value_text(name, rules[name])}\n" for name in RULE_FIELDS]
    return "".join(lines).encode("ascii")


def deal_message(rules: Mapping[str, object], seeds: Sequence[bytes | None]) -> bytes:
    """The message the deal is the HMAC of: `DEAL_LABEL`, the length of `rules_text` (2
    bytes, big-endian) and the text, the number of seats (1 byte), then for each seat in
    seat order ``0x01`` and its 32-byte seed, or ``0x00`` for a seat with no seed (a
    computer, or a client that never committed).

    ``seeds`` has one entry per seat (``rules["players"]``). Raises `FairnessError`
    otherwise, or for a seed that is not `SEED_BYTES` bytes.
    """
    text = rules_text(rules)
    if len(seeds) != rules["players"]:
        finding = Finding("seeds_for_seats", {"count": len(seeds), "seats": rules["players"]})
        raise FairnessError(f"{len(seeds)} seeds for {rules['players']} seats", finding)
    parts = [DEAL_LABEL, len(text).to_bytes(2, "big"), text, len(seeds).to_bytes(1, "big")]
    for seat, seed in enumerate(seeds):
        if seed is None:
            parts.append(_NO_SEED)
        elif isinstance(seed, bytes) and len(seed) == SEED_BYTES:
            parts += [_SEED, seed]
        else:
            finding = Finding("seed_size", {"seat": seat})
            raise FairnessError(f"the seed of seat {seat} must be {SEED_BYTES} bytes", finding)
    return b"".join(parts)


def derive_deal(
    server_seed: bytes, rules: Mapping[str, object], seeds: Sequence[bytes | None]
) -> int:
    """The deal number: the first 8 bytes, big-endian, of HMAC-SHA256 keyed with
    ``server_seed`` over `deal_message` (an integer in 0 .. 2**64 - 1).

    Raises `FairnessError` for a server seed that is not `SEED_BYTES` bytes, or as
    `deal_message` does.
    """
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        message = f"the server seed must be {SEED_BYTES} bytes"
        raise FairnessError(message, Finding("server_seed_size"))
    mac = hmac.new(server_seed, deal_message(rules, seeds), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big")


FINGERPRINT_LABEL: Final = b"family-war fingerprint v1\x00"
"""The first bytes of the fingerprint's message (a new layout takes a new label)."""


def fingerprint_message(
    game: int,
    deal_commitment: str,
    seed_commitments: Sequence[str | None],
    rules: Mapping[str, object],
) -> bytes:
    """What the fingerprint is the SHA-256 of: `FINGERPRINT_LABEL`, the game's number in
    the room (4 bytes, big-endian), the 32 bytes of the deal commitment, the length of
    `rules_text` (2 bytes, big-endian) and the text, the number of seats (1 byte), then
    for each seat in seat order ``0x01`` and the 32 bytes of its seed commitment, or
    ``0x00`` for a seat with none (PROTOCOL.md §10, "The fingerprint").

    Raises `FairnessError` for a malformed commitment, rules that `rules_text` refuses,
    a game number out of 1 .. 2**32 - 1, or not one commitment per seat.
    """
    if not isinstance(game, int) or isinstance(game, bool) or not 0 < game < 1 << 32:
        finding = Finding("rules_value", {"setting": "game", "value": _short(game)})
        raise FairnessError(f"the game number cannot be {_short(game)}", finding)
    dealt = bytes.fromhex(parse_commitment(deal_commitment, kind="deal_commitment"))
    text = rules_text(rules)
    if len(seed_commitments) != rules["players"]:
        count = len(seed_commitments)
        finding = Finding("seat_commitments", {"count": count, "seats": rules["players"]})
        raise FairnessError(f"{count} seat commitments for {rules['players']} seats", finding)
    parts = [FINGERPRINT_LABEL, game.to_bytes(4, "big"), dealt, len(text).to_bytes(2, "big")]
    parts += [text, len(seed_commitments).to_bytes(1, "big")]
    for committed in seed_commitments:
        if committed is None:
            parts.append(_NO_SEED)
        else:
            parts += [_SEED, bytes.fromhex(parse_commitment(committed, kind="commitment"))]
    return b"".join(parts)


def fingerprint(
    game: int,
    deal_commitment: str,
    seed_commitments: Sequence[str | None],
    rules: Mapping[str, object],
) -> str:
    """What people compare aloud: everything a client pins at the start of a game (its
    number, the deal commitment, every seat's commitment, the rules) in 12 symbols. The
    SHA-256 of `fingerprint_message`, read as a number (big-endian, 256 bits), taken
    modulo 30**12 and written as 12 symbols of `FINGERPRINT_ALPHABET` (base 30, most
    significant first, leading ``2``s kept), in three groups of four joined by ``-``:
    ``"K7MX-QD4R-9HWT"``. About 59 bits: two different games share a fingerprint by
    chance once in 5 × 10**17.

    Raises `FairnessError` as `fingerprint_message` does.
    """
    message = fingerprint_message(game, deal_commitment, seed_commitments, rules)
    return fingerprint_symbols(hashlib.sha256(message).digest())


def fingerprint_symbols(digest: bytes) -> str:
    """``digest`` (32 bytes) as the fingerprint's 12 symbols in three groups of four."""
    number = int.from_bytes(digest, "big")
    base = len(FINGERPRINT_ALPHABET)
    symbols = []
    for _ in range(FINGERPRINT_GROUPS * FINGERPRINT_GROUP):
        number, digit = divmod(number, base)
        symbols.append(FINGERPRINT_ALPHABET[digit])
    text = "".join(reversed(symbols))
    groups = range(0, len(text), FINGERPRINT_GROUP)
    return "-".join(text[i : i + FINGERPRINT_GROUP] for i in groups)


@dataclass(frozen=True, slots=True)
class Reveal:
    """What `check_reveal` found. ``deal``: the deal the revealed seeds give (``None`` if
    they could not be read); ``problem``: the first thing that did not match (``None``:
    everything matched); ``proved``: what matched, in order."""

    deal: int | None
    problem: Finding | None
    proved: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """Whether everything checked matched."""
        return self.problem is None


def _seat_seeds(seeds: Sequence[object], players: object) -> list[bytes | None]:
    if not isinstance(seeds, (list, tuple)) or len(seeds) != players:
        finding = Finding("seeds_per_seat", {"players": _short(players), "value": repr(seeds)})
        message = f"the revealed seeds must be one per seat ({players}), not {seeds!r}"
        raise FairnessError(message, finding)
    return [
        None if s is None else parse_seed(s, f"the seed of seat {i}", seat=i)
        for i, s in enumerate(seeds)
    ]


@dataclass(frozen=True, slots=True)
class Claim:
    """What the table was shown of one game's deal, as the wire carries it (hostile).

    ``rules``: as for `rules_text`; ``deal_commitment``: the commitment shown when the
    game started; ``server_seed`` and ``seeds``: what ``game_over`` revealed (hex, ``None``
    for a seat with no seed); ``deal``: the deal the server says it played
    (``summary.deal``), if shown; ``seed_commitments``: each seat's commitment as the
    table was shown them at the start (``None`` where a seat made none); ``None`` when
    the table was never shown them, which fails the check (``seat_commitments``, count 0).
    """

    rules: Mapping[str, object]
    deal_commitment: object
    server_seed: object
    seeds: Sequence[object]
    deal: object = None
    seed_commitments: Sequence[object] | None = None


def check_reveal(
    claim: Claim, *, my_seat: int | None = None, my_seed: bytes | None = None
) -> Reveal:
    """Check what the server revealed at game over against what it committed to.

    ``my_seat`` and ``my_seed``: this client's own seat and the seed it sent, if it sent
    one. Checks, in order, and stops at the first problem: the server seed hashes to the
    commitment, every seed is well formed, each seat's seed matches its commitment (never
    shown: a failure), this client's seed is the one in the derivation, and the derived
    deal is the deal played. Never raises for hostile values: a malformed one is the
    problem reported.
    """
    proved: list[Finding] = []
    try:
        committed = parse_commitment(
            claim.deal_commitment, "the deal commitment", kind="deal_commitment"
        )
        key = parse_seed(claim.server_seed, "the server seed", kind="server_seed")
        if commitment(key) != committed:
            return Reveal(None, Finding("server_seed_mismatch"), ())
        proved.append(Finding("server_seed"))
        seat_seeds = _seat_seeds(claim.seeds, claim.rules.get("players"))
        derived = derive_deal(key, claim.rules, seat_seeds)
    except FairnessError as error:
        return Reveal(None, error.finding, tuple(proved))
    problem = _seat_problem(seat_seeds, claim.seed_commitments, proved)
    if problem is None and my_seed is not None and my_seat is not None:
        if not 0 <= my_seat < len(seat_seeds) or seat_seeds[my_seat] != my_seed:
            problem = Finding("not_my_seed", {"seat": my_seat})
        else:
            proved.append(Finding("my_seed", {"seat": my_seat}))
    if problem is None and claim.deal is not None:
        if claim.deal != derived:
            problem = Finding("deal_mismatch", {"deal": repr(claim.deal), "derived": str(derived)})
        else:
            proved.append(Finding("deal", {"deal": str(derived)}))
    return Reveal(derived, problem, tuple(proved))


def _seat_problem(
    seeds: Sequence[bytes | None], commitments: Sequence[object] | None, proved: list[Finding]
) -> Finding | None:
    if commitments is None or len(commitments) != len(seeds):
        count = 0 if commitments is None else len(commitments)
        return Finding("seat_commitments", {"count": count, "seats": len(seeds)})
    for seat, (seed, committed) in enumerate(zip(seeds, commitments, strict=True)):
        if committed is None:
            if seed is not None:
                return Finding("seed_uncommitted", {"seat": seat})
            continue
        if seed is None:
            return Finding("seed_unused", {"seat": seat})
        if not isinstance(committed, str) or commitment(seed) != committed:
            return Finding("seed_mismatch", {"seat": seat})
    proved.append(Finding("seat_seeds"))
    return None

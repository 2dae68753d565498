"""Room codes, room ids and seat tokens: random from a `secrets`-like source, no I/O.

- **Player code** and **watch code**: 8 symbols shown as two groups of four, e.g.
  ``K7MX-QD4R``. The alphabet is Crockford-like and safe to read aloud: digits 2–9 and
  the capital letters without I, L, O and U (``23456789ABCDEFGHJKMNPQRSTVWXYZ``, 30
  symbols, about 39 bits a code). Codes are matched after `normalize_code`: case and
  hyphens do not matter. The two codes of a room are drawn independently, so one
  never reveals the other; a watch code is looked up only among watch codes and never
  grants a seat.
- **Room id**: 10 symbols of the same alphabet in lowercase; public, grants nothing.
- **Seat token**: ``secrets.token_urlsafe(24)`` (32 characters, 192 bits). Only its
  SHA-256 hash is kept (`hash_token`); a presented token is checked with
  `hmac.compare_digest` (`token_matches`). A token is never logged or stored in clear.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Protocol

from vocabulary import MAX_DEAL

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "RandomSource",
    "hash_token",
    "new_code",
    "new_deal",
    "new_room_id",
    "new_token",
    "normalize_code",
    "token_matches",
]

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Symbols of codes and room ids: no 0/O, 1/I/L, and no U."""
CODE_LENGTH = 8
"""Symbols in a player or watch code (shown as two groups of four)."""
ROOM_ID_LENGTH = 10
TOKEN_BYTES = 24


class RandomSource(Protocol):
    """What codes need from a random source; the `secrets` module is one."""

    def randbelow(self, exclusive_upper_bound: int, /) -> int:
        """A uniform integer in ``0 .. exclusive_upper_bound - 1``."""
        ...

    def token_bytes(self, nbytes: int | None = None, /) -> bytes:
        """``nbytes`` random bytes."""
        ...


def _symbols(source: RandomSource, count: int) -> str:
    return "".join(CODE_ALPHABET[source.randbelow(len(CODE_ALPHABET))] for _ in range(count))


def new_code(source: RandomSource = secrets) -> str:
    """A fresh player or watch code like ``K7MX-QD4R`` (uniqueness is the caller's job)."""
    raw = _symbols(source, CODE_LENGTH)
    return f"{raw[:4]}-{raw[4:]}"


def new_room_id(source: RandomSource = secrets) -> str:
    """A fresh public room id like ``k7mxqd4rzw``."""
    return _symbols(source, ROOM_ID_LENGTH).lower()


def new_token(source: RandomSource = secrets) -> str:
    """A fresh seat token: 32 URL-safe base64 characters (192 random bits)."""
    return base64.urlsafe_b64encode(source.token_bytes(TOKEN_BYTES)).rstrip(b"=").decode("ascii")


def new_deal(source: RandomSource = secrets) -> int:
    """A random deal number in ``0 .. 2**64 - 1``.

    The whole 64-bit range on purpose: the deal stays secret until the game ends, and a
    small range (say six digits) would let a client try every deal against the first
    cards turned and so learn every pile's order.
    """
    return source.randbelow(MAX_DEAL + 1)


def normalize_code(code: str) -> str:
    """The form codes are compared in: upper case, no hyphens (``k7mx-qd4r`` → ``K7MXQD4R``)."""
    return code.replace("-", "").upper()


def hash_token(token: str) -> str:
    """The SHA-256 hex digest kept instead of ``token`` (tokens have 192 random bits)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, token_hash: str | None) -> bool:
    """True if ``token`` hashes to ``token_hash`` (constant-time compare; None never matches)."""
    if token_hash is None:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)

"""Seat tokens kept on disk, so the same ``--join CODE`` after a crash resumes the seat.

The file is small JSON (``{"version": 1, "seats": {KEY: {...}}}``), one entry per
(server, player code, name): two relatives on one computer each keep their own seat at one
table (Grandma's client and Ben's, one after the other or at once). An entry holds the
room id, the seat's latest token, the seat number and the name, and the seat's fair-deal
seed (hex) with the number of the game it is for, so a restart
between the commitment and the reveal still reveals it (`client.fair.seeds`).
Where it lives: ``$WAR_CLIENT_STATE`` if set (a file path), else
``$XDG_STATE_HOME/family-war/client.json``, else ``~/.local/state/family-war/client.json``.

Every write replaces the file atomically (a temporary file in the same directory, fsync,
rename) with mode 0600 in a 0700 directory, under an advisory lock so two clients on one
machine do not lose each other's entries. A file that cannot be read or parsed counts as
empty (a token is only a convenience: the worst case is taking a new seat). Entries older
than :data:`MAX_AGE_SECONDS` are dropped on the next write.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from client.errors import StateFileError

try:  # pragma: no cover - fcntl exists wherever the client is tested
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory lock
    fcntl = None  # type: ignore[assignment]

__all__ = ["MAX_AGE_SECONDS", "SeatRecord", "StateFile", "default_path", "same_name", "seat_key"]

MAX_AGE_SECONDS = 30 * 24 * 3600
"""Entries not refreshed for this long are forgotten (30 days)."""
_VERSION = 1


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """What resumes one seat: the room's id, the seat's latest token, who sat there, and
    its fair-deal ``seed`` (64 hex digits) for game number ``seed_game``."""

    room: str
    token: str
    seat: int
    name: str
    saved: float
    seed: str | None = None
    seed_game: int | None = None

    @classmethod
    def from_json(cls, value: object) -> SeatRecord | None:
        """The record in a decoded JSON value, or None if it is not a valid one."""
        if not isinstance(value, dict):
            return None
        room, token, seat = value.get("room"), value.get("token"), value.get("seat")
        name, saved = value.get("name"), value.get("saved")
        if not (isinstance(room, str) and isinstance(token, str) and isinstance(name, str)):
            return None
        if type(seat) is not int or not isinstance(saved, (int, float)) or isinstance(saved, bool):
            return None
        seed, seed_game = value.get("seed"), value.get("seed_game")
        if not (isinstance(seed, str) and type(seed_game) is int):
            seed, seed_game = None, None
        return cls(
            room=room,
            token=token,
            seat=seat,
            name=name,
            saved=float(saved),
            seed=seed,
            seed_game=seed_game,
        )


def _plain(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip().casefold()


def same_name(kept: str, given: str) -> bool:
    """Whether the name a seat was kept under and the name given are one person's (as
    typed: case, spaces around and Unicode composition aside)."""
    return _plain(kept) == _plain(given)


def seat_key(server: str, code: str, name: str | None = None) -> str:
    """The key of a seat: the server's ``scheme://host:port`` (lowercase), the code, and
    the name as `same_name` compares it (an older file's keys have no name)."""
    parts = urlsplit(server)
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    host = (parts.hostname or "").lower()
    key = f"{parts.scheme.lower()}://{host}:{port} {code}"
    return key if name is None else f"{key} {_plain(name)}"


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the state file lives (see the module docstring)."""
    env = os.environ if environ is None else environ
    if env.get("WAR_CLIENT_STATE"):
        return Path(env["WAR_CLIENT_STATE"]).expanduser()
    base = env.get("XDG_STATE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "family-war" / "client.json"


class StateFile:
    """The seat tokens of one state file. Each call reads the file afresh."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def get(self, server: str, code: str, name: str) -> SeatRecord | None:
        """The stored seat of ``name`` for ``code`` on ``server``, or None (another name's
        seat at that table is not this one's)."""
        seats = self._read()
        record = seats.get(seat_key(server, code, name))
        if record is None:  # an older file: one seat for the code, whoever's it was
            older = seats.get(seat_key(server, code))
            record = older if older is not None and same_name(older.name, name) else None
        return record

    def put(self, server: str, code: str, record: SeatRecord) -> None:
        """Store (or replace) the seat of ``record.name`` for ``code`` on ``server``; the
        other names' seats at that table stay.

        Raises:
            StateFileError: the file or its directory cannot be written.
        """
        with self._locked():
            seats = {
                k: r for k, r in self._read().items() if record.saved - r.saved < MAX_AGE_SECONDS
            }
            _drop_older(seats, server, code, record.name)
            seats[seat_key(server, code, record.name)] = record
            self._write(seats)

    def forget(self, server: str, code: str, name: str) -> None:
        """Drop the seat of ``name`` for ``code`` on ``server`` (nothing happens if there
        is none).

        Raises:
            StateFileError: the file cannot be written.
        """
        with self._locked():
            seats = self._read()
            dropped = _drop_older(seats, server, code, name)
            if seats.pop(seat_key(server, code, name), None) is not None or dropped:
                self._write(seats)

    # --- the file -----------------------------------------------------------------------
    def _read(self) -> dict[str, SeatRecord]:
        try:
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            return {}
        entries = data.get("seats")
        if not isinstance(entries, dict):
            return {}
        seats = {}
        for key, value in entries.items():
            record = SeatRecord.from_json(value)
            if isinstance(key, str) and record is not None:
                seats[key] = record
        return seats

    def _write(self, seats: dict[str, SeatRecord]) -> None:
        body = {"version": _VERSION, "seats": {k: asdict(r) for k, r in sorted(seats.items())}}
        text = json.dumps(body, indent=2) + "\n"
        directory = self.path.parent
        try:
            descriptor, temporary = tempfile.mkstemp(
                dir=directory, prefix=f".{self.path.name}.", suffix=".tmp"
            )
        except OSError as error:
            raise StateFileError(f"cannot write the state file {self.path}: {error}") from None
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                os.fchmod(handle.fileno(), 0o600)
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise StateFileError(f"cannot write the state file {self.path}: {error}") from None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        directory = self.path.parent
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            lock = os.open(directory / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StateFileError(f"cannot write the state file {self.path}: {error}") from None
        try:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)


def _drop_older(seats: dict[str, SeatRecord], server: str, code: str, name: str) -> bool:
    """Drop an older file's one seat for ``code`` (its key has no name) if it is
    ``name``'s; whether one was dropped."""
    key = seat_key(server, code)
    older = seats.get(key)
    if older is None or not same_name(older.name, name):
        return False
    del seats[key]
    return True

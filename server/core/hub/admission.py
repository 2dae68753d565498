"""Admission: who may open a room, and who may create one. Per address
(`server.core.budgets.address_key`: an IPv6 /64 counts as one address):

- failed attempts (unknown code, bad token, bad password, a ``join_room`` of a started
  room naming no away seat) are counted; at ``max_failed_joins`` within
  `FAILURE_WINDOW_SECONDS`, further opening messages from that address are refused with
  ``too_many_failures`` (close 1008) until the window has passed. A resume with a seat's
  earlier token while its latest is unconfirmed (its welcome may have been lost, see
  `server.core.room.room`) is accepted, so it is no failure; a superseded token is one;
- the rooms created from it and still held are counted, whatever their state (a room
  nobody is in goes when idle, `server.core.hub.rooms`: a two-player room where nobody
  turned a card, or a game against the computer, after ``idle_computer_room_minutes``,
  so an abandoned game does not use up the household's allowance for long); at
  ``max_rooms_per_ip`` a ``create_room`` from it is refused
  with ``too_many_rooms`` (close 1013), as every
  ``create_room`` is once the server holds ``max_rooms``. The count lives in memory only
  (the store keeps no addresses): after a restart the rooms loaded count for nobody;
- creating a room needs the server's ``password``, if it has one (compared in constant
  time).

Both tables hold only what they must (recent failures; addresses with rooms), so their
memory is bounded by the failures of the last window and by the rooms held. A refusal
is a `Refusal` value, never raised.
"""

from __future__ import annotations

import hmac
from collections import OrderedDict, deque

from protocol import SUPPORTED_VERSIONS, ErrorCode
from server.core.budgets import address_key
from server.core.refusals import Refusal
from server.core.settings import HubSettings

__all__ = ["FAILURE_WINDOW_SECONDS", "Admission"]

FAILURE_WINDOW_SECONDS = 60.0
"""Failed attempts are counted over this sliding window, per peer address."""
_COUNTED_FAILURES = frozenset({ErrorCode.UNKNOWN_CODE, ErrorCode.BAD_TOKEN, ErrorCode.BAD_PASSWORD})


class Admission:
    """The failures and created rooms of each address, and the checks they feed."""

    def __init__(self, settings: HubSettings) -> None:
        self._settings = settings
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()  # by last failure
        self._creator: dict[str, str] = {}  # room id → the address key that created it
        self._created: dict[str, int] = {}  # address key → rooms it created, still held

    # ------------------------------------------------------------------ queries
    def rooms_created_from(self, peer: str) -> int:
        """How many rooms created from ``peer``'s address (its /64 for IPv6) are held."""
        return self._created.get(address_key(peer), 0)

    def addresses_with_rooms(self) -> int:
        """How many addresses have created rooms that are held."""
        return len(self._created)

    def creator(self, room_id: str) -> str | None:
        """The address key that created room ``room_id``, if it is counted."""
        return self._creator.get(room_id)

    # ------------------------------------------------------------------ checks
    def opening(self, version: int, peer: str, now: float) -> Refusal | None:
        """Why an opening message of protocol ``version`` from ``peer`` is refused, or None."""
        if version not in SUPPORTED_VERSIONS:
            return Refusal(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {version} is not supported "
                f"(this side speaks {sorted(SUPPORTED_VERSIONS)})",
            )
        limit = self._settings.max_failed_joins
        if self._recent_failures(address_key(peer), now) >= limit:
            return Refusal(
                ErrorCode.TOO_MANY_FAILURES,
                f"{limit} wrong codes, tokens or passwords within a minute; wait a minute",
            )
        return None

    def creation(self, password: str | None, peer: str, rooms: int) -> Refusal | None:
        """Why a ``create_room`` with ``password`` from ``peer``, while the server holds
        ``rooms`` rooms, is refused, or None. Every room created from ``peer``'s address
        that still exists counts, whatever its state (rooms nobody is in are removed
        when idle: `server.core.hub.rooms`)."""
        needed = self._settings.password
        if needed is not None:
            if password is None:
                return Refusal(
                    ErrorCode.PASSWORD_REQUIRED, "this server needs a password to create rooms"
                )
            if not hmac.compare_digest(password.encode(), needed.encode()):
                return Refusal(ErrorCode.BAD_PASSWORD, "wrong password to create rooms")
        if rooms >= self._settings.max_rooms:
            return Refusal(
                ErrorCode.TOO_MANY_ROOMS,
                f"this server holds its {self._settings.max_rooms} rooms; try later",
            )
        cap = self._settings.max_rooms_per_ip
        key = address_key(peer)
        if self._created.get(key, 0) >= cap:
            return Refusal(
                ErrorCode.TOO_MANY_ROOMS,
                f"rooms created from this address: {cap} are open; leave one, or wait "
                "until one is removed (rooms nobody uses are removed when idle)",
            )
        return None

    # ------------------------------------------------------------------ counting
    def refused(self, refusal: Refusal, peer: str, now: float) -> None:
        """``peer`` was refused with ``refusal``: count it if it is a failed attempt."""
        if refusal.failed_attempt or refusal.code in _COUNTED_FAILURES:
            key = address_key(peer)
            self._failures.setdefault(key, deque()).append(now)
            self._failures.move_to_end(key)

    def credit(self, room_id: str, creator: str) -> None:
        """Count room ``room_id`` as created from the address key ``creator``."""
        self._creator[room_id] = creator
        self._created[creator] = self._created.get(creator, 0) + 1

    def debit(self, room_id: str) -> str | None:
        """Room ``room_id`` is held no longer: it counts for its creator no more (whose
        address key is returned, None if nobody's)."""
        creator = self._creator.pop(room_id, None)
        if creator is not None:
            left = self._created[creator] - 1
            if left:
                self._created[creator] = left
            else:
                del self._created[creator]
        return creator

    def forget(self, now: float) -> None:
        """Drop the addresses whose last failure left the window (oldest first: the
        table is kept in the order of last failures, so this stops at the first one
        still in it)."""
        failures = self._failures
        while failures:
            key, times = next(iter(failures.items()))
            if times and times[-1] > now - FAILURE_WINDOW_SECONDS:
                return
            del failures[key]

    def _recent_failures(self, key: str, now: float) -> int:
        """Failures of address key ``key`` within the window before ``now``."""
        times = self._failures.get(key)
        if times is None:
            return 0
        while times and times[0] <= now - FAILURE_WINDOW_SECONDS:
            times.popleft()
        if not times:
            del self._failures[key]
            return 0
        return len(times)

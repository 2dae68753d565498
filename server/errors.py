"""Errors of the server package (the engine has its own, `server.engine.errors`).

- ``ServerError``: base of every error below.
  - ``RefusedError``: a room rule refused a peer's command (ready when not seated, a stale
    step, a wrong code…). It carries the `protocol.ErrorCode` to send back; the hub turns
    it into an ``error`` message (and a close where PROTOCOL.md says so). It never
    escapes the hub.
  - ``StoreError``: the store refused or could not do a write or a load (unknown room,
    an id or code already in use, a file with a schema version this code does not know,
    a stored row that does not parse). Our side's fault or the disk's, never a peer's.
  - ``TlsKeyError``: the TLS private key cannot be used without a passphrase, which the
    server never asks for (it runs unattended).

A peer's undecodable input is the codec's `protocol.ProtocolError`, not one of these.
"""

from __future__ import annotations

from protocol import ErrorCode

__all__ = ["RefusedError", "ServerError", "StoreError", "TlsKeyError"]


class ServerError(Exception):
    """Base of the server package's own errors."""


class StoreError(ServerError):
    """The store could not do what was asked (the message says what and which room)."""


class TlsKeyError(ServerError):
    """The TLS key file is protected by a passphrase (the message names the file)."""


class RefusedError(ServerError):
    """A rule refused a command: ``code`` goes back to the peer with ``str(self)``.

    ``failed_attempt``: count it against the peer's address as a wrong guess, as the hub
    counts an unknown code or a bad token (a ``join_room`` naming no away seat of a
    started room: someone may be guessing the name of a seat to take).
    """

    def __init__(self, code: ErrorCode, message: str, *, failed_attempt: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.failed_attempt = failed_attempt

"""Errors of the server package (the engine has its own, `server.engine.errors`).

- ``ServerError``: base of every error below.
  - ``StoreError``: the store refused or could not do a write or a load (unknown room,
    an id or code already in use, a file with a schema version this code does not know,
    a stored row that does not parse). Our side's fault or the disk's, never a peer's.
  - ``TlsKeyError``: the TLS private key cannot be used without a passphrase, which the
    server never asks for (it runs unattended).

A peer's undecodable input is the codec's `protocol.ProtocolError`, not one of these, and
a command the room core refuses is a value (`server.core.refusals.Refusal`), never raised.
"""

from __future__ import annotations

__all__ = ["ServerError", "StoreError", "TlsKeyError"]


class ServerError(Exception):
    """Base of the server package's own errors."""


class StoreError(ServerError):
    """The store could not do what was asked (the message says what and which room)."""


class TlsKeyError(ServerError):
    """The TLS key file is protected by a passphrase (the message names the file)."""

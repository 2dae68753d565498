"""Errors of the client.

- ``ClientError``: the base; ``str(error)`` is one lowercase line fit for stderr.
  - ``UsageError``: the command line does not make sense (``ws://`` missing, …).
  - ``StateFileError``: the seat state file cannot be written.
  - ``LocalServerError``: ``war-client --local`` could not start its own server.
  - ``CaFileError``: the ``--cafile`` certificate file cannot be read or is not PEM.
  - ``CatalogError``: a message catalog is missing or (strictly read) incomplete.
"""

from __future__ import annotations

__all__ = [
    "CaFileError",
    "CatalogError",
    "ClientError",
    "LocalServerError",
    "StateFileError",
    "UsageError",
]


class ClientError(Exception):
    """Something the person running the client must hear about, in one line."""


class UsageError(ClientError):
    """The command line asks for something impossible, e.g. ``url must start with ws://``."""


class StateFileError(ClientError):
    """The seat state file could not be written (its directory, permissions…)."""


class LocalServerError(ClientError):
    """``--local``: the child ``war-server`` did not start or did not answer ``/healthz``."""


class CaFileError(ClientError):
    """``--cafile`` (or ``$WAR_CLIENT_CAFILE``) cannot be read or holds no PEM certificate."""


class CatalogError(ClientError):
    """A message catalog is missing or incomplete (raised only by a strict catalog, or for
    a language that has none)."""

"""The outside listener's TLS: one live `ssl.SSLContext` whose certificate is swapped in
place, and the tls-alpn-01 challenges it answers meanwhile.

- `OutsideTls.context` is what the listener is started with, once, before any
  certificate exists: a validator must reach it to get the first one. Until `install`
  gave it a certificate, a handshake without a challenge's name fails (nobody has the
  link yet).
- `install` loads a new chain and key into that same context (``load_cert_chain``):
  OpenSSL copies the certificate into each connection when it starts, so connections
  already open (a game's WebSocket) keep theirs, and every new handshake gets the new
  one. No socket is closed, no listener restarted.
- `offer` / `withdraw` (the `server.adapters.outside.acme.ChallengeResponder` the ACME
  client uses): while a tls-alpn-01 validation runs, a handshake whose SNI is the
  address's reverse name (browsers send no SNI for an IP address: RFC 6066) is switched,
  by the context's SNI callback, to a context holding only the challenge's certificate
  and the ``acme-tls/1`` protocol (RFC 8737 section 3). A name nobody offered gets the
  ordinary certificate.

OpenSSL loads certificates and keys from files only: each is written to a private
temporary folder (0700, files 0600) and removed once loaded.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from pathlib import Path

from server.adapters.outside.acme import ACME_TLS_ALPN

__all__ = ["MAX_CHALLENGES", "OutsideTls"]

MAX_CHALLENGES = 8
"""Challenge certificates held at once (one per address being validated)."""


def _server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def _load(context: ssl.SSLContext, chain_pem: bytes, key_pem: bytes) -> None:
    """Load a PEM chain and key held in memory into ``context``.

    Raises:
        ssl.SSLError: they are not a matching certificate and key.
    """
    with tempfile.TemporaryDirectory(prefix="war-tls-") as folder:
        os.chmod(folder, 0o700)
        chain, key = Path(folder) / "chain.pem", Path(folder) / "key.pem"
        for path, data in ((chain, chain_pem), (key, key_pem)):
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
        context.load_cert_chain(chain, key)


class OutsideTls:
    """The outside listener's TLS context, its certificate and its challenges."""

    def __init__(self) -> None:
        self.context = _server_context()
        self.context.set_alpn_protocols(["http/1.1"])
        self.context.sni_callback = self._on_server_name
        self._challenges: dict[str, ssl.SSLContext] = {}
        self.installed = False
        """whether a certificate has been installed"""

    def install(self, chain_pem: bytes, key_pem: bytes) -> None:
        """Serve this chain and key to every new connection from now on; connections
        already open keep the certificate they started with.

        Raises:
            ssl.SSLError: they are not a matching certificate and key (the context keeps
                the certificate it had).
        """
        _load(_server_context(), chain_pem, key_pem)  # a bad pair fails before the swap
        _load(self.context, chain_pem, key_pem)
        self.installed = True

    def offer(self, server_name: str, certificate_pem: bytes, key_pem: bytes) -> None:
        """Answer a tls-alpn-01 validation for ``server_name`` with this certificate."""
        if len(self._challenges) >= MAX_CHALLENGES and server_name not in self._challenges:
            raise RuntimeError("too many tls-alpn-01 challenges at once")
        context = _server_context()
        context.set_alpn_protocols([ACME_TLS_ALPN])
        _load(context, certificate_pem, key_pem)
        self._challenges[server_name.lower()] = context

    def withdraw(self, server_name: str) -> None:
        """Stop answering validations for ``server_name``."""
        self._challenges.pop(server_name.lower(), None)

    def _on_server_name(
        self, connection: ssl.SSLObject | ssl.SSLSocket, server_name: str | None, _: ssl.SSLContext
    ) -> None:
        """The SNI callback: a challenge's name switches to its context."""
        if server_name is None:
            return
        challenge = self._challenges.get(server_name.lower())
        if challenge is not None:
            connection.context = challenge

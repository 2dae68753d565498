"""TLS for ``wss://`` urls: the client's SSL context.

A family server often has a self-signed certificate (``war-server --certfile/--keyfile``);
``war-client --cafile cert.pem`` (or ``$WAR_CLIENT_CAFILE``) trusts that certificate in
addition to the system's. The host name is always checked. What a failed check is said
as (with what to do about it) is :mod:`client.net.failure`'s.
"""

from __future__ import annotations

import ssl

from client.errors import CaFileError

__all__ = ["client_context"]


def client_context(cafile: str | None, *, source: str = "--cafile") -> ssl.SSLContext:
    """An SSL context that checks the server's certificate and host name against the
    system's trusted certificates plus, when ``cafile`` is given, the PEM certificates in
    it. ``source`` names where ``cafile`` came from, for the error.

    Raises:
        CaFileError: ``cafile`` cannot be read, or holds no PEM certificate.
    """
    context = ssl.create_default_context()
    if cafile is None:
        return context
    try:
        context.load_verify_locations(cafile=cafile)
    except ssl.SSLError:
        raise CaFileError(
            f"{source} {cafile!r} holds no PEM certificate (give the server's --certfile)"
        ) from None
    except OSError as error:
        why = (error.strerror or str(error)).lower()
        raise CaFileError(f"cannot read {source} {cafile!r}: {why}") from None
    return context

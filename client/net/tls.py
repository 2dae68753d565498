"""TLS for ``wss://`` urls: the client's SSL context and plain words for a failed check.

A family server often has a self-signed certificate (``war-server --certfile/--keyfile``);
``war-client --cafile cert.pem`` (or ``$WAR_CLIENT_CAFILE``) trusts that certificate in
addition to the system's. The host name is always checked.
"""

from __future__ import annotations

import ssl

from client.errors import CaFileError

__all__ = ["HOSTNAME_MISMATCH", "client_context", "explain_tls"]

HOSTNAME_MISMATCH = 62
"""OpenSSL's ``X509_V_ERR_HOSTNAME_MISMATCH`` (also for an IP address mismatch)."""
_EXPIRED = 10  # X509_V_ERR_CERT_HAS_EXPIRED
_NOT_YET_VALID = 9  # X509_V_ERR_CERT_NOT_YET_VALID


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


def explain_tls(error: ssl.SSLError, *, cafile_given: bool = False) -> str:
    """One lowercase line on a failed TLS handshake, with what to do about it, e.g.
    ``certificate verify failed: self-signed certificate — pass --cafile with the
    server's certificate``."""
    if not isinstance(error, ssl.SSLCertVerificationError):
        reason = error.reason or str(error)
        return f"tls handshake failed: {str(reason).lower().replace('_', ' ')}"
    what = error.verify_message or str(error)
    code = error.verify_code
    if code == HOSTNAME_MISMATCH:
        hint = "use the host name or address the server's certificate was made for"
    elif code in (_EXPIRED, _NOT_YET_VALID):
        hint = "the server needs a new certificate (or this computer's clock is wrong)"
    elif cafile_given:
        hint = "check that --cafile holds the server's own certificate"
    else:
        hint = "pass --cafile with the server's certificate"
    return f"certificate verify failed: {what} — {hint}"

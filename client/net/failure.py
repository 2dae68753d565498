"""Why connecting failed: an exception of the handshake as a reason the catalogs say.

:func:`why_unreachable` turns what ``websockets.connect`` raised (a refused or timed-out
connection, a name not found, no network, a reset or closed handshake, a failed TLS
handshake or certificate check, an HTTP refusal of the handshake) into a
:class:`~client.words.catalog.Said` of the ``unreachable`` section
(:mod:`client.words.reasons`), so that a German or Polish player reads the reason in
German or Polish. Anything else keeps the system's own text, inside a translated frame
("another network error: …"). A handshake that a server hangs up on (a reset, an end of
stream, bytes that are not HTTP, or a TLS failure that is not the certificate's) is
wrapped in a hint at the other scheme: a ``wss://`` url at a server without TLS, or a
``ws://`` url at a server with TLS.
"""

from __future__ import annotations

import errno
import re
import socket
import ssl
from urllib.parse import urlsplit

from websockets.exceptions import InvalidMessage, InvalidStatus, InvalidURI

from client.words import reasons
from client.words.catalog import Said, said

__all__ = ["HOSTNAME_MISMATCH", "why_unreachable"]

HOSTNAME_MISMATCH = 62
"""OpenSSL's ``X509_V_ERR_HOSTNAME_MISMATCH`` (also for an IP address mismatch)."""
_NOT_YET_VALID = 9  # X509_V_ERR_CERT_NOT_YET_VALID
_EXPIRED = 10  # X509_V_ERR_CERT_HAS_EXPIRED
_ERRNO = re.compile(r"\[Errno (\d+)\]")


def why_unreachable(error: BaseException, url: str, *, cafile_given: bool = False) -> Said:
    """Why connecting to ``url`` failed with ``error``; ``cafile_given``: a ``--cafile``
    was given (a certificate not trusted then says to check that file)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        return _certificate(error, cafile_given=cafile_given)
    if isinstance(error, InvalidStatus):
        return said(reasons.HTTP_REFUSED, status=error.response.status_code)
    if isinstance(error, InvalidURI):
        return said(reasons.BAD_URL)
    reason = _reason(error, url)
    hung_up = reason.key in (reasons.RESET, reasons.CLOSED, reasons.BAD_ANSWER)
    if reason.key == reasons.TLS_FAILED or (hung_up and _secure(url)):
        return said(reasons.TRY_WS, problem=reason)
    if hung_up:
        return said(reasons.TRY_WSS, problem=reason)
    return reason


def _certificate(error: ssl.SSLCertVerificationError, *, cafile_given: bool) -> Said:
    code = error.verify_code
    if code == HOSTNAME_MISMATCH:
        return said(reasons.WRONG_NAME)
    if code in (_EXPIRED, _NOT_YET_VALID):
        return said(reasons.EXPIRED)
    return said(reasons.UNTRUSTED_CAFILE if cafile_given else reasons.UNTRUSTED)


_BY_CLASS: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], str], ...] = (
    (ssl.SSLError, reasons.TLS_FAILED),
    (TimeoutError, reasons.TIMEOUT),
    (ConnectionRefusedError, reasons.REFUSED),
    ((ConnectionResetError, ConnectionAbortedError, BrokenPipeError), reasons.RESET),
    (EOFError, reasons.CLOSED),
)
"""The reasons told by the exception's class (the first that matches)."""
_BY_ERRNO = {
    errno.ECONNREFUSED: reasons.REFUSED,
    errno.ETIMEDOUT: reasons.TIMEOUT,
    errno.ECONNRESET: reasons.RESET,
    errno.ENETUNREACH: reasons.NO_NETWORK,
    errno.ENETDOWN: reasons.NO_NETWORK,
    errno.EHOSTUNREACH: reasons.NO_NETWORK,
}
"""The reasons told by the error's number, for an ``OSError`` of no finer class."""


def _reason(error: BaseException, url: str) -> Said:
    """The reason before any hint: by the exception's class, else by its errno."""
    if isinstance(error, InvalidMessage):
        ended = isinstance(error.__cause__, EOFError | ConnectionError)
        return said(reasons.CLOSED if ended else reasons.BAD_ANSWER)
    if isinstance(error, socket.gaierror):
        return said(reasons.NO_NAME, host=urlsplit(url).hostname or url)
    for kind, key in _BY_CLASS:
        if isinstance(error, kind):
            return said(key)
    by_number = _BY_ERRNO.get(_errno(error) or 0)
    if by_number is None:
        return said(reasons.OTHER, problem=_system_text(error))
    return said(by_number)


def _errno(error: BaseException) -> int | None:
    """The error's number; for asyncio's "Multiple exceptions: [Errno 111] …" (every
    address of a name failed), the first one's."""
    if isinstance(error, OSError) and error.errno is not None:
        return error.errno
    found = _ERRNO.search(str(error))
    return int(found.group(1)) if found else None


def _secure(url: str) -> bool:
    return url.lower().startswith("wss:")


def _system_text(error: BaseException) -> str:
    """The system's own words for ``error`` (its class's name when it has none)."""
    own = error.strerror if isinstance(error, OSError) else None
    text = own or str(error).strip()
    return text[:1].lower() + text[1:] if text else type(error).__name__

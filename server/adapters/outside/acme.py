"""An ACME client (RFC 8555) for IP addresses (RFC 8738: the public IPv4 address, and
the global IPv6 address where there is one, in one certificate), each validated by
tls-alpn-01 (RFC 8737) on the server's own TLS port: no port 80, no DNS name.

`AcmeClient.issue` runs one order to its end: the directory, a nonce, the account (the
key's own: ``newAccount`` answers the existing one for a known key), a new order for the
``ip`` identifiers (with the ``shortlived`` profile when the directory lists profiles:
Let's Encrypt issues certificates for IP addresses only under it), each authorization's
``tls-alpn-01`` challenge (its certificate handed to a `ChallengeResponder`, which the
listener serves to a validator that asks for ``acme-tls/1`` under the address's reverse
name, ``2.113.0.203.in-addr.arpa``), the finalization with a CSR for a fresh key, and the
certificate chain. Every request is signed with the account key (ES256, JWS); a
``badNonce`` is retried at once with the fresh nonce it carries, a rate limit (HTTP 429,
``rateLimited``) after its ``Retry-After`` (bounded), a network failure or a 5xx with
backoff, each at most `RETRIES` times.

The CA is hostile input like any peer: every reply is read up to `MAX_REPLY_BYTES`
within `REQUEST_TIMEOUT` seconds, every JSON field is checked for its type, URLs must be
https (or the directory's own scheme), and every wait (polling, Retry-After) is bounded.
A failure raises `AcmeError`, whose message is one sentence saying which step failed
and what to do.

HTTP goes through a `Transport` (`UrllibTransport`: the standard library's client in a
worker thread, trusting the system's roots or ``--acme-ca-file``); tests give the real
one against pebble, Let's Encrypt's test CA.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import hashlib
import ipaddress
import json
import random
import ssl
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import ObjectIdentifier

from server.adapters.logs import get_logger
from server.adapters.settings.values import LETS_ENCRYPT

__all__ = [
    "ACME_TLS_ALPN",
    "LETS_ENCRYPT",
    "MAX_IDENTIFIERS",
    "MAX_REPLY_BYTES",
    "PROFILE",
    "REQUEST_TIMEOUT",
    "RETRIES",
    "AcmeClient",
    "AcmeError",
    "ChallengeResponder",
    "Issued",
    "Reply",
    "Transport",
    "UrllibTransport",
    "challenge_certificate",
    "key_authorization",
    "reverse_name",
    "thumbprint",
]

PROFILE = "shortlived"
"""The profile asked for when the directory lists it (Let's Encrypt: IP addresses, 160 h)."""
ACME_TLS_ALPN = "acme-tls/1"
"""The ALPN protocol of a tls-alpn-01 validation (RFC 8737)."""
ACME_IDENTIFIER_OID = ObjectIdentifier("1.3.6.1.5.5.7.1.31")
"""id-pe-acmeIdentifier: the critical extension holding SHA-256 of the key authorization."""

MAX_REPLY_BYTES = 256 * 1024
"""The largest reply read from the CA (a chain of a few certificates is ~5 KiB)."""
REQUEST_TIMEOUT = 20.0
"""Seconds one request to the CA may take (connect, send, read)."""
RETRIES = 5
MAX_IDENTIFIERS = 2
"""Addresses in one order: the public IPv4 address and the global IPv6 address."""
"""Times a request is retried after badNonce, a rate limit or a network failure."""
MAX_RETRY_AFTER = 300.0
"""The longest Retry-After honoured; a CA asking for more fails the step (try later)."""
POLL_SECONDS = 1.0
"""First pause between two looks at a pending authorization or order (then doubling)."""
MAX_POLL_SECONDS = 10.0
POLL_DEADLINE = 180.0
"""Seconds an authorization or an order may stay pending before the step fails."""

log = get_logger()

JsonObject = dict[str, Any]


class AcmeError(Exception):
    """A step of getting the certificate failed; the message says which and what to do.
    ``addresses``: the addresses the failure is about (an authorization's, or the order's
    when the CA refused its identifiers), empty when it is not about one (the CA out of
    reach, a bad reply)."""

    def __init__(self, message: str, addresses: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.addresses = addresses


@dataclass(frozen=True, slots=True)
class Reply:
    """One HTTP reply from the CA (its body at most `MAX_REPLY_BYTES`)."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        """A header's value, the name compared without case."""
        lowered = name.lower()
        for key, value in self.headers.items():
            if key.lower() == lowered:
                return value
        return None


class Transport(Protocol):
    """How the client reaches the CA: one request, its reply (any status)."""

    async def request(
        self, method: str, url: str, body: bytes | None, content_type: str | None
    ) -> Reply:
        """The reply to ``method url`` with ``body``.

        Raises:
            OSError: the CA could not be reached, or its reply was too large or too slow.
        """
        ...


class UrllibTransport:
    """`Transport` over the standard library's HTTP client, in a worker thread, with a
    timeout and a bound on the reply; ``ca_file``: trust that CA's root for the CA's own
    HTTPS (a test CA) instead of the system's."""

    def __init__(self, ca_file: Path | None = None, *, timeout: float = REQUEST_TIMEOUT) -> None:
        self._context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        self._timeout = timeout

    async def request(
        self, method: str, url: str, body: bytes | None, content_type: str | None
    ) -> Reply:
        return await asyncio.wait_for(
            asyncio.to_thread(self._request, method, url, body, content_type),
            self._timeout + 1.0,
        )

    def _request(
        self, method: str, url: str, body: bytes | None, content_type: str | None
    ) -> Reply:
        headers = {"User-Agent": "family-war-acme/1", "Accept-Language": "en"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(url, data=body, method=method, headers=headers)  # noqa: S310 (https checked by the client)
        try:
            response = urllib.request.urlopen(request, timeout=self._timeout, context=self._context)  # noqa: S310
        except urllib.error.HTTPError as error:  # a 4xx/5xx still has a body to read
            response = error
        with response:
            data = response.read(MAX_REPLY_BYTES + 1)
            if len(data) > MAX_REPLY_BYTES:
                raise OSError(f"the CA's reply is larger than {MAX_REPLY_BYTES} bytes")
            return Reply(response.status, dict(response.headers.items()), data)


@dataclass(frozen=True, slots=True)
class Issued:
    """A certificate the CA issued: its chain and key (PEM) and its validity (UNIX time)."""

    chain_pem: bytes
    key_pem: bytes
    not_before: float
    not_after: float


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _jwk(key: ec.EllipticCurvePrivateKey) -> dict[str, str]:
    numbers = key.public_key().public_numbers()
    return {
        "crv": "P-256",
        "kty": "EC",
        "x": b64url(numbers.x.to_bytes(32, "big")),
        "y": b64url(numbers.y.to_bytes(32, "big")),
    }


def thumbprint(key: ec.EllipticCurvePrivateKey) -> str:
    """The JWK thumbprint of the account key (RFC 7638), base64url."""
    canonical = json.dumps(_jwk(key), sort_keys=True, separators=(",", ":")).encode()
    return b64url(hashlib.sha256(canonical).digest())


def key_authorization(token: str, key: ec.EllipticCurvePrivateKey) -> str:
    """A challenge's key authorization (RFC 8555 section 8.1)."""
    return f"{token}.{thumbprint(key)}"


def reverse_name(address: str) -> str:
    """The reverse DNS name of an IP address, the SNI a tls-alpn-01 validator sends for an
    ``ip`` identifier (RFC 8738 section 6): ``2.113.0.203.in-addr.arpa``."""
    return ipaddress.ip_address(address).reverse_pointer


def challenge_certificate(address: str, authorization: str) -> tuple[bytes, bytes]:
    """The self-signed certificate (PEM) and key (PEM) a tls-alpn-01 validation of
    ``address`` must see (RFC 8737 section 3): the address as its only subject
    alternative name and the critical acmeIdentifier extension holding SHA-256 of the
    key ``authorization``."""
    key = ec.generate_private_key(ec.SECP256R1())
    ip = ipaddress.ip_address(address)
    name = x509.Name([])
    now = _utcnow()
    digest = hashlib.sha256(authorization.encode("ascii")).digest()
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _DAY)
        .not_valid_after(now + _DAY)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ip)]), critical=True)
        .add_extension(
            x509.UnrecognizedExtension(ACME_IDENTIFIER_OID, b"\x04\x20" + digest), critical=True
        )
        .sign(key, hashes.SHA256())
    )
    return (
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


class ChallengeResponder(Protocol):
    """Where the client puts a tls-alpn-01 challenge's certificate while it is validated
    (the outside listener, `server.adapters.outside.listener.OutsideTls`)."""

    def offer(self, server_name: str, certificate_pem: bytes, key_pem: bytes) -> None:
        """Serve this certificate to a validator asking for ``server_name`` with acme-tls/1."""
        ...

    def withdraw(self, server_name: str) -> None:
        """Stop serving it."""
        ...


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


_DAY = dt.timedelta(days=1)


def _problem(reply: Reply) -> tuple[str, str]:
    """The type (without its ``urn:ietf:params:acme:error:`` prefix) and detail of an
    error reply (RFC 7807), bounded; empty strings if it is not one."""
    try:
        document = json.loads(reply.body)
    except ValueError:
        return "", ""
    if not isinstance(document, dict):
        return "", ""
    kind = document.get("type")
    detail = document.get("detail")
    kind = kind.removeprefix("urn:ietf:params:acme:error:") if isinstance(kind, str) else ""
    detail = detail if isinstance(detail, str) else ""
    return kind[:80], " ".join(detail.split())[:300]


def _retry_after(reply: Reply, default: float) -> float:
    """Seconds a reply's Retry-After asks for (delta-seconds or an HTTP date), else default."""
    value = reply.header("Retry-After")
    if value is None:
        return default
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    return max(0.0, (when - _utcnow()).total_seconds())


def _text(document: JsonObject, key: str, step: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value or len(value) > 2048:
        raise AcmeError(
            f"{step}: the CA's reply has no valid {key!r}; check --acme-directory points at "
            "an ACME (RFC 8555) directory"
        )
    return value


@dataclass(slots=True)
class AcmeClient:
    """Gets certificates for IP addresses from the CA whose directory is ``directory``
    (see the module docstring). ``account_key``: the account's key (P-256); ``sleep``
    and ``jitter`` are injectable so tests do not wait."""

    directory: str
    account_key: ec.EllipticCurvePrivateKey
    transport: Transport
    responder: ChallengeResponder
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    jitter: Callable[[], float] = random.random
    _urls: dict[str, str] = field(default_factory=dict)
    _profiles: tuple[str, ...] = ()
    _nonce: str | None = None
    _account: str | None = None

    # --- the whole order ---------------------------------------------------------------
    async def issue(self, *addresses: str) -> Issued:
        """One certificate for ``addresses`` (IPv4 or IPv6 addresses as text: the
        router's public IPv4 address and the machine's global IPv6 address), each proved
        by its own tls-alpn-01 validation in the same order.

        Raises:
            AcmeError: a step failed; the message says which and what to do.
        """
        wanted = [ipaddress.ip_address(a) for a in addresses]  # the caller's bug: ValueError
        if not 1 <= len(wanted) <= MAX_IDENTIFIERS or len(set(wanted)) != len(wanted):
            raise ValueError(f"1 to {MAX_IDENTIFIERS} different addresses, not {addresses!r}")
        addresses = tuple(str(a) for a in wanted)
        await self._load_directory()
        await self._register()
        order_url, order = await self._new_order(addresses)
        authorizations = order.get("authorizations")
        if not isinstance(authorizations, list) or not 1 <= len(authorizations) <= 4:
            raise AcmeError("new order: the CA's order lists no authorizations; try again later")
        for url in authorizations:
            if not isinstance(url, str):
                raise AcmeError("new order: the CA's order has a bad authorization; try later")
            await self._authorize(self._url(url, "authorization"), addresses)
        key = ec.generate_private_key(ec.SECP256R1())
        order = await self._finalize(order_url, order, addresses, key)
        chain = await self._download(_text(order, "certificate", "certificate download"))
        leaf = x509.load_pem_x509_certificates(chain)[0]
        return Issued(
            chain_pem=chain,
            key_pem=key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
            not_before=leaf.not_valid_before_utc.timestamp(),
            not_after=leaf.not_valid_after_utc.timestamp(),
        )

    # --- the steps ---------------------------------------------------------------------
    async def _load_directory(self) -> None:
        step = "reading the ACME directory"
        reply = await self._send("GET", self.directory, None, step)
        if reply.status != 200:
            raise AcmeError(
                f"{step}: {self.directory} answered HTTP {reply.status}; check --acme-directory"
            )
        document = self._json(reply, step)
        for name in ("newNonce", "newAccount", "newOrder"):
            self._urls[name] = self._url(_text(document, name, step), step)
        meta = document.get("meta")
        profiles = meta.get("profiles") if isinstance(meta, dict) else None
        if isinstance(profiles, dict):
            self._profiles = tuple(p for p in profiles if isinstance(p, str))[:32]

    async def _register(self) -> None:
        step = "creating the ACME account"
        payload = {"termsOfServiceAgreed": True}
        reply = await self._post(self._urls["newAccount"], payload, step, jwk=True)
        if reply.status not in (200, 201):
            raise self._failed(step, reply)
        location = reply.header("Location")
        if location is None:
            raise AcmeError(f"{step}: the CA gave no account URL; try again later")
        self._account = self._url(location, step)

    async def _new_order(self, addresses: tuple[str, ...]) -> tuple[str, JsonObject]:
        step = f"ordering a certificate for {' and '.join(addresses)}"
        payload: JsonObject = {"identifiers": [{"type": "ip", "value": a} for a in addresses]}
        if PROFILE in self._profiles:
            payload["profile"] = PROFILE
        reply = await self._post(self._urls["newOrder"], payload, step)
        if reply.status != 201:
            failure = self._failed(step, reply)
            if _problem(reply)[0] in _IDENTIFIER_REFUSED:
                failure.addresses = addresses
            raise failure
        location = reply.header("Location")
        if location is None:
            raise AcmeError(f"{step}: the CA gave no order URL; try again later")
        return self._url(location, step), self._json(reply, step)

    async def _authorize(self, url: str, addresses: tuple[str, ...]) -> None:
        step = "proving the address is this server's (tls-alpn-01)"
        authorization = self._json(await self._post_as_get(url, step), step)
        address = _identified(authorization, addresses, step)
        if authorization.get("status") == "valid":
            return
        try:
            await self._prove(url, authorization, address)
        except AcmeError as failure:
            failure.addresses = (address,)
            raise

    async def _prove(self, url: str, authorization: JsonObject, address: str) -> None:
        """Answer an authorization's tls-alpn-01 challenge for ``address``."""
        step = f"proving {address} is this server's (tls-alpn-01)"
        challenges = authorization.get("challenges")
        chosen = None
        if isinstance(challenges, list):
            chosen = next(
                (c for c in challenges if isinstance(c, dict) and c.get("type") == "tls-alpn-01"),
                None,
            )
        if chosen is None:
            raise AcmeError(
                f"{step}: the CA offers no tls-alpn-01 challenge; use a CA that does "
                "(Let's Encrypt does) with --acme-directory"
            )
        token = _text(chosen, "token", step)
        if len(token) > 256 or any(c not in _B64URL for c in token):
            raise AcmeError(f"{step}: the CA's challenge token is malformed; try again later")
        name = reverse_name(address)
        certificate, key = challenge_certificate(
            address, key_authorization(token, self.account_key)
        )
        self.responder.offer(name, certificate, key)
        try:
            challenge_url = self._url(_text(chosen, "url", step), step)
            reply = await self._post(challenge_url, {}, step)
            if reply.status != 200:
                raise self._failed(step, reply)
            await self._poll(url, step, done={"valid"}, advice=_UNREACHABLE)
        finally:
            self.responder.withdraw(name)

    async def _finalize(
        self,
        order_url: str,
        order: JsonObject,
        addresses: tuple[str, ...],
        key: ec.EllipticCurvePrivateKey,
    ) -> JsonObject:
        step = "finalizing the certificate order"
        names = [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
        csr = (
            x509.CertificateSigningRequestBuilder()
            .subject_name(x509.Name([]))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .sign(key, hashes.SHA256())
        )
        finalize = self._url(_text(order, "finalize", step), step)
        payload = {"csr": b64url(csr.public_bytes(serialization.Encoding.DER))}
        reply = await self._post(finalize, payload, step)
        if reply.status != 200:
            raise self._failed(step, reply)
        return await self._poll(order_url, step, done={"valid"}, advice=_TRY_LATER)

    async def _download(self, url: str) -> bytes:
        step = "downloading the certificate"
        reply = await self._post_as_get(self._url(url, step), step)
        try:
            certificates = x509.load_pem_x509_certificates(reply.body)
        except ValueError:
            certificates = []
        if not certificates or len(certificates) > 8:
            raise AcmeError(f"{step}: the CA's reply is not a PEM chain; try again later")
        return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)

    async def _poll(self, url: str, step: str, *, done: set[str], advice: str) -> JsonObject:
        """Look at an authorization or order until its status is one of ``done``."""
        waited, pause = 0.0, POLL_SECONDS
        while True:
            reply = await self._post_as_get(url, step)
            document = self._json(reply, step)
            status = document.get("status")
            if status in done:
                return document
            if status == "invalid":
                raise AcmeError(f"{step}: the CA said {_reason(document)}; {advice}")
            if status not in ("pending", "processing", "ready"):
                raise AcmeError(f"{step}: the CA answered status {str(status)[:40]!r}; {advice}")
            if waited >= POLL_DEADLINE:
                raise AcmeError(f"{step}: still {status} after {POLL_DEADLINE:g} s; {advice}")
            wait = min(_retry_after(reply, pause), MAX_POLL_SECONDS)
            await self.sleep(wait)
            waited += wait
            pause = min(pause * 2, MAX_POLL_SECONDS)

    # --- requests ----------------------------------------------------------------------
    async def _post_as_get(self, url: str, step: str) -> Reply:
        reply = await self._post(url, None, step)
        if reply.status != 200:
            raise self._failed(step, reply)
        return reply

    async def _post(
        self, url: str, payload: JsonObject | None, step: str, *, jwk: bool = False
    ) -> Reply:
        """A signed POST (``payload`` None: POST-as-GET), retried on badNonce, rate
        limits, 5xx and network failures (`RETRIES` times)."""
        for attempt in range(RETRIES + 1):
            nonce = self._nonce or await self._new_nonce(step)
            self._nonce = None
            body = self._jws(url, payload, nonce, jwk=jwk)
            reply = await self._send("POST", url, body, step, attempt=attempt)
            fresh = reply.header("Replay-Nonce")
            if fresh is not None and 0 < len(fresh) <= 256:
                self._nonce = fresh
            kind, _ = _problem(reply)
            if reply.status < 400 or attempt == RETRIES:
                return reply
            if kind == "badNonce":
                log.info("acme_retry", step=step, reason="badNonce")
                continue
            if reply.status == 429 or kind == "rateLimited":
                wait = _retry_after(reply, 60.0)
                if wait > MAX_RETRY_AFTER:
                    return reply
                log.info("acme_retry", step=step, reason="rate limited", seconds=round(wait))
                await self.sleep(wait)
                continue
            if reply.status >= 500:
                await self._backoff(step, attempt, f"HTTP {reply.status}")
                continue
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    async def _new_nonce(self, step: str) -> str:
        reply = await self._send("HEAD", self._urls["newNonce"], None, step)
        nonce = reply.header("Replay-Nonce")
        if nonce is None or not 0 < len(nonce) <= 256:
            raise AcmeError(f"{step}: the CA gave no nonce; try again later")
        return nonce

    async def _send(
        self, method: str, url: str, body: bytes | None, step: str, *, attempt: int = 0
    ) -> Reply:
        """One request; network failures retried with backoff, then `AcmeError`."""
        content_type = "application/jose+json" if body is not None else None
        for tries in range(attempt, RETRIES + 1):
            try:
                return await self.transport.request(method, url, body, content_type)
            except (OSError, TimeoutError, ValueError) as error:
                reason = " ".join(str(error).split())[:200] or type(error).__name__
                if tries == RETRIES:
                    raise AcmeError(
                        f"{step}: the CA at {urlsplit(url).netloc} could not be reached "
                        f"({reason}); check the network and --acme-directory, then restart"
                    ) from error
                await self._backoff(step, tries, reason)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _backoff(self, step: str, attempt: int, reason: str) -> None:
        wait = min(2.0**attempt, 60.0) * (0.5 + self.jitter())
        log.info("acme_retry", step=step, reason=reason, seconds=round(wait, 1))
        await self.sleep(wait)

    def _jws(self, url: str, payload: JsonObject | None, nonce: str, *, jwk: bool) -> bytes:
        protected: JsonObject = {"alg": "ES256", "nonce": nonce, "url": url}
        if jwk or self._account is None:
            protected["jwk"] = _jwk(self.account_key)
        else:
            protected["kid"] = self._account
        header = b64url(json.dumps(protected, separators=(",", ":")).encode())
        body = "" if payload is None else b64url(json.dumps(payload).encode())
        der = self.account_key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        signature = b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
        return json.dumps({"protected": header, "payload": body, "signature": signature}).encode()

    def _json(self, reply: Reply, step: str) -> JsonObject:
        try:
            document = json.loads(reply.body)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise AcmeError(f"{step}: the CA's reply is not a JSON object; try again later")
        return document

    def _url(self, url: str, step: str) -> str:
        """``url`` if it is an https URL (or of the directory's own scheme)."""
        scheme = urlsplit(self.directory).scheme
        parts = urlsplit(url)
        if parts.scheme not in ("https", scheme) or not parts.netloc or len(url) > 2048:
            raise AcmeError(f"{step}: the CA gave a URL that is not https; check --acme-directory")
        return url

    def _failed(self, step: str, reply: Reply) -> AcmeError:
        kind, detail = _problem(reply)
        said = f"{kind}: {detail}" if kind else f"HTTP {reply.status}"
        if reply.status == 429 or kind == "rateLimited":
            advice = "the CA limits how often it issues; wait and restart later"
        elif kind in ("unauthorized", *_IDENTIFIER_REFUSED):
            advice = "this CA will not issue for this address; see docs/hosting.md"
        else:
            advice = _TRY_LATER
        return AcmeError(f"{step}: the CA said {said.rstrip('.')}; {advice}")


_IDENTIFIER_REFUSED = ("rejectedIdentifier", "unsupportedIdentifier")
_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TRY_LATER = (
    "try again later, or forward the port by hand with your own certificate (docs/hosting.md)"
)
_UNREACHABLE = (
    "the CA could not reach this server on the public address: check the router forwards "
    "the outside port to this machine and nothing else answers on it (docs/hosting.md)"
)


def _identified(authorization: JsonObject, addresses: tuple[str, ...], step: str) -> str:
    """Which of ``addresses`` an authorization is for (its ``identifier``); an
    authorization for anything else is the CA's error."""
    identifier = authorization.get("identifier")
    value = identifier.get("value") if isinstance(identifier, dict) else None
    kind = identifier.get("type") if isinstance(identifier, dict) else None
    try:
        named = ipaddress.ip_address(value) if kind == "ip" and isinstance(value, str) else None
    except ValueError:
        named = None
    for address in addresses:
        if named is not None and named == ipaddress.ip_address(address):
            return address
    raise AcmeError(
        f"{step}: the CA asks to prove an identifier this server did not order; "
        "check --acme-directory points at a trustworthy CA"
    )


def _reason(document: JsonObject) -> str:
    """Why an authorization or order is invalid, from its challenge's or its own error."""
    candidates = [document.get("error")]
    challenges = document.get("challenges")
    if isinstance(challenges, list):
        candidates += [c.get("error") for c in challenges if isinstance(c, dict)]
    for error in candidates:
        if isinstance(error, dict):
            detail = error.get("detail")
            if isinstance(detail, str) and detail:
                return " ".join(detail.split())[:300].rstrip(".")
    return "it is invalid"

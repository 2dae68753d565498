"""The ACME client against pebble on loopback (real tls-alpn-01 validation of 127.0.0.1,
served by `OutsideTls`), and against a hostile CA (a stand-in transport)."""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from server.adapters.outside.acme import (
    MAX_REPLY_BYTES,
    AcmeClient,
    AcmeError,
    Reply,
    UrllibTransport,
    challenge_certificate,
    reverse_name,
)
from server.adapters.outside.tls import OutsideTls
from tests._kit.pebble import Pebble, needs_pebble, start_pebble


@pytest.fixture
async def listener() -> AsyncIterator[tuple[OutsideTls, int]]:
    """The outside TLS on a loopback port (it answers handshakes, then closes)."""
    tls = OutsideTls()

    async def handle(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=tls.context)
    try:
        yield tls, server.sockets[0].getsockname()[1]
    finally:
        server.close()


def _pebble(tmp_path: Path, port: int, **options: int) -> Iterator[Pebble]:
    pebble = start_pebble(tmp_path, tls_port=port, **options)
    try:
        yield pebble
    finally:
        pebble.stop()


def _client(pebble: Pebble, tls: OutsideTls, **options: object) -> AcmeClient:
    return AcmeClient(
        pebble.directory,
        ec.generate_private_key(ec.SECP256R1()),
        UrllibTransport(pebble.ca_file),
        tls,
        **options,  # type: ignore[arg-type]
    )


async def _handshake(port: int, root: bytes) -> x509.Certificate:
    """The certificate a client trusting only ``root`` sees at 127.0.0.1:``port``,
    verified for that address."""
    context = ssl.create_default_context(cadata=root.decode())
    _, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=context, server_hostname="127.0.0.1"
    )
    der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    writer.close()
    return x509.load_der_x509_certificate(der)


@needs_pebble
async def test_a_certificate_for_an_ip_address_is_issued_and_served(
    listener: tuple[OutsideTls, int], tmp_path: Path
) -> None:
    tls, port = listener
    for pebble in _pebble(tmp_path, port, validity=600):
        issued = await _client(pebble, tls).issue("127.0.0.1")
        assert 590 <= issued.not_after - issued.not_before <= 610
        tls.install(issued.chain_pem, issued.key_pem)
        seen = await _handshake(port, pebble.root())
        names = seen.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert [str(a) for a in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]


@needs_pebble
async def test_bad_nonces_are_retried(listener: tuple[OutsideTls, int], tmp_path: Path) -> None:
    tls, port = listener
    for pebble in _pebble(tmp_path, port, nonce_reject=30):
        issued = await _client(pebble, tls).issue("127.0.0.1")
        assert issued.chain_pem.startswith(b"-----BEGIN CERTIFICATE-----")


@needs_pebble
async def test_a_validation_that_cannot_reach_the_server_says_so(tmp_path: Path) -> None:
    tls = OutsideTls()
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)  # no TLS
    port = server.sockets[0].getsockname()[1]
    try:
        for pebble in _pebble(tmp_path, port):
            with pytest.raises(AcmeError) as failed:
                await _client(pebble, tls, sleep=_no_wait).issue("127.0.0.1")
        message = str(failed.value)
        assert message.startswith("proving 127.0.0.1 is this server's (tls-alpn-01)")
        assert "router forwards the outside port" in message
    finally:
        server.close()


async def test_the_challenge_certificate_follows_rfc_8737() -> None:
    cert_pem, _ = challenge_certificate("203.0.113.2", "token.thumb")
    cert = x509.load_pem_x509_certificate(cert_pem)
    acme = cert.extensions.get_extension_for_oid(x509.ObjectIdentifier("1.3.6.1.5.5.7.1.31"))
    assert acme.critical
    assert isinstance(acme.value, x509.UnrecognizedExtension)
    assert acme.value.value[:2] == b"\x04\x20" and len(acme.value.value) == 34
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(a) for a in names.get_values_for_type(x509.IPAddress)] == ["203.0.113.2"]
    assert reverse_name("203.0.113.2") == "2.113.0.203.in-addr.arpa"


async def test_a_challenge_is_served_only_under_its_reverse_name(
    listener: tuple[OutsideTls, int],
) -> None:
    tls, port = listener
    cert_pem, key_pem = challenge_certificate("127.0.0.1", "token.thumb")
    tls.offer(reverse_name("127.0.0.1"), cert_pem, key_pem)
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.set_alpn_protocols(["acme-tls/1"])
    _, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=context, server_hostname="1.0.0.127.in-addr.arpa"
    )
    assert writer.get_extra_info("ssl_object").selected_alpn_protocol() == "acme-tls/1"
    writer.close()
    tls.withdraw(reverse_name("127.0.0.1"))
    with pytest.raises(OSError):  # no certificate installed yet, none offered: refused
        await asyncio.open_connection(
            "127.0.0.1", port, ssl=context, server_hostname="1.0.0.127.in-addr.arpa"
        )


# --- a hostile or struggling CA --------------------------------------------------------
async def _no_wait(_: float) -> None:
    return None


class ScriptedCa:
    """A transport answering from a script: the directory, nonces, then ``replies`` for
    each POST in turn."""

    def __init__(self, *posts: Reply, directory: Reply | None = None) -> None:
        self.posts = list(posts)
        self.directory = directory or Reply(
            200,
            {},
            json.dumps(
                {
                    "newNonce": "https://ca.test/nonce",
                    "newAccount": "https://ca.test/account",
                    "newOrder": "https://ca.test/order",
                    "meta": {"profiles": {"shortlived": "160 h", "classic": "90 d"}},
                }
            ).encode(),
        )
        self.bodies: list[bytes | None] = []

    async def request(
        self, method: str, url: str, body: bytes | None, content_type: str | None
    ) -> Reply:
        if method == "GET":
            return self.directory
        if method == "HEAD":
            return Reply(200, {"Replay-Nonce": "n0nce"}, b"")
        self.bodies.append(body)
        if not self.posts:
            raise OSError("connection refused")
        return self.posts.pop(0)


def _problem(status: int, kind: str, headers: dict[str, str] | None = None) -> Reply:
    body = json.dumps({"type": f"urn:ietf:params:acme:error:{kind}", "detail": "no."}).encode()
    return Reply(status, headers or {}, body)


_ACCOUNT = Reply(201, {"Location": "https://ca.test/acct/1", "Replay-Nonce": "a"}, b"{}")


def _scripted(ca: ScriptedCa, waits: list[float] | None = None) -> AcmeClient:
    async def sleep(seconds: float) -> None:
        if waits is not None:
            waits.append(seconds)

    return AcmeClient(
        "https://ca.test/dir",
        ec.generate_private_key(ec.SECP256R1()),
        ca,
        OutsideTls(),
        sleep=sleep,
        jitter=lambda: 0.5,
    )


async def test_a_rate_limit_waits_for_retry_after_then_goes_on() -> None:
    waits: list[float] = []
    ca = ScriptedCa(_problem(429, "rateLimited", {"Retry-After": "7"}), _ACCOUNT)
    with pytest.raises(AcmeError, match=r"^ordering a certificate for 203.0.113.2: .*reached"):
        await _scripted(ca, waits).issue("203.0.113.2")
    assert waits[0] == 7.0
    order = json.loads(ca.bodies[-1] or b"{}")  # the order's JWS; its payload asks shortlived
    payload = json.loads(base64.urlsafe_b64decode(order["payload"] + "=="))
    assert payload == {
        "identifiers": [{"type": "ip", "value": "203.0.113.2"}],
        "profile": "shortlived",
    }


async def test_a_rate_limit_too_long_fails_the_step_saying_wait() -> None:
    ca = ScriptedCa(_problem(429, "rateLimited", {"Retry-After": "86400"}))
    with pytest.raises(AcmeError, match=r"^creating the ACME account: .*wait and restart later"):
        await _scripted(ca).issue("203.0.113.2")


async def test_an_oversized_or_malformed_directory_is_refused() -> None:
    for bad in (b"[]", b"not json", b"{}", json.dumps({"newNonce": "http://x/"}).encode()):
        ca = ScriptedCa(directory=Reply(200, {}, bad))
        with pytest.raises(AcmeError, match=r"^reading the ACME directory: "):
            await _scripted(ca).issue("203.0.113.2")


async def test_a_ca_refusing_the_address_names_the_step_and_what_to_do() -> None:
    ca = ScriptedCa(_ACCOUNT, _problem(400, "rejectedIdentifier"))
    with pytest.raises(AcmeError) as failed:
        await _scripted(ca).issue("203.0.113.2")
    assert str(failed.value) == (
        "ordering a certificate for 203.0.113.2: the CA said rejectedIdentifier: no; "
        "this CA will not issue for this address; see docs/hosting.md"
    )


async def test_network_failures_are_retried_with_backoff_then_said() -> None:
    waits: list[float] = []
    with pytest.raises(AcmeError, match=r"^creating the ACME account: the CA at ca.test could"):
        await _scripted(ScriptedCa(), waits).issue("203.0.113.2")
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0]  # doubling (jitter fixed at one half)


async def test_an_oversized_reply_is_not_read_whole(tmp_path: Path) -> None:
    """The real transport stops reading at MAX_REPLY_BYTES."""
    sent = b"x" * (MAX_REPLY_BYTES * 4)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(sent) + sent)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(OSError, match="larger than"):
            await UrllibTransport().request("GET", f"http://127.0.0.1:{port}/", None, None)
    finally:
        server.close()


async def test_an_authorization_for_an_address_not_ordered_is_refused() -> None:
    """A hostile CA asks to prove another address than the one ordered: no challenge is
    offered for it, the step fails saying so."""
    order = Reply(
        201,
        {"Location": "https://ca.test/order/1"},
        json.dumps(
            {"authorizations": ["https://ca.test/authz/1"], "finalize": "https://ca.test/f"}
        ).encode(),
    )
    foreign = Reply(
        200,
        {},
        json.dumps(
            {
                "status": "pending",
                "identifier": {"type": "ip", "value": "198.51.100.7"},
                "challenges": [{"type": "tls-alpn-01", "token": "abc", "url": "https://ca.test/c"}],
            }
        ).encode(),
    )
    tls = OutsideTls()
    ca = ScriptedCa(_ACCOUNT, order, foreign)
    client = AcmeClient(
        "https://ca.test/dir", ec.generate_private_key(ec.SECP256R1()), ca, tls, sleep=_no_wait
    )
    with pytest.raises(AcmeError, match=r"did not order; check --acme-directory"):
        await client.issue("203.0.113.2")
    assert tls._challenges == {}, "nothing was offered for the foreign address"


async def test_the_addresses_of_one_order_are_checked_by_the_caller() -> None:
    client = _scripted(ScriptedCa())
    for bad in ((), ("203.0.113.2", "203.0.113.2"), ("a", "b", "c"), ("not an address",)):
        with pytest.raises(ValueError):
            await client.issue(*bad)

"""The thin asyncio layer under the router step: one UDP question with retries, one SSDP
search, one HTTP exchange. Every wait is bounded; what comes back is handed to the pure
parsers of `natpmp`, `pcp`, `upnp` and `httpwire`, and anything they refuse is logged
and ignored (a hostile or broken device on the LAN harms nothing but its own answer)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address
from typing import TypeVar

from server.adapters.logs import get_logger
from server.adapters.outside.wire import httpwire, upnp

log = get_logger()
T = TypeVar("T")
Address = IPv4Address | IPv6Address

HTTP_TIMEOUT = 5.0


class _Inbox(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[bytes, Address]] = asyncio.Queue(maxsize=64)

    def datagram_received(self, data: bytes, addr: tuple[str | object, ...]) -> None:
        try:
            sender = ip_address(str(addr[0]).split("%", 1)[0])
        except ValueError:
            return
        if not self.queue.full():
            self.queue.put_nowait((data, sender))


async def _receive_until(
    inbox: _Inbox, deadline: float, accept: Callable[[bytes, Address], T | None]
) -> T | None:
    loop = asyncio.get_running_loop()
    while (left := deadline - loop.time()) > 0:
        try:
            data, sender = await asyncio.wait_for(inbox.queue.get(), left)
        except TimeoutError:
            return None
        try:
            answer = accept(data, sender)
        except ValueError as refused:
            log.info("outside_answer_ignored", sender=str(sender), reason=str(refused)[:200])
            continue
        if answer is not None:
            return answer
    return None


@dataclass(frozen=True)
class Peer:
    """Where a UDP question goes: an address, a port, and an IPv6 link's scope (0: none)."""

    address: Address
    port: int
    scope: int = 0


TRIES = 3
FIRST_WAIT = 0.25


async def ask_udp(
    peer: Peer, payload: bytes, accept: Callable[[bytes], T | None], local: Address | None
) -> T | None:
    """Send `payload` to `peer` up to `TRIES` times from `local`, waiting `FIRST_WAIT`
    seconds and twice as long at each try (RFC 6886 §3.1; RFC 6887 §8.1.1 asks for longer,
    but a home router answers at once or not at all), for a datagram that `accept` makes
    something of (it returns None or raises ValueError for the others). Only datagrams
    from the peer's address are looked at. None when nothing came (1.75 s)."""
    loop = asyncio.get_running_loop()
    six = isinstance(peer.address, IPv6Address)
    destination: tuple[str, int] | tuple[str, int, int, int] = (
        (str(peer.address), peer.port, 0, peer.scope) if six else (str(peer.address), peer.port)
    )
    try:
        transport, inbox = await loop.create_datagram_endpoint(
            _Inbox,
            family=socket.AF_INET6 if six else socket.AF_INET,
            local_addr=(str(local), 0) if local is not None else None,
        )
    except OSError as failure:  # no such address here (any more), no route
        log.info("outside_udp_unavailable", peer=str(peer.address), error=str(failure))
        return None

    def from_peer(data: bytes, sender: Address) -> T | None:
        return accept(data) if sender == peer.address else None

    try:
        wait = FIRST_WAIT
        for _ in range(TRIES):
            transport.sendto(payload, destination)
            answer = await _receive_until(inbox, loop.time() + wait, from_peer)
            if answer is not None:
                return answer
            wait *= 2
        return None
    finally:
        transport.close()


async def search_gateway(
    lan: IPv4Address, gateway: IPv4Address, wait: float
) -> upnp.Location | None:
    """The description of the default `gateway`'s IGD, from an SSDP search (IGD:2 and
    IGD:1) sent from `lan`; None if it did not answer within `wait` seconds. Answers from
    any other device are ignored (logged): a machine on the home network cannot pose as
    the router. The search goes out again after a quarter of `wait` (UDP may lose it)."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(str(lan)))
        sock.bind((str(lan), 0))
    except OSError:
        sock.close()
        raise
    transport, inbox = await loop.create_datagram_endpoint(_Inbox, sock=sock)

    def send() -> None:
        for target in (upnp.IGD2, upnp.IGD1):
            transport.sendto(upnp.search_request(target), (upnp.SSDP_ADDRESS, upnp.SSDP_PORT))

    def from_gateway(data: bytes, sender: Address) -> upnp.Location | None:
        if sender != gateway:
            log.info("outside_answer_ignored", sender=str(sender), reason="not the gateway")
            return None
        return upnp.parse_search_answer(data, gateway)

    try:
        deadline = loop.time() + wait
        send()
        location = await _receive_until(inbox, loop.time() + wait / 4, from_gateway)
        if location is None:
            send()
            location = await _receive_until(inbox, deadline, from_gateway)
        return location
    finally:
        transport.close()


@dataclass(frozen=True)
class Endpoint:
    """Where a router's HTTP server is (and, for IPv6, the address to speak from)."""

    host: IPv4Address | IPv6Address
    port: int
    local: IPv6Address | None = None


async def http(
    endpoint: Endpoint, method: str, path: str, soap: tuple[dict[str, str], bytes] | None = None
) -> httpwire.Answer:
    """One HTTP exchange with the router (`soap`: the headers and body to send), bounded in
    time (`HTTP_TIMEOUT`) and size."""
    headers, body = soap or ({}, b"")
    host = str(endpoint.host)
    authority = f"[{host}]:{endpoint.port}" if ":" in host else f"{host}:{endpoint.port}"
    message = httpwire.request(method, authority, path, headers, body)
    limit = httpwire.MAX_HEAD + httpwire.MAX_BODY + 4096

    async def exchange() -> bytes:
        local = (str(endpoint.local), 0) if endpoint.local else None
        reader, writer = await asyncio.open_connection(host, endpoint.port, local_addr=local)
        try:
            writer.write(message)
            await writer.drain()
            data = bytearray()
            while chunk := await reader.read(65536):
                data += chunk
                if len(data) > limit:
                    raise httpwire.HttpFormatError("an HTTP answer too large")
            return bytes(data)
        finally:
            writer.close()

    async with asyncio.timeout(HTTP_TIMEOUT):
        data = await exchange()
    return httpwire.parse_answer(data)

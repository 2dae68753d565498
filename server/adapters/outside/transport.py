"""The thin asyncio layer under the router step: one UDP question with retries, one SSDP
search, one HTTP exchange. Every wait is bounded; what comes back is handed to the pure
parsers of `natpmp`, `pcp`, `upnp` and `httpwire`, and anything they refuse is logged
and ignored (a hostile or broken device on the LAN harms nothing but its own answer)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address, ip_address
from typing import TypeVar

from server.adapters.logs import get_logger
from server.adapters.outside import httpwire, upnp

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


async def ask_udp(
    target: Address,
    port: int,
    payload: bytes,
    accept: Callable[[bytes, Address], T | None],
    *,
    tries: int = 3,
    first_wait: float = 0.25,
    local: Address | None = None,
    scope: int = 0,
) -> T | None:
    """Send `payload` to `target`:`port` up to `tries` times, waiting `first_wait` seconds
    and twice as long at each try (RFC 6886 §3.1, RFC 6887 §8.1.1), for a datagram that
    `accept` makes something of (it returns None or raises ValueError for the others).
    Only datagrams from `target` are looked at. None when nothing came."""
    loop = asyncio.get_running_loop()
    family = socket.AF_INET6 if isinstance(target, IPv6Address) else socket.AF_INET
    destination: tuple[str, int] | tuple[str, int, int, int] = (
        (str(target), port, 0, scope) if family == socket.AF_INET6 else (str(target), port)
    )
    local_addr = (str(local), 0) if local is not None else None
    transport, inbox = await loop.create_datagram_endpoint(
        _Inbox, family=family, local_addr=local_addr
    )

    def from_target(data: bytes, sender: Address) -> T | None:
        return accept(data, sender) if sender == target else None

    try:
        wait = first_wait
        for _ in range(tries):
            transport.sendto(payload, destination)
            answer = await _receive_until(inbox, loop.time() + wait, from_target)
            if answer is not None:
                return answer
            wait *= 2
        return None
    finally:
        transport.close()


async def search_gateways(
    lan: IPv4Address, gateway: IPv4Address | None, wait: float
) -> list[upnp.Location]:
    """The IGDs that answer an SSDP search (IGD:2 and IGD:1) sent from `lan`, each
    description once, in the order they answered; as soon as the default `gateway`
    answers, it alone. The search goes out again after a quarter of `wait` (UDP may lose
    it), and the search ends after `wait` seconds."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(str(lan)))
    sock.bind((str(lan), 0))
    transport, inbox = await loop.create_datagram_endpoint(_Inbox, sock=sock)

    def send() -> None:
        for target in (upnp.IGD2, upnp.IGD1):
            transport.sendto(upnp.search_request(target), (upnp.SSDP_ADDRESS, upnp.SSDP_PORT))

    found: list[upnp.Location] = []
    try:
        deadline = loop.time() + wait
        resend: float | None = loop.time() + wait / 4
        send()
        while True:
            location = await _receive_until(inbox, min(deadline, resend or deadline), _location)
            if location is None:
                if resend is None or loop.time() >= deadline:
                    return found
                send()
                resend = None
                continue
            if location.host == gateway:
                return [location]
            if all((k.host, k.port, k.path) != (location.host, location.port, location.path)
                   for k in found):  # fmt: skip
                found.append(location)
    finally:
        transport.close()


def _location(data: bytes, sender: Address) -> upnp.Location | None:
    if not isinstance(sender, IPv4Address):
        return None
    return upnp.parse_search_answer(data, sender)


async def http(
    host: IPv4Address | IPv6Address,
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    *,
    timeout: float = HTTP_TIMEOUT,
) -> httpwire.Answer:
    """One HTTP exchange with the router, bounded in time and size."""
    message = httpwire.request(method, str(host), port, path, headers or {}, body)
    limit = httpwire.MAX_HEAD + httpwire.MAX_BODY + 4096

    async def exchange() -> bytes:
        reader, writer = await asyncio.open_connection(str(host), port)
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

    data = await asyncio.wait_for(exchange(), timeout)
    return httpwire.parse_answer(data)

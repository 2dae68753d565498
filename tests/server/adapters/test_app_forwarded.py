"""--trusted-proxies over loopback: the real app and Hub, real handshakes with headers.

The test clients stand in for a reverse proxy on 127.0.0.1 that names its clients in
``X-Forwarded-For``. Trusted, each named client gets its own per-address limits; not
trusted (no option, or another address trusted), they all count as 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path

import pytest
from structlog.testing import capture_logs
from websockets.asyncio.client import connect

from protocol import CloseCode, CreateRoom, ErrorCode, JoinRoom, Welcome
from tests.e2e._client import DEFAULT_TIMEOUT, Client
from tests.e2e._war import War, start_war

LOOPBACK = (ipaddress.ip_network("127.0.0.1"),)
ELSEWHERE = (ipaddress.ip_network("192.0.2.1"),)  # a proxy that is not us


async def through_proxy(war: War, forwarded_for: str | None) -> Client:
    """A connection to ``war`` whose handshake carries ``X-Forwarded-For: forwarded_for``."""
    headers = [] if forwarded_for is None else [("X-Forwarded-For", forwarded_for)]
    ws = await asyncio.wait_for(
        connect(
            war.url,
            additional_headers=headers,
            max_queue=None,
            compression=None,
            open_timeout=DEFAULT_TIMEOUT,
        ),
        DEFAULT_TIMEOUT,
    )
    client = Client(ws)
    war.clients.append(client)
    return client


async def admitted(war: War, forwarded_for: str | None) -> Client:
    client = await through_proxy(war, forwarded_for)
    await client.send(CreateRoom(name="Ann"))
    await client.expect(Welcome)
    return client


async def refused_as_full(war: War, forwarded_for: str | None) -> None:
    client = await through_proxy(war, forwarded_for)
    await client.expect_error(ErrorCode.TOO_MANY_CONNECTIONS)
    assert (await client.expect_close())[0] == CloseCode.TRY_AGAIN_LATER


async def test_forwarded_clients_have_their_own_connection_slots(tmp_path: Path) -> None:
    async with start_war(tmp_path, trusted_proxies=LOOPBACK, max_connections_per_ip=1) as war:
        await admitted(war, "203.0.113.5")
        await admitted(war, "198.51.100.1, 203.0.113.6")  # nginx appended the client
        await admitted(war, "2001:db8:1::5")
        await refused_as_full(war, "203.0.113.5")
        await refused_as_full(war, "2001:db8:1::6")  # the same /64 as 2001:db8:1::5


@pytest.mark.parametrize("trusted", [(), ELSEWHERE], ids=["no option", "another proxy"])
async def test_an_untrusted_peers_header_is_ignored(
    tmp_path: Path, trusted: tuple[ipaddress.IPv4Network, ...]
) -> None:
    async with start_war(tmp_path, trusted_proxies=trusted, max_connections_per_ip=1) as war:
        await admitted(war, "203.0.113.5")
        await refused_as_full(war, "203.0.113.6")  # both are 127.0.0.1


async def test_a_missing_or_malformed_header_counts_as_the_proxy(tmp_path: Path) -> None:
    with capture_logs() as logs:
        async with start_war(tmp_path, trusted_proxies=LOOPBACK, max_connections_per_ip=1) as war:
            await admitted(war, "not-an-address")
            await refused_as_full(war, None)  # both are 127.0.0.1
    ignored = [line["reason"] for line in logs if line["event"] == "forwarded_for_ignored"]
    assert ignored == [
        "not an address in X-Forwarded-For: 'not-an-address'",
        "no X-Forwarded-For header",
    ]


async def test_one_clients_wrong_codes_do_not_lock_out_the_others(tmp_path: Path) -> None:
    async with start_war(tmp_path, trusted_proxies=LOOPBACK, max_failed_joins=2) as war:
        for _ in range(2):
            guesser = await through_proxy(war, "203.0.113.5")
            await guesser.send(JoinRoom(code="ZZZZ-ZZZZ", name="Guess"))
            await guesser.expect_error(ErrorCode.UNKNOWN_CODE)
            assert (await guesser.expect_close())[0] == CloseCode.REFUSED
        blocked = await through_proxy(war, "203.0.113.5")
        await blocked.send(JoinRoom(code="ZZZZ-ZZZY", name="Guess"))
        await blocked.expect_error(ErrorCode.TOO_MANY_FAILURES)
        cousin = await through_proxy(war, "203.0.113.6")  # same proxy, another household
        await cousin.send(JoinRoom(code="ZZZZ-ZZZY", name="Cousin"))
        await cousin.expect_error(ErrorCode.UNKNOWN_CODE)  # a mistake, not a lockout

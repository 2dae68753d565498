"""The per-address gate on new connections, over loopback with the real app and Hub.

Refusals happen in ``process_request``, before the WebSocket handshake: HTTP 429 with a
Retry-After header. Two addresses are simulated over loopback with ``--trusted-proxies
127.0.0.1`` and X-Forwarded-For (as in test_app_forwarded.py). Time passes by moving the
app's clock (`War.clock`), never by sleeping.
"""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol import CloseCode, CreateRoom, Resync, WatchRoom, Welcome
from tests._kit.net import http_get
from tests.e2e._client import DEFAULT_TIMEOUT, Client
from tests.e2e._war import War, start_war

LOOPBACK = (ipaddress.ip_network("127.0.0.1"),)
ABUSER = "203.0.113.5"
HONEST = "198.51.100.7"


async def open_from(war: War, address: str) -> Client:
    """A WebSocket from ``address`` (named by the trusted proxy's X-Forwarded-For)."""
    ws = await asyncio.wait_for(
        connect(
            war.url,
            additional_headers=[("X-Forwarded-For", address)],
            max_queue=None,
            compression=None,
            open_timeout=DEFAULT_TIMEOUT,
        ),
        DEFAULT_TIMEOUT,
    )
    client = Client(ws)
    war.clients.append(client)
    return client


async def refused_from(war: War, address: str) -> int:
    """Try to connect from ``address``; it must be refused with 429: its Retry-After."""
    with pytest.raises(InvalidStatus) as refused:
        await open_from(war, address)
    response = refused.value.response
    assert response.status_code == 429
    assert b"retry after" in response.body
    return int(response.headers["Retry-After"])


async def room_to_watch(war: War) -> str:
    ann = await open_from(war, HONEST)
    await ann.send(CreateRoom(name="Ann"))
    welcome = await ann.expect(Welcome)
    assert welcome.watch_code is not None
    return welcome.watch_code


async def flood_until_closed(war: War, address: str, watch_code: str) -> None:
    flooder = await open_from(war, address)
    await flooder.send(WatchRoom(code=watch_code))
    await flooder.expect(Welcome)
    for _ in range(100):  # rate limit 5: burst 10, then 10 more dropped, then 4001
        await flooder.send(Resync())
    assert (await flooder.expect_close())[0] == CloseCode.RATE_LIMITED


async def test_a_burst_beyond_the_bucket_gets_429_until_a_token_comes(tmp_path: Path) -> None:
    async with start_war(
        tmp_path, trusted_proxies=LOOPBACK, connect_rate=0.5, connect_burst=3
    ) as war:
        for _ in range(3):
            await open_from(war, ABUSER)
        assert await refused_from(war, ABUSER) == 2  # one token every 2 s
        assert await refused_from(war, ABUSER) == 2
        await open_from(war, HONEST)  # another address has its own bucket
        war.clock.offset += 2.0
        await open_from(war, ABUSER)
        assert await refused_from(war, ABUSER) == 2


async def test_without_a_trusted_proxy_everyone_is_the_proxys_address(tmp_path: Path) -> None:
    async with start_war(tmp_path, connect_rate=0.5, connect_burst=1) as war:
        await open_from(war, ABUSER)
        await refused_from(war, HONEST)  # both count as 127.0.0.1


async def test_after_a_4001_close_the_address_is_refused_for_the_penalty(
    tmp_path: Path,
) -> None:
    async with start_war(
        tmp_path, trusted_proxies=LOOPBACK, rate_limit=5.0, abuse_penalty=10.0
    ) as war:
        code = await room_to_watch(war)
        await flood_until_closed(war, ABUSER, code)
        assert await refused_from(war, ABUSER) == 10
        honest = await open_from(war, HONEST)  # an honest address is not touched
        await honest.send(WatchRoom(code=code))
        await honest.expect(Welcome)
        war.clock.offset += 9.0
        assert await refused_from(war, ABUSER) == 1
        war.clock.offset += 1.0
        await flood_until_closed(war, ABUSER, code)  # back, and at it again
        assert await refused_from(war, ABUSER) == 20  # twice as long
        war.clock.offset += 20.0
        await open_from(war, ABUSER)


async def test_after_a_1008_close_for_garbage_the_address_is_refused(tmp_path: Path) -> None:
    async with start_war(tmp_path, trusted_proxies=LOOPBACK, abuse_penalty=7.0) as war:
        code = await room_to_watch(war)
        garbler = await open_from(war, ABUSER)
        await garbler.send(WatchRoom(code=code))
        await garbler.expect(Welcome)
        for _ in range(30):
            await garbler.send_raw(b"\xc1")
        assert (await garbler.expect_close())[0] == CloseCode.POLICY_VIOLATION
        assert await refused_from(war, ABUSER) == 7
        await open_from(war, HONEST)


async def test_other_closes_bring_no_penalty(tmp_path: Path) -> None:
    async with start_war(tmp_path, trusted_proxies=LOOPBACK) as war:
        client = await open_from(war, ABUSER)
        await client.send_raw(b"\xc1")  # garbage as the opening message: 4004
        assert (await client.expect_close())[0] == CloseCode.REFUSED
        text = await open_from(war, ABUSER)
        await text.send_raw("hello")
        assert (await text.expect_close())[0] == CloseCode.UNSUPPORTED_DATA
        await open_from(war, ABUSER)


async def test_zero_penalty_turns_penalties_off(tmp_path: Path) -> None:
    async with start_war(
        tmp_path, trusted_proxies=LOOPBACK, rate_limit=5.0, abuse_penalty=0.0
    ) as war:
        code = await room_to_watch(war)
        await flood_until_closed(war, ABUSER, code)
        await open_from(war, ABUSER)


async def test_healthz_is_neither_counted_nor_refused(tmp_path: Path) -> None:
    # no_web: a plain GET / is a handshake attempt here, not the page (test_web.py)
    async with start_war(tmp_path, connect_rate=0.5, connect_burst=1, no_web=True) as war:
        port = war.server.port
        for _ in range(3):
            assert (await http_get("127.0.0.1", port, "/healthz")).status == 200
        await war.client()  # the one token is still there
        answer = await http_get("127.0.0.1", port, "/")  # refused before anything else
        assert answer.status == 429
        assert answer.headers["retry-after"] == "2"
        assert (await http_get("127.0.0.1", port, "/healthz")).status == 200

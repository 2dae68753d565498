"""A browser WebSocket from another site's page is refused with HTTP 403 before the
handshake; the server's own page, listed origins and clients without an Origin header
(war-client) are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from protocol import Snapshot, WatchRoom
from tests.e2e._client import Client
from tests.server.adapters._standin import standin_server


async def watch_from(port: int, origin: str | None) -> None:
    ws = await connect(
        f"ws://127.0.0.1:{port}/",
        origin=Origin(origin) if origin is not None else None,
        open_timeout=10,
    )
    client = Client(ws)
    try:
        await client.send(WatchRoom(code="WATCH"))
        await client.expect(Snapshot)
    finally:
        await client.close()


@pytest.mark.parametrize("origin", [None, "http://127.0.0.1:{port}", "https://family.example"])
async def test_accepted(tmp_path: Path, origin: str | None) -> None:
    async with standin_server(tmp_path, allowed_origins=("https://family.example",)) as (
        server,
        _hub,
    ):
        await watch_from(server.port, origin.format(port=server.port) if origin else None)


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://127.0.0.1:1", "null", "http://family.example"]
)
async def test_refused_with_403_and_logged(tmp_path: Path, origin: str) -> None:
    with capture_logs() as logs:
        async with standin_server(tmp_path, allowed_origins=("https://family.example",)) as (
            server,
            hub,
        ):
            for _ in range(3):
                with pytest.raises(InvalidStatus) as refused:
                    await watch_from(server.port, origin)
                assert refused.value.response.status_code == 403
            assert hub.known == set()  # no connection ever reached the hub
    lines = [entry for entry in logs if entry["event"] == "origin_refused"]
    assert len(lines) == 1  # once per origin per minute, not once per try
    assert lines[0]["origin"] == origin

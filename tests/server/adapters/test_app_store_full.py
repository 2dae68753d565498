"""A full disk, end to end: ``store_unavailable`` and close 1013, ``/healthz`` says so.

The real server over a real SQLite store whose file may not grow (SQLite's page limit
gives the very error a full disk gives, ``database or disk is full``): creating rooms
fails once the file is full; the client is told the server cannot save games (not that
it hit a bug) and closed with 1013; ``GET /healthz`` answers 503 ``store_failing`` until
a write succeeds again, after there is room on the "disk".
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from protocol import CloseCode, CreateRoom, Error, ErrorCode, Welcome
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.store.sqlite import SqliteStore
from server.core.hub.hub import Hub
from server.core.settings import HubSettings
from tests.e2e._client import Client

MAX_ROOMS = 200


def _health(port: int) -> tuple[int, dict[str, Any]]:
    """GET /healthz on loopback: the status and the JSON body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


async def _create(port: int) -> Client:
    client = await Client.connect(f"ws://127.0.0.1:{port}/")
    await client.send(CreateRoom(name="Ann"))
    return client


async def test_a_full_disk_gives_store_unavailable_and_healthz_says_so(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "war.sqlite3")
    hub = Hub(
        store.load_all(),
        HubSettings(max_rooms=MAX_ROOMS, max_rooms_per_ip=MAX_ROOMS),
        now=time.time(),
    )
    settings = Settings(port=0, db=tmp_path / "war.sqlite3", max_rooms=MAX_ROOMS)
    async with serving(settings, hub=hub, store=store) as server:
        port = server.port
        assert await asyncio.to_thread(_health, port) == (
            200,
            {"status": "ok", "rooms": 0, "connections": 0},
        )
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
        made = []
        for _ in range(MAX_ROOMS):  # rooms fit until the file's last page is full
            client = await _create(port)
            first = await client.recv()
            if not isinstance(first, Welcome):
                break
            made.append(client)
        else:
            raise AssertionError(f"{MAX_ROOMS} rooms fitted in {pages} pages")
        assert isinstance(first, Error)
        assert first.code == ErrorCode.STORE_UNAVAILABLE
        assert "cannot save games right now" in first.message
        code, _ = await client.expect_close()
        assert code == CloseCode.TRY_AGAIN_LATER
        status, body = await asyncio.to_thread(_health, port)
        assert (status, body["status"]) == (503, "store_failing")
        assert body["rooms"] == len(made)

        store._db.execute(f"PRAGMA max_page_count = {pages * 1000}")  # room on the disk
        status, body = await asyncio.to_thread(_health, port)
        assert status == 503  # until a write succeeds
        again = await _create(port)
        assert isinstance(await again.recv(), Welcome)
        status, body = await asyncio.to_thread(_health, port)
        assert (status, body["status"], body["rooms"]) == (200, "ok", len(made) + 1)
        for each in (*made, again):
            await each.close()

"""The Textual table on a real connection to a real ``war-server`` process (headless),
and ``--local``'s child server started and stopped."""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest
from textual.widgets import Static

from client.net.connection import Connection
from client.net.local import LocalServer
from protocol import CreateRoom, RoomPhase, RulesSpec
from tests.e2e._process import server_process
from tests.e2e._tui import WatchedApp

pytestmark = pytest.mark.slow

TIMEOUT = 30.0


async def test_the_table_plays_a_short_game_against_the_computer(tmp_path: Path) -> None:
    async with server_process(tmp_path / "war.sqlite3") as server:
        opening = CreateRoom(name="Ann", computers=1, rules=RulesSpec(round_limit=3), deal=7)
        app = WatchedApp(Connection(server.url, opening))
        async with app.run_test(size=(100, 40)) as pilot:
            await app.until(lambda v: v.phase is not RoomPhase.WAITING and v.my_turn)
            while app.view.phase is RoomPhase.PLAYING:
                step = app.view.step
                await pilot.press("space")
                await app.until(lambda v: v.step > step or v.phase is RoomPhase.OVER)  # noqa: B023
                await app.until(lambda v: v.my_turn or v.phase is RoomPhase.OVER)
            await pilot.pause()
            summary = app.query_one("#summary", Static)
            assert summary.display
            assert "Rounds        3" in str(summary.content)
            assert "Deal          7" in str(summary.content)
            await pilot.press("d")
            await app.until(lambda v: v.game == 2 and v.phase is RoomPhase.PLAYING)
            assert app.view.deal == 7, "the same deal again"
            await pilot.press("q", "q")  # twice: leaving is for good
            await pilot.pause()
        assert app.return_code == 0


def test_local_server_starts_answers_and_stops() -> None:
    server = LocalServer()
    url = server.start()
    try:
        assert url == f"ws://127.0.0.1:{server.port}"
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("GET", "/healthz")
        assert connection.getresponse().status == 200
        connection.close()
        folder = server.log_path.parent if server.log_path else None
        child = server._child
        assert child is not None and child.poll() is None
    finally:
        server.stop()
    assert child.returncode == 0, "SIGTERM: the server's clean shutdown"
    assert folder is not None and not folder.exists()

"""Share links for the browser table, built from the WebSocket URL a client connected to.

war-server serves its browser table on the same address as its WebSocket (``GET /``), so
``ws://192.168.1.20:8765/`` has the page ``http://192.168.1.20:8765/`` (``wss:`` gives
``https:``). A room's codes go in the page's fragment, which a browser never sends to a
server or a proxy: ``#join=K7MX-QD4R`` seats whoever opens it (after asking a name),
``#watch=9HWT-2CBN`` lets them watch.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from client.catalog import Said, said

__all__ = ["link_lines", "page_url"]


def page_url(url: str) -> str:
    """The browser table's address for the WebSocket ``url`` (``ws://h:p/`` → ``http://h:p/``).

    Raises:
        ValueError: ``url`` is not a ``ws://`` or ``wss://`` URL.
    """
    parts = urlsplit(url)
    schemes = {"ws": "http", "wss": "https"}
    if parts.scheme.lower() not in schemes or not parts.netloc:
        raise ValueError(f"not a ws:// or wss:// url: {url!r}")
    return urlunsplit((schemes[parts.scheme.lower()], parts.netloc, parts.path or "/", "", ""))


def link_lines(page: str, player_code: str | None, watch_code: str | None) -> tuple[Said, ...]:
    """The lines that share a room: ``"Link for players: http://…/#join=K7MX-QD4R"`` and
    ``"Link for watchers: http://…/#watch=9HWT-2CBN"`` (for the codes given), to be said
    in the viewer's catalog."""
    lines = []
    if player_code is not None:
        lines.append(said("plain.link_players", link=f"{page}#join={player_code}"))
    if watch_code is not None:
        lines.append(said("plain.link_watchers", link=f"{page}#watch={watch_code}"))
    return tuple(lines)

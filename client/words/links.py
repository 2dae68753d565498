"""Share links for the browser table, built from the WebSocket URL a client connected to.

war-server serves its browser table on the same address as its WebSocket (``GET /``), so
``ws://192.168.1.20:8765/`` has the page ``http://192.168.1.20:8765/`` (``wss:`` gives
``https:``). A room's codes go in the page's fragment, which a browser never sends to a
server or a proxy: ``#join=K7MX-QD4R`` seats whoever opens it (after asking a name),
``#watch=9HWT-2CBN`` lets them watch.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from client.words.catalog import Said, said

__all__ = ["link_lines", "local_warning", "page_url", "refusal_line", "shared_page"]


def refusal_line(reason: Said, code: str | None) -> Said:
    """The line a client ends with: the server's ``reason``, or for a watch code given to
    sit down (error ``watch_code``) the offer to watch instead (``plain.watch_instead``)."""
    return said("plain.watch_instead") if code == "watch_code" else reason


def _loopback(page: str) -> bool:
    host = (urlsplit(page).hostname or "").lower()
    return host in {"localhost", "::1"} or host.startswith("127.")


def shared_page(page: str, addresses: tuple[str, ...] | None) -> str:
    """The address the links start with: ``page`` (the table's address as this client
    reached it), or, when that works only on this machine (127.0.0.1, localhost, ::1),
    the first of the server's ``addresses`` (its ``--public-url``, or its network
    addresses: ``welcome.addresses``)."""
    if _loopback(page) and addresses:
        return addresses[0]
    return page


def local_warning(page: str, addresses: tuple[str, ...] | None) -> Said | None:
    """What to say about the links' address (``plain.links_use``, ``page.local_warning_only``,
    ``plain.local_only``), or None when others can open it."""
    if not _loopback(page):
        return None
    host = urlsplit(page).hostname or ""
    if addresses:
        return said("plain.links_use", link=addresses[0], host=host)
    if addresses is not None:
        return said("page.local_warning_only", host=host)  # the page's words too
    return said("plain.local_only", host=host)


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


def link_lines(
    page: str, player_code: str | None, watch_code: str | None, outside: str | None = None
) -> tuple[Said, ...]:
    """The lines that share a room: ``"Link for players: http://…/#join=K7MX-QD4R"`` and
    ``"Link for watchers: http://…/#watch=9HWT-2CBN"`` (for the codes given), to be said
    in the viewer's catalog. With an ``outside`` link (``welcome.outside``, other than
    ``page``) the players' link is given twice, saying which is which: ``"Link for
    relatives elsewhere: https://203.0.113.2/#join=…"`` and ``"Link in the house (home
    network): http://192.168.1.20:8765/#join=…"``."""
    lines = []
    two = outside is not None and outside.startswith("https://") and outside != page
    if player_code is not None and two:
        lines.append(said("plain.link_players_outside", link=f"{outside}#join={player_code}"))
        lines.append(said("plain.link_players_house", link=f"{page}#join={player_code}"))
    elif player_code is not None:
        lines.append(said("plain.link_players", link=f"{page}#join={player_code}"))
    if watch_code is not None:
        lines.append(said("plain.link_watchers", link=f"{page}#watch={watch_code}"))
    return tuple(lines)

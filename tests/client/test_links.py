"""client.words.links: the browser table's share links, and war-client --plain printing them."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from client.lines import LineRenderer, Streams
from client.net.connection import Ended
from client.state.view import ViewState, apply
from client.tui.table_text import codes_line
from client.words.catalog import catalog, said
from client.words.language import Viewer
from client.words.links import (
    link_lines,
    local_warning,
    page_url,
    refusal_line,
    shared_page,
)
from protocol import PlayerJoined, RoomPhase, RoomState, RulesSpec, SeatState, Welcome
from tests.client._fake import FakeLink

EN = catalog("en", strict=True)


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("ws://192.168.1.20:8765", "http://192.168.1.20:8765/"),
        ("ws://192.168.1.20:8765/", "http://192.168.1.20:8765/"),
        ("WSS://war.example.org", "https://war.example.org/"),
        ("wss://war.example.org/family/", "https://war.example.org/family/"),
        ("ws://[::1]:8765/?x=1#y", "http://[::1]:8765/"),
    ],
)
def test_the_page_is_the_websockets_own_address(url: str, page: str) -> None:
    assert page_url(url) == page


@pytest.mark.parametrize("url", ["http://host:8765/", "ws://", "host:8765"])
def test_only_websocket_urls_have_a_page(url: str) -> None:
    with pytest.raises(ValueError, match="not a ws:// or wss:// url"):
        page_url(url)


def test_the_links_carry_the_codes_in_the_fragment() -> None:
    def said(page: str, player: str | None, watch: str | None) -> tuple[str, ...]:
        return tuple(EN.say(line) for line in link_lines(page, player, watch))

    assert said("http://h:1/", "K7MX-QD4R", "9HWT-2CBN") == (
        "Link for players: http://h:1/#join=K7MX-QD4R",
        "Link for watchers: http://h:1/#watch=9HWT-2CBN",
    )
    assert said("http://h:1/", None, "9HWT-2CBN") == (
        "Link for watchers: http://h:1/#watch=9HWT-2CBN",
    )


def welcome(seat: int | None, *, open_seat: bool = True) -> Welcome:
    seats = (
        SeatState(seat=0, name="Ann", connected=True),
        SeatState(seat=1, name=None if open_seat else "Ben", connected=not open_seat),
    )
    state = RoomState(room="r1", phase=RoomPhase.WAITING, rules=RulesSpec(), seats=seats)
    return Welcome(seq=1, seat=seat, player_code="K7MX-QD4R", watch_code="9HWT-2CBN", state=state)


async def plain(*messages: Welcome | PlayerJoined, json_lines: bool = False) -> tuple[str, str]:
    link = FakeLink()
    out, err = io.StringIO(), io.StringIO()
    renderer = LineRenderer(
        link, Streams(out, err), json_lines=json_lines, viewer=Viewer(EN, "http://h:1/")
    )
    link.push(*messages)
    link.event(Ended(True, said("close.closed")))
    await renderer.run()
    return out.getvalue(), err.getvalue()


async def test_the_creator_is_shown_the_links_once() -> None:
    out, _ = await plain(welcome(0), welcome(0))
    assert out.count("Link for players: http://h:1/#join=K7MX-QD4R\n") == 1
    assert "Link for watchers: http://h:1/#watch=9HWT-2CBN\n" in out
    assert out.index("Link for players") > out.index("Player code: K7MX-QD4R.")


async def test_no_links_for_a_full_room_or_a_spectator_and_json_keeps_stdout_clean() -> None:
    full, _ = await plain(welcome(1, open_seat=False))
    watching, _ = await plain(welcome(None))
    assert "Link for" not in full + watching
    out, err = await plain(welcome(0), json_lines=True)
    assert "Link for" not in out
    assert "war-client: Link for players: http://h:1/#join=K7MX-QD4R" in err


LOOPBACK_ONLY = said("page.local_warning_only", host="127.0.0.1")
WATCH_INSTEAD = said("plain.watch_instead")


def test_a_client_on_the_server_machine_shares_the_servers_address() -> None:
    home = "http://127.0.0.1:8765/"
    told = ("http://192.168.1.20:8765/",)
    assert shared_page(home, told) == "http://192.168.1.20:8765/"
    assert shared_page(home, None) == home  # an older server, or not told
    assert shared_page("http://192.168.1.20:8765/", ("https://w.example.org/",)) == (
        "http://192.168.1.20:8765/"
    )
    assert EN.say(local_warning(home, told) or said("none")) == (
        "The links use http://192.168.1.20:8765/ (127.0.0.1 works only on this machine)."
    )
    assert local_warning(home, ()) == LOOPBACK_ONLY
    assert "make run HOST=0.0.0.0" in EN.say(LOOPBACK_ONLY)
    assert "war-server --host 0.0.0.0" in EN.say(LOOPBACK_ONLY)
    assert EN.say(local_warning("http://localhost:8765/", None) or said("none")).startswith(
        "localhost works only on this machine"
    )
    assert local_warning("http://192.168.1.20:8765/", None) is None


async def test_war_client_create_builds_its_links_from_the_public_url() -> None:
    told = replace(welcome(0), addresses=("https://war.example.org/",))
    link = FakeLink()
    out, err = io.StringIO(), io.StringIO()
    viewer = Viewer(EN, page="http://127.0.0.1:8765/")
    renderer = LineRenderer(link, Streams(out, err), json_lines=False, viewer=viewer)
    link.push(told)
    link.event(Ended(True, said("close.closed")))
    await renderer.run()
    text = out.getvalue() + err.getvalue()
    assert "Link for players: https://war.example.org/#join=K7MX-QD4R\n" in text
    assert "127.0.0.1 works only on this machine" in text


async def test_a_watch_code_given_to_sit_down_offers_to_watch() -> None:
    reason = said("close.reason", code="unknown_code", reason="no room has the code 'X'")
    assert refusal_line(reason, "watch_code") == WATCH_INSTEAD
    assert refusal_line(reason, "unknown_code") == reason
    link = FakeLink()
    out, err = io.StringIO(), io.StringIO()
    viewer = Viewer(EN, page="http://h:1/")
    renderer = LineRenderer(link, Streams(out, err), json_lines=False, viewer=viewer)
    watch = said("close.reason", code="watch_code", reason="'9HWT-2CBN' is the room's watch code")
    link.event(Ended(False, watch, "watch_code"))
    assert await renderer.run() == 1
    assert err.getvalue() == f"war-client: {EN.say(WATCH_INSTEAD)}\n"
    assert EN.say(WATCH_INSTEAD).startswith("That is a watch code: watch instead?")


def test_the_terminal_table_shares_the_servers_address() -> None:
    view = apply(ViewState(), replace(welcome(0), addresses=("http://192.168.1.20:8765/",)))
    line = codes_line(view, "http://127.0.0.1:8765/", EN).plain
    assert "or send http://192.168.1.20:8765/#join=K7MX-QD4R" in line
    assert "127.0.0.1 works only on this machine" in line
    alone = apply(ViewState(), replace(welcome(0), addresses=()))
    assert EN.say(LOOPBACK_ONLY) in codes_line(alone, "http://127.0.0.1:8765/", EN).plain


async def test_war_client_create_gives_the_outside_link_and_the_house_link() -> None:
    """With war-server --outside the creator in the house is given both links, each
    saying which it is, in every language."""
    told = replace(welcome(0), outside="https://203.0.113.2/")
    out, _ = await plain(told)
    assert "Link for relatives elsewhere: https://203.0.113.2/#join=K7MX-QD4R\n" in out
    assert "Link in the house (home network): http://h:1/#join=K7MX-QD4R\n" in out
    assert "Link for players:" not in out
    for tag in ("en", "es", "fr", "de", "pl"):
        words = catalog(tag, strict=True)
        lines = link_lines("http://h:1/", "K7MX-QD4R", None, "https://203.0.113.2/")
        texts = [words.say(line) for line in lines]
        assert texts[0].endswith("https://203.0.113.2/#join=K7MX-QD4R"), (tag, texts)
        assert texts[1].endswith("http://h:1/#join=K7MX-QD4R"), (tag, texts)
        assert texts[0] != texts[1].replace("http://h:1/", "https://203.0.113.2/"), tag
    # a page opened at the outside link itself gives that link once, as always
    alone = link_lines("https://203.0.113.2/", "K7MX-QD4R", None, "https://203.0.113.2/")
    assert [EN.say(line) for line in alone] == [
        "Link for players: https://203.0.113.2/#join=K7MX-QD4R"
    ]

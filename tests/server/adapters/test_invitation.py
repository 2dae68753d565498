"""The invitation's addresses: what the server prints at start, ``--public-url``, and
``welcome.addresses`` told only to a page on the machine itself (issue 19).

The machine's interfaces are never read: `page_addresses` takes the reachable addresses,
and the servers started here get them from the ``machine_addresses`` setting (documentation
addresses, 192.0.2.0/24 and 2001:db8::/32, and a private one). Every connection is to
127.0.0.1.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from protocol import (
    CloseCode,
    CreateRoom,
    ErrorCode,
    JoinRoom,
    LookUp,
    RoomInfo,
    RulesSpec,
    Welcome,
)
from server.adapters.addresses.forwarded import ClientAddress
from server.adapters.settings.config import ConfigError, load_settings
from server.adapters.settings.values import public_url
from server.adapters.web.exposure import reachable_addresses
from server.adapters.web.invitation import (
    HOME_NETWORK_ADVICE,
    page_addresses,
    startup_lines,
    told_addresses,
)
from tests.e2e._client import Client
from tests.e2e._war import start_war
from tests.server.adapters.test_app_forwarded import LOOPBACK, through_proxy

LAN = ipaddress.ip_address("192.168.1.20")
V6 = ipaddress.ip_address("2001:db8::20")
LINK_LOCAL = ipaddress.ip_address("fe80::1")
HOME = ipaddress.ip_address("127.0.0.1")


def welcome_of(client: Client) -> Welcome:
    return next(m for m in client.log if isinstance(m, Welcome))


def test_one_address_for_each_network_address_of_the_machine() -> None:
    reachable = reachable_addresses(["0.0.0.0"], [HOME, LAN, V6, LINK_LOCAL])
    assert page_addresses(reachable, port=8765, tls=False, public_url=None) == (
        "http://192.168.1.20:8765/",
    )
    every = reachable_addresses(["::"], [HOME, LAN, V6, LINK_LOCAL])
    assert page_addresses(every, port=8443, tls=True, public_url=None) == (
        "https://192.168.1.20:8443/",
        "https://[2001:db8::20]:8443/",
    )


def test_a_server_on_loopback_alone_has_no_address_to_give() -> None:
    reachable = reachable_addresses(["127.0.0.1"], [HOME, LAN])
    assert page_addresses(reachable, port=8765, tls=False, public_url=None) == ()
    (line,) = startup_lines((), public_url=False)
    assert (line.event, line.fields) == ("loopback_only", {"advice": HOME_NETWORK_ADVICE})
    assert "make run HOST=0.0.0.0" in HOME_NETWORK_ADVICE
    assert "war-server --host 0.0.0.0" in HOME_NETWORK_ADVICE
    # make run's 127.0.0.1: the address to open on this machine is said too
    warning, here = startup_lines((), public_url=False, here="http://127.0.0.1:8765/")
    assert warning == line
    assert (here.event, here.fields) == (
        "open",
        {"url": "http://127.0.0.1:8765/", "advice": "open this in a browser on this machine"},
    )


def test_the_public_url_is_the_one_address() -> None:
    reachable = reachable_addresses(["0.0.0.0"], [LAN])
    public = "https://war.example.org/family/"
    assert page_addresses(reachable, port=8765, tls=False, public_url=public) == (public,)
    (line,) = startup_lines((public,), public_url=True)
    assert line.event == "open"
    assert line.fields["url"] == public


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://war.example.org", "https://war.example.org/"),
        ("http://192.168.1.20:8765/", "http://192.168.1.20:8765/"),
        (" https://war.example.org/family/ ", "https://war.example.org/family/"),
        ("https://[2001:db8::1]:8443/", "https://[2001:db8::1]:8443/"),
    ],
)
def test_a_public_url_is_read(text: str, url: str) -> None:
    assert public_url(text) == url


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("war.example.org", "must start with http:// or https://"),
        ("ftp://war.example.org/", "must start with http:// or https://"),
        ("wss://war.example.org/", "must start with http:// or https://"),
        ("https://", "must name a host"),
        ("https://user:secret@war.example.org/", "must name a host \\(and no user\\)"),
        ("https://war.example.org/#join=K7MX", "no \\?query and no #fragment"),
        ("https://war.example.org/?a=1", "no \\?query and no #fragment"),
        ("https://war.example.org:99999/", "not a valid port"),
        ("https://war.example.org/é", "printable ASCII"),
        ("https://war.example.org/" + "a" * 200, "printable ASCII up to 200"),
    ],
)
def test_a_bad_public_url_is_refused_with_a_clear_error(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        public_url(text)


def test_the_public_url_is_a_flag_and_a_variable() -> None:
    env = {"HOME": "/nonexistent"}
    flagged = load_settings(["--public-url", "https://war.example.org"], env)
    assert flagged.public_url == "https://war.example.org/"
    variable = load_settings([], {**env, "WAR_PUBLIC_URL": "http://192.168.1.20:8765/"})
    assert variable.public_url == "http://192.168.1.20:8765/"
    assert load_settings([], env).public_url is None
    with pytest.raises(ConfigError, match=r"--public-url.*must start with http:// or https://"):
        load_settings(["--public-url", "war.example.org"], env)
    with pytest.raises(ConfigError, match=r"WAR_PUBLIC_URL.*#fragment"):
        load_settings([], {**env, "WAR_PUBLIC_URL": "https://w.example.org/#x"})


async def test_the_server_prints_the_addresses_to_open(tmp_path: Path) -> None:
    with capture_logs() as logs:
        async with start_war(tmp_path, machine_addresses=("192.168.1.20", "127.0.0.1")) as war:
            port = war.server.port
    opened = [entry for entry in logs if entry["event"] == "open"]
    assert [entry["url"] for entry in opened] == [f"http://192.168.1.20:{port}/"]
    assert not [entry for entry in logs if entry["event"] == "loopback_only"]


async def test_a_server_on_loopback_alone_says_relatives_cannot_reach_it(tmp_path: Path) -> None:
    with capture_logs() as logs:
        async with start_war(tmp_path, machine_addresses=("127.0.0.1",)) as war:
            port = war.server.port
    (warned,) = [entry for entry in logs if entry["event"] == "loopback_only"]
    assert warned["log_level"] == "warning"
    assert warned["advice"] == HOME_NETWORK_ADVICE
    # and the address to open on this machine (make run's 127.0.0.1), after the warning
    (opened,) = [entry for entry in logs if entry["event"] == "open"]
    assert opened["url"] == f"http://127.0.0.1:{port}/" and opened["log_level"] == "info"
    assert logs.index(opened) > logs.index(warned)


async def test_only_a_page_on_this_machine_is_told_the_addresses(tmp_path: Path) -> None:
    async with start_war(
        tmp_path, machine_addresses=("192.168.1.20",), trusted_proxies=LOOPBACK
    ) as war:
        port = war.server.port
        ann = await war.create("Ann")
        assert welcome_of(ann).addresses == (f"http://192.168.1.20:{port}/",)
        # through a trusted proxy on this machine: a page elsewhere, told nothing (and
        # through one that is not trusted either: the header says so)
        ben = await through_proxy(war, "203.0.113.5")
        await ben.send(JoinRoom(code=ann.player_code or "", name="Ben"))
        welcome = await ben.expect(Welcome)
        assert welcome.addresses is None


async def test_behind_a_proxy_the_links_use_the_public_url(tmp_path: Path) -> None:
    public = "https://war.example.org/"
    async with start_war(tmp_path, public_url=public, machine_addresses=("192.168.1.20",)) as war:
        ann = await war.create("Ann")
        assert welcome_of(ann).addresses == (public,)


async def test_a_look_up_says_whose_table_and_closes(tmp_path: Path) -> None:
    async with start_war(tmp_path, machine_addresses=()) as war:
        ann = await war.create("Grandma", rules=RulesSpec(players=4))
        code = ann.player_code or ""
        peek = await war.client()
        await peek.send(LookUp(code=code.lower()))
        info = await peek.expect(RoomInfo)
        assert (info.host, info.players, info.free, info.away) == ("Grandma", 4, 3, 0)
        assert (await peek.expect_close())[0] == CloseCode.NORMAL
        watch = await war.client()
        await watch.send(LookUp(code=ann.watch_code or ""))
        await watch.expect_error(ErrorCode.WATCH_CODE)
        assert (await watch.expect_close())[0] == CloseCode.REFUSED


async def test_look_ups_of_wrong_codes_count_as_failed_joins(tmp_path: Path) -> None:
    async with start_war(tmp_path, max_failed_joins=3) as war:
        ann = await war.create("Ann")
        for _ in range(3):
            guess = await war.client()
            await guess.send(LookUp(code="ZZZZ-ZZZZ"))
            await guess.expect_error(ErrorCode.UNKNOWN_CODE)
        # the limit is the joins' own: the next join is refused too, right code or not
        late = await war.client()
        await late.send(JoinRoom(code=ann.player_code or "", name="Ben"))
        await late.expect_error(ErrorCode.TOO_MANY_FAILURES)
        again = await war.client()
        await again.send(LookUp(code=ann.player_code or ""))
        await again.expect_error(ErrorCode.TOO_MANY_FAILURES)


async def test_a_join_with_a_watch_code_is_told_so(tmp_path: Path) -> None:
    async with start_war(tmp_path) as war:
        ann = await war.create("Ann")
        ben = await war.client()
        await ben.send(JoinRoom(code=ann.watch_code or "", name="Ben"))
        error = await ben.expect_error(ErrorCode.WATCH_CODE)
        assert "watch code" in error.message
        assert (await ben.expect_close())[0] == CloseCode.REFUSED


@pytest.mark.parametrize(
    ("client", "told"),
    [
        (ClientAddress("127.0.0.1"), True),
        (ClientAddress("::1"), True),
        (ClientAddress("192.168.1.5"), False),
        (ClientAddress("2001:db8::5"), False),
        # a proxy on this machine naming its client: a page elsewhere
        (ClientAddress("203.0.113.5", proxy="127.0.0.1"), False),
        # a proxy naming 127.0.0.1 (anyone can write that header): still not this machine
        (ClientAddress("127.0.0.1", proxy="127.0.0.1"), False),
        (ClientAddress("not an address"), False),
    ],
)
def test_only_this_machine_is_told(client: ClientAddress, told: bool) -> None:
    assert told_addresses(client, None) is told
    assert told_addresses(client, {"Host": "127.0.0.1:8765"}) is told


@pytest.mark.parametrize("header", ["X-Forwarded-For", "Forwarded", "X-Real-IP"])
def test_a_proxy_on_this_machine_relays_people_elsewhere(header: str) -> None:
    # not trusted (no --trusted-proxies): the peer is the proxy's 127.0.0.1, the header
    # says someone else is behind it
    assert not told_addresses(ClientAddress("127.0.0.1"), {header: "203.0.113.5"})


async def test_a_proxy_that_is_not_trusted_is_told_nothing_either(tmp_path: Path) -> None:
    async with start_war(tmp_path, machine_addresses=("192.168.1.20",)) as war:
        relayed = await through_proxy(war, "203.0.113.5")
        await relayed.send(CreateRoom(name="Ann"))
        assert (await relayed.expect(Welcome)).addresses is None

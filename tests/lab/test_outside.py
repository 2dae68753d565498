"""``war-server --outside`` end to end in the lab (tests/lab/README.md): the real server in
the home, the real router (miniupnpd), the real test CA (pebble) on the internet side,
and browsers on both sides.

- The server prints ``outside url=https://203.0.113.2/`` within a minute.
- Grandma's Chromium in the house creates a room on the LAN page; its invitation gives the
  outside link for relatives elsewhere.
- A relative's Chromium on the internet side, trusting only pebble's root through an NSS
  database in a temporary HOME (no certificate-error flag of any kind), opens that link,
  sits down, and they play.
- A stranger on the internet side cannot create a room (``ask_for_invitation``).
- The router's forwarding is gone after SIGTERM.
- Behind a carrier's shared address the server says so and prints no outside link.
- With a global IPv6 address, a second line gives the IPv6 link, and a relative reaches
  the server over IPv6 with the same certificate (it names both addresses).
- A new public address (``--outside-check 1``) gets its own line and certificate.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import shutil
import signal
import ssl
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from playwright.async_api import Browser, async_playwright, expect
from websockets.asyncio.client import connect

from client.words.catalog import catalog, said
from protocol import CardsTurned, CreateRoom, ErrorCode, JoinRoom, Ready, Welcome
from tests.deploy._server import image_command
from tests.e2e._browser import ARGS, CHROMIUM, create_room, open_tab
from tests.e2e._client import Client
from tests.lab.lab import HOME_IP, HOME_IP6, WAN_IP, Lab

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lab-outside")]

WAR_SERVER = Path(sys.executable).parent / "war-server"
OUTSIDE_URL = f"https://{WAN_IP}/"
OUTSIDE_URL6 = f"https://[{HOME_IP6}]/"
MOVED_IP = "203.0.113.5"
"""The router's public address after the line's changed."""
LAN_URL = f"http://{HOME_IP}:8765/"
STARTED_WITHIN = 60.0
"""Seconds the server may take to print its outside link (the issue's "within a minute")."""


@dataclass
class ServerProcess:
    """war-server in the lab's home, its JSON log lines read as they come."""

    process: subprocess.Popen[bytes]
    lines: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    seen: list[dict[str, Any]] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                line = {"event": "text", "text": raw.decode(errors="replace")}
            self.lines.put(line)

    def wait_for(self, matches: Callable[[dict[str, Any]], bool], within: float) -> dict[str, Any]:
        """The first line (from now on, or already read) that ``matches``."""
        for line in self.seen:
            if matches(line):
                return line
        while True:
            try:
                line = self.lines.get(timeout=within)
            except queue.Empty:
                shown = [f"{line.get('event')} {line}" for line in self.seen[-20:]]
                raise AssertionError(f"no such line within {within} s; last: {shown}") from None
            self.seen.append(line)
            if matches(line):
                return line

    def drain(self) -> None:
        """Take every line read so far into ``seen`` (after the process ended: all)."""
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except queue.Empty:
                return

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


@contextmanager
def war_server(
    lab: Lab,
    folder: Path,
    *extra: str,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[ServerProcess]:
    """war-server in the home: ``--host 0.0.0.0 --outside`` and ``extra``, or ``command``
    with ``env`` as they are."""
    folder.mkdir(parents=True, exist_ok=True)
    if command is None:
        command = [
            str(WAR_SERVER), "--host", "0.0.0.0", "--outside",
            "--db", str(folder / "war.sqlite3"), "--log-format", "json", *extra,
        ]  # fmt: skip
    if env is None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAR_")}
    args = ["ip", "netns", "exec", lab.ns("home"), *command]
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=folder
    )
    server = ServerProcess(process)
    threading.Thread(target=server.read, daemon=True).start()
    try:
        yield server
    finally:
        server.stop()


def _outside_said(line: dict[str, Any]) -> bool:
    return line.get("event") == "outside"


def _acme_args(lab: Lab) -> tuple[str, ...]:
    return ("--acme-directory", lab.acme_directory, "--acme-ca-file", str(lab.acme_ca_file))


@asynccontextmanager
async def browser_in(lab: Lab, ns: str, home: Path | None = None) -> AsyncIterator[Browser]:
    """A headless Chromium started inside namespace ``ns`` (its driver is spawned there),
    with ``home`` as its HOME (its NSS database) if given."""
    if not CHROMIUM.exists():
        pytest.skip(f"no browser at {CHROMIUM}")
    env: dict[str, str | float | bool] | None = None
    if home is not None:
        env = {**os.environ, "HOME": str(home)}
    with lab.inside(ns):
        playwright = await async_playwright().start()
        try:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=ARGS, env=env
            )
        except BaseException:
            await playwright.stop()
            raise
    try:
        yield browser
    finally:
        await browser.close()
        await playwright.stop()


def nss_home(folder: Path, root_pem: bytes) -> Path:
    """A HOME whose NSS database trusts ``root_pem`` (pebble's root) and nothing else
    added: Chromium reads ~/.pki/nssdb."""
    home = folder / "relative-home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    root = folder / "pebble-root.pem"
    root.write_bytes(root_pem)
    certutil = shutil.which("certutil")
    if certutil is None:
        pytest.fail("certutil is missing: apt-get install libnss3-tools (tests/lab/setup.sh)")
    subprocess.run(
        [certutil, "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True, capture_output=True
    )
    subprocess.run(
        [certutil, "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "pebble", "-i", str(root)],
        check=True,
        capture_output=True,
    )
    return home


async def stranger_creates(lab: Lab, root_pem: bytes) -> tuple[str, int | None]:
    """From the internet side, a create_room over the outside link: the error code and
    the close code."""
    context = ssl.create_default_context(cadata=root_pem.decode())
    with lab.inside("net"):
        ws = await connect(f"wss://{WAN_IP}/", ssl=context, open_timeout=15)
    stranger = Client(ws)
    await stranger.send(CreateRoom(name="Mallory", computers=1))
    error = await stranger.expect_error(ErrorCode.ASK_FOR_INVITATION.value)
    code, _ = await stranger.expect_close()
    return error.code, code


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path


async def test_relatives_elsewhere_sit_down_from_one_link(lab_acme: Lab, folder: Path) -> None:
    lab = lab_acme
    with war_server(lab, folder / "server", *_acme_args(lab)) as server:
        printed = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert printed.get("url") == OUTSIDE_URL, printed
        forwards = lab.forwards()
        assert [(f.public_port, f.address, f.port) for f in forwards] == [(443, HOME_IP, 8443)]
        root = lab.pebble_root()
        async with (
            browser_in(lab, "home") as grandma_browser,
            browser_in(lab, "net", nss_home(folder, root)) as relative_browser,
        ):
            grandma = await open_tab(grandma_browser, LAN_URL)
            await create_room(grandma, "Grandma", rounds="26")
            outside_link = grandma.page.locator("#outside-link")
            await expect(grandma.page.locator("#share-outside")).to_be_visible()
            await expect(outside_link).to_contain_text(f"{OUTSIDE_URL}#join=")
            await expect(grandma.page.locator("#join-link")).to_contain_text(f"{LAN_URL}#join=")
            link = await outside_link.inner_text()
            relative = await open_tab(relative_browser, link)
            await expect(relative.page.locator("#invite")).to_be_visible()
            await relative.page.fill("#invite-name", "Ben")
            await relative.page.click("#invite-form button[type=submit]")
            for tab in (grandma, relative):
                await expect(tab.page.locator("#share")).not_to_have_attribute("open", "")
            for _ in range(2):
                await grandma.turn_over()
                await relative.turn_over()
            assert await grandma.counts() == await relative.counts()
            await relative.assert_clean()
            # a stranger on the internet side taps "Play the computer": told, in their
            # language, to ask the host for an invitation; no room is made
            stranger = await open_tab(relative_browser, OUTSIDE_URL, locale="de-DE")
            await stranger.page.fill("#start-name", "Mallory")
            await stranger.page.click("#vs-computer")
            told = catalog("de", strict=True).say(
                said("page.plain", code="ask_for_invitation", reason="")
            )
            await expect(stranger.page.get_by_text(told)).to_be_visible()
            # the house's page is plain http:// on a LAN address: Chromium says it ignores
            # the page's Cross-Origin-Opener-Policy there (it does so for any such page)
            await grandma.assert_clean(allow="Cross-Origin-Opener-Policy header has been ignored")
        error, close = await stranger_creates(lab, root)
        assert (error, close) == ("ask_for_invitation", 4004)
    assert lab.forwards() == [], "the mapping is removed on SIGTERM"
    assert server.process.returncode == 0


async def test_behind_a_shared_address_no_outside_link_is_printed(
    lab_cgnat: Lab, folder: Path
) -> None:
    with war_server(lab_cgnat, folder / "server") as server:
        printed = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert printed.get("failed") == "address", printed
        assert "shared address (carrier-grade NAT)" in printed.get("reason", "")
        assert "url" not in printed
        server.wait_for(lambda line: line.get("event") == "open", 5)  # the house's line
    assert not [line for line in server.seen if _outside_said(line) and "url" in line]


async def test_the_images_command_opens_the_outside_in_the_lab(lab_acme: Lab, folder: Path) -> None:
    """The image's own command and environment (compose's, with docker-compose.outside.yml's
    WAR_OUTSIDE=on and the host's network: here, the lab's home), as far as a test can
    take the image without Docker: the outside link, the healthcheck, the mapping gone on
    SIGTERM, the certificate's files in the volume readable by the server's user only."""
    lab = lab_acme
    image = image_command(folder, port=8765)
    env = dict(image.env)
    env.update(
        WAR_HOST="0.0.0.0",  # the image's own (the translation puts 127.0.0.1)
        WAR_OUTSIDE="on",
        WAR_TRUSTED_PROXIES="none",
        WAR_ACME_DIRECTORY=lab.acme_directory,
        WAR_ACME_CA_FILE=str(lab.acme_ca_file),
        WAR_LOG_FORMAT="json",
    )
    with war_server(lab, image.cwd, command=image.argv, env=env) as server:
        printed = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert printed.get("url") == OUTSIDE_URL, printed
        checked = await asyncio.to_thread(
            subprocess.run,
            ["ip", "netns", "exec", lab.ns("home"), *image.healthcheck],
            env=env,
            capture_output=True,
            check=False,
            timeout=30,
        )
        assert checked.returncode == 0, checked.stderr
    assert server.process.returncode == 0
    assert lab.forwards() == []
    for name in ("outside-account.pem", "outside-cert.pem", "outside-key.pem"):
        assert (image.data_dir / name).stat().st_mode & 0o777 == 0o600, name


def _second_certificate(server: ServerProcess) -> Callable[[dict[str, Any]], bool]:
    """A line that is the server's second ``outside_certificate`` (the renewal)."""

    def second(line: dict[str, Any]) -> bool:
        certificates = [seen for seen in server.seen if seen.get("event") == "outside_certificate"]
        return line.get("event") == "outside_certificate" and len(certificates) >= 2

    return second


def _serial_of(client: Client) -> int:
    der = client.ws.transport.get_extra_info("ssl_object").getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).serial_number


async def test_a_renewal_swaps_the_certificate_under_a_running_game(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """Certificates of 30 s (renewed after 20): the relative's game, opened over the first
    certificate, goes on across the swap, and a new connection sees the second."""
    lab = make_lab("public", pebble=True, certificate_seconds=30)
    with war_server(lab, folder / "server", *_acme_args(lab)) as server:
        printed = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert printed.get("url") == OUTSIDE_URL, printed
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("home"):
            grandma = Client(await connect(f"ws://{HOME_IP}:8765/", open_timeout=15))
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.player_code is not None
        with lab.inside("net"):
            ben = Client(await connect(f"wss://{WAN_IP}/", ssl=trust, open_timeout=15))
        await ben.send(JoinRoom(name="Ben", code=welcome.player_code))
        await ben.expect(Welcome)
        first = _serial_of(ben)
        await asyncio.to_thread(server.wait_for, _second_certificate(server), 60)
        with lab.inside("net"):
            cousin = Client(await connect(f"wss://{WAN_IP}/", ssl=trust, open_timeout=15))
        assert _serial_of(cousin) != first, "a new connection sees the new certificate"
        await cousin.close()
        # Ben's game goes on over the connection opened under the old certificate
        await grandma.send(Ready(step=0))
        await ben.send(Ready(step=0))
        await ben.expect(CardsTurned)
        assert _serial_of(ben) == first
        await ben.close()
        await grandma.close()


def _said_url(url: str, **fields: str) -> Callable[[dict[str, Any]], bool]:
    """The ``outside url=URL`` line (with ``fields``)."""

    def matches(line: dict[str, Any]) -> bool:
        return (
            _outside_said(line)
            and line.get("url") == url
            and all(line.get(k) == v for k, v in fields.items())
        )

    return matches


def _certified(address: str) -> Callable[[dict[str, Any]], bool]:
    def matches(line: dict[str, Any]) -> bool:
        return line.get("event") == "outside_certificate" and line.get("address") == address

    return matches


def _names_of(client: Client) -> list[str]:
    """The IP addresses the certificate a client was served names."""
    der = client.ws.transport.get_extra_info("ssl_object").getpeercert(binary_form=True)
    names = x509.load_der_x509_certificate(der).extensions
    alternative = names.get_extension_for_class(x509.SubjectAlternativeName).value
    return [str(a) for a in alternative.get_values_for_type(x509.IPAddress)]


async def _grandmas_room(lab: Lab) -> tuple[Client, str]:
    """Grandma creates a room from the house's own port: her client and the player code."""
    with lab.inside("home"):
        grandma = Client(await connect(f"ws://{HOME_IP}:8765/", open_timeout=15))
    await grandma.send(CreateRoom(name="Grandma"))
    welcome = await grandma.expect(Welcome)
    assert welcome.player_code is not None
    return grandma, welcome.player_code


async def test_a_relative_on_ipv6_reaches_the_server_with_a_certificate_for_it(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """The home has a global IPv6 address: the server listens on [it]:443, the router
    opens a pinhole to it, pebble validates the address over IPv6 (tls-alpn-01) and
    issues its certificate, and a second line gives the IPv6 link; a relative on the
    internet reaches it over IPv6 trusting pebble's root alone, and sits down."""
    lab = make_lab("ipv6", pebble=True)
    with war_server(lab, folder / "server", *_acme_args(lab)) as server:
        first = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert first.get("url") == OUTSIDE_URL, first
        second = await asyncio.to_thread(
            server.wait_for, _said_url(OUTSIDE_URL6, over="ipv6"), STARTED_WITHIN
        )
        assert "IPv6" in second["advice"]
        server.wait_for(_certified(WAN_IP), 5)
        server.wait_for(_certified(HOME_IP6), 5)
        assert lab.pinholes() == [(HOME_IP6, 443)]
        assert [(f.public_port, f.address, f.port) for f in lab.forwards()] == [
            (443, HOME_IP, 8443)
        ]
        grandma, code = await _grandmas_room(lab)
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("net"):
            ws = await connect(f"wss://[{HOME_IP6}]/", ssl=trust, open_timeout=15)
        ben = Client(ws)
        assert ws.remote_address[0] == HOME_IP6
        assert _names_of(ben) == [HOME_IP6]
        await ben.send(JoinRoom(name="Ben", code=code))
        await ben.expect(Welcome)
        await grandma.send(Ready(step=0))
        await ben.send(Ready(step=0))
        await ben.expect(CardsTurned)
        await ben.close()
        await grandma.close()
    assert server.process.returncode == 0
    assert lab.pinholes() == [], "the pinhole is removed on SIGTERM"
    assert lab.forwards() == []


async def test_a_new_public_address_gets_a_new_link_and_certificate(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """The line's public address changes (the router's WAN address): with
    ``--outside-check 1`` the server hears it within seconds, asks the router for the
    mapping again (one mapping, still to this machine), says the new link and serves a
    certificate pebble issued for the new address; the old address leads nowhere."""
    lab = make_lab("public", pebble=True)
    check = ("--outside-check", "1")
    with war_server(lab, folder / "server", *_acme_args(lab), *check) as server:
        first = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert first.get("url") == OUTSIDE_URL, first
        lab.set_wan_ip(MOVED_IP)
        moved = await asyncio.to_thread(
            server.wait_for, _said_url(f"https://{MOVED_IP}/"), STARTED_WITHIN
        )
        assert "advice" in moved
        server.wait_for(_certified(MOVED_IP), 5)
        remapped = [line for line in server.seen if line.get("event") == "outside_renewed"]
        assert remapped, "the mapping is asked for again for the new address"
        assert [(f.public_port, f.address, f.port) for f in lab.forwards()] == [
            (443, HOME_IP, 8443)
        ]
        grandma, code = await _grandmas_room(lab)
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("net"):
            ben = Client(await connect(f"wss://{MOVED_IP}/", ssl=trust, open_timeout=15))
        assert _names_of(ben) == [MOVED_IP]
        await ben.send(JoinRoom(name="Ben", code=code))
        await ben.expect(Welcome)
        await ben.close()
        await grandma.close()
    assert server.process.returncode == 0
    assert lab.forwards() == []


async def test_behind_a_shared_address_ipv6_is_the_way_in(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """The carrier shares the IPv4 address but routes IPv6 (mobile and many fibre lines):
    the server says the shared address, opens the IPv6 pinhole alone, gets the IPv6
    address's certificate, prints the IPv6 link, and the house's invitation gives it; a
    relative on the internet sits down over IPv6."""
    lab = make_lab("cgnat6", pebble=True)
    with war_server(lab, folder / "server", *_acme_args(lab)) as server:
        first = await asyncio.to_thread(server.wait_for, _outside_said, STARTED_WITHIN)
        assert first.get("failed") == "address", first
        await asyncio.to_thread(
            server.wait_for, _said_url(OUTSIDE_URL6, over="ipv6"), STARTED_WITHIN
        )
        assert lab.pinholes() == [(HOME_IP6, 443)]
        assert lab.forwards() == []
        with lab.inside("home"):
            grandma = Client(await connect(f"ws://{HOME_IP}:8765/", open_timeout=15))
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.outside == OUTSIDE_URL6, "the invitation gives the IPv6 link"
        assert welcome.player_code is not None
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("net"):
            ben = Client(await connect(OUTSIDE_URL6.replace("https", "wss"), ssl=trust,
                                       open_timeout=15))  # fmt: skip
        assert _names_of(ben) == [HOME_IP6]
        await ben.send(JoinRoom(name="Ben", code=welcome.player_code))
        await ben.expect(Welcome)
        await ben.close()
        await grandma.close()
    assert server.process.returncode == 0
    assert lab.pinholes() == [], "the pinhole is removed on SIGTERM"


def _moved_pinhole(lab: Lab, server: ServerProcess, moved: str) -> None:
    """After a renumbering: the pinhole to ``moved`` is open, and the old one is gone, or
    the router refused its removal and the server said so. The lab's miniupnpd 2.3 refuses
    to remove by PCP a pinhole PCP renewed ("not authorized"; tests/lab/README.md), and
    on a loaded machine a PCP request sent again before its answer came counts as a
    renewal: that pinhole then ends with its lease, as the line says."""
    holes = lab.pinholes()
    assert (moved, 443) in holes, holes
    if holes == [(moved, 443)]:
        return
    server.drain()
    refused = [line for line in server.seen if _router_refused_removal(line)]
    assert refused, f"the old pinhole stayed and nothing said why: {holes}"
    assert len(holes) == 2, holes


def _router_refused_removal(line: dict[str, Any]) -> bool:
    """A line saying the router refused to remove a pinhole (`_moved_pinhole`)."""
    said = f"{line.get('reason')} {line.get('error')}"
    removal = (_outside_said(line) and line.get("failed") == "ipv6") or (
        line.get("event") == "outside_unmap_failed"
    )
    return removal and "not authorized" in said


def _no_pinhole_after_exit(lab: Lab, server: ServerProcess) -> None:
    """After SIGTERM no pinhole is left, but one whose removal the router refused, said
    (the lab's miniupnpd and a PCP request sent again: `_moved_pinhole`)."""
    server.drain()
    holes = lab.pinholes()
    if holes:
        assert any(_router_refused_removal(line) for line in server.seen), holes


def _gone(url: str) -> Callable[[dict[str, Any]], bool]:
    """The ``outside gone=URL`` line."""

    def matches(line: dict[str, Any]) -> bool:
        return _outside_said(line) and line.get("gone") == url

    return matches


async def _flip(grandma: Client, ben: Client, step: int) -> int:
    """Both turn over at ``step``: the step the flip they both saw ends at."""
    await grandma.send(Ready(step=step))
    await ben.send(Ready(step=step))
    turned = await ben.expect(CardsTurned)
    assert (await grandma.expect(CardsTurned)).step == turned.step
    return turned.step


async def test_a_renumbered_ipv6_prefix_gets_a_new_link_pinhole_and_certificate(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """The provider renumbers the home's IPv6 prefix while the server runs (the new
    address added, the old one deprecated, as SLAAC does, then gone): with
    ``--outside-check 1`` the server says the old IPv6 link is gone, removes its pinhole,
    listens on the new address, opens a pinhole to it, gets the new address's certificate
    from pebble (the IPv4 one untouched) and says the new link; a relative reaches the
    new address over IPv6 trusting pebble's root alone, and Ben's game, opened over the
    old IPv6 address, goes on across the move."""
    lab = make_lab("ipv6", pebble=True)
    check = ("--outside-check", "1")
    with war_server(lab, folder / "server", *_acme_args(lab), *check) as server:
        await asyncio.to_thread(
            server.wait_for, _said_url(OUTSIDE_URL6, over="ipv6"), STARTED_WITHIN
        )
        assert lab.pinholes() == [(HOME_IP6, 443)]
        grandma, code = await _grandmas_room(lab)
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("net"):
            ben = Client(await connect(f"wss://[{HOME_IP6}]/", ssl=trust, open_timeout=15))
        await ben.send(JoinRoom(name="Ben", code=code))
        await ben.expect(Welcome)
        step = await _flip(grandma, ben, 0)
        ipv4_certificates = len([line for line in server.seen if _certified(WAN_IP)(line)])

        moved = await asyncio.to_thread(lab.renumber_ipv6)
        new_url = f"https://[{moved}]/"
        gone = await asyncio.to_thread(server.wait_for, _gone(OUTSIDE_URL6), STARTED_WITHIN)
        assert gone["over"] == "ipv6" and moved in gone["reason"], gone
        said = await asyncio.to_thread(
            server.wait_for, _said_url(new_url, over="ipv6"), STARTED_WITHIN
        )
        assert "IPv6" in said["advice"]
        server.wait_for(_certified(moved), 5)
        _moved_pinhole(lab, server, moved)
        assert [(f.public_port, f.address, f.port) for f in lab.forwards()] == [
            (443, HOME_IP, 8443)
        ]
        # Ben's game goes on over the connection opened to the old address
        step = await _flip(grandma, ben, step)

        await asyncio.to_thread(lab.drop_old_ipv6)
        with lab.inside("net"):
            cousin = Client(await connect(f"wss://[{moved}]/", ssl=trust, open_timeout=15))
        assert cousin.ws.remote_address[0] == moved
        assert _names_of(cousin) == [moved]
        await cousin.close()
        with lab.inside("net"):
            relative = Client(await connect(f"wss://{WAN_IP}/", ssl=trust, open_timeout=15))
        assert _names_of(relative) == [WAN_IP]
        await relative.close()
        assert ipv4_certificates == len(
            [line for line in server.seen if _certified(WAN_IP)(line)]
        ), "the IPv4 certificate is untouched"
        await ben.close()
        await grandma.close()
    assert server.process.returncode == 0
    _no_pinhole_after_exit(lab, server)
    assert lab.forwards() == []


async def test_behind_a_shared_address_a_renumbered_prefix_moves_the_invitations_link(
    make_lab: Callable[..., Lab], folder: Path
) -> None:
    """Behind carrier-grade NAT the IPv6 link is the invitation's: when the provider
    renumbers the home's prefix, the pinhole alone moves to the new address, the new
    link is said, and the house's next invitation gives it."""
    lab = make_lab("cgnat6", pebble=True)
    check = ("--outside-check", "1")
    with war_server(lab, folder / "server", *_acme_args(lab), *check) as server:
        await asyncio.to_thread(
            server.wait_for, _said_url(OUTSIDE_URL6, over="ipv6"), STARTED_WITHIN
        )
        moved = await asyncio.to_thread(lab.renumber_ipv6)
        new_url = f"https://[{moved}]/"
        await asyncio.to_thread(server.wait_for, _gone(OUTSIDE_URL6), STARTED_WITHIN)
        await asyncio.to_thread(server.wait_for, _said_url(new_url, over="ipv6"), STARTED_WITHIN)
        _moved_pinhole(lab, server, moved)
        assert lab.forwards() == []
        await asyncio.to_thread(lab.drop_old_ipv6)
        with lab.inside("home"):
            grandma = Client(await connect(f"ws://{HOME_IP}:8765/", open_timeout=15))
        await grandma.send(CreateRoom(name="Grandma"))
        welcome = await grandma.expect(Welcome)
        assert welcome.outside == new_url, "the invitation gives the new IPv6 link"
        trust = ssl.create_default_context(cadata=lab.pebble_root().decode())
        with lab.inside("net"):
            ben = Client(await connect(f"wss://[{moved}]/", ssl=trust, open_timeout=15))
        assert _names_of(ben) == [moved]
        assert welcome.player_code is not None
        await ben.send(JoinRoom(name="Ben", code=welcome.player_code))
        await ben.expect(Welcome)
        await ben.close()
        await grandma.close()
    assert server.process.returncode == 0
    _no_pinhole_after_exit(lab, server)

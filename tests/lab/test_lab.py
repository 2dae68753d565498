"""The lab itself: its addresses, its NAT, its router's daemon, and that it leaves nothing."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable

import pytest

from tests.lab.lab import ACME_DIRECTORY, CGNAT_WAN_IP, HOME_IP, NET_IP, Lab


def _namespaces() -> str:
    return subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=True
    ).stdout


def test_the_home_reaches_the_internet_through_the_routers_nat(lab: Lab) -> None:
    with lab.inside("net"):
        server = socket.create_server((NET_IP, 7000))
    with server:
        with lab.inside("home"):
            client = socket.create_connection((NET_IP, 7000), timeout=10)
        with client:
            accepted, peer = server.accept()
            accepted.close()
    assert peer[0] == lab.wan_ip  # the internet sees the router's address, not the home's


def test_nothing_from_the_internet_reaches_the_home_unmapped(lab: Lab) -> None:
    with lab.inside("home"):
        server = socket.create_server((HOME_IP, 8443))
    with server, lab.inside("net"), pytest.raises(ConnectionRefusedError):
        socket.create_connection((lab.wan_ip, 8443), timeout=10)
    assert lab.forwards() == []


def test_the_router_answers_upnp_as_an_igd_with_the_wan_address(lab: Lab) -> None:
    status = lab.upnpc("home", "-s")
    assert f"ExternalIPAddress = {lab.wan_ip}" in status


def test_the_cgnat_router_reports_the_shared_address(lab_cgnat: Lab) -> None:
    status = lab_cgnat.upnpc("home", "-s")
    assert f"ExternalIPAddress = {CGNAT_WAN_IP}" in status


def test_down_leaves_no_namespace_and_no_process(make_lab: Callable[..., Lab]) -> None:
    built = make_lab("no-upnp")
    names = [built.ns(name) for name in ("home", "router", "net")]
    daemon = built._processes[0]
    assert all(name in _namespaces() for name in names)
    built.down()
    assert daemon.poll() is not None
    assert not any(name in _namespaces() for name in names)
    assert not built.run_dir.exists()


def test_pebble_serves_acme_in_the_internet_and_the_home_reaches_it(lab_acme: Lab) -> None:
    directory = lab_acme.run(
        "home", "curl", "-sf", "--cacert", str(lab_acme.acme_ca_file), ACME_DIRECTORY, timeout=20
    )
    assert '"newOrder"' in directory and '"newNonce"' in directory
    assert lab_acme.pebble_root().startswith(b"-----BEGIN CERTIFICATE-----")

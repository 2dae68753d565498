"""A home, its router and the internet on one machine, in network namespaces of their own.

The lab the outside feature (``war-server --outside``, server/adapters/outside/) is tested
in. Each `Lab` builds its own namespaces (named ``fw<5 hex>-home`` and so on, so that
workers and runs never share one) joined by veth pairs created inside them: nothing
touches this machine's own interfaces, routes, addresses or firewall, and no namespace has
a link to anything but the others. Every address is a documentation one::

    home    eth0 192.168.77.20/24, default via 192.168.77.1        (the server's machine)
      |     den  eth0 192.168.77.30/24: another computer in the house
      |      |
    router  lan0 192.168.77.1/24   a bridge (the LAN ports); miniupnpd on this side: SSDP
      |                            239.255.255.250:1900, description and SOAP on :5000,
      |                            NAT-PMP/PCP on :5351
            wan0 203.0.113.2/24    nftables: forward + masquerade, miniupnpd's DNAT rules
      |
    net     eth0 203.0.113.100/24  "the internet": pebble https://203.0.113.100:14000/dir
                                   (when asked for), browsers, strangers

Variants (the ``variant`` argument):

- ``"public"``: the above; the router runs miniupnpd with UPnP-IGD (version 2 descriptions),
  NAT-PMP and PCP.
- ``"igd1"``: the same, the router describing itself as an IGD version 1.
- ``"no-upnp"``: UPnP switched off on the router (NAT-PMP and PCP still answer).
- ``"cgnat"``: the router's WAN is a carrier's shared address, 100.64.0.2/10, behind a
  fourth namespace ``isp`` (the carrier's NAT: in0 100.64.0.1/10, out0 203.0.113.3/24,
  masquerade, nothing inbound). The router reports 100.64.0.2 as its external address and
  accepts mappings that lead nowhere, as home routers behind carrier-grade NAT do.
- ``"ipv6"``: the public variant plus IPv6: home 2001:db8:77::20/64 (a global address of
  the documentation prefix), router lan0 2001:db8:77::1/64, wan0 2001:db8:113::2/64, net
  2001:db8:113::100/64 routing 2001:db8:77::/64 to the router. The router forwards no
  inbound IPv6 but through the pinholes miniupnpd opens (IGDv2 WANIPv6FirewallControl, PCP).
- ``"cgnat6"``: the cgnat variant plus IPv6, as mobile and many fibre lines are: the
  carrier shares its IPv4 address but routes IPv6 natively (router wan0 2001:db8:64::2/64,
  isp in0 2001:db8:64::1/64 and out0 2001:db8:113::3/64, net routing the home's /64 to the
  isp); the home's 2001:db8:77::20 is reachable through the router's pinholes only.

What the lab had to work around, each found the hard way:

- Debian's miniupnpd (2.3.1) keeps a table of reserved IPv4 ranges and switches port
  forwarding off when its WAN address is in one; 203.0.113.0/24 (a documentation range)
  and 100.64.0.0/10 are in it. The lab runs a copy of the binary, in its own run folder,
  with those entries of the table replaced by a second copy of 240.0.0.0/4 (`_patched`);
  the system's binary is never changed.
- miniupnpd's PCP refuses lifetimes under ``min_lifetime`` (120 s by default): the lab sets
  it to 1 s so that a test can watch a lease being renewed in seconds.
- pebble (2.4.0 in Debian) rejects 5 % of good nonces unless ``PEBBLE_WFE_NONCEREJECT=0``;
  the lab sets it to 0 unless told otherwise (``nonce_reject``), so a test of the ACME
  client's ``badNonce`` retry sets it high on purpose. pebble makes a new root at every
  start: fetch it after `Lab.up` (`Lab.pebble_root`).
- There is no NAT hairpin: from the home, 203.0.113.2 is the router itself, not the server.
- Python's ``ipaddress`` calls 203.0.113.2 private (a documentation range) and 100.64.0.2
  neither private nor global.

Use it from a test through the fixtures of tests/lab/conftest.py (tests/lab/README.md), or
by hand as root::

    python -m tests.lab.lab up [--variant cgnat] [--pebble]   # prints its prefix, waits
    ip netns exec fw1a2b3-home bash                           # in another terminal
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import ipaddress
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Variant = Literal["public", "igd1", "no-upnp", "cgnat", "ipv6", "cgnat6"]
VARIANTS: tuple[Variant, ...] = ("public", "igd1", "no-upnp", "cgnat", "ipv6", "cgnat6")

HOME_IP = "192.168.77.20"
DEN_IP = "192.168.77.30"
BOX_IP = "192.168.77.40"
ROUTER_LAN_IP = "192.168.77.1"
WAN_IP = "203.0.113.2"
NET_IP = "203.0.113.100"
CGNAT_WAN_IP = "100.64.0.2"
CGNAT_GATEWAY_IP = "100.64.0.1"
CARRIER_IP = "203.0.113.3"
HOME_IP6 = "2001:db8:77::20"
ROUTER_LAN_IP6 = "2001:db8:77::1"
WAN_IP6 = "2001:db8:113::2"
CGNAT_WAN_IP6 = "2001:db8:64::2"
CGNAT_GATEWAY_IP6 = "2001:db8:64::1"
CARRIER_IP6 = "2001:db8:113::3"
NET_IP6 = "2001:db8:113::100"
RENUMBERED_PREFIX6 = "2001:db8:78::"
"""The home's IPv6 prefix after the provider renumbered it (`Lab.renumber_ipv6`)."""
ACME_DIRECTORY = f"https://{NET_IP}:14000/dir"
UPNP_DESCRIPTION = f"http://{ROUTER_LAN_IP}:5000/rootDesc.xml"
PEBBLE_MANAGEMENT = f"https://{NET_IP}:15000"

TOOLS = ("ip", "nft", "openssl", "curl", "upnpc", "pebble")
MINIUPNPD = Path("/usr/sbin/miniupnpd")
SETUP = "tests/lab/setup.sh"

_CLONE_NEWNET = 0x40000000


class NoLabError(Exception):
    """The lab cannot be built here; ``forbidden`` when the platform forbids namespaces."""

    def __init__(self, reason: str, *, forbidden: bool) -> None:
        super().__init__(reason)
        self.forbidden = forbidden


def check_platform() -> None:
    """Raise `NoLabError` saying why no lab can be built here, or return."""
    if sys.platform != "linux":
        raise NoLabError(f"network namespaces are Linux's; this is {sys.platform}", forbidden=True)
    if os.geteuid() != 0:
        raise NoLabError("creating network namespaces needs root here", forbidden=True)
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not MINIUPNPD.exists():
        missing.append(str(MINIUPNPD))
    if missing:
        raise NoLabError(
            f"the lab's tools are missing ({', '.join(missing)}): run {SETUP}", forbidden=False
        )
    probe = f"fwprobe{os.getpid()}"
    made = subprocess.run(
        ["ip", "netns", "add", probe], capture_output=True, text=True, check=False
    )
    if made.returncode != 0:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
        raise NoLabError(
            f"this platform forbids network namespaces: {made.stderr.strip()}", forbidden=True
        )
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=True)


def _run(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"lab: {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


def _patched(source: Path, target: Path, unreserve: Sequence[str]) -> None:
    """Copy miniupnpd's binary to `target` with the given ranges taken out of its table of
    reserved addresses (``{uint32 address; uint32 rmask}`` pairs, host byte order, with
    ``rmask`` = 32 - prefix length), each replaced by a second copy of 240.0.0.0/4."""
    binary = bytearray(source.read_bytes())
    for cidr in unreserve:
        network = ipaddress.IPv4Network(cidr)
        entry = struct.pack("=II", int(network.network_address), 32 - network.prefixlen)
        at = binary.find(entry)
        if at < 0 or binary.find(entry, at + 1) >= 0:
            raise RuntimeError(f"lab: {cidr} is not once in {source}'s reserved-address table")
        binary[at : at + 8] = struct.pack("=II", 240 << 24, 28)
    target.write_bytes(bytes(binary))
    target.chmod(0o755)


@dataclass(frozen=True)
class Forward:
    """One inbound TCP/UDP forward the router's firewall holds (miniupnpd's DNAT rules)."""

    protocol: str
    public_port: int
    address: str
    port: int


_DNAT = re.compile(r"@nh,72,8 0x(6|11) th dport (\d+) dnat ip to ([0-9.]+):(\d+)")
_PROTOCOLS = {"6": "tcp", "11": "udp"}
_PINHOLE = re.compile(r"th dport (\d+) @nh,192,128 0x([0-9a-f]{32}) @nh,48,8 0x6 accept")


class Lab:
    """One lab: `up` builds it, `down` takes it apart (also after a failed `up`)."""

    def __init__(
        self,
        variant: Variant = "public",
        *,
        pebble: bool = False,
        pcp: bool = True,
        nonce_reject: int = 0,
        certificate_seconds: int = 576000,
        run_dir: Path | None = None,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown lab variant {variant!r}: one of {', '.join(VARIANTS)}")
        self.variant: Variant = variant
        self.pebble = pebble
        self.pcp = pcp
        self.nonce_reject = nonce_reject
        self.certificate_seconds = certificate_seconds
        self.prefix = f"fw{os.urandom(3).hex()[:5]}"
        self._own_dir = run_dir is None
        self.run_dir = run_dir if run_dir is not None else Path(tempfile.mkdtemp(prefix="fw-lab-"))
        self._processes: list[subprocess.Popen[bytes]] = []
        self._miniupnpd: subprocess.Popen[bytes]
        self._namespaces: list[str] = []
        self._attached: list[str] = []

    # --- names and addresses -----------------------------------------------------------

    def ns(self, name: str) -> str:
        """The full name of namespace ``home``, ``den``, ``router``, ``net`` or ``isp``."""
        if name not in ("home", "den", "router", "net", "isp", "box"):
            raise ValueError(f"no namespace {name!r} in the lab")
        return f"{self.prefix}-{name}"

    @property
    def wan_ip(self) -> str:
        """The router's own external address (a shared one in the cgnat variant)."""
        return CGNAT_WAN_IP if self.cgnat else WAN_IP

    @property
    def cgnat(self) -> bool:
        """Whether the router's IPv4 address is a carrier's shared one."""
        return self.variant in ("cgnat", "cgnat6")

    @property
    def ipv6(self) -> bool:
        """Whether the lab has IPv6 (the home a global address)."""
        return self.variant in ("ipv6", "cgnat6")

    @property
    def acme_directory(self) -> str:
        return ACME_DIRECTORY

    @property
    def acme_ca_file(self) -> Path:
        """The root that signed pebble's own HTTPS certificate (``--acme-ca-file``)."""
        return self.run_dir / "minica.pem"

    # --- running things ----------------------------------------------------------------

    def run(
        self,
        ns: str,
        *args: str,
        check: bool = True,
        timeout: float = 30.0,
        stdin_text: str | None = None,
    ) -> str:
        """Run ``args`` in namespace `ns` (``home``, ``router``, ``net``, ``isp``); its output."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns(ns), *args],
            input=stdin_text,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(
                f"lab: {' '.join(args)} in {ns} failed ({done.returncode}): "
                f"{done.stderr.strip() or done.stdout.strip()}"
            )
        return done.stdout

    def spawn(
        self, ns: str, *args: str, log: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """Start ``args`` in namespace `ns`; `down` ends it (by its id) if it still runs."""
        out = (self.run_dir / log).open("wb") if log else subprocess.DEVNULL
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(ns), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        if log:
            assert not isinstance(out, int)
            out.close()
        self._processes.append(process)
        return process

    @contextlib.contextmanager
    def inside(self, ns: str) -> Iterator[None]:
        """Move the calling thread into namespace `ns` for the block: the sockets it opens
        there (an asyncio loop's too) stay in `ns` for good, and what it spawns starts there.
        The thread comes back to its own namespace at the end, however the block ends."""
        libc = ctypes.CDLL(None, use_errno=True)
        with (
            open("/proc/thread-self/ns/net", "rb") as own,
            open(f"/run/netns/{self.ns(ns)}", "rb") as target,
        ):
            if libc.setns(target.fileno(), _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns into {self.ns(ns)}")
            try:
                yield
            finally:
                if libc.setns(own.fileno(), _CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back")

    # --- the router's state -----------------------------------------------------------

    def forwards(self) -> list[Forward]:
        """The inbound forwards the router's NAT holds now (its nftables rules)."""
        text = self.run("router", "nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd")
        return [Forward(_PROTOCOLS[m[1]], int(m[2]), m[3], int(m[4])) for m in _DNAT.finditer(text)]

    def pinholes(self) -> list[tuple[str, int]]:
        """The IPv6 (address, port) pairs the router's firewall lets in (miniupnpd's pinholes)."""
        text = self.run("router", "nft", "list", "chain", "inet", "filter", "miniupnpd")
        return [
            (str(ipaddress.IPv6Address(int(m[2], 16))), int(m[1])) for m in _PINHOLE.finditer(text)
        ]

    def upnpc(self, ns: str, *args: str) -> str:
        """``upnpc`` in namespace `ns`, straight to the router's description (no SSDP wait)."""
        return self.run(ns, "upnpc", "-i", "-u", UPNP_DESCRIPTION, *args, timeout=20)

    def set_wan_ip(self, address: str) -> None:
        """Give the router another external IPv4 address (a line's address changing; the
        old one is gone, the IPv6 ones stay). miniupnpd reads it from wan0 at each
        question, and its forwards follow (they match the interface, not the address)."""
        self.run("router", "ip", "-4", "addr", "flush", "dev", "wan0", "scope", "global")
        prefix = 10 if self.cgnat else 24
        self.run("router", "ip", "addr", "add", f"{address}/{prefix}", "dev", "wan0")
        if self.cgnat:
            self.run("router", "ip", "route", "replace", "default", "via", CGNAT_GATEWAY_IP)

    def renumber_ipv6(self, prefix: str = RENUMBERED_PREFIX6) -> str:
        """The provider gives the home a new IPv6 /64, ``prefix`` (a residential line's
        prefix changing), as RFC 4192 renumbers and SLAAC follows: the router takes
        ``prefix``::1 on its LAN side, the provider routes the new /64 to the router, the
        home takes ``prefix``::20 with its default route through the router's new address,
        and the home's old address stays, deprecated (preferred lifetime 0: no longer
        chosen for anything new, still the machine's), until `drop_old_ipv6`. miniupnpd
        needs nothing: its pinholes name the internal address, whatever its prefix.
        Returns the home's new address."""
        if not self.ipv6:
            raise RuntimeError("the lab has no IPv6 to renumber (variants ipv6, cgnat6)")
        network = ipaddress.IPv6Network(f"{prefix}/64")
        home, router = str(network.network_address + 0x20), str(network.network_address + 1)
        self._address("router", "lan0", f"{router}/64")
        if self.cgnat:
            self.run("isp", "ip", "-6", "route", "add", str(network), "via", CGNAT_WAN_IP6)
            self.run("net", "ip", "-6", "route", "add", str(network), "via", CARRIER_IP6)
        else:
            self.run("net", "ip", "-6", "route", "add", str(network), "via", WAN_IP6)
        self._address("home", "eth0", f"{home}/64")
        self.run("home", "ip", "-6", "route", "replace", "default", "via", router)
        self.run(
            "home", "ip", "-6", "addr", "change", f"{HOME_IP6}/64", "dev", "eth0",
            "valid_lft", "forever", "preferred_lft", "0",
        )  # fmt: skip
        return home

    def drop_old_ipv6(self) -> None:
        """The old prefix's end after `renumber_ipv6`: the home's old address is gone, and
        the router and the provider forget the old /64."""
        old = "2001:db8:77::/64"
        self.run("home", "ip", "-6", "addr", "del", f"{HOME_IP6}/64", "dev", "eth0")
        self.run("router", "ip", "-6", "addr", "del", f"{ROUTER_LAN_IP6}/64", "dev", "lan0")
        self.run("net", "ip", "-6", "route", "del", old)
        if self.cgnat:
            self.run("isp", "ip", "-6", "route", "del", old)

    def stop_router(self) -> None:
        """The router goes down as in a reboot: miniupnpd killed, its rules and leases lost
        (`start_router` brings it back, empty)."""
        self._miniupnpd.kill()
        self._miniupnpd.wait(timeout=10)
        for chain in ("miniupnpd", "prerouting_miniupnpd", "postrouting_miniupnpd"):
            self.run("router", "nft", "flush", "chain", "inet", "filter", chain)
        (self.run_dir / "upnp.leases").unlink(missing_ok=True)

    def start_router(self) -> None:
        self._start_miniupnpd()

    def attach(self, pid: int, address: str = BOX_IP) -> str:
        """Plug the network namespace of process `pid` (a container's, say) into the house's
        LAN as the machine ``box`` at `address`, default route via the router; returns the
        namespace's lab name. The namespace stays the process's own: `down` unplugs it and
        forgets the name, and never ends the process."""
        full = self.ns("box")
        _run("ip", "netns", "attach", full, str(pid))
        self._attached.append(full)
        self._link("box", "eth0", "router", "port3")
        self.run("router", "ip", "link", "set", "port3", "master", "lan0")
        self._address("box", "eth0", f"{address}/24")
        self.run("box", "ip", "route", "add", "default", "via", ROUTER_LAN_IP)
        return full

    def pebble_root(self) -> bytes:
        """The root pebble issues under (new at each start): what a browser must trust."""
        return self.run(
            "net", "curl", "-sf", "--cacert", str(self.acme_ca_file), f"{PEBBLE_MANAGEMENT}/roots/0"
        ).encode()

    # --- building ---------------------------------------------------------------------

    def up(self) -> Lab:
        check_platform()
        atexit.register(self.down)  # however the process ends short of SIGKILL
        try:
            self._build()
        except BaseException:
            self.down()
            raise
        return self

    def _add_ns(self, name: str) -> None:
        full = self.ns(name)
        _run("ip", "netns", "add", full)
        self._namespaces.append(full)
        self.run(name, "ip", "link", "set", "lo", "up")
        ipv6 = "0" if self.ipv6 else "1"
        self.run(name, "sysctl", "-qw", f"net.ipv6.conf.all.disable_ipv6={ipv6}")
        self.run(name, "sysctl", "-qw", f"net.ipv6.conf.default.disable_ipv6={ipv6}")

    def _link(self, a: str, a_if: str, b: str, b_if: str) -> None:
        _run(
            "ip",
            "-n",
            self.ns(a),
            "link",
            "add",
            a_if,
            "type",
            "veth",
            "peer",
            "name",
            b_if,
            "netns",
            self.ns(b),
        )
        self.run(a, "ip", "link", "set", a_if, "up")
        self.run(b, "ip", "link", "set", b_if, "up")

    def _address(self, ns: str, interface: str, cidr: str) -> None:
        extra = ("nodad",) if ":" in cidr else ()
        self.run(ns, "ip", "addr", "add", cidr, "dev", interface, *extra)

    def _build(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.chmod(0o755)
        cgnat, ipv6 = self.cgnat, self.ipv6
        for name in ("home", "den", "router", "net", *(("isp",) if cgnat else ())):
            self._add_ns(name)
        # the house's LAN: a bridge in the router (its LAN ports), the server and the den
        self.run("router", "ip", "link", "add", "lan0", "type", "bridge", "mcast_snooping", "0")
        self.run("router", "ip", "link", "set", "lan0", "up")
        # where br_netfilter is loaded (Docker loads it), bridged frames would cross the
        # router's forward chain and be dropped: a LAN's switch does not filter
        for family in ("iptables", "ip6tables", "arptables"):
            self.run(
                "router", "sysctl", "-qw", f"net.bridge.bridge-nf-call-{family}=0", check=False
            )
        for machine, port, address in (("home", "port1", HOME_IP), ("den", "port2", DEN_IP)):
            self._link(machine, "eth0", "router", port)
            self.run("router", "ip", "link", "set", port, "master", "lan0")
            self._address(machine, "eth0", f"{address}/24")
            self.run(machine, "ip", "route", "add", "default", "via", ROUTER_LAN_IP)
        self._address("router", "lan0", f"{ROUTER_LAN_IP}/24")
        if cgnat:
            self._link("router", "wan0", "isp", "in0")
            self._link("isp", "out0", "net", "eth0")
            self._address("router", "wan0", f"{CGNAT_WAN_IP}/10")
            self._address("isp", "in0", f"{CGNAT_GATEWAY_IP}/10")
            self._address("isp", "out0", f"{CARRIER_IP}/24")
            self.run("router", "ip", "route", "add", "default", "via", CGNAT_GATEWAY_IP)
            self.run("isp", "sysctl", "-qw", "net.ipv4.ip_forward=1")
            self.run("isp", "nft", "-f", "-", stdin_text=_ISP_NFT)
        else:
            self._link("router", "wan0", "net", "eth0")
            self._address("router", "wan0", f"{WAN_IP}/24")
        self._address("net", "eth0", f"{NET_IP}/24")
        self.run("router", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        if ipv6:
            self._address("home", "eth0", f"{HOME_IP6}/64")
            self._address("router", "lan0", f"{ROUTER_LAN_IP6}/64")
            self._address("net", "eth0", f"{NET_IP6}/64")
            self.run("home", "ip", "-6", "route", "add", "default", "via", ROUTER_LAN_IP6)
            self.run("router", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
        if ipv6 and not cgnat:
            self._address("router", "wan0", f"{WAN_IP6}/64")
            self.run("net", "ip", "-6", "route", "add", "2001:db8:77::/64", "via", WAN_IP6)
        if ipv6 and cgnat:  # the carrier routes IPv6 natively: no NAT, no filter of its own
            self._address("router", "wan0", f"{CGNAT_WAN_IP6}/64")
            self._address("isp", "in0", f"{CGNAT_GATEWAY_IP6}/64")
            self._address("isp", "out0", f"{CARRIER_IP6}/64")
            self.run("router", "ip", "-6", "route", "add", "default", "via", CGNAT_GATEWAY_IP6)
            self.run("isp", "ip", "-6", "route", "add", "2001:db8:77::/64", "via", CGNAT_WAN_IP6)
            self.run("isp", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
            self.run("net", "ip", "-6", "route", "add", "2001:db8:77::/64", "via", CARRIER_IP6)
        self.run("router", "nft", "-f", "-", stdin_text=_ROUTER_NFT)
        if not self.pcp:  # miniupnpd answers PCP over IPv6 whatever enable_natpmp says
            self.run("router", "nft", "-f", "-", stdin_text=_NO_PCP_NFT)
        self._start_miniupnpd()
        if self.pebble:
            self._start_pebble()

    def _start_miniupnpd(self) -> None:
        binary = self.run_dir / "miniupnpd"
        unreserve = ["203.0.113.0/24", *(["100.64.0.0/10"] if self.cgnat else [])]
        _patched(MINIUPNPD, binary, unreserve)
        lines = [
            "ext_ifname=wan0",
            "listening_ip=lan0",
            "http_port=5000",
            f"enable_upnp={'no' if self.variant == 'no-upnp' else 'yes'}",
            f"enable_natpmp={'yes' if self.pcp else 'no'}",  # NAT-PMP and PCP alike
            f"ipv6_disable={'no' if self.ipv6 else 'yes'}",
            "secure_mode=yes",
            "system_uptime=yes",
            "notify_interval=60",
            "clean_ruleset_interval=600",
            "min_lifetime=1",
            "max_lifetime=86400",
            "friendly_name=Family War lab router",
            "uuid=5e1f5e1f-7777-4a11-b0a7-000000000077",
            f"lease_file={self.run_dir / 'upnp.leases'}",
            "allow 1-65535 192.168.77.0/24 1-65535",
            "deny 0-65535 0.0.0.0/0 0-65535",
        ]
        if self.variant == "igd1":
            lines.append("force_igd_desc_v1=yes")
        if self.ipv6:
            lines.append("ext_ifname6=wan0")
        config = self.run_dir / "miniupnpd.conf"
        config.write_text("\n".join(lines) + "\n")
        self._miniupnpd = self.spawn(
            "router",
            str(binary),
            "-d",
            "-f",
            str(config),
            "-P",
            str(self.run_dir / "miniupnpd.pid"),
            log="miniupnpd.log",
        )
        if self.variant != "no-upnp":
            self._wait(
                "miniupnpd's HTTP port", lambda: ":5000" in self.run("router", "ss", "-Hlnt")
            )
        if self.pcp:
            self._wait(
                "miniupnpd's NAT-PMP/PCP port",
                lambda: ":5351" in self.run("router", "ss", "-Hlnu"),
            )

    def _start_pebble(self) -> None:
        certs = self.run_dir / "certs"
        certs.mkdir()
        key, csr, leaf = certs / "minica-key.pem", certs / "pebble.csr", certs / "pebble-cert.pem"
        _run(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "30",
            "-keyout",
            str(key),
            "-out",
            str(self.acme_ca_file),
            "-subj",
            f"/CN=family war lab root {self.prefix}",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        )
        _run(
            "openssl",
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            str(certs / "pebble-key.pem"),
            "-out",
            str(csr),
            "-subj",
            f"/CN={NET_IP}",
        )
        extensions = certs / "ext.cnf"
        extensions.write_text(
            f"subjectAltName=IP:{NET_IP}\nbasicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        )
        _run(
            "openssl",
            "x509",
            "-req",
            "-in",
            str(csr),
            "-CA",
            str(self.acme_ca_file),
            "-CAkey",
            str(key),
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            str(extensions),
            "-out",
            str(leaf),
        )
        config = self.run_dir / "pebble.json"
        config.write_text(
            '{"pebble": {'
            f'"listenAddress": "{NET_IP}:14000", '
            f'"managementListenAddress": "{NET_IP}:15000", '
            f'"certificate": "{leaf}", "privateKey": "{certs / "pebble-key.pem"}", '
            '"httpPort": 80, "tlsPort": 443, "ocspResponderURL": "", '
            '"externalAccountBindingRequired": false, '
            f'"certificateValidityPeriod": {self.certificate_seconds}'
            "}}\n"
        )
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PEBBLE_VA_NOSLEEP": "1",
            "PEBBLE_WFE_NONCEREJECT": str(self.nonce_reject),
        }
        self.spawn("net", "pebble", "-config", str(config), log="pebble.log", env=env)
        directory = ["curl", "-sf", "--cacert", str(self.acme_ca_file), ACME_DIRECTORY]
        self._wait(
            "pebble's directory",
            lambda: self.run("net", *directory, check=False) != "",
            seconds=30.0,
        )

    def _wait(self, what: str, ready: object, seconds: float = 10.0) -> None:
        assert callable(ready)
        end = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > end:
                logs = "\n".join(
                    f"--- {log.name}\n{log.read_text(errors='replace')[-2000:]}"
                    for log in self.run_dir.glob("*.log")
                )
                raise RuntimeError(f"lab: {what} not ready after {seconds} s\n{logs}")
            time.sleep(0.05)  # polling a daemon that gives no signal of its own

    # --- taking apart -----------------------------------------------------------------

    def down(self) -> None:
        """End the processes the lab started (by their ids), then anything a test left in
        its namespaces, and delete the namespaces and the run folder. Idempotent."""
        atexit.unregister(self.down)
        for process in self._processes:
            if process.poll() is None:
                process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._processes.clear()
        for full in self._attached:  # another's namespace: unplugged, never emptied
            unplug = ["ip", "-n", full, "link", "del", "eth0"]
            subprocess.run(unplug, capture_output=True, check=False)
            subprocess.run(["ip", "netns", "del", full], capture_output=True, check=False)
        self._attached.clear()
        for full in reversed(self._namespaces):
            pids = subprocess.run(
                ["ip", "netns", "pids", full], capture_output=True, text=True, check=False
            ).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", full], capture_output=True, check=False)
        self._namespaces.clear()
        if self._own_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> Lab:
        return self.up()

    def __exit__(self, *_: object) -> None:
        self.down()


_ROUTER_NFT = """
table inet filter {
  chain forward {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    iifname "lan0" oifname "wan0" accept
    jump miniupnpd
  }
  chain miniupnpd {
  }
  chain prerouting {
    type nat hook prerouting priority -100; policy accept;
    jump prerouting_miniupnpd
  }
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    jump postrouting_miniupnpd
    oifname "wan0" meta nfproto ipv4 masquerade
  }
  chain prerouting_miniupnpd {
  }
  chain postrouting_miniupnpd {
  }
}
"""

_NO_PCP_NFT = """
table inet nopcp {
  chain input {
    type filter hook input priority 0; policy accept;
    udp dport 5351 drop
  }
}
"""

_ISP_NFT = """
table inet carrier {
  chain forward {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    meta nfproto ipv6 accept  # (cgnat6) the carrier routes IPv6 unfiltered
    iifname "in0" oifname "out0" accept
  }
  chain postrouting {
    type nat hook postrouting priority 100; policy accept;
    oifname "out0" masquerade
  }
}
"""


def main(argv: Sequence[str]) -> int:

    parser = argparse.ArgumentParser(
        prog="python -m tests.lab.lab", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", choices=["up"])
    parser.add_argument("--variant", choices=VARIANTS, default="public")
    parser.add_argument("--pebble", action="store_true")
    options = parser.parse_args(argv)
    with Lab(options.variant, pebble=options.pebble) as lab:
        print(f"lab {lab.prefix} up ({lab.variant}): namespaces {lab.prefix}-home, -router, -net")
        print(f"run folder {lab.run_dir}; Ctrl-C takes it down")
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The router step's failures: each says, in one sentence, which step failed and what to do.

The server prints ``str(failure)`` as it is (``outside failed=<step>: <sentence>``); the
types let it and the tests tell them apart. docs/hosting.md ("The router step") lists them.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address

HOSTING = "docs/hosting.md"


class OutsideError(Exception):
    """A failure of the router step; ``step`` names the step, ``str()`` is one sentence."""

    step = "router"


class NoRouterError(OutsideError):
    """No router answered by UPnP-IGD, PCP or NAT-PMP."""

    step = "router"

    def __init__(self, public_port: int, lan_address: IPv4Address | None, lan_port: int) -> None:
        self.public_port = public_port
        where = f"{lan_address}:{lan_port}" if lan_address else f"this machine's port {lan_port}"
        super().__init__(
            "No router answered on this network (UPnP-IGD, NAT-PMP, PCP): switch UPnP on in "
            "the router's settings page (often under Advanced, NAT or UPnP), or forward TCP "
            f"port {public_port} to {where} by hand as {HOSTING} shows."
        )


class RouterRefusedError(OutsideError):
    """The router answered and refused (or could not do) what was asked."""

    step = "router"

    def __init__(self, router: str, public_port: int, why: str) -> None:
        self.router = router
        self.public_port = public_port
        self.why = why
        super().__init__(
            f"The router ({router}) refused to forward TCP port {public_port}: {why}; allow "
            "port mapping (UPnP, NAT-PMP) for this machine in the router's settings page, or "
            f"forward the port by hand as {HOSTING} shows."
        )


class SharedAddressError(OutsideError):
    """The router's own external address is a carrier's shared one (or private)."""

    step = "address"

    def __init__(self, address: IPv4Address) -> None:
        self.address = address
        super().__init__(
            f"The router's own external address {address} is a shared address (carrier-grade "
            "NAT), so this line has no address of its own and nobody outside can reach it: "
            "ask the provider for a public IPv4 address, use IPv6 where the line has it, or "
            f"use a tunnel, as {HOSTING} shows."
        )


class PortTakenError(OutsideError):
    """Another machine (or another program) holds the public port on the router."""

    step = "port"

    def __init__(self, public_port: int, holder: str) -> None:
        self.public_port = public_port
        self.holder = holder
        super().__init__(
            f"The router already forwards public TCP port {public_port} to {holder}: free it "
            "there (or in the router's settings page), or choose another port with "
            "--outside-port."
        )


class Ipv6RefusedError(OutsideError):
    """The router opened no pinhole through its IPv6 firewall (PCP and UPnP's
    WANIPv6FirewallControl both refused or are off)."""

    step = "ipv6"

    def __init__(self, address: IPv6Address, port: int) -> None:
        self.address = address
        self.port = port
        super().__init__(
            f"The router opened no way in to [{address}]:{port} through its IPv6 firewall "
            "(PCP or UPnP-IGDv2): switch on UPnP or PCP for IPv6 in the router's settings, "
            "or open the port there by hand (docs/hosting.md)."
        )

"""``war-server --outside`` (issue 30): the router step (this docstring), and beside it
the certificate (`acme`, `certificates`), the listener's TLS (`tls`), who is in the house
(`house`) and the whole sequence while the server runs (`opening`).

The router step: open a port on the home router, keep it open, follow the router's public
address, and close it again.

The server calls one thing::

    from server.adapters.outside import OutsideError, open_outside

    try:
        async with open_outside(lan_port=8443, public_port=443) as door:
            door.external_address  # IPv4Address: the router's public address, to certify
            door.url               # "https://203.0.113.2/" (":port" unless 443)
            door.public_port       # 443
            door.lan_address       # this machine's LAN address the router forwards to
            door.protocol          # "upnp-igd2", "upnp-igd1", "pcp" or "nat-pmp"
            door.ipv6              # Pinhole(address, port) or None: the IPv6 way in
            async for change in door.changes():
                ...  # change.external_address (None while lost), change.ipv6, change.lost
    except OutsideError as failure:
        print(f"outside failed={failure.step}: {failure}")  # one sentence: step, what to do

- **Finding the router**: UPnP-IGD first (an SSDP search for IGD:2 and IGD:1 from this
  machine's LAN address, ``ssdp_wait`` seconds at most; only the default gateway's answer
  counts: another machine on the LAN cannot pose as the router), then PCP (RFC 6887) and
  NAT-PMP (RFC 6886) at the default gateway, each with retries for about two seconds.
  ``methods`` narrows or orders them.
- **The mapping**: public TCP ``public_port`` to ``lan_port`` on this machine's LAN
  address (the address it speaks to the gateway from), described as ``"Family War"``
  where the protocol keeps a description (UPnP), with a lease of ``lease`` seconds
  renewed at half its life (and ``Door.renewed()`` to wait for a renewal).
- **A mapping that exists already** is never taken over: UPnP asks who holds the port
  first and takes it only when it leads to this machine's ``lan_port`` (a stale one of
  ours); NAT-PMP and PCP grant another port when the one asked for is held, which is given
  back at once. Either way: `PortTakenError` naming the port and its holder.
- **The address**: asked of the router before mapping (UPnP, NAT-PMP) or read from the
  mapping's answer (PCP). One in 100.64.0.0/10 (carrier-grade NAT) or a private range is
  `SharedAddressError` and no mapping is left behind. Every ``check_every`` seconds (and at
  each renewal) the address is asked again, and whether the router still holds the
  mapping (UPnP: GetSpecificPortMappingEntry; NAT-PMP: its epoch, RFC 6886 §3.6; PCP: the
  mapping is renewed): a router that restarted is asked again at once. A new address is a
  `Change` from ``changes()`` (after the mapping is asked for again at once): the
  caller re-issues the certificate and reprints the link. When the router stops
  answering or refuses a renewal, a `Change` with ``lost`` set; the door keeps asking
  every ``retry_after`` seconds (30) and a `Change` with ``lost`` None says it is back.
- **IPv6** (``ipv6=True``): where this machine has a global IPv6 address, a pinhole to
  ``ipv6_port`` (default ``lan_port``) of ``ipv6_address`` (default the first global
  address) through the router's firewall (no translation: the port is the same; the
  server gives the address and port 443 its IPv6 listener holds), by
  PCP at the IPv6 default router, else by UPnP-IGDv2's WANIPv6FirewallControl; renewed
  with the mapping. ``door.ipv6`` is then the address to certify too (and
  ``door.ipv6.url`` the link). None when there is no global address or the router will not.
- **A new IPv6 address** (the provider renumbered the home's prefix): the server calls
  ``await door.remove_pinhole()`` (from the old address while it is still the machine's:
  routers take the removal only from the address they opened for; else it raises and
  the pinhole ends with its lease) and ``await door.add_pinhole(address, port)`` (the
  new `Pinhole`, or None), on either door; the new one is renewed and removed as the old.
- **IPv6 alone** (`open_ipv6`): where the IPv4 address is shared (`SharedAddressError`)
  the server can still open the pinhole alone: a `PinholeDoor` with the same
  ``external_address`` (the IPv6 address), ``public_port``, ``ipv6`` and ``changes()``
  (a lost pinhole and its return), renewed at half its lease; `Ipv6RefusedError` when
  the router opens none.
- **Closing**: leaving the ``async with`` (however: a return, an error, SIGTERM or SIGINT
  cancelling the task) removes the mapping and the pinhole, if they are still ours, within
  a few seconds, even while the task is being cancelled.

Failures (`errors`): `NoRouterError`, `RouterRefusedError`, `SharedAddressError`,
`PortTakenError`, `Ipv6RefusedError`, all `OutsideError` with ``step`` and a one-sentence message.

The protocols are sans-I/O (`wire`: `natpmp`, `pcp`, `upnp`, `httpwire`, `xmlsafe`:
bytes in, checked values out, every router answer treated as hostile: bounded sizes,
strict formats, XML without DOCTYPE or entities); `transport` is the thin asyncio layer,
`routers` and `pinholes` speak each protocol, `door` drives them, `addresses` knows whose
address is whose, `errors` says what failed. Hand-written: async-upnp-client covers UPnP
only (and pulls in aiohttp), and no maintained Python library covers NAT-PMP and PCP.
"""

from server.adapters.outside.door import (
    Change,
    Door,
    Options,
    PinholeDoor,
    open_ipv6,
    open_outside,
)
from server.adapters.outside.errors import (
    Ipv6RefusedError,
    NoRouterError,
    OutsideError,
    PortTakenError,
    RouterRefusedError,
    SharedAddressError,
)
from server.adapters.outside.pinholes import Pinhole

__all__ = [
    "Change",
    "Door",
    "Ipv6RefusedError",
    "NoRouterError",
    "Options",
    "OutsideError",
    "Pinhole",
    "PinholeDoor",
    "PortTakenError",
    "RouterRefusedError",
    "SharedAddressError",
    "open_ipv6",
    "open_outside",
]

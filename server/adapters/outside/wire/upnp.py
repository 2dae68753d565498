"""UPnP-IGD (versions 1 and 2), sans-I/O: SSDP search, the device description, SOAP.

- `search_request` is the SSDP M-SEARCH for an Internet Gateway Device; `parse_search_answer`
  keeps an answer only when its LOCATION is plain ``http://`` on the very address the
  answer came from (a device cannot send us elsewhere).
- `parse_description` finds the WAN connection service (WANIPConnection:2, :1, or
  WANPPPConnection:1) and the IPv6 firewall (WANIPv6FirewallControl:1), each with its
  control URL on that same address and port.
- `soap_request` builds an action's envelope; `parse_soap_answer` returns its out
  arguments, or raises `UpnpActionError` with the UPnP error code of a SOAP fault.
Everything is parsed by `xmlsafe` (no DOCTYPE, no entity, bounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Address, ip_address
from urllib.parse import urljoin, urlsplit

from server.adapters.outside.wire import xmlsafe

SSDP_ADDRESS = "239.255.255.250"
SSDP_PORT = 1900
MAX_DATAGRAM = 2048
IGD2 = "urn:schemas-upnp-org:device:InternetGatewayDevice:2"
IGD1 = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
WAN_SERVICES = (
    "urn:schemas-upnp-org:service:WANIPConnection:2",
    "urn:schemas-upnp-org:service:WANIPConnection:1",
    "urn:schemas-upnp-org:service:WANPPPConnection:1",
)
FIREWALL6 = "urn:schemas-upnp-org:service:WANIPv6FirewallControl:1"

# UPnP error codes (IGD WANIPConnection and WANIPv6FirewallControl)
NO_SUCH_ENTRY = 714
CONFLICT = 718
ONLY_PERMANENT_LEASES = 725


class UpnpFormatError(ValueError):
    """An SSDP answer, description or SOAP answer that is not what UPnP-IGD says."""


class UpnpActionError(Exception):
    """A SOAP fault: the router refused the action (`code`, `description`)."""

    def __init__(self, code: int, description: str) -> None:
        super().__init__(
            f"UPnP error {code} ({description})" if description else f"UPnP error {code}"
        )
        self.code = code
        self.description = description


@dataclass(frozen=True)
class Location:
    """Where a device's description is: ``http://host:port/path`` on the device itself."""

    host: IPv4Address
    port: int
    path: str
    search_target: str

    @property
    def endpoint(self) -> tuple[IPv4Address, int]:
        return self.host, self.port


@dataclass(frozen=True)
class Service:
    service_type: str
    control_path: str


@dataclass(frozen=True)
class Gateway:
    """What a router's description offers: its WAN service, its IPv6 firewall, its version."""

    version: int
    wan: Service
    firewall6: Service | None


def search_request(search_target: str, wait: int = 1) -> bytes:
    """An SSDP M-SEARCH for `search_target` (devices answer within `wait` seconds)."""
    return (
        "M-SEARCH * HTTP/1.1\r\n"
        f"HOST: {SSDP_ADDRESS}:{SSDP_PORT}\r\n"
        'MAN: "ssdp:discover"\r\n'
        f"MX: {wait}\r\n"
        f"ST: {search_target}\r\n"
        "\r\n"
    ).encode("ascii")


def parse_search_answer(data: bytes, sender: IPv4Address) -> Location:
    """The LOCATION of an SSDP answer from `sender`, if it is an IGD's on that address."""
    if len(data) > MAX_DATAGRAM:
        raise UpnpFormatError("an SSDP answer too large")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise UpnpFormatError("an SSDP answer not in ASCII") from None
    lines = text.split("\r\n")
    if not lines[0].startswith("HTTP/1.1 200"):
        raise UpnpFormatError(f"an SSDP answer {lines[0][:40]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    target = headers.get("st", "")
    if target not in (IGD1, IGD2):
        raise UpnpFormatError(f"an SSDP answer for {target[:80]!r}")
    return Location(*_same_host(headers.get("location", ""), sender), search_target=target)


def _same_host(url: str, host: IPv4Address) -> tuple[IPv4Address, int, str]:
    """(host, port, path) of `url` if it is ``http://`` on `host` itself."""
    try:
        parts = urlsplit(url)
        port = parts.port or 80
        address = ip_address(parts.hostname or "")
    except ValueError:
        raise UpnpFormatError(f"a URL {url[:80]!r}") from None
    if parts.scheme != "http" or address != host or parts.username or parts.password:
        raise UpnpFormatError(f"a URL {url[:80]!r} that is not plain http on {host}")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return host, port, path


def parse_description(data: bytes, location: Location) -> Gateway:
    """The WAN service and IPv6 firewall of a device description fetched from `location`."""
    root = xmlsafe.parse(data)
    if root.tag != "root":
        raise UpnpFormatError(f"a description whose root is {root.tag!r}")
    base = f"http://{location.host}:{location.port}{location.path}"
    url_base = root.child_text("URLBase")
    if url_base:
        base = url_base
    services: dict[str, Service] = {}
    for node in root.iter("service"):
        kind = node.child_text("serviceType")
        control = node.child_text("controlURL")
        if kind in (*WAN_SERVICES, FIREWALL6) and control and kind not in services:
            _, _, path = _same_host(urljoin(base, control), location.host)
            if urlsplit(urljoin(base, control)).port not in (None, location.port):
                raise UpnpFormatError("a control URL on another port than the description")
            services[kind] = Service(kind, path)
    wan = next((services[kind] for kind in WAN_SERVICES if kind in services), None)
    if wan is None:
        raise UpnpFormatError("a device without a WAN connection service")
    devices = [node.child_text("deviceType") for node in root.iter("device")]
    version = 2 if IGD2 in devices or wan.service_type.endswith(":2") else 1
    return Gateway(version, wan, services.get(FIREWALL6))


def soap_request(
    service_type: str, action: str, arguments: list[tuple[str, str]]
) -> tuple[dict[str, str], bytes]:
    """The headers and body of a SOAP call of `action` with `arguments` (in order)."""
    inner = "".join(f"<{name}>{xmlsafe.escape(value)}</{name}>" for name, value in arguments)
    body = (
        '<?xml version="1.0"?>\r\n'
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
        's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">'
        f'<s:Body><u:{action} xmlns:u="{service_type}">{inner}</u:{action}></s:Body>'
        "</s:Envelope>\r\n"
    ).encode()
    headers = {
        "Content-Type": 'text/xml; charset="utf-8"',
        "SOAPAction": f'"{service_type}#{action}"',
    }
    return headers, body


def parse_soap_answer(status: int, data: bytes, action: str) -> dict[str, str]:
    """The out arguments of `action`'s answer; `UpnpActionError` for a fault."""
    root = xmlsafe.parse(data)
    body = root.child("Body") if root.tag == "Envelope" else None
    if body is None:
        raise UpnpFormatError("a SOAP answer without an Envelope and a Body")
    fault = body.child("Fault")
    if fault is not None or status != 200:
        error = fault.iter("UPnPError") if fault is not None else []
        if not error:
            raise UpnpFormatError(f"a SOAP answer with HTTP status {status} and no UPnP error")
        code = error[0].child_text("errorCode")
        if not code.isdigit() or len(code) > 4:
            raise UpnpFormatError(f"a UPnP error code {code[:10]!r}")
        return_description = error[0].child_text("errorDescription")[:200]
        raise UpnpActionError(int(code), return_description)
    answer = body.child(f"{action}Response")
    if answer is None:
        raise UpnpFormatError(f"a SOAP answer without {action}Response")
    return {child.tag: child.text for child in answer.children}

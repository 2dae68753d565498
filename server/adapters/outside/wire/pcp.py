"""PCP (RFC 6887), sans-I/O: MAP requests and strict parsers of their answers.

Only the MAP opcode, for TCP, with no options: it maps (IPv4, through the NAT) or opens a
pinhole (IPv6, through the firewall) for one internal port. The 12-byte nonce ties the
answer to the request and a renewal or deletion to its mapping: keep it for the mapping's
life. Every answer is checked (size, version, R bit, opcode, nonce, protocol, internal
port); anything else is `PcpFormatError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address

PORT = 5351
VERSION = 2
OP_MAP = 1
PROTOCOL_TCP = 6
MAX_ANSWER = 1100  # RFC 6887 §7: a PCP message is at most 1100 bytes
_HEADER = struct.Struct("!BBBBII12s")  # version, R|opcode, reserved, result, lifetime, epoch
_REQUEST_HEADER = struct.Struct("!BBHI16s")  # version, R=0|opcode, reserved, lifetime, client
_MAP = struct.Struct("!12sB3sHH16s")

RESULTS = {
    0: "success",
    1: "unsupported version",
    2: "not authorized",
    3: "malformed request",
    4: "unsupported opcode",
    5: "unsupported option",
    6: "malformed option",
    7: "network failure (the router has no external address)",
    8: "no resources",
    9: "unsupported protocol",
    10: "user exceeded quota",
    11: "cannot provide the external port asked for",
    12: "address mismatch",
    13: "excessive remote peers",
}
CANNOT_PROVIDE_EXTERNAL = 11
UNSUPPORTED_VERSION = 1


class PcpFormatError(ValueError):
    """An answer that is not a well-formed PCP answer to what was asked."""


@dataclass(frozen=True)
class MapAnswer:
    result: int
    lifetime: int
    epoch: int
    internal_port: int
    public_port: int
    external_address: IPv4Address | IPv6Address


def result_text(result: int) -> str:
    return RESULTS.get(result, f"result code {result}")


def _sixteen(address: IPv4Address | IPv6Address) -> bytes:
    if isinstance(address, IPv4Address):
        return b"\0" * 10 + b"\xff\xff" + address.packed  # IPv4-mapped IPv6
    return address.packed


def _address(raw: bytes) -> IPv4Address | IPv6Address:
    address = IPv6Address(raw)
    return address.ipv4_mapped or address


def map_request(
    nonce: bytes,
    client: IPv4Address | IPv6Address,
    internal_port: int,
    public_port: int,
    lifetime: int,
) -> bytes:
    """A MAP request for TCP (`lifetime` 0 deletes the mapping the nonce made). The
    suggested external address is left open for IPv4 (zeros: the NAT picks), and is the
    client's own for IPv6 (a pinhole: no translation)."""
    if len(nonce) != 12:
        raise ValueError("a PCP nonce is 12 bytes")
    if not 1 <= internal_port <= 0xFFFF or not 0 <= public_port <= 0xFFFF:
        raise ValueError("port out of range")
    if not 0 <= lifetime <= 0xFFFFFFFF:
        raise ValueError(f"lifetime out of range: {lifetime}")
    suggested = IPv4Address(0) if isinstance(client, IPv4Address) else client
    header = _REQUEST_HEADER.pack(VERSION, OP_MAP, 0, lifetime, _sixteen(client))
    body = _MAP.pack(
        nonce, PROTOCOL_TCP, b"\0\0\0", internal_port, public_port, _sixteen(suggested)
    )
    return header + body


def parse_map_answer(data: bytes, nonce: bytes, internal_port: int) -> MapAnswer:
    """Parse a MAP answer to the request made with `nonce` for `internal_port`."""
    if len(data) > MAX_ANSWER or len(data) < 4 or len(data) % 4:
        raise PcpFormatError(f"a PCP answer of {len(data)} bytes")
    version = data[0]
    if version != VERSION:
        # a NAT-PMP-only router answers a PCP request with its own version and code 1
        raise PcpFormatError(f"a version-{version} answer (the router may speak NAT-PMP only)")
    if len(data) < _HEADER.size:
        raise PcpFormatError(f"a PCP answer of {len(data)} bytes")
    _, op, _, result, lifetime, epoch, _ = _HEADER.unpack_from(data)
    if op != 0x80 | OP_MAP:
        raise PcpFormatError(f"PCP opcode {op:#x} answers no MAP request")
    if len(data) < _HEADER.size + _MAP.size:
        if result != 0:  # an error answer may carry no MAP part
            return MapAnswer(result, lifetime, epoch, internal_port, 0, IPv4Address(0))
        raise PcpFormatError(f"a MAP answer of {len(data)} bytes")
    got_nonce, protocol, _, internal, public, raw = _MAP.unpack_from(data, _HEADER.size)
    if got_nonce != nonce:
        raise PcpFormatError("a MAP answer to another request (nonce)")
    if protocol != PROTOCOL_TCP or internal != internal_port:
        raise PcpFormatError(f"a MAP answer for protocol {protocol} port {internal}")
    return MapAnswer(result, lifetime, epoch, internal, public, _address(raw))


def is_pcp_version_mismatch(data: bytes) -> bool:
    """Whether `data` is a NAT-PMP router's answer to a PCP request (version 0,
    result "unsupported version"): then speak NAT-PMP to it."""
    return len(data) >= 4 and data[0] == 0 and struct.unpack_from("!H", data, 2)[0] == 1

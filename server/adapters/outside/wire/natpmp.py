"""NAT-PMP (RFC 6886), sans-I/O: the requests' bytes and strict parsers of the answers.

A router answers on UDP port 5351 of the default gateway. Every answer is checked for its
exact size, version, opcode and (for a mapping) the internal port asked for; anything
else is `NatPmpFormatError`, never an exception of another kind.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from ipaddress import IPv4Address

PORT = 5351
VERSION = 0
OP_EXTERNAL_ADDRESS = 0
OP_MAP_UDP = 1
OP_MAP_TCP = 2
_ANSWER = 128

RESULTS = {
    0: "success",
    1: "unsupported version",
    2: "not authorized or refused",
    3: "network failure (the router has no external address)",
    4: "out of resources",
    5: "unsupported opcode",
}


class NatPmpFormatError(ValueError):
    """An answer that is not a well-formed NAT-PMP answer to what was asked."""


@dataclass(frozen=True)
class AddressAnswer:
    result: int
    epoch: int
    address: IPv4Address


@dataclass(frozen=True)
class MapAnswer:
    result: int
    epoch: int
    internal_port: int
    public_port: int
    lifetime: int


def result_text(result: int) -> str:
    return RESULTS.get(result, f"result code {result}")


def address_request() -> bytes:
    """Ask for the router's external address."""
    return struct.pack("!BB", VERSION, OP_EXTERNAL_ADDRESS)


def map_request(internal_port: int, public_port: int, lifetime: int) -> bytes:
    """Ask for a TCP mapping (`lifetime` 0 with `public_port` 0 deletes it)."""
    _check_port(internal_port, allow_zero=False)
    _check_port(public_port, allow_zero=True)
    if not 0 <= lifetime <= 0xFFFFFFFF:
        raise ValueError(f"lifetime out of range: {lifetime}")
    return struct.pack("!BBHHHI", VERSION, OP_MAP_TCP, 0, internal_port, public_port, lifetime)


def _check_port(port: int, *, allow_zero: bool) -> None:
    if not (0 if allow_zero else 1) <= port <= 0xFFFF:
        raise ValueError(f"port out of range: {port}")


def _header(data: bytes, opcode: int) -> int:
    if len(data) < 4:
        raise NatPmpFormatError(f"a NAT-PMP answer of {len(data)} bytes")
    version, op, result = struct.unpack_from("!BBH", data)
    if version != VERSION:
        raise NatPmpFormatError(f"NAT-PMP version {version}")
    if op != _ANSWER + opcode:
        raise NatPmpFormatError(f"NAT-PMP opcode {op} answers no request of ours")
    return int(result)


def parse_address_answer(data: bytes) -> AddressAnswer:
    result = _header(data, OP_EXTERNAL_ADDRESS)
    if result != 0 and len(data) in (4, 8):  # an error answer may be cut short
        return AddressAnswer(result, 0, IPv4Address(0))
    if len(data) != 12:
        raise NatPmpFormatError(f"an external-address answer of {len(data)} bytes")
    epoch, raw = struct.unpack_from("!I4s", data, 4)
    return AddressAnswer(result, int(epoch), IPv4Address(raw))


def parse_map_answer(data: bytes, internal_port: int) -> MapAnswer:
    result = _header(data, OP_MAP_TCP)
    if result != 0 and len(data) in (4, 8):
        return MapAnswer(result, 0, internal_port, 0, 0)
    if len(data) != 16:
        raise NatPmpFormatError(f"a mapping answer of {len(data)} bytes")
    epoch, internal, public, lifetime = struct.unpack_from("!IHHI", data, 4)
    if internal != internal_port:
        raise NatPmpFormatError(f"a mapping answer for port {internal}, not {internal_port}")
    return MapAnswer(result, int(epoch), int(internal), int(public), int(lifetime))

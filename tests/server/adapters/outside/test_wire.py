"""NAT-PMP and PCP, sans-I/O: the requests' exact bytes, and answers parsed strictly
(garbage from a router is a format error, never a crash of another kind)."""

from __future__ import annotations

import contextlib
import struct
from ipaddress import IPv4Address, IPv6Address

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.adapters.outside.wire import natpmp, pcp

NONCE = bytes(range(12))


def test_nat_pmp_requests_are_the_rfcs_bytes() -> None:
    assert natpmp.address_request() == b"\x00\x00"
    assert natpmp.map_request(8443, 443, 3600) == bytes.fromhex("00020000 20fb 01bb 00000e10")
    assert natpmp.map_request(8443, 0, 0) == bytes.fromhex("00020000 20fb 0000 00000000")
    with pytest.raises(ValueError):
        natpmp.map_request(0, 443, 60)
    with pytest.raises(ValueError):
        natpmp.map_request(8443, 70000, 60)


def test_nat_pmp_answers_are_read() -> None:
    address = natpmp.parse_address_answer(bytes.fromhex("0080 0000 00000010 cb007102"))
    assert address == natpmp.AddressAnswer(0, 16, IPv4Address("203.0.113.2"))
    mapped = natpmp.parse_map_answer(bytes.fromhex("0082 0000 00000010 20fb 01bb 00000e10"), 8443)
    assert mapped == natpmp.MapAnswer(0, 16, 8443, 443, 3600)
    refused = natpmp.parse_map_answer(bytes.fromhex("0082 0002 00000010"), 8443)
    assert refused.result == 2 and natpmp.result_text(2) == "not authorized or refused"


@pytest.mark.parametrize(
    "answer",
    [
        "0180 0000 00000010 cb007102",  # another version
        "0082 0000 00000010 cb007102",  # a mapping's opcode for an address request
        "0080 0000 00000010 cb0071",  # cut short
        "0080 0000 00000010 cb007102 00",  # too long
    ],
)
def test_nat_pmp_refuses_a_malformed_address_answer(answer: str) -> None:
    with pytest.raises(natpmp.NatPmpFormatError):
        natpmp.parse_address_answer(bytes.fromhex(answer))


def test_nat_pmp_refuses_a_mapping_answer_for_another_port() -> None:
    with pytest.raises(natpmp.NatPmpFormatError):
        natpmp.parse_map_answer(bytes.fromhex("0082 0000 00000010 1f90 01bb 00000e10"), 8443)


@given(st.binary(max_size=40))
def test_nat_pmp_garbage_is_a_format_error_or_an_answer(data: bytes) -> None:
    for parse in (natpmp.parse_address_answer, lambda d: natpmp.parse_map_answer(d, 8443)):
        with contextlib.suppress(natpmp.NatPmpFormatError):
            parse(data)


def _pcp_answer(
    result: int = 0,
    nonce: bytes = NONCE,
    port: int = 8443,
    public: int = 443,
    address: bytes = b"\0" * 10 + b"\xff\xff" + IPv4Address("203.0.113.2").packed,
) -> bytes:
    header = struct.pack("!BBBBII12s", 2, 0x81, 0, result, 3600, 77, b"\0" * 12)
    return header + struct.pack("!12sB3sHH16s", nonce, 6, b"\0\0\0", port, public, address)


def test_a_pcp_map_request_is_the_rfcs_bytes() -> None:
    request = pcp.map_request(NONCE, IPv4Address("192.168.77.20"), 8443, 443, 3600)
    assert len(request) == 60
    assert request[:4] == bytes.fromhex("02010000")
    assert request[4:8] == (3600).to_bytes(4, "big")
    assert request[8:24] == bytes.fromhex("00000000000000000000ffffc0a84d14")
    assert request[24:36] == NONCE
    assert request[36:40] == bytes.fromhex("06000000")
    assert request[40:44] == bytes.fromhex("20fb01bb")
    assert request[44:60] == bytes.fromhex("00000000000000000000ffff00000000")
    six = pcp.map_request(NONCE, IPv6Address("2001:db8:77::20"), 8443, 8443, 60)
    assert six[8:24] == IPv6Address("2001:db8:77::20").packed
    assert six[44:60] == IPv6Address("2001:db8:77::20").packed  # a pinhole: no translation
    with pytest.raises(ValueError):
        pcp.map_request(b"short", IPv4Address("192.168.77.20"), 8443, 443, 60)


def test_a_pcp_map_answer_is_read() -> None:
    answer = pcp.parse_map_answer(_pcp_answer(), NONCE, 8443)
    assert answer == pcp.MapAnswer(0, 3600, 77, 8443, 443, IPv4Address("203.0.113.2"))
    six = pcp.parse_map_answer(
        _pcp_answer(address=IPv6Address("2001:db8:77::20").packed), NONCE, 8443
    )
    assert six.external_address == IPv6Address("2001:db8:77::20")
    refused = pcp.parse_map_answer(_pcp_answer(result=11)[:24], NONCE, 8443)
    assert refused.result == pcp.CANNOT_PROVIDE_EXTERNAL


@pytest.mark.parametrize(
    "answer",
    [
        _pcp_answer(nonce=b"x" * 12),  # an answer to another request
        _pcp_answer(port=80),  # for another port
        _pcp_answer()[:-4],  # cut short
        _pcp_answer() + b"\0" * 1100,  # longer than PCP allows
        b"\x01" + _pcp_answer()[1:],  # another version
        _pcp_answer()[:1] + b"\x82" + _pcp_answer()[2:],  # another opcode
        bytes.fromhex("0080 0001 00000000"),  # a NAT-PMP router's "unsupported version"
    ],
)
def test_pcp_refuses_a_malformed_or_foreign_answer(answer: bytes) -> None:
    with pytest.raises(pcp.PcpFormatError):
        pcp.parse_map_answer(answer, NONCE, 8443)


def test_a_nat_pmp_routers_answer_to_pcp_is_recognised() -> None:
    assert pcp.is_pcp_version_mismatch(bytes.fromhex("0080 0001 00000000"))
    assert not pcp.is_pcp_version_mismatch(_pcp_answer())


@given(st.binary(max_size=1200))
def test_pcp_garbage_is_a_format_error_or_an_answer(data: bytes) -> None:
    with contextlib.suppress(pcp.PcpFormatError):
        pcp.parse_map_answer(data, NONCE, 8443)


@given(st.binary(min_size=60, max_size=60))
def test_pcp_garbage_with_our_nonce_is_read_or_refused(data: bytes) -> None:
    forged = bytes([2, 0x81]) + data[2:24] + NONCE + data[36:]
    try:
        answer = pcp.parse_map_answer(forged, NONCE, 8443)
    except pcp.PcpFormatError:
        return
    assert answer.internal_port == 8443

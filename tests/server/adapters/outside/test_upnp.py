"""UPnP-IGD, sans-I/O: SSDP answers, device descriptions, SOAP; and the XML and HTTP
readers under them, against hostile input (entities, sizes, foreign hosts, garbage)."""

from __future__ import annotations

import contextlib
from ipaddress import IPv4Address

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.adapters.outside.wire import httpwire, upnp, xmlsafe

ROUTER = IPv4Address("192.168.77.1")
LOCATION = upnp.Location(ROUTER, 5000, "/rootDesc.xml", upnp.IGD2)


def _search_answer(location: str, target: str = upnp.IGD2) -> bytes:
    return (
        "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\n"
        f"ST: {target}\r\nUSN: uuid:x::{target}\r\nEXT:\r\n"
        f"LOCATION: {location}\r\n\r\n"
    ).encode()


def _description(device: str, services: list[tuple[str, str]], base: str = "") -> bytes:
    listed = "".join(
        f"<service><serviceType>{kind}</serviceType><controlURL>{url}</controlURL></service>"
        for kind, url in services
    )
    url_base = f"<URLBase>{base}</URLBase>" if base else ""
    return (
        '<?xml version="1.0"?><root xmlns="urn:schemas-upnp-org:device-1-0">'
        f"{url_base}<device><deviceType>{device}</deviceType><deviceList><device>"
        "<deviceType>urn:schemas-upnp-org:device:WANDevice:2</deviceType><deviceList><device>"
        f"<serviceList>{listed}</serviceList></device></deviceList></device></deviceList>"
        "</device></root>"
    ).encode()


def test_the_search_asks_for_an_igd() -> None:
    request = upnp.search_request(upnp.IGD2).decode()
    assert request.startswith("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n")
    assert 'MAN: "ssdp:discover"\r\n' in request
    assert f"ST: {upnp.IGD2}\r\n" in request and request.endswith("\r\n\r\n")


def test_an_answer_on_the_senders_own_address_is_kept() -> None:
    location = upnp.parse_search_answer(
        _search_answer("http://192.168.77.1:5000/rootDesc.xml"), ROUTER
    )
    assert location == LOCATION


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.9:5000/rootDesc.xml",  # another machine: never fetched
        "https://192.168.77.1:5000/rootDesc.xml",
        "file:///etc/passwd",
        "http://user:pw@192.168.77.1/rootDesc.xml",
        "http://router.example/rootDesc.xml",
        "http://192.168.77.1:99999/x",
        "",
    ],
)
def test_an_answer_sending_us_elsewhere_is_refused(url: str) -> None:
    with pytest.raises(upnp.UpnpFormatError):
        upnp.parse_search_answer(_search_answer(url), ROUTER)


def test_an_answer_for_another_kind_of_device_is_refused() -> None:
    answer = _search_answer(
        "http://192.168.77.1:5000/d.xml", "urn:dial-multiscreen-org:service:dial:1"
    )
    with pytest.raises(upnp.UpnpFormatError):
        upnp.parse_search_answer(answer, ROUTER)


@given(st.binary(max_size=3000))
def test_ssdp_garbage_is_refused_or_read(data: bytes) -> None:
    with contextlib.suppress(upnp.UpnpFormatError):
        upnp.parse_search_answer(data, ROUTER)


def test_an_igd2_description_gives_its_wan_service_and_ipv6_firewall() -> None:
    gateway = upnp.parse_description(
        _description(
            upnp.IGD2,
            [
                ("urn:schemas-upnp-org:service:Layer3Forwarding:1", "/ctl/L3F"),
                ("urn:schemas-upnp-org:service:WANIPConnection:2", "/ctl/IPConn"),
                (upnp.FIREWALL6, "/ctl/IP6FCtl"),
            ],
        ),
        LOCATION,
    )
    assert gateway.version == 2
    assert gateway.wan == upnp.Service(
        "urn:schemas-upnp-org:service:WANIPConnection:2", "/ctl/IPConn"
    )
    assert gateway.firewall6 == upnp.Service(upnp.FIREWALL6, "/ctl/IP6FCtl")


def test_an_igd1_with_ppp_is_found_through_its_url_base() -> None:
    gateway = upnp.parse_description(
        _description(
            upnp.IGD1,
            [("urn:schemas-upnp-org:service:WANPPPConnection:1", "upnp/control/ppp")],
            base="http://192.168.77.1:5000/igd/",
        ),
        LOCATION,
    )
    assert gateway.version == 1 and gateway.firewall6 is None
    assert gateway.wan.control_path == "/igd/upnp/control/ppp"


@pytest.mark.parametrize(
    "control",
    ["http://203.0.113.100/steal", "http://192.168.77.1:22/x", "https://192.168.77.1:5000/x"],
)
def test_a_control_url_elsewhere_is_refused(control: str) -> None:
    with pytest.raises(upnp.UpnpFormatError):
        upnp.parse_description(
            _description(upnp.IGD2, [("urn:schemas-upnp-org:service:WANIPConnection:2", control)]),
            LOCATION,
        )


def test_a_description_without_a_wan_service_is_refused() -> None:
    with pytest.raises(upnp.UpnpFormatError):
        upnp.parse_description(_description(upnp.IGD2, []), LOCATION)


def test_a_soap_call_names_its_action_and_escapes_its_arguments() -> None:
    headers, body = upnp.soap_request(
        "urn:schemas-upnp-org:service:WANIPConnection:2",
        "AddPortMapping",
        [("NewPortMappingDescription", "Family <War> & co")],
    )
    assert (
        headers["SOAPAction"] == '"urn:schemas-upnp-org:service:WANIPConnection:2#AddPortMapping"'
    )
    root = xmlsafe.parse(body)
    call = root.iter("AddPortMapping")[0]
    assert call.child_text("NewPortMappingDescription") == "Family <War> & co"


def _envelope(inner: str) -> bytes:
    return (
        '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/">'
        f"<s:Body>{inner}</s:Body></s:Envelope>"
    ).encode()


def test_a_soap_answer_gives_its_out_arguments() -> None:
    body = _envelope(
        '<u:GetExternalIPAddressResponse xmlns:u="urn:schemas-upnp-org:service:WANIPConnection:2">'
        "<NewExternalIPAddress>203.0.113.2</NewExternalIPAddress>"
        "</u:GetExternalIPAddressResponse>"
    )
    out = upnp.parse_soap_answer(200, body, "GetExternalIPAddress")
    assert out == {"NewExternalIPAddress": "203.0.113.2"}


def test_a_soap_fault_is_the_routers_error_code() -> None:
    body = _envelope(
        "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
        '<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>718</errorCode>'
        "<errorDescription>ConflictInMappingEntry</errorDescription></UPnPError>"
        "</detail></s:Fault>"
    )
    with pytest.raises(upnp.UpnpActionError) as error:
        upnp.parse_soap_answer(500, body, "AddPortMapping")
    assert error.value.code == upnp.CONFLICT
    assert error.value.description == "ConflictInMappingEntry"


@pytest.mark.parametrize(
    "body",
    [
        _envelope('<u:SomethingElseResponse xmlns:u="urn:x"/>'),
        b"<html>not soap</html>",
        _envelope(
            "<s:Fault><detail><UPnPError><errorCode>7e2</errorCode></UPnPError></detail></s:Fault>"
        ),
    ],
)
def test_a_soap_answer_not_to_our_call_is_refused(body: bytes) -> None:
    with pytest.raises(upnp.UpnpFormatError):
        upnp.parse_soap_answer(200, body, "AddPortMapping")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<root>&lol2;</root>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE root [<!ENTITY secret SYSTEM "file:///etc/passwd">]><root>&secret;</root>"""


@pytest.mark.parametrize(
    "document",
    [
        BILLION_LAUGHS,
        EXTERNAL,
        b"<!DOCTYPE root SYSTEM 'http://203.0.113.100/dtd'><root/>",
        b"<a>" * (xmlsafe.MAX_DEPTH + 1) + b"</a>" * (xmlsafe.MAX_DEPTH + 1),
        b"<root>" + b"<x/>" * xmlsafe.MAX_ELEMENTS + b"</root>",
        b"<root>" + b" " * xmlsafe.MAX_BYTES + b"</root>",
        b"<root><unclosed></root>",
        b"",
    ],
)
def test_the_xml_reader_refuses_entities_doctypes_and_excess(document: bytes) -> None:
    with pytest.raises(xmlsafe.XmlRefusedError):
        xmlsafe.parse(document)


@given(st.binary(max_size=500) | st.text(max_size=500).map(str.encode))
def test_xml_garbage_is_refused_or_read(data: bytes) -> None:
    with contextlib.suppress(upnp.UpnpFormatError, xmlsafe.XmlRefusedError):
        upnp.parse_description(data, LOCATION)
    with contextlib.suppress(upnp.UpnpFormatError, xmlsafe.XmlRefusedError, upnp.UpnpActionError):
        upnp.parse_soap_answer(200, data, "GetExternalIPAddress")


def test_an_http_answer_is_read_by_length_chunks_or_close() -> None:
    by_length = httpwire.parse_answer(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef")
    assert (by_length.status, by_length.body) == (200, b"abc")
    chunked = httpwire.parse_answer(
        b"HTTP/1.1 500 Internal\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3\r\nabc\r\n2;x\r\nde\r\n0\r\n\r\n"
    )
    assert (chunked.status, chunked.body) == (500, b"abcde")
    closed = httpwire.parse_answer(b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\n<root/>")
    assert closed.body == b"<root/>" and closed.headers == {"server": "x"}


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-3\r\nabc\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffff\r\nabc",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"SSH-2.0-OpenSSH\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 100 + b"\r\n",
        b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"x" * 20000,
    ],
)
def test_a_malformed_http_answer_is_refused(answer: bytes) -> None:
    with pytest.raises(httpwire.HttpFormatError):
        httpwire.parse_answer(answer)


@given(st.binary(max_size=2000))
def test_http_garbage_is_refused_or_read(data: bytes) -> None:
    try:
        answer = httpwire.parse_answer(data)
    except httpwire.HttpFormatError:
        return
    assert len(answer.body) <= httpwire.MAX_BODY


def test_an_http_request_carries_no_injected_line() -> None:
    request = httpwire.request("GET", "192.168.77.1:5000", "/rootDesc.xml", {})
    assert (
        request
        == b"GET /rootDesc.xml HTTP/1.1\r\nHost: 192.168.77.1:5000\r\nConnection: close\r\n\r\n"
    )
    with pytest.raises(ValueError):
        httpwire.request("GET", "192.168.77.1:5000", "/x\r\nEvil: 1", {})

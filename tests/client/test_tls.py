"""``--cafile``: the SSL context, its one-line errors, and what a failed handshake says."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.cli import build_parser, main, plan
from client.errors import CaFileError, UsageError
from client.net.connection import Connection, Ended
from client.net.failure import HOSTNAME_MISMATCH, why_unreachable
from client.net.tls import client_context
from client.words.catalog import catalog
from protocol import WatchRoom

WSS = "wss://127.0.0.1:8765"
EN = catalog("en", strict=True)


def cafile_of(*argv: str) -> tuple[str | None, str]:
    wanted = plan(build_parser().parse_args(list(argv)), stdout_is_terminal=False)
    return wanted.cafile, wanted.cafile_source


def verify_error(code: int, message: str) -> ssl.SSLCertVerificationError:
    """A certificate check failure as OpenSSL reports it."""
    error = ssl.SSLCertVerificationError(1, f"[SSL: CERTIFICATE_VERIFY_FAILED] {message}")
    error.verify_code = code
    error.verify_message = message
    return error


def test_without_a_cafile_the_system_certificates_are_checked() -> None:
    context = client_context(None)
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname


def test_a_missing_cafile_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(CaFileError) as caught:
        client_context(str(missing))
    assert str(caught.value) == f"cannot read --cafile '{missing}': no such file or directory"


def test_a_folder_or_a_non_pem_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CaFileError, match=r"^cannot read WAR_CLIENT_CAFILE '.*': is a directory"):
        client_context(str(tmp_path), source="WAR_CLIENT_CAFILE")
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    with pytest.raises(CaFileError, match=r"holds no PEM certificate"):
        client_context(str(key))


def test_main_reports_an_unreadable_cafile_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "cert.pem"
    # port 9 on loopback: were it used, the error would be about connecting instead
    status = main(
        ["wss://127.0.0.1:9", "--watch", "9HWT-2CBN", "--plain", "--cafile", str(missing)]
    )
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert err == f"war-client: cannot read --cafile '{missing}': no such file or directory\n"


def test_cafile_goes_with_wss_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WAR_CLIENT_CAFILE", raising=False)
    assert cafile_of(WSS, "--watch", "9HWT-2CBN", "--cafile", "c.pem") == ("c.pem", "--cafile")
    assert cafile_of(WSS, "--watch", "9HWT-2CBN")[0] is None
    with pytest.raises(UsageError, match=r"^--cafile is for a wss:// url"):
        cafile_of("ws://127.0.0.1:8765", "--watch", "9HWT-2CBN", "--cafile", "c.pem")
    with pytest.raises(UsageError, match=r"^--cafile is for a wss:// url"):
        cafile_of("--local", "--cafile", "c.pem")


def test_the_environment_names_a_cafile_for_wss(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAR_CLIENT_CAFILE", "env.pem")
    assert cafile_of(WSS, "--watch", "9HWT-2CBN") == ("env.pem", "WAR_CLIENT_CAFILE")
    assert cafile_of(WSS, "--watch", "9HWT-2CBN", "--cafile", "c.pem") == ("c.pem", "--cafile")
    assert cafile_of("ws://127.0.0.1:8765", "--watch", "9HWT-2CBN")[0] is None
    assert cafile_of("--local")[0] is None


def said_of(error: BaseException, *, cafile_given: bool = False) -> str:
    return EN.say(why_unreachable(error, WSS, cafile_given=cafile_given))


def test_a_failed_certificate_check_says_what_to_do() -> None:
    self_signed = verify_error(18, "self-signed certificate")
    assert said_of(self_signed) == (
        "the server's certificate is not trusted — pass --cafile with the server's certificate"
    )
    assert said_of(self_signed, cafile_given=True) == (
        "the server's certificate is not trusted — "
        "check that --cafile holds the server's own certificate"
    )
    mismatch = verify_error(
        HOSTNAME_MISMATCH, "IP address mismatch, certificate is not valid for '127.0.0.1'."
    )
    assert said_of(mismatch, cafile_given=True).endswith(
        "— use the host name or address it was made for"
    )
    expired = verify_error(10, "certificate has expired")
    assert said_of(expired) == (
        "the server's certificate has expired or is not valid yet — "
        "the server needs a new certificate (or this computer's clock is wrong)"
    )


def test_another_tls_failure_hints_at_a_server_without_tls() -> None:
    error = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    error.reason = "WRONG_VERSION_NUMBER"
    assert said_of(error) == "the TLS handshake failed (does the server use ws://, without TLS?)"


async def test_wss_to_a_server_without_tls_hints_at_ws() -> None:
    async def handler(ws: ServerConnection) -> None:
        await ws.wait_closed()  # pragma: no cover - the handshake never succeeds

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        connection = Connection(f"wss://127.0.0.1:{port}", WatchRoom(code="9HWT-2CBN"))
        events = [event async for event in connection.events()]
    assert len(events) == 1 and isinstance(events[0], Ended) and not events[0].ok
    reason = catalog("en", strict=True).say(events[0].reason)
    assert reason.startswith(f"cannot connect to wss://127.0.0.1:{port}: ")
    assert reason.endswith("(does the server use ws://, without TLS?)")

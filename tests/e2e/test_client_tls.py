"""``war-client`` over ``wss://`` to a real ``war-server --certfile/--keyfile`` process
whose certificate is self-signed (made by ``openssl req -x509`` for 127.0.0.1 at test
time): trusted with ``--cafile`` it plays to game over; without it, one clear line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e._client_process import client_process
from tests.e2e._process import server_process

pytestmark = pytest.mark.slow


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for IP 127.0.0.1 and its key, as PEM files."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / f"{name}-cert.pem", folder / f"{name}-key.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2",
            "-subj", f"/CN={name}", "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"), "war-test")


async def test_cafile_trusts_a_self_signed_server(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    args = ["--name", "Ann", "--create", "--vs-computer", "--rounds", "5", "--auto", "quick"]
    async with server_process(
        tmp_path / "war.sqlite3", "--certfile", str(cert), "--keyfile", str(key)
    ) as server:
        url = f"wss://127.0.0.1:{server.port}"
        async with client_process(
            [url, *args, "--plain", "--cafile", str(cert)], tmp_path / "ann.json"
        ) as ann:
            status = await ann.wait()
    assert status == 0, ann.err
    assert ann.err == []
    assert ann.out[0] == "You are Ann, at seat 1 of 2."
    assert ann.out[-3].startswith("Game over: the limit of 5 rounds is reached.")
    assert ann.out[-2].startswith("5 rounds, ")
    assert ann.out[-1].startswith("The evening so far — ")


async def test_an_untrusted_certificate_is_one_clear_line(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    other, _ = self_signed(tmp_path, "someone-else")
    async with server_process(
        tmp_path / "war.sqlite3", "--certfile", str(cert), "--keyfile", str(key)
    ) as server:
        url = f"wss://127.0.0.1:{server.port}"
        runs = {}
        for label, extra in (
            ("none", []),
            ("wrong", ["--cafile", str(other)]),
            ("plain ws", None),
        ):
            target = f"ws://127.0.0.1:{server.port}" if extra is None else url
            argv = [target, "--watch", "9HWT-2CBN", "--plain", *(extra or [])]
            async with client_process(argv, tmp_path / f"{label}.json") as client:
                runs[label] = (await client.wait(), client.out, client.err)
    assert runs["none"] == (
        1,
        [],
        [
            f"war-client: cannot connect to {url}: the server's certificate is not trusted — "
            "pass --cafile with the server's certificate"
        ],
    )
    status, out, err = runs["wrong"]
    assert (status, out, len(err)) == (1, [], 1)
    assert err[0].endswith(
        "the server's certificate is not trusted — "
        "check that --cafile holds the server's own certificate"
    )
    status, out, err = runs["plain ws"]
    assert (status, out, len(err)) == (1, [], 1)
    assert err[0].endswith("(does the server use wss://?)"), err

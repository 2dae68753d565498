"""Let's Encrypt's test CA, pebble (Debian's ``pebble``), on loopback for a test.

`start_pebble` runs it with a configuration of the test's own: its ACME directory on a
free loopback port, its HTTPS certificate one this module makes (`Pebble.ca_file`: what
``--acme-ca-file`` trusts), tls-alpn-01 validated against ``tls_port`` (the outside
listener under test), certificates valid ``validity`` seconds. pebble validates an IP
identifier by connecting to that address itself, so the certificate is for 127.0.0.1.
`Pebble.root` fetches the root it signs with (a new one at every start).

Tests that need it (`needs_pebble`) skip with the reason where the binary is missing
(``apt-get install pebble``), except in CI (``CI`` set), where they fail: ``.ci/run``
installs it (tests/lab/setup.sh).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

__all__ = ["PEBBLE", "Pebble", "needs_pebble", "start_pebble"]

PEBBLE = shutil.which("pebble")
needs_pebble = pytest.mark.skipif(
    PEBBLE is None and not os.environ.get("CI"),
    reason="pebble is not installed (apt-get install pebble)",
)
"""Skip a test without pebble, but in CI (where `start_pebble` then fails, saying why)."""
_STARTED = "Listening on:"
_START_LINES = 200


@dataclass
class Pebble:
    """A running pebble: its directory URL and the file that trusts its own HTTPS."""

    process: subprocess.Popen[bytes]
    directory: str
    ca_file: Path
    management: int

    def root(self) -> bytes:
        """The root (PEM) pebble signs certificates with."""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        url = f"https://127.0.0.1:{self.management}/roots/0"
        with urllib.request.urlopen(url, context=context, timeout=10) as answer:
            data: bytes = answer.read(64 * 1024)
        return data

    def stop(self) -> None:
        """End the process."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _https_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (pebble's own HTTPS) and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "pebble on loopback")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert, key_file = folder / "pebble-https.pem", folder / "pebble-https-key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key_file


def start_pebble(
    folder: Path, *, tls_port: int, validity: int = 3600, nonce_reject: int = 0
) -> Pebble:
    """Start pebble in ``folder``, validating tls-alpn-01 on ``tls_port``; certificates
    live ``validity`` seconds; ``nonce_reject``: the percentage of good nonces it
    rejects (badNonce). Returns once it listens.

    Raises:
        RuntimeError: pebble is not installed, or ended before listening.
    """
    if PEBBLE is None:
        raise RuntimeError("pebble is not installed (apt-get install pebble)")
    cert, key = _https_certificate(folder)
    acme, management = _free_port(), _free_port()
    config = folder / "pebble.json"
    config.write_text(
        json.dumps(
            {
                "pebble": {
                    "listenAddress": f"127.0.0.1:{acme}",
                    "managementListenAddress": f"127.0.0.1:{management}",
                    "certificate": str(cert),
                    "privateKey": str(key),
                    "httpPort": _free_port(),
                    "tlsPort": tls_port,
                    "certificateValidityPeriod": validity,
                }
            }
        ),
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PEBBLE_VA_NOSLEEP": "1",
        "PEBBLE_WFE_NONCEREJECT": str(nonce_reject),
        "PEBBLE_AUTHZREUSE": "0",
    }
    process = subprocess.Popen(
        [PEBBLE, "-config", str(config)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    for _ in range(_START_LINES):  # ends at the line that says it listens, or at its end
        line = process.stdout.readline()
        if not line:
            break
        if _STARTED.encode() in line and str(acme).encode() in line:
            _drain(process)
            return Pebble(process, f"https://127.0.0.1:{acme}/dir", cert, management)
    process.kill()
    process.wait()
    raise RuntimeError("pebble ended before it listened")


def _drain(process: subprocess.Popen[bytes]) -> None:
    """Read pebble's output from now on in a thread, so its pipe never fills."""

    def drain() -> None:
        assert process.stdout is not None
        for _ in process.stdout:
            pass

    threading.Thread(target=drain, daemon=True).start()

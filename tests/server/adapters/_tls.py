"""A throwaway self-signed certificate for 127.0.0.1, made with the openssl command."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["self_signed"]


def self_signed(folder: Path, *, passphrase: str | None = None) -> tuple[Path, Path]:
    """(certificate, key) PEM files in ``folder``; the key protected by ``passphrase``
    if one is given."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    protect = ["-passout", f"pass:{passphrase}"] if passphrase else ["-nodes"]
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", *protect, "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return cert, key

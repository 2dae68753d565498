"""The outside certificate's files, kept beside the store, and when to renew it.

In the store's folder (``war.sqlite3``'s), each readable by the server's user only (0600,
written to a temporary file then renamed, so a crash never leaves half a key):

- ``outside-account.pem``: the ACME account's key (P-256), made once and kept: the CA
  knows the account by it.
- ``outside-cert.pem`` and ``outside-key.pem``: the last certificate issued (its chain)
  and its key; ``outside6-cert.pem`` and ``outside6-key.pem``: the IPv6 listener's.

`CertificateFiles.usable` gives the kept certificate back when it still serves: it
names the addresses asked for and less than two thirds of its life are spent
(`renew_at`: Let's Encrypt's ``shortlived`` certificates live 160 hours, so they are
renewed after about 107). A restart inside that window asks the CA nothing.
"""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from server.adapters.logs import get_logger
from server.adapters.outside.acme import Issued

__all__ = ["ACCOUNT_FILE", "CERT_FILE", "KEY_FILE", "CertificateFiles", "renew_at"]

ACCOUNT_FILE = "outside-account.pem"
CERT_FILE = "outside-cert.pem"
KEY_FILE = "outside-key.pem"
_MAX_FILE_BYTES = 256 * 1024

log = get_logger()


def renew_at(not_before: float, not_after: float) -> float:
    """When a certificate valid from ``not_before`` to ``not_after`` is renewed: once a
    third of its life is left."""
    return not_before + (not_after - not_before) * 2 / 3


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` readable by its owner only, atomically."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _read_private(path: Path) -> bytes | None:
    """A kept file's bytes (tightened to 0600 if others could read it), or None."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            path.chmod(0o600)
            log.warning("outside_file_mode_tightened", file=str(path), was=oct(mode))
        with path.open("rb") as file:
            data = file.read(_MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    return data if len(data) <= _MAX_FILE_BYTES else None


@dataclass(frozen=True, slots=True)
class CertificateFiles:
    """The outside certificate's files in ``folder`` (the store's); ``family`` ``"6"``:
    the IPv6 listener's (``outside6-cert.pem``, ``outside6-key.pem``; the account is
    the same)."""

    folder: Path
    family: str = ""

    @property
    def cert_file(self) -> Path:
        return self.folder / CERT_FILE.replace("outside-", f"outside{self.family}-")

    @property
    def key_file(self) -> Path:
        return self.folder / KEY_FILE.replace("outside-", f"outside{self.family}-")

    def account_key(self) -> ec.EllipticCurvePrivateKey:
        """The ACME account key, made and saved the first time.

        Raises:
            OSError: the folder cannot be written.
        """
        path = self.folder / ACCOUNT_FILE
        data = _read_private(path)
        if data is not None:
            try:
                key = serialization.load_pem_private_key(data, password=None)
            except (ValueError, TypeError):
                key = None
            if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1":
                return key
            log.warning("outside_account_key_replaced", file=str(path), why="not a P-256 key")
        key = ec.generate_private_key(ec.SECP256R1())
        self.folder.mkdir(parents=True, exist_ok=True)
        _write_private(
            path,
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )
        return key

    def save(self, issued: Issued) -> None:
        """Keep a certificate the CA issued (the key first: a crash between the two
        leaves a pair `usable` refuses, never a key that does not match).

        Raises:
            OSError: the folder cannot be written.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        _write_private(self.key_file, issued.key_pem)
        _write_private(self.cert_file, issued.chain_pem)

    def usable(self, addresses: Sequence[str], now: float) -> Issued | None:
        """The kept certificate if it names every one of ``addresses``, its key matches,
        and it is not yet due for renewal at ``now``; else None."""
        chain = _read_private(self.cert_file)
        key_pem = _read_private(self.key_file)
        if chain is None or key_pem is None:
            return None
        try:
            leaf = x509.load_pem_x509_certificates(chain)[0]
            key = serialization.load_pem_private_key(key_pem, password=None)
            names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except (ValueError, TypeError, IndexError, x509.ExtensionNotFound):
            return None
        if key.public_key() != leaf.public_key():
            return None
        named = names.value.get_values_for_type(x509.IPAddress)
        if not addresses or any(ipaddress.ip_address(a) not in named for a in addresses):
            return None
        issued = Issued(
            chain_pem=chain,
            key_pem=key_pem,
            not_before=leaf.not_valid_before_utc.timestamp(),
            not_after=leaf.not_valid_after_utc.timestamp(),
        )
        if not issued.not_before <= now < renew_at(issued.not_before, issued.not_after):
            return None
        return issued

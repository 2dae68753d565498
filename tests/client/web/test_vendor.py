"""The vendored libraries: unmodified (their checksums), licensed, pinned.

``@msgpack/msgpack`` (the wire's codec, its minified build), ``fast-sha256`` (SHA-256 and
HMAC for fair deals where a page served over plain http has no ``crypto.subtle``, its
minified build) and
``lean-qr`` (the invitation's QR code, its nano build). Re-vendor with
client/web/vendor/update.sh (it rewrites SHA256SUMS and SOURCE).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

VENDOR = Path(__file__).parents[3] / "client" / "web" / "vendor"
MSGPACK = VENDOR / "msgpack"
SHA256 = VENDOR / "fast-sha256"
LEANQR = VENDOR / "lean-qr"
NOT_THE_PACKAGES = ("SHA256SUMS", "SOURCE", "package.json")
"""What update.sh writes beside a package's files (package.json: msgpack's and fast-sha256's
builds are UMD scripts)."""
LIBRARIES = [
    ("msgpack", "PINNED", "@msgpack/msgpack", "Copyright 2019 The MessagePack Community."),
    ("fast-sha256", "SHA256_PINNED", "fast-sha256", "released into the public domain"),
    ("lean-qr", "LEANQR_PINNED", "lean-qr", "Copyright (c) 2021-2025 David Evans"),
]


@pytest.mark.parametrize("folder", [MSGPACK, SHA256, LEANQR], ids=lambda p: p.name)
def test_every_vendored_file_matches_its_checksum(folder: Path) -> None:
    listed = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="ascii").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    present = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).as_posix() not in NOT_THE_PACKAGES
    }
    assert set(listed) == present
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize(
    ("folder", "pin", "package", "notice"), LIBRARIES, ids=[f for f, *_ in LIBRARIES]
)
def test_the_licence_and_the_pinned_version_travel_with_it(
    folder: str, pin: str, package: str, notice: str
) -> None:
    licence = (VENDOR / folder / "LICENSE").read_text(encoding="utf-8")
    assert notice in licence
    pinned = re.search(rf"^{pin}=(\S+)$", (VENDOR / "update.sh").read_text(), re.M)
    assert pinned is not None
    source = (VENDOR / folder / "SOURCE").read_text(encoding="utf-8")
    assert source.startswith(f"{package} {pinned.group(1)} from the npm registry")
    assert re.search(r"tarball integrity: sha512-[A-Za-z0-9+/=]{88}$", source, re.M)


def test_the_msgpack_licence_grants_its_use() -> None:
    licence = (MSGPACK / "LICENSE").read_text(encoding="utf-8")
    assert "Permission to use, copy, modify, and/or distribute this software" in licence
    assert "Anyone is free to copy, modify, publish, use" in (SHA256 / "LICENSE").read_text()
    assert (LEANQR / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "import " not in (LEANQR / "nano.mjs").read_text(encoding="utf-8"), "no imports"


@pytest.mark.parametrize("folder", [MSGPACK, SHA256], ids=lambda p: p.name)
def test_a_umd_build_is_read_as_a_script_under_node(folder: Path) -> None:
    """A UMD build sets ``module.exports`` only when node reads it as CommonJS."""
    assert json.loads((folder / "package.json").read_text()) == {"type": "commonjs"}


def test_the_page_imports_only_what_is_vendored() -> None:
    web = VENDOR.parent
    for module in (web / "js").rglob("*.js"):
        for target in re.findall(r'"((?:\.\./)+vendor/[^"]+)"', module.read_text()):
            assert (module.parent / target).resolve().is_file(), (module.name, target)


def test_the_sha256_build_is_a_script_with_no_imports_and_no_eval() -> None:
    """The page runs it as a classic script under a Content-Security-Policy without
    ``'unsafe-eval'``: it must neither import nor build code from strings."""
    build = (SHA256 / "sha256.min.js").read_text(encoding="utf-8")
    assert not re.search(r"\bimport\b|\brequire\(|\beval\(|\bFunction\(", build)
    assert build.startswith("!function(t){") and build.rstrip().endswith("}(this);")

"""The vendored builds (@msgpack/msgpack, uqr): unmodified (their checksums), licensed,
pinned.

Re-vendor with client/web/vendor/update.sh and update-uqr.sh (they rewrite SHA256SUMS and
SOURCE).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

VENDOR = Path(__file__).parents[3] / "client" / "web" / "vendor"
MSGPACK = VENDOR / "msgpack"
UQR = VENDOR / "uqr"


@pytest.mark.parametrize("folder", [MSGPACK, UQR], ids=lambda p: p.name)
def test_every_vendored_file_matches_its_checksum(folder: Path) -> None:
    listed = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="ascii").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    present = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name not in ("SHA256SUMS", "SOURCE")
    }
    assert set(listed) == present
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def test_the_licence_and_the_pinned_version_travel_with_it() -> None:
    licence = (MSGPACK / "LICENSE").read_text(encoding="utf-8")
    assert "Copyright 2019 The MessagePack Community." in licence
    assert "Permission to use, copy, modify, and/or distribute this software" in licence
    pinned = re.search(r"^PINNED=(\S+)$", (VENDOR / "update.sh").read_text(), re.M)
    assert pinned is not None
    source = (MSGPACK / "SOURCE").read_text(encoding="utf-8")
    assert source.startswith(f"@msgpack/msgpack {pinned.group(1)} from the npm registry")
    assert re.search(r"tarball integrity: sha512-[A-Za-z0-9+/=]{88}$", source, re.M)


def test_the_qr_encoder_is_pinned_and_licensed() -> None:
    licence = (UQR / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Copyright (c) Project Nayuki" in licence
    pinned = re.search(r"^PINNED=(\S+)$", (VENDOR / "update-uqr.sh").read_text(), re.M)
    assert pinned is not None
    source = (UQR / "SOURCE").read_text(encoding="utf-8")
    assert source.startswith(f"uqr {pinned.group(1)} from the npm registry")
    assert re.search(r"tarball integrity: sha512-[A-Za-z0-9+/=]{88}$", source, re.M)
    assert "import " not in (UQR / "index.mjs").read_text(encoding="utf-8"), "no imports"


def test_the_page_imports_only_what_is_vendored() -> None:
    web = VENDOR.parent
    for module in (web / "js").glob("*.js"):
        for target in re.findall(r'from "(\.\./vendor/[^"]+)"', module.read_text()):
            assert (module.parent / target).resolve().is_file(), (module.name, target)

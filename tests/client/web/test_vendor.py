"""The vendored @msgpack/msgpack build: unmodified (its checksums), licensed, pinned.

Re-vendor with client/web/vendor/update.sh (it rewrites SHA256SUMS and SOURCE).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VENDOR = Path(__file__).parents[3] / "client" / "web" / "vendor"
MSGPACK = VENDOR / "msgpack"


def test_every_vendored_file_matches_its_checksum() -> None:
    listed = {}
    for line in (MSGPACK / "SHA256SUMS").read_text(encoding="ascii").splitlines():
        digest, name = line.split(maxsplit=1)
        listed[name] = digest
    present = {
        p.relative_to(MSGPACK).as_posix()
        for p in MSGPACK.rglob("*")
        if p.is_file() and p.name not in ("SHA256SUMS", "SOURCE")
    }
    assert set(listed) == present
    for name, digest in listed.items():
        assert hashlib.sha256((MSGPACK / name).read_bytes()).hexdigest() == digest, name


def test_the_licence_and_the_pinned_version_travel_with_it() -> None:
    licence = (MSGPACK / "LICENSE").read_text(encoding="utf-8")
    assert "Copyright 2019 The MessagePack Community." in licence
    assert "Permission to use, copy, modify, and/or distribute this software" in licence
    pinned = re.search(r"^PINNED=(\S+)$", (VENDOR / "update.sh").read_text(), re.M)
    assert pinned is not None
    source = (MSGPACK / "SOURCE").read_text(encoding="utf-8")
    assert source.startswith(f"@msgpack/msgpack {pinned.group(1)} from the npm registry")
    assert re.search(r"tarball integrity: sha512-[A-Za-z0-9+/=]{88}$", source, re.M)


def test_the_page_imports_only_what_is_vendored() -> None:
    web = VENDOR.parent
    for module in (web / "js").glob("*.js"):
        for target in re.findall(r'from "(\.\./vendor/[^"]+)"', module.read_text()):
            assert (module.parent / target).resolve().is_file(), (module.name, target)

"""The image's lock files as pip-compile writes them (``make lock``), read for the tests."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy._repo import REPO

__all__ = ["BUILD_LOCK", "RUNTIME_LOCK", "Pin", "read_lock"]

RUNTIME_LOCK = REPO / "deploy" / "requirements.lock"
BUILD_LOCK = REPO / "deploy" / "build-requirements.lock"
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)(?:\s*;\s*[^\\]*?)?\s*\\?")
"""``name==version``, maybe ``; marker`` (installed only where it holds), maybe ``\\``."""
_HASH = re.compile(r"--hash=(sha256:[0-9a-f]{64})\s*\\?")
_VIA = re.compile(r"#\s*(?:via\b)?\s*(.*)")


@dataclass(slots=True)
class Pin:
    """One locked package: exact version, the hashes pip accepts, and who asked for it."""

    version: Version
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)


def read_lock(text: str) -> dict[str, Pin]:
    """Read pip-compile output: ``name==version \\``, its ``--hash=`` lines, ``# via`` notes.

    Raises ValueError for a line that is none of these (an unpinned requirement too).
    """
    pins: dict[str, Pin] = {}
    current: Pin | None = None
    for raw in text.splitlines():
        line = raw.strip()
        indented = raw[:1].isspace()
        if match := _PIN.fullmatch(line):
            current = pins[canonicalize_name(match[1])] = Pin(Version(match[2]))
        elif current is not None and indented and (match := _HASH.fullmatch(line)):
            current.hashes.append(match[1])
        elif current is not None and indented and (match := _VIA.fullmatch(line)):
            current.via += [match[1]] if match[1] else []
        elif not indented:
            current = None  # a blank line or a comment of pip-compile's own
            if line and not line.startswith("#"):
                raise ValueError(f"not a pinned requirement with hashes: {line!r}")
        else:
            raise ValueError(f"not a pinned requirement with hashes: {line!r}")
    return pins

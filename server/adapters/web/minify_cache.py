"""Private: the minified page kept on disk between starts, if asked (test runs, development).

Minifying the page takes a child process (`server.adapters.web.compact`), 0.2 to 0.3 s of a
start on a two-core machine. A server starts once, so it does not matter in production; the
test suite starts hundreds of servers (in its own processes and as ``war-server``
children), and minified the same files at every one of them. With
``FAMILY_WAR_MINIFY_CACHE`` set to a folder, the child's answer is kept there, in a file
named by a digest of everything it depends on: the minifier (`MINIFIER`, with its version),
the bytes of the code that configures and runs it (``_compact.py``, ``_minify.py``) and
every file's text and suffix. A start whose inputs match reads it back instead of running
the child; any change to a file, the minifier or its settings is a new digest, so the page
is minified again. tests/conftest.py sets it to a fresh folder for each test run (the
session minifies once), and removes that folder at the end.

Unset (the default, and production's), nothing is read or written: the page is minified at
every start as before. Why opt-in rather than a cache beside the store: a server's store
folder is per deployment (and per test, in the suite), so it would save nothing where the
time goes, and it would leave a file of served code where the operator keeps data. Why not
a ``WAR_*`` variable: those are war-server's settings, each with a flag
(`server.adapters.settings.config`), and the test harness does not pass them to its servers
(``bench._server``); this one changes nothing a server does or serves, only where a pure
function's answer is kept.

The server serves what it finds in the folder as its own code: give it a folder only you
can write to. An unreadable or malformed file counts as missing (the page is minified and
the file written again); a folder that cannot be written to is said on stderr, and the page
is served all the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CACHE_VARIABLE", "cache_folder", "cache_key", "keep", "kept"]

CACHE_VARIABLE = "FAMILY_WAR_MINIFY_CACHE"
"""The environment variable that names the folder (unset or empty: no cache)."""
_FORMAT = b"family-war minified page 1"


def cache_folder(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The folder `CACHE_VARIABLE` names, or None when it is unset or empty."""
    chosen = environ.get(CACHE_VARIABLE, "").strip()
    return Path(chosen) if chosen else None


def cache_key(minifier: str, code: tuple[bytes, ...], items: list[tuple[str, str]]) -> str:
    """The file name of the answer for ``items`` (``(suffix, text)`` pairs, in order), as
    minified by ``minifier`` (its name and version) configured by ``code`` (the bytes of
    the modules that set it up and run it)."""
    digest = hashlib.sha256(_FORMAT)
    for part in (minifier.encode(), *code, json.dumps(items).encode()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest() + ".json"


def kept(folder: Path, key: str, count: int) -> list[str] | None:
    """The ``count`` minified texts kept under ``key`` in ``folder``; None if there are
    none, or the file cannot be read or holds anything else."""
    try:
        value = json.loads((folder / key).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(value, list) or len(value) != count:
        return None
    if not all(isinstance(text, str) for text in value):
        return None
    return value


def keep(folder: Path, key: str, texts: list[str]) -> None:
    """Write ``texts`` under ``key`` in ``folder`` (created if missing), whole or not at
    all (a temporary file renamed: starts running at once read one or the other); if the
    folder cannot be written to, say so on stderr and go on."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(json.dumps(texts).encode())
            os.replace(temporary, folder / key)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        print(
            f"war-server: cannot keep the minified page in {folder} ({error}): "
            f"{CACHE_VARIABLE} saves nothing",
            file=sys.stderr,
        )

"""The browser table's files, served over HTTP on the WebSocket port.

``GET /`` answers the page (``index.html``); its stylesheet, scripts, vendored msgpack
library and icon are served under ``/v/VERSION/…``, where VERSION is a digest of every
file, so they can be cached for a year (``immutable``) and a new release is a new URL.
The page itself is revalidated on every load (``no-cache`` with an ETag; a matching
``If-None-Match`` gets 304). The page names every module it will import
(``modulepreload``, from the import graph: `_imported`), so a browser asks for all of
them at once instead of one import level at a time. What its modules import dynamically
is not named here: the page itself preloads what it will need where it is (a players'
link: the look-up and the fair deal's module, js/address.js ``JOIN_NEEDS``), and a page
elsewhere fetches such a module when it needs it (docs/performance.md, "The browser
table"). Text files go out
gzipped to a browser that takes gzip (``Vary: Accept-Encoding``; each compressed once, at
its first request, with an ETag of its own), about a third of their size: on a slow link,
fewer round trips of TCP's slow start. A file's answer (200 or 304) may keep its
connection open for the page's next file (HTTP/1.1 keep-alive, within the bounds
`server.adapters.ws.connection` sets): a browser then fetches the page's files over a few
connections, not one TLS handshake each; every other answer closes its connection. Every
answer carries a strict Content-Security-Policy (only this origin's scripts, styles and
WebSocket; no inline script or style), ``nosniff``, ``Referrer-Policy: no-referrer`` and
no framing. Only GET and HEAD (405 otherwise); unknown paths are 404. A request that asks
for a WebSocket upgrade is not ours (:meth:`WebFiles.respond` returns None), and
``--no-web`` does not load the files at all. Nothing served holds a secret, so
compressing it tells an eavesdropper nothing (BREACH needs a secret beside what an
attacker can reflect).

The files are package data of the ``client`` package (``client/web/``), read once at
start and held in memory (about 150 KiB), so serving costs no disk access. Our own HTML,
CSS and JavaScript go out without indentation and comment-only lines
(`server.adapters.web.compact`, line numbers kept), the vendored library byte for byte.
The server never imports client code: `web_root` finds the folder with
``importlib.util.find_spec``, which for a top-level package locates it on ``sys.path``
without running its ``__init__`` (``importlib.resources.files("client")`` would import
it).
"""

from __future__ import annotations

import gzip
import hashlib
import http
import importlib.util
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path, PurePosixPath

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.adapters.web.compact import compact_all, later_parts
from server.errors import ServerError

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "CONTENT_TYPES",
    "WebFiles",
    "WebFilesError",
    "security_headers",
    "web_root",
]

CONTENT_TYPES: Mapping[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json; charset=utf-8",
}
"""The files served, by suffix (anything else in the folder stays private; ``.json`` only
under `CATALOGS`), and ``LICENSE`` files as plain text."""

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""Only this origin's files and WebSocket (CSP 3: ``'self'`` covers ``ws:``/``wss:`` of
the same host); nothing inline, no forms posted anywhere, never inside a frame."""

INDEX = "index.html"
ENTRY = "js/main.js"
"""The page's script; index.html loads it, and it imports the rest."""
VENDOR = "vendor/"
"""Vendored files are served byte for byte (their checksums hold for what is sent)."""
CATALOGS = "lang/"
"""The message catalogs (``lang/<tag>.json``): the page fetches the one it speaks."""
FIRST_CATALOG = "lang/en.json"
"""The catalog a first visit in the page's default language loads (`WebFiles.page_paths`)."""
VERSION_MARK = "@VERSION@"
"""Written in index.html where the versioned folder's name goes (``v/@VERSION@/``)."""
PRELOAD_MARK = "<!-- @PRELOAD@ -->"
"""Replaced in index.html by a ``modulepreload`` link for each of our modules the page
imports, so a browser fetches them at once instead of one import level at a time."""
_INCOMPRESSIBLE = frozenset({"image/png"})
_GZIP_LEVEL = 6
_IMMUTABLE = "public, max-age=31536000, immutable"
_REVALIDATE = "no-cache"
_LICENSE = "LICENSE"


class WebFilesError(ServerError):
    """The browser table's files are missing or unreadable (a broken installation)."""


@dataclass(frozen=True, slots=True)
class WebFile:
    """One file as served: its bytes, content type, cache policy and entity tag."""

    body: bytes
    content_type: str
    cache_control: str
    etag: str
    encoding: str | None = None
    """``gzip`` for a compressed copy (its own ETag)"""


def web_root() -> Path:
    """The folder of the browser table's files (``client/web`` of the installed package).

    Raises:
        WebFilesError: the ``client`` package or its ``web`` folder is not installed.
    """
    # find_spec of a top-level package reads sys.path only; client/__init__.py never runs.
    spec = importlib.util.find_spec("client")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        folder = Path(location) / "web"
        if (folder / INDEX).is_file():
            return folder
    raise WebFilesError(
        "the browser table's files (client/web/index.html) are not installed; "
        "reinstall family-war, or start war-server with --no-web"
    )


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _content_type(path: PurePosixPath) -> str | None:
    if path.name == _LICENSE:
        return "text/plain; charset=utf-8"
    if path.suffix == ".json" and not path.as_posix().startswith(CATALOGS):
        return None
    return CONTENT_TYPES.get(path.suffix)


class WebFiles:
    """The page and its files, in memory, answering HTTP requests."""

    def __init__(self, index: bytes, assets: Mapping[str, bytes]) -> None:
        """``index``: index.html as written (with the marks); ``assets``: every other
        file served, by its path inside the folder (``js/main.js``)."""
        digest = hashlib.sha256()
        for name in sorted(assets):
            digest.update(name.encode() + b"\0" + hashlib.sha256(assets[name]).digest())
        self.version = digest.hexdigest()[:12]
        prefix = f"/v/{self.version}/"
        self._files: dict[str, WebFile] = {}
        modules = _imported(assets)
        index_text = _fill(index.decode("utf-8"), self.version, modules)
        ours = [
            name
            for name in assets
            if not name.startswith(VENDOR)
            and _content_type(PurePosixPath(name)) not in (None, "image/png")
        ]
        compacted = compact_all(
            [(index_text, ".html")]
            + [(assets[name].decode("utf-8"), PurePosixPath(name).suffix) for name in ours]
        )
        page, bodies = compacted[0], dict(zip(ours, compacted[1:], strict=True))
        for name, source in assets.items():
            kind = _content_type(PurePosixPath(name))
            if kind is not None:
                body = bodies[name].encode() if name in bodies else source
                self._files[prefix + name] = WebFile(body, kind, _IMMUTABLE, _etag(body))
                if name.startswith(CATALOGS):
                    for part, text in later_parts(source.decode("utf-8")).items():
                        body = text.encode()
                        path = f"{prefix}{name.removesuffix('.json')}.{part}.json"
                        self._files[path] = WebFile(body, kind, _IMMUTABLE, _etag(body))
        page_bytes = page.encode("utf-8")
        self._files["/"] = WebFile(
            page_bytes, CONTENT_TYPES[".html"], _REVALIDATE, _etag(page_bytes)
        )
        self._gzipped: dict[str, WebFile | None] = {}  # by the plain file's ETag

    @classmethod
    def load(cls, root: Path | None = None) -> WebFiles:
        """Read every servable file under ``root`` (default: `web_root`).

        Raises:
            WebFilesError: the folder or index.html is missing, or a file cannot be read.
        """
        folder = root if root is not None else web_root()
        try:
            index = (folder / INDEX).read_bytes()
            assets = {
                path.relative_to(folder).as_posix(): path.read_bytes()
                for path in sorted(folder.rglob("*"))
                if path.is_file()
                and path.name != INDEX
                and _content_type(PurePosixPath(path.relative_to(folder).as_posix())) is not None
            }
        except OSError as error:
            message = f"cannot read the browser table's files in {folder}: {error}"
            raise WebFilesError(message) from None
        return cls(index, assets)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path served, ``/`` first."""
        return tuple(sorted(self._files, key=lambda p: (p != "/", p)))

    @property
    def page_paths(self) -> tuple[str, ...]:
        """What a browser loads for the page: ``/``, the stylesheet, the icon, the
        modules and one catalog (`FIRST_CATALOG`; not the licence)."""
        prefix = f"/v/{self.version}/"
        return tuple(
            p
            for p in self.paths
            if not p.endswith(_LICENSE)
            and (not p.startswith(prefix + CATALOGS) or p == prefix + FIRST_CATALOG)
        )

    @property
    def page_bytes(self) -> int:
        """How many bytes a first visit loads (`page_paths`), uncompressed."""
        return sum(len(self._files[path].body) for path in self.page_paths)

    def respond(self, request: Request) -> Response | None:
        """The answer to ``request``, or None for a WebSocket upgrade (not ours)."""
        upgrade = request.headers.get("Upgrade", "")
        if "websocket" in upgrade.lower():
            return None
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        file = self._files.get(path)
        if request.method not in ("GET", "HEAD"):
            return _plain(http.HTTPStatus.METHOD_NOT_ALLOWED, "only GET and HEAD\n", allow=True)
        if file is None:
            return _plain(http.HTTPStatus.NOT_FOUND, f"nothing at {path[:80]}\n")
        head = request.method == "HEAD"
        headers = security_headers()
        if file.content_type not in _INCOMPRESSIBLE:
            headers["Vary"] = "Accept-Encoding"
            if _accepts_gzip(request.headers.get_all("Accept-Encoding")):
                file = self._gzip(file)
        if file.encoding is not None:
            headers["Content-Encoding"] = file.encoding
        headers["Cache-Control"] = file.cache_control
        headers["ETag"] = file.etag
        if file.etag in _etags(request.headers.get_all("If-None-Match")):
            return _response(http.HTTPStatus.NOT_MODIFIED, headers, b"", head=True, keep=True)
        headers["Content-Type"] = file.content_type
        return _response(http.HTTPStatus.OK, headers, file.body, head=head, keep=True)

    def _gzip(self, file: WebFile) -> WebFile:
        """``file`` gzipped (made at its first request, then kept), or as it is when
        gzip does not make it smaller."""
        if file.etag not in self._gzipped:
            body = gzip.compress(file.body, _GZIP_LEVEL, mtime=0)
            smaller = len(body) < len(file.body)
            self._gzipped[file.etag] = (
                WebFile(body, file.content_type, file.cache_control, _etag(body), "gzip")
                if smaller
                else None
            )
        return self._gzipped[file.etag] or file


def _weight(parameters: str) -> float:
    """The ``q`` of an ``Accept-*`` item's parameters (1 if none; 0 if unreadable)."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value.strip())
            except ValueError:
                return 0.0
            return weight if 0.0 <= weight <= 1.0 else 0.0
    return 1.0


def _accepts_gzip(values: Iterable[str]) -> bool:
    """Whether ``Accept-Encoding`` takes gzip (named, or ``*``, with a ``q`` above 0)."""
    for value in values:
        for item in value.split(","):
            coding, _, parameters = item.partition(";")
            if coding.strip().lower() in ("gzip", "x-gzip", "*") and _weight(parameters) > 0:
                return True
    return False


def _fill(index: str, version: str, modules: Iterable[str]) -> str:
    links = [f'<link rel="modulepreload" href="v/{version}/{name}">' for name in modules]
    return index.replace(PRELOAD_MARK, "\n".join(links)).replace(VERSION_MARK, version)


_IMPORT = re.compile(
    rb"""^\s*(?:import\s*|(?:import|export)\b[^;'"]*?\bfrom\s*)["'](\.{1,2}/[^"']+)["']""", re.M
)


def _imported(assets: Mapping[str, bytes], entry: str | Iterable[str] = ENTRY) -> list[str]:
    """The modules the page loads: ``entry`` (or each of several) and every module it
    imports, directly or not (lines like ``import … from "./x.js"``, ``export … from
    "../y.mjs"``, ``import "./z.js"``), in a stable order."""
    seen: list[str] = []
    todo = [entry] if isinstance(entry, str) else list(entry)
    todo = [name for name in todo if name in assets]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        for target in _IMPORT.findall(assets[name]):
            path = _resolve(name, target)
            if path in assets:
                todo.append(path)
    return sorted(seen)


def _resolve(name: str, target: bytes) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(name), target.decode()))


def _etags(values: Iterable[str]) -> set[str]:
    """The entity tags an ``If-None-Match`` lists (weak ones compare as strong: RFC 9110
    says If-None-Match uses the weak comparison)."""
    tags = set()
    for value in values:
        for item in value.split(","):
            tag = item.strip()
            tags.add(tag[2:] if tag.startswith("W/") else tag)
    return tags


def security_headers() -> Headers:
    """What every answer of the server's HTTP side carries (its own page's or not)."""
    headers = Headers()
    headers["Date"] = formatdate(usegmt=True)
    headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    headers["Cross-Origin-Resource-Policy"] = "same-origin"
    return headers


def _plain(status: http.HTTPStatus, text: str, *, allow: bool = False) -> Response:
    headers = security_headers()
    headers["Content-Type"] = "text/plain; charset=utf-8"
    headers["Cache-Control"] = "no-store"
    if allow:
        headers["Allow"] = "GET, HEAD"
    return _response(status, headers, text.encode(), head=False)


def _response(
    status: http.HTTPStatus, headers: Headers, body: bytes, *, head: bool, keep: bool = False
) -> Response:
    """A response with its length; ``head``: the headers of ``body`` without it; ``keep``:
    its connection may stay open for the next request (``Connection: keep-alive``, which
    the connection grants or turns into ``close``: `server.adapters.ws.connection`)."""
    if status is not http.HTTPStatus.NOT_MODIFIED:
        headers["Content-Length"] = str(len(body))
    headers["Connection"] = "keep-alive" if keep else "close"
    return Response(status.value, status.phrase, headers, b"" if head else body)

"""server.adapters.web.files: the browser table's files over real loopback HTTP, and --no-web.

Requests are made with http.client in a worker thread (the server runs in the test's own
event loop); every answer is checked for its status, type, caching and security headers.
The run's folder of minified pages (``FAMILY_WAR_MINIFY_CACHE``, tests/conftest.py) is
unset here: every page these tests load is minified by the child there and then.
"""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from protocol import Error, ErrorCode, WatchRoom
from server.adapters.serving import serving
from server.adapters.settings.config import Settings
from server.adapters.web import compact as _compact
from server.adapters.web import files as files_module
from server.adapters.web.compact import (
    LATER_PARTS,
    LATER_SECTIONS,
    MINIFIER,
    TERMINAL_KEYS,
    TERMINAL_SECTIONS,
    compact,
    minifiers,
)
from server.adapters.web.files import CONTENT_SECURITY_POLICY, WebFiles, WebFilesError, web_root
from server.adapters.web.minify_cache import CACHE_VARIABLE
from server.adapters.ws.app import WarServer
from tests.e2e._client import Client


@pytest.fixture(autouse=True)
def _minified_by_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def _exchange(port: int, method: str, path: str, headers: dict[str, str]) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
    finally:
        connection.close()


async def fetch(
    server: WarServer, path: str, *, method: str = "GET", headers: dict[str, str] | None = None
) -> Answer:
    return await asyncio.to_thread(_exchange, server.port, method, path, headers or {})


@asynccontextmanager
async def running(tmp_path: Path, **changes: object) -> AsyncIterator[WarServer]:
    values: dict[str, object] = {"port": 0, "db": tmp_path / "war.sqlite3", **changes}
    async with serving(Settings(**values)) as server:  # type: ignore[arg-type]
        yield server


def versioned(page: bytes) -> list[str]:
    """The versioned paths the page names (stylesheet, icon, scripts, preloads)."""
    return ["/" + path for path in re.findall(r'(?:href|src)="(v/[^"]+)"', page.decode())]


def assert_secure(answer: Answer) -> None:
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-frame-options"] == "DENY"


async def test_root_answers_the_page(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        with_query = await fetch(server, "/?from=a-link")
    assert page.status == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["content-length"] == str(len(page.body))
    assert re.fullmatch(r'"[0-9a-f]{32}"', page.headers["etag"])
    assert_secure(page)
    assert b"@VERSION@" not in page.body and b"@PRELOAD@" not in page.body
    assert b'<script type="module" src="v/' in page.body
    assert b"<script>" not in page.body and b" style=" not in page.body  # nothing inline
    assert with_query.body == page.body


async def test_every_file_the_page_names_is_served_for_a_year(tmp_path: Path) -> None:
    types = {".css": "text/css", ".js": "text/javascript", ".mjs": "text/javascript"}
    types[".svg"] = "image/svg+xml"
    types[".png"] = "image/png"
    types[".webmanifest"] = "application/manifest+json"
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        paths = versioned(page.body)
        answers = [await fetch(server, path) for path in paths]
    assert any(p.endswith("/js/main.js") for p in paths)
    assert any(p.endswith("/vendor/msgpack/msgpack.min.js") for p in paths)
    assert any(p.endswith("/manifest.webmanifest") for p in paths)
    assert any(p.endswith("/icon-180.png") for p in paths)
    for path, answer in zip(paths, answers, strict=True):
        assert answer.status == 200, path
        assert answer.headers["content-type"].startswith(types[Path(path).suffix]), path
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable", path
        assert_secure(answer)


async def test_a_matching_etag_gets_304_without_a_body(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        tag = page.headers["etag"]
        same = await fetch(server, "/", headers={"If-None-Match": tag})
        weak = await fetch(server, "/", headers={"If-None-Match": f'"other", W/{tag}'})
        other = await fetch(server, "/", headers={"If-None-Match": '"something-else"'})
        style = next(p for p in versioned(page.body) if p.endswith("style.css"))
        css = await fetch(server, style)
        css_again = await fetch(server, style, headers={"If-None-Match": css.headers["etag"]})
    assert (same.status, same.body) == (304, b"")
    assert same.headers["etag"] == tag
    assert weak.status == 304
    assert other.status == 200 and other.body == page.body
    assert (css_again.status, css_again.body) == (304, b"")


async def test_head_answers_the_headers_alone(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        head = await fetch(server, "/", method="HEAD")
    assert head.status == 200
    assert head.body == b""
    assert head.headers["content-length"] == str(len(page.body))
    assert head.headers["etag"] == page.headers["etag"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS"])
async def test_only_get_and_head(tmp_path: Path, method: str) -> None:
    async with running(tmp_path) as server:
        answer = await fetch(server, "/", method=method)
    assert answer.status == 405
    assert answer.headers["allow"] == "GET, HEAD"
    assert_secure(answer)


async def test_unknown_paths_are_404(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        style = next(p for p in versioned(page.body) if p.endswith("style.css"))
        version = style.split("/")[2]
        paths = [
            "/index.html",
            "/favicon.ico",
            "/v/0000000000000000/style.css",  # an older release's file
            f"/v/{version}/../../pyproject.toml",
            f"/v/{version}/vendor/update.sh",  # in the folder, but not a served kind of file
            f"/v/{version}/vendor/msgpack/SHA256SUMS",
            f"/v/{version}/package.json",
            f"/v/{version}/README.md",
            "/server/adapters/web.py",
        ]
        answers = [await fetch(server, path) for path in paths]
        licence = await fetch(server, f"/v/{version}/vendor/msgpack/LICENSE")
    for path, answer in zip(paths, answers, strict=True):
        assert answer.status == 404, path
        assert answer.headers["cache-control"] == "no-store", path
    assert licence.status == 200
    assert licence.headers["content-type"] == "text/plain; charset=utf-8"


async def test_the_websocket_and_healthz_stay_where_they_are(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        health = await fetch(server, "/healthz")
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")
        await client.send(WatchRoom(code="NOPE-NOPE"))
        error = await client.expect(Error)
        await client.close()
    assert health.status == 200 and health.headers["content-type"] == "application/json"
    assert error.code == ErrorCode.UNKNOWN_CODE


async def test_no_web_serves_no_page(tmp_path: Path) -> None:
    async with running(tmp_path, no_web=True) as server:
        page = await fetch(server, "/")
        health = await fetch(server, "/healthz")
    assert page.status == 426  # Upgrade Required: only WebSocket here
    assert b"<html" not in page.body
    assert health.status == 200


def test_the_files_are_found_without_running_client_code() -> None:
    code = (
        "import sys; from server.adapters.web.files import web_root; root = web_root(); "
        "assert 'client' not in sys.modules, 'client was imported'; print(root)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == web_root()
    assert (web_root() / "index.html").is_file()


def test_a_folder_without_the_page_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WebFilesError, match=r"index\.html"):
        WebFiles.load(tmp_path)


def test_the_page_preloads_the_modules_it_imports_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text(
        '<script type="module" src="v/@VERSION@/js/main.js"></script>\n<!-- @PRELOAD@ -->\n'
    )
    (tmp_path / "js" / "main.js").write_text(
        'import { a } from "./a.js";\nimport "./d.js";\nconst f = () => import("./later.js");\n'
    )
    (tmp_path / "js" / "d.js").write_text("window.d = 1;\n")
    (tmp_path / "js" / "later.js").write_text(
        'import { a } from "./a.js";\nimport { n } from "./next.js";\n'
        'export const g = () => import( "./last.js" );\n'
    )
    (tmp_path / "js" / "next.js").write_text('export const n = import("./d.js");\n')
    (tmp_path / "js" / "last.js").write_text("export const l = 1;\n")
    (tmp_path / "js" / "a.js").write_text(
        'export { b } from "../lib/b.mjs";\nexport const a = "from \\"./c.js\\"";\n'
    )
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "b.mjs").write_text('export { v } from "../vendor/v.mjs";\n')
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "v.mjs").write_text("export const v = 1;\n")
    (tmp_path / "js" / "unused.js").write_text("export const u = 1;\n")
    files = WebFiles.load(tmp_path)
    answer = files.respond(Request("/", Headers()))
    assert answer is not None
    preloads = re.findall(r'rel="modulepreload" href="v/[0-9a-f]+/([^"]+)"', answer.body.decode())
    assert preloads == ["js/a.js", "js/d.js", "js/main.js", "lib/b.mjs", "vendor/v.mjs"]
    # what main.js imports dynamically is the page's to fetch when it needs it, or to
    # preload where it will (js/address.js): the server names none of it
    assert "later.js" not in answer.body.decode() and "prefetch" not in answer.body.decode()
    assert f"/v/{files.version}/js/unused.js" in files.paths  # served, just not preloaded


async def test_page_requests_do_not_use_up_the_connection_gate(tmp_path: Path) -> None:
    # One page load is about thirty requests (kept alive or each on a connection of its
    # own): counted, a reload or two would leave no token for the WebSocket itself.
    async with running(tmp_path, connect_rate=0.5, connect_burst=1) as server:
        page = await fetch(server, "/")
        for path in versioned(page.body):
            assert (await fetch(server, path)).status == 200
        missing = await fetch(server, "/missing")
        client = await Client.connect(f"ws://127.0.0.1:{server.port}/")  # the one token
        await client.close()
    assert missing.status == 404


_SOURCE = (
    "  // a comment\n"
    '  const a = "x // y  z";\n'
    "  /** a doc\n"
    "   * on two lines */\n"
    "  const b = `two  spaces ${a + 1} // not a comment\n  and a line`;\n"
    "  const c = /a\\/\\/b  c/g; // a trailing comment\n"
    "  let d = b.length / 2 / 3;\n"
    "  let e = c\n"
    "  ++d\n"  # no semicolon: the line break is what ends `let e = c`
    "  function add(first, second) { const both = first + second; return both; }\n"
    "  globalThis.seen = [a, b, String(e), d, add(2, 3)];\n"
)
_COMMENTS = ("// a comment", "a doc", "two lines */", "a trailing comment")


def _minified(go: bool) -> dict[str, Callable[[str], str]]:
    name, minify = minifiers(go=go)
    if go and not name.startswith("tdewolff"):
        pytest.skip("tdewolff-minify is not installed here")
    return minify


@pytest.mark.parametrize("go", [True, False], ids=["tdewolff-minify", "rjsmin"])
def test_minifying_drops_comments_and_whitespace_and_keeps_every_literal(go: bool) -> None:
    minify = _minified(go)
    js = minify[".js"](_SOURCE)
    assert len(js) < len(_SOURCE) * 0.75
    assert not [comment for comment in _COMMENTS if comment in js]
    for literal in ('"x // y  z"', "`two  spaces ${", "} // not a comment\n  and a line`"):
        assert literal in js
    assert "/a\\/\\/b  c/g" in js
    css = "a {\n  color: red; /* gone */\n}\n/* --- a section --- */\nb > i { margin: 0 1px; }\n"
    assert minify[".css"](css) == "a{color:red}b>i{margin:0 1px}"
    html = '<!doctype html>\n<html lang="en">\n<p>\n    <b>x</b> <i>y</i>\n</p>\n</html>'
    page = minify[".html"](html)
    assert '<html lang="en">' in page and "<b>x</b> <i>y</i>" in page and "\n    " not in page
    assert compact("  export const v = 1;\n", ".mjs") == "  export const v = 1;\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("go", [True, False], ids=["tdewolff-minify", "rjsmin"])
def test_minified_javascript_computes_what_the_source_does(go: bool, tmp_path: Path) -> None:
    # node runs the source and its minified form: every value comes out the same
    minify = _minified(go)
    results = []
    for name, code in (("source", _SOURCE), ("minified", minify[".js"](_SOURCE))):
        module = tmp_path / f"{name}.mjs"
        module.write_text(code + "\nconsole.log(JSON.stringify(globalThis.seen));\n")
        run = subprocess.run(["node", str(module)], capture_output=True, text=True, check=True)
        results.append(json.loads(run.stdout))
    assert results[0] == results[1]
    assert results[0][0] == "x // y  z" and results[0][4] == 5


def test_linux_serves_the_page_with_the_go_minifier() -> None:
    # pyproject.toml installs tdewolff-minify where it has wheels: a lock or an install
    # that lost it would make the page a tenth heavier without a word
    if sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64"):
        assert MINIFIER.startswith("tdewolff-minify"), MINIFIER


def test_the_go_minifier_runs_in_a_child_never_in_the_server() -> None:
    # its runtime starts threads and raises the open-files limit when it loads: the
    # server's process must not load it (the minifying child does, and exits)
    script = (
        "import resource, sys\n"
        "before = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "from server.adapters.web.files import WebFiles\n"
        "files = WebFiles.load()\n"
        "assert 'minify' not in sys.modules, 'the Go library was loaded'\n"
        "assert resource.getrlimit(resource.RLIMIT_NOFILE) == before\n"
        "print(files.page_bytes)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-600:]
    assert int(done.stdout) == WebFiles.load().page_bytes


def test_a_failed_minifying_child_leaves_the_page_to_rjsmin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(items: list[tuple[str, str]]) -> list[str]:
        raise subprocess.SubprocessError("it crashed")

    monkeypatch.setattr(_compact, "_GO", "2.24.12")
    monkeypatch.setattr(_compact, "_in_a_child", broken)
    source = "const longName = 1; // gone\nexport { longName };\n"
    assert compact(source, ".js") == minifiers(go=False)[1][".js"](source)
    assert "rjsmin serves the page" in capsys.readouterr().err


def test_served_files_are_lighter_and_the_vendored_bytes_are_as_written() -> None:
    files = WebFiles.load()
    root = web_root()
    for path in files.paths:
        if path == "/":
            continue
        name = path.split("/", 3)[3]
        served = files.respond(Request(path, Headers()))
        assert served is not None, path
        if name.startswith("lang/") and name.count(".") == 2:
            continue  # a catalog's later part: the test below
        source = (root / name).read_bytes()
        if name.startswith("vendor/"):
            assert served.body == source, name  # byte for byte: SHA256SUMS holds
        elif name.endswith(".json"):  # a catalog: the same value for the page, compact
            assert json.loads(served.body) == _for_the_page(json.loads(source)), name
            assert len(served.body) < len(source), name
        elif name.endswith((".js", ".css")):
            assert len(served.body) < len(source), name
        else:
            assert len(served.body) <= len(source), name


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_every_minified_module_is_still_javascript(tmp_path: Path) -> None:
    # node parses each module as the page gets it (the browser tests then run them all)
    files = WebFiles.load()
    modules = [p for p in files.paths if p.endswith(".js") and "/vendor/" not in p]
    assert len(modules) > 20
    for number, path in enumerate(modules):
        served = files.respond(Request(path, Headers()))
        assert served is not None, path
        copy = tmp_path / f"m{number}.mjs"
        copy.write_bytes(served.body)
        checked = subprocess.run(
            ["node", "--check", str(copy)], capture_output=True, text=True, check=False
        )
        assert checked.returncode == 0, (path, checked.stderr[-400:])


def _pruned(value: Any) -> Any:
    """``value`` without the plural categories that say what its ``other`` says."""
    if isinstance(value, list):
        return [_pruned(item) for item in value]
    if not isinstance(value, dict):
        return value
    kept = {key: _pruned(item) for key, item in value.items()}
    if "plural" in kept and "other" in kept:
        same = [k for k, v in kept.items() if k not in ("plural", "other") and v == kept["other"]]
        for key in same:
            if not key.startswith("="):
                del kept[key]
    return kept


def _later(messages: dict[str, Any], entries: tuple[str, ...]) -> dict[str, Any]:
    """What of ``messages`` the later part of ``entries`` holds (``section`` or
    ``section.key``)."""
    found: dict[str, Any] = {}
    for entry in entries:
        section, _, key = entry.partition(".")
        if key:
            found.setdefault(section, {})[key] = _pruned(messages[section][key])
        else:
            found[section] = _pruned(messages[section])
    return found


def _for_the_page(catalog: dict[str, Any]) -> dict[str, Any]:
    left_out = (*TERMINAL_SECTIONS, *LATER_SECTIONS)
    kept = {k: _pruned(v) for k, v in catalog["messages"].items() if k not in left_out}
    for entries in LATER_PARTS.values():
        for entry in entries:
            section, _, key = entry.partition(".")
            if key:
                del kept[section][key]
    for section, keys in TERMINAL_KEYS.items():
        for key in keys:
            del kept[section][key]
    return {**catalog, "messages": kept}


def test_no_template_literal_holds_another() -> None:
    # rjsmin (the minifier where tdewolff-minify has no wheel) minifies unnested template
    # literals only: one inside another's ${} would be read as code
    nested = re.compile(r"`[^`]*\$\{[^}`]*`")
    for module in (web_root() / "js").rglob("*.js"):
        for number, line in enumerate(module.read_text().splitlines(), 1):
            assert not nested.search(line), f"{module.name}:{number}"


def test_every_catalog_is_served_as_json_for_a_year_and_a_visit_loads_one() -> None:
    files = WebFiles.load()
    prefix = f"/v/{files.version}/"
    served_lang = [p for p in files.paths if p.startswith(prefix + "lang/")]
    catalogs = sorted(p for p in served_lang if p.count(".") == 1)
    tags = sorted(path.stem for path in (web_root() / "lang").glob("*.json"))
    assert catalogs == [f"{prefix}lang/{tag}.json" for tag in tags]
    later = {f"{prefix}lang/{tag}.{part}.json" for tag in tags for part in LATER_PARTS}
    assert set(served_lang) - set(catalogs) == later
    assert len(tags) >= 5
    for path in catalogs:
        answer = files.respond(Request(path, Headers()))
        assert answer is not None and answer.status_code == 200, path
        assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
        assert "immutable" in answer.headers["Cache-Control"]
        source = json.loads((web_root() / path.removeprefix(prefix)).read_bytes())
        served = json.loads(answer.body)
        assert served == _for_the_page(source)
        # what only war-client says stays home; what the page says at a game's end comes
        # apart, when it says it (lang.js, more); every other message goes with the page
        assert not set(served["messages"]) & {*TERMINAL_SECTIONS, *LATER_SECTIONS}
        for name, sections in LATER_PARTS.items():
            part = files.respond(Request(path.replace(".json", f".{name}.json"), Headers()))
            assert part is not None and part.status_code == 200, (path, name)
            assert "immutable" in part.headers["Cache-Control"]
            assert json.loads(part.body) == {"messages": _later(source["messages"], sections)}
            for section, said in json.loads(part.body)["messages"].items():
                assert not set(served["messages"].get(section, {})) & set(said), section
        said = {*served["messages"], *TERMINAL_SECTIONS, *LATER_SECTIONS}
        assert said == set(source["messages"])
        assert served["messages"]["said"], "a waiting room's sentences stay with the page"
    # only one catalog counts in what a first visit loads, and other JSON stays private
    assert [p for p in files.page_paths if "/lang/" in p] == [f"{prefix}lang/en.json"]
    assert not any(p.endswith("package.json") for p in files.paths)


PAGE_BUDGET = 200 * 1024
"""The page's weight budget (docs/performance.md, "The browser table"; bench/web.py's
``PAGE_BUDGET``): everything it loads before a game, uncompressed, as served, where it
loads the most."""
INVITATION_IMPORTS = ("js/qr.js", "js/fair.js")
"""What the page imports (a dynamic ``import()``) when a player sits down and shows an
invitation: the QR code (invite.js) and the fair deals (session.js, `enter`); what the
table shows of them (fairview.js) and the game's words wait for a game (session.js,
`held`)."""
FALLBACK = "js/sha256.js"
"""What sitting down imports on a page that is no secure context (plain http from a LAN
address, the family's usual table: no ``crypto.subtle``): the fallback SHA-256 (fair.js),
which adds the vendored script it names (``SCRIPT``) as a classic script."""
FETCHED_LINKS = ("stylesheet", "icon", "modulepreload")
"""The ``<link>``s a browser fetches with the page (a manifest and the touch icon are
fetched only when the page is installed or added to a home screen)."""


def _join_needs() -> tuple[str, ...]:
    """What a page opened from a players' link preloads as it starts (js/address.js,
    ``JOIN_NEEDS``), as paths in the folder."""
    written = (web_root() / "js" / "address.js").read_text()
    found = re.search(r"export const JOIN_NEEDS = Object\.freeze\(\[([^\]]*)\]\);", written)
    assert found is not None
    return tuple(f"js/{name}" for name in re.findall(r'"\./([^"]+)"', found[1]))


def _fallback_script() -> str:
    """The vendored script js/sha256.js adds to the page, as a path in the folder."""
    written = (web_root() / FALLBACK).read_text()
    found = re.search(r'const SCRIPT = "\.\./([^"]+)";', written)
    assert found is not None
    return found[1]


def _weight(files: WebFiles, tag: str) -> dict[str, int]:
    """Bytes of every file the page in language ``tag`` loads where it loads the most, as
    served, by path: a page over plain http from a LAN address (no secure context),
    opened from a players' link (what it preloads then), whose player sits down (the fair
    deal's module and the fallback SHA-256) at a table that still invites (the QR code).
    What bench/web.py's ``transfer`` measures in a browser, from the page's own links, its
    modules' imports and what it adds itself."""
    prefix = f"/v/{files.version}/"
    index = files.respond(Request("/", Headers()))
    assert index is not None
    page = index.body.decode()
    first = {"/", f"{prefix}lang/{tag}.json"}
    for tag_name, attributes in re.findall(r"<(link|script)\b([^>]*)>", page):
        rel = re.search(r'\brel="([^"]+)"', attributes)
        where = re.search(r'\b(?:href|src)="(v/[^"]+)"', attributes)
        if where is not None and (tag_name == "script" or (rel and rel[1] in FETCHED_LINKS)):
            first.add("/" + where[1])
    root = web_root()
    modules = [p for p in root.rglob("*js") if p.is_file()]
    sources = {p.relative_to(root).as_posix(): p.read_bytes() for p in modules}
    entries = (*_join_needs(), *INVITATION_IMPORTS, FALLBACK)
    later = {prefix + name for entry in entries for name in files_module._imported(sources, entry)}
    later.add(prefix + _fallback_script())
    sizes = {}
    for path in sorted(first | later):
        served = files.respond(Request(path, Headers()))
        assert served is not None and served.status_code == 200, path
        sizes[path] = len(served.body)
    return sizes


def test_an_invitation_loads_what_the_page_imports_when_it_is_shown() -> None:
    # the lists above stay what the page does: each is imported with a dynamic import()
    written = "".join(p.read_text() for p in (web_root() / "js").glob("*.js"))
    for entry in (*INVITATION_IMPORTS, *_join_needs(), FALLBACK):
        assert f'import("./{entry.removeprefix("js/")}")' in written, entry
    assert (web_root() / _fallback_script()).is_file()


@pytest.mark.parametrize("tag", sorted(p.stem for p in (web_root() / "lang").glob("*.json")))
def test_the_page_weighs_under_the_budget_in_every_language_where_it_loads_most(tag: str) -> None:
    # bytes as served are deterministic: the same figure bench.web measures in a browser
    sizes = _weight(WebFiles.load(), tag)
    total = sum(sizes.values())
    heaviest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    assert total < PAGE_BUDGET, f"{tag}: {total / 1024:.1f} KiB, heaviest {heaviest}"


def test_the_page_names_the_later_parts_the_server_sends() -> None:
    # js/lang.js LATER: each part the server sends apart, by a whole section only it holds
    # (the page has a part when it has that section)
    written = (web_root() / "js" / "lang.js").read_text()
    found = re.search(r"export const LATER = Object\.freeze\((\{.*?\})\);", written, re.S)
    assert found is not None
    later = json.loads(re.sub(r"(\w+):", r'"\1":', found[1]))
    assert set(later) == set(LATER_PARTS)
    for part, section in later.items():
        assert section in LATER_PARTS[part], part
        assert all(section not in entries for name, entries in LATER_PARTS.items() if name != part)


SAY = """
import { readFileSync } from "node:fs";
import { Catalog } from "%s";
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const [catalog, vector] = process.argv.slice(2).map(read);
const words = new Catalog(catalog); // as the page makes it: not strict
const wrong = vector.cases.filter((c) => words.text(c.key, c.values) !== c.text);
process.stdout.write(JSON.stringify(wrong.map((c) => c.key)));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_catalogs_as_served_say_every_message_as_written(tmp_path: Path) -> None:
    # the page's catalog, its later parts merged in, says every message of the format
    # vectors (tests/vectors/functions) as the catalog in the repository does, though the
    # plural categories that say what `other` says were left out
    files = WebFiles.load()
    prefix = f"/v/{files.version}/"
    script = tmp_path / "say.mjs"
    script.write_text(SAY % (web_root() / "js" / "catalog.js").as_uri())
    vectors = Path(__file__).parents[2] / "vectors" / "functions"
    pruned = 0
    for source in sorted((web_root() / "lang").glob("*.json")):
        answer = files.respond(Request(f"{prefix}lang/{source.name}", Headers()))
        assert answer is not None
        served = json.loads(answer.body)
        for part in LATER_PARTS:
            later = files.respond(Request(f"{prefix}lang/{source.stem}.{part}.json", Headers()))
            assert later is not None
            for section, said in json.loads(later.body)["messages"].items():
                served["messages"][section] = {**served["messages"].get(section, {}), **said}
        whole = json.loads(source.read_bytes())
        pruned += len(json.dumps(whole["messages"])) - len(json.dumps(_pruned(whole["messages"])))
        (tmp_path / source.name).write_text(json.dumps(served), encoding="utf-8")
        vector = vectors / f"format-{source.stem}.json"
        done = subprocess.run(
            ["node", str(script), str(tmp_path / source.name), str(vector)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-400:]
        terminal = {f"{section}.{key}" for section, keys in TERMINAL_KEYS.items() for key in keys}
        wrong = [
            k
            for k in json.loads(done.stdout)
            if k.split(".")[0] not in TERMINAL_SECTIONS and k not in terminal
        ]
        assert wrong == [], source.stem
    assert pruned > 1000  # French and Spanish `many`: something was left out


async def test_text_files_go_out_gzipped_to_a_browser_that_takes_gzip(tmp_path: Path) -> None:
    async with running(tmp_path) as server:
        page = await fetch(server, "/")
        for path in ["/", *versioned(page.body)]:
            plain = await fetch(server, path)
            packed = await fetch(server, path, headers={"Accept-Encoding": "gzip, deflate, br"})
            assert packed.status == 200, path
            if path.endswith(".png"):
                assert "content-encoding" not in packed.headers and packed.body == plain.body
                continue
            assert packed.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
            assert "content-encoding" not in plain.headers
            if packed.headers.get("content-encoding") == "gzip":
                assert gzip.decompress(packed.body) == plain.body, path
                assert len(packed.body) < len(plain.body)
                assert packed.headers["etag"] != plain.headers["etag"]
            else:  # gzip made it no smaller (a tiny file): as it is
                assert packed.body == plain.body, path
        script = next(p for p in versioned(page.body) if p.endswith("/main.js"))
        packed = await fetch(server, script, headers={"Accept-Encoding": "gzip"})
        again = await fetch(
            server,
            script,
            headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]},
        )
        assert again.status == 304 and again.headers["etag"] == packed.headers["etag"]
        for refused in ("gzip;q=0", "identity", "br, gzip;q=0.0", "gzip;q=nonsense"):
            answer = await fetch(server, script, headers={"Accept-Encoding": refused})
            assert "content-encoding" not in answer.headers, refused
        star = await fetch(server, script, headers={"Accept-Encoding": "*"})
        assert star.headers["content-encoding"] == "gzip"

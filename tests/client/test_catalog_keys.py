"""The code and the catalogs agree: every catalog key the clients' code names (Python and
the page's JavaScript, and index.html's ``data-t`` marks) is in the English catalog (and
so, by tests/client/test_catalogs.py, in every language), every English message is named
somewhere, and no English sentence is left as a literal in a module that shows words.

When another branch adds a sentence as a literal, the last test names the file and the
words: move them into ``client/web/lang/en.json`` and the other catalogs
(docs/translating.md, "A developer adds a sentence").
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from client.words.catalog import FOLDER

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "client"
WEB = CLIENT / "web"
ENGLISH = json.loads((FOLDER / "en.json").read_text(encoding="utf-8"))
SECTIONS = sorted(ENGLISH["messages"])
KEY = re.compile("[\"'`](" + "|".join(SECTIONS) + r")\.([a-z][a-z0-9_]*)[\"'`]")
HTML_KEY = re.compile(r'data-t(?:-[a-z-]+)?="([a-z_]+\.[a-z0-9_]+)"')

NOT_SHOWN = {
    "__init__.py": "no words",
    "catalog.py": "says the catalogs' words, has none of its own (its errors are for developers)",
    "errors.py": "exceptions for developers and logs",
    "phases.py": "generated: the phase table",
    "catalog.js": "as catalog.py",
    "vocabulary.js": "generated: the protocol's names and limits",
    "wire.js": "why a frame from the server was refused: the codec's own detail",
    "lang.js": "the one sentence said before any catalog could be fetched",
    "cli.py": "war-client's --help and usage errors: the command line stays English",
    "local.py": "why the local war-server did not start, with its own (English) log",
    "drawing.py": "styles (colours), no words",
    "fingerprint.js": "why a fingerprint cannot be made: for developers (the check words it)",
}
"""The modules whose literals are not checked for English, and why."""
PYTHON_MODULES = sorted(
    path for path in CLIENT.rglob("*.py") if path.relative_to(CLIENT).parts[0] != "web"
)
PYTHON_WORDS = [path for path in PYTHON_MODULES if path.name not in NOT_SHOWN]
PAGE_WORDS = sorted(path for path in (WEB / "js").glob("*.js") if path.name not in NOT_SHOWN)

# A literal is English words when it has two words or more and one of these.
_ENGLISH = re.compile(
    r"\b(the|a|an|to|of|is|are|you|your|for|and|not|with|has|have|in|on|at|this|that|"
    r"be|was|no|can|cannot|from)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[A-Za-z]+(?:[,;:.!?…]*\s+[A-Za-z]+)+")


def _python_literals(path: Path) -> list[str]:
    """The string constants of a module, without its docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    # an attribute docstring: a string expression right after an assignment
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            items = getattr(node, field, [])
            for item in items if isinstance(items, list) else []:
                if isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
                    docstrings.add(id(item.value))
    literals = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_log_or_raise(node):
            for inner in ast.walk(node):
                docstrings.add(id(inner))
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            literals.append(node.value)
    return literals


def _is_log_or_raise(node: ast.Call) -> bool:
    """A log call or an exception's message: for developers and logs, not the table."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"debug", "info", "warning", "error", "exception", "add_argument"} or (
        name.endswith(("Error", "Exception"))
    )


_JS_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_JS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`', re.S)


def _js_literals(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    out, position = [], 0
    # strings first (a "//" inside a string is no comment), comments skipped between them
    pattern = re.compile(f"{_JS_COMMENT.pattern}|{_JS_STRING.pattern}", re.S)
    for match in pattern.finditer(text, position):
        token = match.group()
        if token.startswith(("//", "/*")):
            continue
        if _is_thrown(text, match.start()):
            continue
        out.append(token[1:-1])
    return out


def _is_thrown(text: str, start: int) -> bool:
    """A literal in an Error's message: for developers, not the table."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    return bool(re.search(r"\b(new \w*Error|throw)\b", line))


_SELECTORS = re.compile(r"[\w\-:\[\]=()]+(?:, [\w\-:\[\]=()]+)+")
"""A list of CSS selectors ("input, select, a"), not words."""
NOT_KEYS = {"rules.round_limit": "a field of the rules (client/cli.py's flags), not a key"}


def _english(literal: str) -> bool:
    if _SELECTORS.fullmatch(literal):
        return False
    plain = re.sub(r"\$\{[^}]*\}|\{[^}]*\}", " ", literal)
    return any(_ENGLISH.search(words.group()) for words in _WORDS.finditer(plain))


def _keys_named() -> dict[str, list[str]]:
    named: dict[str, list[str]] = {}
    for path in [*PYTHON_MODULES, *(WEB / "js").glob("*.js")]:
        for section, name in KEY.findall(path.read_text(encoding="utf-8")):
            named.setdefault(f"{section}.{name}", []).append(path.relative_to(REPO).as_posix())
    for key in HTML_KEY.findall((WEB / "index.html").read_text(encoding="utf-8")):
        named.setdefault(key, []).append("client/web/index.html")
    return named


def _english_keys() -> set[str]:
    return {f"{s}.{n}" for s, names in ENGLISH["messages"].items() for n in names}


def test_every_key_the_code_names_is_in_the_catalogs() -> None:
    named = _keys_named()
    missing = {k: where for k, where in named.items() if k not in _english_keys() | set(NOT_KEYS)}
    assert not missing, f"keys the code says but client/web/lang/en.json lacks: {missing}"


def test_every_english_message_is_named_by_the_code() -> None:
    named = set(_keys_named())
    unused = sorted(_english_keys() - named)
    assert not unused, f"messages no code says (remove them, or say them): {unused}"


@pytest.mark.parametrize("path", [*PYTHON_WORDS, *PAGE_WORDS], ids=lambda p: p.name)
def test_no_english_is_left_in_a_module_that_shows_words(path: Path) -> None:
    literals = _python_literals(path) if path.suffix == ".py" else _js_literals(path)
    english = [literal for literal in literals if _english(literal)]
    assert not english, (
        f"{path.relative_to(REPO)} says English the catalogs do not have: {english}"
        " (move it to client/web/lang/*.json: docs/translating.md)"
    )

"""A strict, bounded XML reader for a router's answers (hostile until proven otherwise).

Expat builds a small tree of `Node` (local names only: namespaces dropped), and refuses
outright any document with a DOCTYPE, an entity declaration or an external entity: no
entity is ever expanded or resolved (no "billion laughs", no reading of local files).
The document's size, depth and element count are bounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

MAX_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_ELEMENTS = 4096


class XmlRefusedError(ValueError):
    """A document this reader does not accept (malformed, too big, or with a DOCTYPE)."""


@dataclass
class Node:
    tag: str
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def child(self, tag: str) -> Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def child_text(self, tag: str) -> str:
        found = self.child(tag)
        return found.text if found else ""

    def iter(self, tag: str) -> list[Node]:
        """Every node named `tag` below this one (and this one), in document order."""
        found: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.tag == tag:
                found.append(node)
            stack.extend(reversed(node.children))
        return found


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1]


def parse(data: bytes) -> Node:
    """The document's root `Node`; `XmlRefusedError` for anything not plainly acceptable."""
    if len(data) > MAX_BYTES:
        raise XmlRefusedError(f"an XML document of {len(data)} bytes (at most {MAX_BYTES})")
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Node] = []
    roots: list[Node] = []
    count = 0

    def refuse(*_: object) -> None:
        raise XmlRefusedError("an XML document with a DOCTYPE or an entity declaration")

    def refuse_external(*_: object) -> int:
        raise XmlRefusedError("an XML document with an external entity")

    def start(name: str, _attributes: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > MAX_ELEMENTS or len(stack) >= MAX_DEPTH:
            raise XmlRefusedError("an XML document too large or too deep")
        node = Node(_local(name))
        if stack:
            stack[-1].children.append(node)
        else:
            roots.append(node)
        stack.append(node)

    def end(_name: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse_external
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise XmlRefusedError(f"malformed XML: {error}") from None
    except RecursionError:
        raise XmlRefusedError("an XML document too deep") from None
    if len(roots) != 1:
        raise XmlRefusedError("an XML document without one root")
    return roots[0]


def escape(value: str) -> str:
    """`value` as XML character data."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

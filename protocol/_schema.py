"""Private: turn the annotated dataclasses into checking decoders and encoders.

A *converter* is a pair of functions built once per (type, direction):
``decode(wire_value, path) -> python value`` and ``encode(python value, path) -> wire
value``. Both check the value fully (type, range, length, pattern) and raise
ProtocolError; ``codec.encode`` turns that into EncodeError for our own messages.

An *emitter* (`emitter`, `RecordConverter.emit`) gives the same wire value as ``encode``
for a valid value without checking it: what ``codec.encode_own`` uses for the messages
a process builds itself from typed records. Only what changes the wire value is done
(a record becomes a map, a nested tuple of records a list of maps, a normalized text is
normalized); a field whose value goes to msgpack as it is (an int, a bool, a string, a
string enum, a tuple of those: msgpack packs a tuple as an array and a ``str`` subclass
as its string) has no emitter at all.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import types
import typing
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from protocol.fields import IntRange, MaxItems, Text, unprintable

Convert = Callable[[Any, str], Any]
_ABSENT: Any = object()
"""A map's value for a key it lacks (`RecordConverter.decode`)."""
Emit = Callable[[Any], Any]


def show(value: object) -> str:
    """A short repr of a peer's value for an error sentence."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def fail(code: ErrorCode, message: str) -> typing.NoReturn:
    """Raise ProtocolError(code, message)."""
    raise ProtocolError(code, message)


def bad(path: str, expected: str, value: object) -> typing.NoReturn:
    """Raise a ``bad_value`` error naming the field, what it must be, and the value."""
    fail(ErrorCode.BAD_VALUE, f"{path} must be {expected}, not {show(value)}")


# --- scalars ------------------------------------------------------------------------------
def _int_converter(limits: IntRange | None) -> tuple[Convert, Convert]:
    low, high = (limits.low, limits.high) if limits else (-(2**63), 2**64 - 1)
    expected = f"an int in {low}..{high}"

    def check(value: Any, path: str) -> int:
        if type(value) is not int or not low <= value <= high:
            bad(path, expected, value)
        return value

    return check, check


def _bool_converter() -> tuple[Convert, Convert]:
    def check(value: Any, path: str) -> bool:
        if type(value) is not bool:
            bad(path, "true or false", value)
        return value

    return check, check


def _text_converter(rule: Text | None) -> tuple[Convert, Convert]:
    rule = rule or Text(0, 1000)
    expected = f"a string of {rule.min_len}..{rule.max_len} characters"

    def check(value: Any, path: str) -> str:
        if not isinstance(value, str):
            bad(path, expected, value)
        if rule.normalize:
            value = unicodedata.normalize("NFC", value).strip()
        if not rule.min_len <= len(value) <= rule.max_len:
            bad(path, expected, value)
        if rule.pattern is not None and rule.pattern.fullmatch(value) is None:
            bad(path, f"a string matching {rule.pattern.pattern}", value)
        if rule.printable and (unprintable(value) or not value.strip()):
            bad(path, "printable text with a visible character", value)
        return value if type(value) is str else str.__str__(value)

    return check, check


def _enum_converter(cls: type[enum.StrEnum]) -> tuple[Convert, Convert]:
    by_value = {member.value: member for member in cls}
    expected = "one of " + ", ".join(repr(v) for v in by_value)

    def decode(value: Any, path: str) -> enum.StrEnum:
        member = by_value.get(value) if type(value) is str else None
        if member is None:
            bad(path, expected, value)
        return member

    def encode(value: Any, path: str) -> str:
        member = by_value.get(value) if isinstance(value, str) else None
        if member is None:
            bad(path, expected, value)
        return member.value

    return decode, encode


def _none_converter() -> tuple[Convert, Convert]:
    def check(value: Any, path: str) -> None:
        if value is not None:
            bad(path, "nil", value)

    return check, check


# --- containers ---------------------------------------------------------------------------
def _optional_converter(inner: tuple[Convert, Convert]) -> tuple[Convert, Convert]:
    inner_decode, inner_encode = inner

    def decode(value: Any, path: str) -> Any:
        return None if value is None else inner_decode(value, path)

    def encode(value: Any, path: str) -> Any:
        return None if value is None else inner_encode(value, path)

    return decode, encode


def _array_converter(item: tuple[Convert, Convert], limit: int) -> tuple[Convert, Convert]:
    item_decode, item_encode = item
    expected = f"an array of at most {limit} items"

    def decode(value: Any, path: str) -> tuple[Any, ...]:
        if type(value) is not list or len(value) > limit:
            bad(path, expected, value)
        try:
            return tuple([item_decode(v, path) for v in value])
        except ProtocolError:
            _name_the_item(itertools.repeat(item_decode), value, path)
            raise

    def encode(value: Any, path: str) -> list[Any]:
        if not isinstance(value, (tuple, list)) or len(value) > limit:
            bad(path, expected, value)
        try:
            return [item_encode(v, path) for v in value]
        except ProtocolError:
            _name_the_item(itertools.repeat(item_encode), value, path)
            raise

    return decode, encode


def _name_the_item(converters: Iterable[Convert], items: Any, path: str) -> None:
    """Convert ``items`` again, each by its converter with its index in its path, to
    raise the error of the first bad one as naming it (``cards[2]``). The converters are
    pure: the way that succeeds leaves the indexes out of the paths (no string built per
    item), and only a value that fails pays for them."""
    for i, (convert, item) in enumerate(zip(converters, items, strict=False)):
        convert(item, f"{path}[{i}]")


def _pair_converter(items: list[tuple[Convert, Convert]]) -> tuple[Convert, Convert]:
    size = len(items)
    expected = f"an array of exactly {size} items"

    decoders = [decode for decode, _ in items]
    encoders = [encode for _, encode in items]

    def decode(value: Any, path: str) -> tuple[Any, ...]:
        if type(value) is not list or len(value) != size:
            bad(path, expected, value)
        try:
            return tuple([c(v, path) for c, v in zip(decoders, value, strict=True)])
        except ProtocolError:
            _name_the_item(decoders, value, path)
            raise

    def encode(value: Any, path: str) -> list[Any]:
        if not isinstance(value, (tuple, list)) or len(value) != size:
            bad(path, expected, value)
        try:
            return [c(v, path) for c, v in zip(encoders, value, strict=True)]
        except ProtocolError:
            _name_the_item(encoders, value, path)
            raise

    return decode, encode


class RecordConverter:
    """Decoder/encoder of one dataclass as a msgpack map.

    ``reject_unknown``: unknown keys are an ``unknown_field`` error (client → server);
    otherwise they are ignored (server → client, so old clients read newer servers).
    ``tag``: the message ``type`` value, written first and allowed as a key. A class's
    ``OMIT_NONE`` (a frozenset of field names) lists the fields left out of the map when
    they are None (a talk line has a ``text`` or a ``reaction``, never both).
    """

    def __init__(self, cls: type[Any], *, reject_unknown: bool, tag: str | None) -> None:
        self.cls = cls
        self.reject_unknown = reject_unknown
        self.tag = tag
        self.validate = getattr(cls, "validate", None)
        self.omit_none: frozenset[str] = getattr(cls, "OMIT_NONE", frozenset())
        hints = typing.get_type_hints(cls, include_extras=True)
        self.fields: list[tuple[str, Convert, Convert, bool]] = []
        for field in dataclasses.fields(cls):
            decode, encode = converter(hints[field.name], reject_unknown=reject_unknown)
            required = (
                field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING
            )
            self.fields.append((field.name, decode, encode, required))
        self.known = frozenset(name for name, *_ in self.fields) | (
            {"type"} if tag is not None else set()
        )
        self._paths: dict[str, tuple[str, ...]] = {}
        self.emitters: tuple[tuple[str, Emit | None, bool], ...] = tuple(
            (name, emitter(hints[name]), name in self.omit_none) for name, *_ in self.fields
        )
        """Each field's name, emitter (None: the value as it is) and whether a None is
        left out (`emit`)."""

    def decode(self, value: Any, path: str) -> Any:
        """Check a msgpack map and build the dataclass; raises ProtocolError."""
        if type(value) is not dict:
            bad(path, "a map", value)
        if self.reject_unknown and not self.known.issuperset(value):
            for key in value:
                if key not in self.known:
                    fail(ErrorCode.UNKNOWN_FIELD, f"unknown field {show(key)} in {path}")
        kwargs: dict[str, Any] = {}
        paths = self._paths.get(path) or self._paths_of(path)
        for (name, decode, _, required), field_path in zip(self.fields, paths, strict=True):
            item = value.get(name, _ABSENT)
            if item is not _ABSENT:
                kwargs[name] = decode(item, field_path)
            elif required:
                fail(ErrorCode.MISSING_FIELD, f"{path} lacks the field {name!r}")
        result = self.cls(**kwargs)
        if self.validate is not None:
            self._check(result, path)
        return result

    def encode(self, value: Any, path: str) -> dict[str, Any]:
        """Check a dataclass instance and give its msgpack map; raises ProtocolError."""
        if type(value) is not self.cls:
            bad(path, f"a {self.cls.__name__}", value)
        wire: dict[str, Any] = {} if self.tag is None else {"type": self.tag}
        paths = self._paths.get(path) or self._paths_of(path)
        omit_none = self.omit_none
        for (name, _, encode, _), field_path in zip(self.fields, paths, strict=True):
            item = getattr(value, name)
            if item is None and name in omit_none:
                continue
            wire[name] = encode(item, field_path)
        if self.validate is not None:
            self._check(value, path)
        return wire

    def emit(self, value: Any) -> dict[str, Any]:
        """The map `encode` gives for a valid ``value``, without checking it (see the
        module docstring): the same keys in the same order, the same values."""
        wire: dict[str, Any] = {} if self.tag is None else {"type": self.tag}
        for name, emit, omit_none in self.emitters:
            item = getattr(value, name)
            if item is None:
                if omit_none:
                    continue
                wire[name] = None
            else:
                wire[name] = item if emit is None else emit(item)
        return wire

    def _paths_of(self, path: str) -> tuple[str, ...]:
        """The paths of the fields of a record at ``path`` (``ready.step``), kept for the
        next record at that path: a message's paths are a few, known from its type (an
        array's items share their array's path, `_name_the_item`), so they are built once
        and not for every message; a failing value's indexed paths are not kept."""
        paths = tuple(f"{path}.{name}" for name, *_ in self.fields)
        if "[" not in path:
            self._paths[path] = paths
        return paths

    def _check(self, value: Any, path: str) -> None:
        validate = self.validate
        if validate is None:
            return
        try:
            validate(value)
        except ValueError as error:
            fail(ErrorCode.BAD_VALUE, f"{path}: {error}")


def _unannotated(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """``hint`` without ``Annotated``, and the metadata it carried (none: ``()``)."""
    if typing.get_origin(hint) is typing.Annotated:
        args = typing.get_args(hint)
        return args[0], tuple(args[1:])
    return hint, ()


def converter(hint: Any, *, reject_unknown: bool) -> tuple[Convert, Convert]:
    """Build the (decode, encode) pair for a resolved type hint."""
    hint, metadata = _unannotated(hint)
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) != 1:
            raise TypeError(f"only X | None unions are supported, not {hint}")
        return _optional_converter(converter(members[0], reject_unknown=reject_unknown))
    if origin is tuple:
        return _tuple_converter(hint, metadata, reject_unknown=reject_unknown)
    if isinstance(hint, type) and hint in _SCALARS:
        return _SCALARS[hint](metadata)
    if isinstance(hint, type) and issubclass(hint, enum.StrEnum):
        return _enum_converter(hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        record = RecordConverter(hint, reject_unknown=reject_unknown, tag=None)
        return record.decode, record.encode
    raise TypeError(f"no wire converter for {hint!r}")


def emitter(hint: Any) -> Emit | None:
    """The function that gives a value of ``hint``'s wire value as its converter's
    ``encode`` does for a valid one, unchecked; None when that is the value itself."""
    hint, metadata = _unannotated(hint)
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        (member,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return emitter(member)  # a None is emitted as it is: the emitters never get one
    if origin is tuple:
        return _tuple_emitter(typing.get_args(hint))
    if hint is str:
        rule = _first(metadata, Text)
        return _normalized if rule is not None and rule.normalize else None
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return RecordConverter(hint, reject_unknown=False, tag=None).emit
    if isinstance(hint, type) and (hint in _SCALARS or issubclass(hint, enum.StrEnum)):
        return None
    raise TypeError(f"no wire emitter for {hint!r}")


def _tuple_emitter(args: tuple[Any, ...]) -> Emit | None:
    """An array's (``tuple[X, ...]``) or a pair's (``tuple[X, Y]``) emitter."""
    if len(args) == 2 and args[1] is Ellipsis:
        item = emitter(args[0])
        return None if item is None else _array_emitter(item)
    items = [emitter(a) for a in args]
    if all(item is None for item in items):
        return None
    return _pair_emitter([item or _same for item in items])


def _same(value: Any) -> Any:
    return value


def _normalized(value: str) -> str:
    """A normalized text as the text converter's ``encode`` gives it."""
    return unicodedata.normalize("NFC", value).strip()


def _array_emitter(item: Emit) -> Emit:
    def emit(value: Any) -> list[Any]:
        return [None if v is None else item(v) for v in value]

    return emit


def _pair_emitter(items: list[Emit]) -> Emit:
    def emit(value: Any) -> list[Any]:
        return [None if v is None else e(v) for e, v in zip(items, value, strict=True)]

    return emit


def _tuple_converter(
    hint: Any, metadata: tuple[Any, ...], *, reject_unknown: bool
) -> tuple[Convert, Convert]:
    """``tuple[X, ...]`` (an array, bounded by its ``MaxItems``) or ``tuple[X, Y]`` (a pair)."""
    args = typing.get_args(hint)
    if len(args) == 2 and args[1] is Ellipsis:
        limits = [m for m in metadata if isinstance(m, MaxItems)]
        if not limits:
            raise TypeError(f"{hint} needs a MaxItems bound")
        item = converter(args[0], reject_unknown=reject_unknown)
        return _array_converter(item, limits[0].count)
    return _pair_converter([converter(a, reject_unknown=reject_unknown) for a in args])


def _first(metadata: tuple[Any, ...], kind: type[Any]) -> Any:
    """The first constraint of ``kind`` in an ``Annotated`` type's metadata, or None."""
    return next((m for m in metadata if isinstance(m, kind)), None)


_SCALARS: dict[type[Any], Callable[[tuple[Any, ...]], tuple[Convert, Convert]]] = {
    bool: lambda metadata: _bool_converter(),
    int: lambda metadata: _int_converter(_first(metadata, IntRange)),
    str: lambda metadata: _text_converter(_first(metadata, Text)),
    type(None): lambda metadata: _none_converter(),
}
"""The converters of the plain types, from their ``Annotated`` constraints."""

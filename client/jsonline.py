"""One server message as one line of JSON: what ``war-client --json`` prints, and what a
game record holds (`protocol.record` reads it back; `client.fair.watch` follows it)."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from protocol import ServerMessage, Welcome

__all__ = ["HIDDEN", "message_json"]

HIDDEN = "<hidden>"
"""What ``--json`` prints instead of a seat token."""


def _plain_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain_value(item) for item in value]
    return value


def message_json(message: ServerMessage) -> str:
    """One line of JSON for ``message``: ``{"type": …, fields…}``, the token hidden."""
    body: dict[str, Any] = {"type": message.TYPE}
    fields = _plain_value(message)
    if isinstance(message, Welcome) and fields.get("token") is not None:
        fields["token"] = HIDDEN
    body.update(fields)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))

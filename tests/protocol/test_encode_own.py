"""`encode_own`: the bytes `encode` gives, for every valid message, without the checks."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    CardsTurned,
    EncodeError,
    Error,
    ErrorCode,
    Reaction,
    RulesSpec,
    Said,
    TalkLine,
    WaitingFor,
    decode_server_message,
    encode,
    encode_own,
)
from protocol._schema import RecordConverter
from protocol.codec import _ENCODERS
from tests.protocol.strategies import CLIENT_STRATEGIES, SERVER_STRATEGIES
from tests.vectors.generate import scene_files


@pytest.mark.parametrize("cls", [*SERVER_STRATEGIES, *CLIENT_STRATEGIES], ids=lambda c: c.__name__)
@settings(deadline=None, max_examples=60)
@given(data=st.data())
def test_the_same_bytes_as_encode(cls: type[Any], data: st.DataObject) -> None:
    strategies = SERVER_STRATEGIES if cls in SERVER_STRATEGIES else CLIENT_STRATEGIES
    message = data.draw(strategies[cls])
    assert encode_own(message) == encode(message)


def test_the_same_frames_as_the_shared_vectors() -> None:
    frames = 0
    for path in scene_files():
        for viewpoint in json.loads(path.read_text(encoding="utf-8"))["viewpoints"]:
            for step in viewpoint["steps"]:
                frame = base64.b64decode(step["frame"])
                assert encode_own(decode_server_message(frame)) == frame, (path.name, step)
                frames += 1
    assert frames > 500


def test_a_said_text_is_normalized_as_encode_normalizes_it() -> None:
    said = Said(seq=3, seat=0, text=" cafe\u0301 ")  # not NFC, spaces around
    assert encode_own(said) == encode(said)
    assert decode_server_message(encode_own(said)) == Said(seq=3, seat=0, text="caf\u00e9")


def test_a_talk_line_leaves_out_what_it_lacks() -> None:
    emitted = _ENCODERS[Said].emit  # a talk line is a record inside a snapshot's state
    assert emitted(Said(seq=1, text="hi")) == {"type": "said", "seq": 1, "seat": None, "text": "hi"}
    line = RecordConverter(TalkLine, reject_unknown=False, tag=None)
    assert line.emit(TalkLine(seat=1, text="hi")) == {"seat": 1, "text": "hi"}
    assert line.emit(TalkLine(reaction=Reaction.LAUGH)) == {"seat": None, "reaction": "laugh"}


def test_a_non_message_is_refused() -> None:
    with pytest.raises(EncodeError, match="not a protocol message"):
        encode_own(RulesSpec())  # type: ignore[arg-type]


def test_what_msgpack_cannot_pack_is_an_encode_error() -> None:
    with pytest.raises(EncodeError, match="cannot pack"):
        encode_own(Error(code=ErrorCode.BAD_VALUE, message=object()))  # type: ignore[arg-type]
    assert encode_own(WaitingFor(seq=1, seats=(0, 1))) == encode(WaitingFor(seq=1, seats=(0, 1)))


def test_unchecked_an_invalid_message_goes_out_and_the_peer_refuses_it() -> None:
    bad = CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, "??"),))
    with pytest.raises(EncodeError):
        encode(bad)
    with pytest.raises(Exception, match="must be"):
        decode_server_message(encode_own(bad))


def test_in_development_mode_it_checks_as_encode_does() -> None:
    script = (
        "from protocol import CardsTurned, EncodeError, encode_own\n"
        "try:\n"
        "    encode_own(CardsTurned(seq=1, step=1, round=1, depth=0, cards=((0, '??'),)))\n"
        "except EncodeError as error:\n"
        "    print('refused', error)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("refused cards_turned.cards[0][1] must be")

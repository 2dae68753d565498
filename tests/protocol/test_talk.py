"""The talk messages on the wire: every bad ``say`` is refused as a bad name is, a good one
is normalized; reactions are names, never free text; talk lines carry one of the two."""

from __future__ import annotations

import msgpack
import pytest

from protocol import (
    MAX_SAY_CHARS,
    Direction,
    ErrorCode,
    ProtocolError,
    Reaction,
    Say,
    TalkLine,
    decode,
    decode_client_message,
    encode,
)


def _say(text: object) -> bytes:
    packed: bytes = msgpack.packb({"type": "say", "text": text})
    return packed


BAD_SAYS = {
    "too long": "x" * (MAX_SAY_CHARS + 1),
    "too long after stripping nothing": "é" * MAX_SAY_CHARS + "!",
    "newline": "Good\ngame",
    "carriage return": "Good\rgame",
    "tab": "Good\tgame",
    "control": "Good\x07game",
    "C1 control": "Good\x85game",
    "bidi override": "Good \u202egame",
    "bidi isolate": "Good \u2066game\u2069",
    "zero-width space": "Good\u200bgame",
    "zero-width joiner": "Good\u200dgame",
    "byte order mark": "\ufeffGood game",
    "line separator": "Good\u2028game",
    "paragraph separator": "Good\u2029game",
    "empty": "",
    "only spaces": "   ",
    "only a no-break space": "\u00a0",
    "not a string: int": 5,
    "not a string: nil": None,
    "not a string: list": ["Good game"],
    "not a string: map": {"text": "Good game"},
}


@pytest.mark.parametrize("text", BAD_SAYS.values(), ids=BAD_SAYS.keys())
def test_every_bad_say_is_bad_value(text: object) -> None:
    # (bytes are no string either: the codec refuses any bin as malformed, before fields)
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(_say(text))
    assert caught.value.code is ErrorCode.BAD_VALUE
    assert "say.text" in str(caught.value)


def test_a_say_is_nfc_stripped_and_may_be_120_characters_after_nfc() -> None:
    decomposed = "e\u0301" * MAX_SAY_CHARS  # 240 code points, 120 once composed
    message = decode_client_message(_say(f"  {decomposed}  "))
    assert message == Say(text="\u00e9" * MAX_SAY_CHARS)
    assert decode_client_message(_say(" Good game! ")) == Say(text="Good game!")
    assert decode_client_message(_say("Grandma 👵 wins")) == Say(text="Grandma 👵 wins")


def test_a_say_has_only_its_text() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(msgpack.packb({"type": "say", "text": "hi", "html": "<b>"}))
    assert caught.value.code is ErrorCode.UNKNOWN_FIELD


@pytest.mark.parametrize("reaction", ["applause", "CLAP", "👏", "", 3, None])
def test_a_reaction_is_one_of_the_names(reaction: object) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client_message(msgpack.packb({"type": "react", "reaction": reaction}))
    assert caught.value.code is ErrorCode.BAD_VALUE


def test_the_reactions_are_the_issue_s_names() -> None:
    assert [r.value for r in Reaction] == [
        "clap", "wow", "laugh", "sad", "love", "party", "scared", "oops",
        "good_game", "well_played", "oh_no", "one_more",
    ]  # fmt: skip


def test_a_talk_line_has_a_text_or_a_reaction_and_leaves_the_other_out() -> None:
    line = TalkLine(seat=None, text="hi")
    from protocol._schema import RecordConverter  # noqa: PLC0415 - the nested record alone

    converter = RecordConverter(TalkLine, reject_unknown=False, tag=None)
    assert converter.encode(line, "line") == {"seat": None, "text": "hi"}
    assert converter.encode(TalkLine(seat=2, reaction=Reaction.OOPS), "line") == {
        "seat": 2,
        "reaction": "oops",
    }
    for bad in ({"seat": 1}, {"seat": 1, "text": "hi", "reaction": "clap"}):
        with pytest.raises(ProtocolError):
            converter.decode(bad, "line")
    with pytest.raises(ValueError, match="one of them"):
        encode_line = TalkLine(seat=0)
        converter.encode(encode_line, "line")


def test_said_from_a_spectator_has_a_nil_seat() -> None:
    wire = msgpack.packb({"type": "said", "seq": 4, "seat": None, "text": "go Ben"})
    message = decode(wire, direction=Direction.FROM_SERVER)
    assert encode(message) == wire

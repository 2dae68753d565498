"""``--plain`` and ``--json`` renderers, and the commands a plain player types."""

from __future__ import annotations

import asyncio
import io
import json

import msgpack
import pytest

from client.lines import HIDDEN, LineRenderer, Streams, message_json
from client.net.connection import Ended, Notice, Reconnecting
from client.words.catalog import Count, War, catalog, said
from client.words.language import Viewer
from client.words.reasons import REFUSED, RESET, TRY_WSS
from client.words.who import persons
from protocol import (
    AutoPlay,
    GameStarted,
    Leave,
    React,
    Reaction,
    Ready,
    Rematch,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RoomState,
    RulesSpec,
    Say,
    SeatState,
    SetAutoPlay,
    VoteFinish,
    Welcome,
    encode,
)
from server import engine
from tests.client._fake import TIMEOUT, FakeLink
from tests.client._record import Recording

EN = catalog("en", strict=True)


def recorded(me: int | None = 0, rounds: int = 6) -> Recording:
    recording = Recording(engine.Game(engine.Rules(round_limit=rounds), 7), me=me)
    recording.play()
    return recording


async def render(link: FakeLink, *, json_lines: bool = False) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = LineRenderer(link, Streams(out, err), json_lines=json_lines, viewer=Viewer(EN))
    code = await asyncio.wait_for(renderer.run(), TIMEOUT)
    return code, out.getvalue(), err.getvalue()


async def test_plain_prints_sentences_and_exits_0_after_game_over() -> None:
    link = FakeLink()
    link.push_all(recorded().messages)
    code, out, err = await render(link)
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0] == "You are Ann, at seat 1 of 2."
    assert "The game begins: 26 cards each." in lines
    assert lines[-2].startswith("Game over: the limit of 6 rounds is reached.")
    assert lines[-1].startswith("6 rounds, "), "game over is the last line"
    assert sum(" take" in line for line in lines) == 6
    assert link.closed, "the client closes its connection after game over"


async def test_a_spectator_exits_0_too() -> None:
    link = FakeLink()
    link.push_all(recorded(me=None).messages)
    code, out, _ = await render(link)
    assert code == 0
    assert out.splitlines()[0] == "You are watching Ann and Ben."


async def test_json_prints_every_message_decoded_with_the_token_hidden() -> None:
    recording = recorded()
    link = FakeLink()
    link.push_all(recording.messages)
    code, out, _ = await render(link, json_lines=True)
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    until_over = recording.messages[:-1]  # the waiting_for after game_over is not printed
    assert recording.messages[-2].TYPE == "game_over"
    assert [o["type"] for o in objects] == [m.TYPE for m in until_over]
    assert [o.get("seq") for o in objects] == [getattr(m, "seq", None) for m in until_over]
    assert objects[0]["token"] == HIDDEN
    assert "t" * 20 not in out
    over = next(o for o in objects if o["type"] == "game_over")
    assert over["summary"]["rounds"] == 6
    taken = next(o for o in objects if o["type"] == "cards_taken")
    assert isinstance(taken["counts"], list) and sum(taken["counts"]) == 52


def test_message_json_is_the_wire_map() -> None:
    for message in recorded().messages:
        wire = msgpack.unpackb(encode(message))
        if isinstance(message, Welcome):
            wire["token"] = HIDDEN
        assert json.loads(message_json(message)) == wire


async def test_refused_exits_1_with_one_line_on_stderr() -> None:
    link = FakeLink()
    link.event(Ended(False, said("error.reason", code="unknown_code", message="?"), "unknown_code"))
    code, out, err = await render(link)
    assert (code, out) == (1, "")
    assert err == "war-client: there is no game with that code\n", "people read no error code"
    link = FakeLink()
    link.event(Ended(False, said("error.reason", code="unknown_code", message="?"), "unknown_code"))
    code, out, err = await render(link, json_lines=True)
    assert (code, out) == (1, "")
    assert err == "war-client: there is no game with that code (unknown_code)\n", "scripts get it"


async def test_reconnecting_and_notices() -> None:
    link = FakeLink()
    link.push(recorded().messages[0])
    link.event(Reconnecting(2, 1.25, said("close.reason", code=1012)))
    link.event(Notice(said("close.join_anew")))
    link.event(
        Ended(
            False,
            said("close.gave_up", reason=said("close.cannot_reach", problem=said(REFUSED))),
        )
    )
    code, out, err = await render(link)
    assert code == 1
    assert "Reconnecting… (the server is restarting; attempt 2 in 1.3 s)" in out.splitlines()
    assert err.splitlines() == [
        "war-client: the stored seat could not be resumed; joining as new",
        "war-client: gave up reconnecting: cannot reach the server: "
        "no server is listening at that address",
    ]
    link = FakeLink()
    link.event(Reconnecting(1, 0.5, said("close.reason", code=1006)))
    link.event(Ended(True, said("close.left")))
    code, out, err = await render(link, json_lines=True)
    assert (code, out) == (0, ""), "json keeps stdout for messages only"
    assert "Reconnecting…" in err


def _failed_twice(link: FakeLink) -> None:
    """A reconnect after a reset handshake (hinting at wss://), then giving up on a refusal."""
    hinted = said(TRY_WSS, problem=said(RESET))
    link.event(Reconnecting(1, 0.5, said("close.cannot_reach", problem=hinted)))
    refused = said("close.cannot_reach", problem=said(REFUSED))
    link.event(Ended(False, said("close.gave_up", reason=refused)))


async def test_json_lines_carry_the_key_of_why_connecting_failed() -> None:
    link = FakeLink()
    _failed_twice(link)
    code, out, err = await render(link, json_lines=True)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "war-client: Reconnecting… (cannot reach the server: the connection was reset during"
        " the handshake (does the server use wss://?); attempt 1 in 0.5 s) (unreachable.reset)",
        "war-client: gave up reconnecting: cannot reach the server: no server is listening at"
        " that address (unreachable.refused)",
    ]
    link = FakeLink()
    _failed_twice(link)
    code, out, err = await render(link)
    assert "(unreachable." not in out + err, "people read the sentence alone"


async def test_typed_commands() -> None:
    recording = Recording(engine.Game(engine.Rules(), 7), me=0)
    link = FakeLink()
    renderer = LineRenderer(
        link, Streams(io.StringIO(), io.StringIO()), json_lines=False, viewer=Viewer(EN)
    )
    commands = asyncio.StreamReader()
    renderer.commands = commands
    link.push_all(recording.messages)
    task = asyncio.create_task(renderer.run())
    await link.drained()
    welcome = recording.messages[0]
    assert isinstance(welcome, Welcome)
    commands.feed_data(b"\n")
    assert await link.next_sent() == Ready(step=0)
    commands.feed_data(b"a quick\n")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.QUICK)
    commands.feed_data(b"a\n")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.OFF), "on from quick, unconfirmed"
    commands.feed_data(b"a\na\n")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.CALM)
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.QUICK), "two quick a: two steps"
    commands.feed_data(b"f\n")
    assert await link.next_sent() == VoteFinish()
    assert await renderer.command("a slow") == (
        "No such auto-play mode: 'slow' (off, calm or quick)."
    )
    assert (await renderer.command("?") or "").startswith("Commands: enter = turn over")
    assert (await renderer.command("s")) == (
        "Round 1: you have 26 cards and Ben has 26 cards. Press enter to turn over."
    )
    assert (await renderer.command("rules") or "").startswith("Rules: Aces are high. ")
    assert await renderer.command("q") == (
        "Leave for good? Type q again: the computer takes your seat. Anything else keeps it."
    )
    commands.feed_data(b"q\n")
    assert await link.next_sent() == Leave()
    link.event(Ended(True, said("close.left")))
    assert await asyncio.wait_for(task, TIMEOUT) == 0


async def test_a_second_quick_enter_waits_for_the_next_step() -> None:
    """Two enters typed before the room answered send one ready, not a stale second one
    (which the server would refuse: "ready for step 0, but the game is at step 1")."""
    recording = Recording(engine.Game(engine.Rules(), 7), me=0)
    link = FakeLink()
    renderer = LineRenderer(
        link, Streams(io.StringIO(), io.StringIO()), json_lines=False, viewer=Viewer(EN)
    )
    task = asyncio.create_task(renderer.run())
    link.push_all(recording.messages)
    await link.drained()
    assert await renderer.command("") is None
    assert await renderer.command("") == "You are ready; waiting for the others."
    assert link.sent == [Ready(step=0)]
    link.event(Ended(True, said("close.closed")))
    await asyncio.wait_for(task, TIMEOUT)


async def test_a_ready_lost_with_its_connection_can_be_sent_again() -> None:
    """A new welcome (a resume) forgets the ready sent on the connection before."""
    recording = Recording(engine.Game(engine.Rules(), 7), me=0)
    link = FakeLink()
    renderer = LineRenderer(
        link, Streams(io.StringIO(), io.StringIO()), json_lines=False, viewer=Viewer(EN)
    )
    task = asyncio.create_task(renderer.run())
    link.push_all(recording.messages)
    await link.drained()
    assert await renderer.command("") is None
    link.push_all(recording.messages)  # welcomed anew: the room never got that ready
    await link.drained()
    assert await renderer.command("") is None
    assert link.sent == [Ready(step=0), Ready(step=0)]
    link.event(Ended(True, said("close.closed")))
    await asyncio.wait_for(task, TIMEOUT)


async def test_a_spectator_typing_turn_over_sends_nothing() -> None:
    link = FakeLink()
    link.push(recorded(me=None).messages[0])
    renderer = LineRenderer(
        link, Streams(io.StringIO(), io.StringIO()), json_lines=False, viewer=Viewer(EN)
    )
    task = asyncio.create_task(renderer.run())
    await link.drained()
    assert await renderer.command("") == "Spectators watch; only players turn over."
    assert link.sent == []
    link.event(Ended(True, said("close.closed")))
    await asyncio.wait_for(task, TIMEOUT)


async def test_a_plain_player_stays_after_game_over_for_a_rematch_then_leaves() -> None:
    recording = recorded(rounds=3)
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN))
    commands = asyncio.StreamReader()
    renderer.commands = commands
    link.push_all(recording.messages)
    task = asyncio.create_task(renderer.run())
    await link.drained()
    lines = out.getvalue().splitlines()
    assert lines[-1] == (
        "Game over. Type r for a rematch with a new deal, d to replay this deal, q to leave."
    )
    assert not link.closed, "a player who can type stays for the rematch"
    standing = await renderer.command("s")
    assert standing is not None and standing.startswith("After 3 rounds: you have ")
    commands.feed_data(b"r\n")
    assert await link.next_sent() == Rematch(deal=RematchDeal.NEW)
    seq = recording.seq
    link.push(
        RematchVoted(seq=seq + 1, seat=0, deal=RematchDeal.NEW),
        RematchVoted(seq=seq + 2, seat=1, deal=RematchDeal.SAME),
        GameStarted(seq=seq + 3, game=2, counts=(26, 26)),
    )
    await link.drained()
    assert out.getvalue().splitlines()[-5:] == [
        "You ask for a rematch with a new deal.",
        "Still to vote: Ben.",
        "Ben asks for this deal again.",
        "The votes were split between a new deal and this deal again: a new deal won.",
        "Rematch: game 2 begins: 26 cards each.",
    ]
    assert await renderer.command("d") == "A rematch comes after game over."
    commands.feed_data(b"q\nq\n")  # twice: leaving is for good
    assert await link.next_sent() == Leave()
    link.event(Ended(True, said("close.left")))
    assert await asyncio.wait_for(task, TIMEOUT) == 0
    assert out.getvalue().splitlines()[-1] == "You left the room."


async def test_the_end_of_stdin_after_game_over_ends_the_evening() -> None:
    link = FakeLink()
    renderer = LineRenderer(
        link, Streams(io.StringIO(), io.StringIO()), json_lines=False, viewer=Viewer(EN)
    )
    commands = asyncio.StreamReader()
    renderer.commands = commands
    link.push_all(recorded(rounds=2).messages)
    task = asyncio.create_task(renderer.run())
    await link.drained()
    assert not link.closed
    commands.feed_eof()
    assert await asyncio.wait_for(task, TIMEOUT) == 0
    assert link.closed


async def test_a_plain_player_is_told_how_to_turn_over_and_q_asks_first() -> None:
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN))
    renderer.commands = asyncio.StreamReader()
    recording = Recording(engine.Game(engine.Rules(), 7), me=0)
    link.push_all(recording.messages)
    task = asyncio.create_task(renderer.run())
    await link.drained()
    lines = out.getvalue().splitlines()
    assert lines[-2:] == ["The game begins: 26 cards each.", "Press enter to turn over."]
    link.push_all(recording.step())
    await link.drained()
    assert out.getvalue().count("Press enter to turn over.") == 1, "said once, at the start"
    assert (await renderer.command("q") or "").startswith("Leave for good? Type q again")
    assert await renderer.command("s") is not None, "anything else keeps the seat"
    assert (await renderer.command("q") or "").startswith("Leave for good?"), "asks again"
    assert link.sent == []
    assert await renderer.command("q") is None
    assert link.sent == [Leave()]
    link.event(Ended(True, said("close.left")))
    assert await asyncio.wait_for(task, TIMEOUT) == 0


def _welcome_in_a_war(me: int | None, seq: int) -> Welcome:
    """The welcome of a connection that comes back after the server's restart while a war
    of two waits for both players' face-down cards (round 12, one card face down)."""
    seats = tuple(
        SeatState(seat=s, name=name, connected=True, count=count)
        for s, (name, count) in enumerate((("Ann", 20), ("Ben", 30)))
    )
    state = RoomState(
        room="r8k2",
        phase=RoomPhase.PLAYING,
        rules=RulesSpec(),
        seats=seats,
        step=12,
        round=11,
        war_depth=1,
        war_seats=(0, 1),
        waiting_for=(0, 1),
    )
    token = None if me is None else "t" * 20
    return Welcome(seq=seq, seat=me, token=token, watch_code="9HWT-2CBN", state=state)


@pytest.mark.parametrize("tag", ["en", "es", "fr", "de", "pl"])
async def test_a_plain_player_back_after_a_restart_is_told_the_war_waits_for_its_cards(
    tag: str,
) -> None:
    # what the TUI and the page show after the restart: the war and who is in it, and
    # that it waits for this player's face-down cards (their status line), in every language
    words = catalog(tag, strict=True)
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(
        link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(words)
    )
    renderer.commands = asyncio.StreamReader()
    link.push(recorded().messages[0])
    link.event(Reconnecting(1, 0.5, said("close.reason", code=1012)))
    link.push(_welcome_in_a_war(0, 40))
    task = asyncio.create_task(renderer.run())
    await link.drained()
    lines = out.getvalue().splitlines()
    back = lines[lines.index(words.text("said.game_on", round=12)) + 1 :][-2:]
    war = words.text("table.war_between", war=War(1), names=persons(link.view, (0, 1), 0))
    cards = Count("card", 1)
    turn = said("status.war_turn", input="typed", lay="down", war=War(1), cards=cards)
    assert back == [war, words.say(turn)]
    if tag == "en":
        assert back == [
            "War between you and Ben!",
            "War! Press enter to lay 1 card face down and turn one up.",
        ]
    link.event(Ended(True, said("close.left")))
    await asyncio.wait_for(task, TIMEOUT)


async def test_a_spectator_back_in_a_war_is_told_whom_it_waits_for() -> None:
    link = FakeLink()
    link.push(recorded(me=None).messages[0])
    link.push(_welcome_in_a_war(None, 40))
    link.event(Ended(True, said("close.left")))
    _, out, _ = await render(link)
    lines = out.splitlines()
    assert lines[lines.index("The game is on: round 12.") + 1 :][-2:] == [
        "War between Ann and Ben!",
        "Waiting for Ann and Ben.",
    ]


async def test_a_plain_spectator_talks_from_stdin_and_still_ends_after_game_over() -> None:
    recording = recorded(me=None, rounds=3)
    link = FakeLink()
    out = io.StringIO()
    renderer = LineRenderer(link, Streams(out, io.StringIO()), json_lines=False, viewer=Viewer(EN))
    commands = asyncio.StreamReader()
    renderer.commands = commands
    link.push(recording.messages[0])
    task = asyncio.create_task(renderer.run())
    await link.drained()
    commands.feed_data(b"say Go Grandma!\nreact clap\n")
    assert await link.next_sent() == React(reaction=Reaction.CLAP)
    # the room's talk setting is "players": a spectator reacts, and is told why it may not write
    assert "Only the players write at this table; you may react." in out.getvalue()
    assert Say(text="Go Grandma!") not in link.sent
    link.push_all(recording.messages[1:])
    assert await asyncio.wait_for(task, TIMEOUT) == 0, "a spectator does not stay"
    assert link.closed

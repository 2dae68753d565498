"""The Textual table, headless: keys in, messages out; messages in, the table drawn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from textual.content import Content
from textual.events import Key
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from client.fair.watch import FairVerdict
from client.net.connection import Ended, Notice, Received, Reconnecting
from client.state.view import apply
from client.tui.app import (
    CLOSED_LINE,
    CONFIRM_LEAVE_LINE,
    LEFT_LINE,
    STOPPED_WATCHING_LINE,
    FlyingCards,
    Haul,
    SeatPanel,
    WarApp,
)
from client.tui.drawing import CARD_HEIGHT
from client.tui.panels import SaidLines
from client.words.catalog import catalog, said
from client.words.language import Viewer
from protocol import (
    AutoPlay,
    AutoPlayChanged,
    CardsLaidDown,
    CardsTaken,
    CardsTurned,
    DealVoided,
    GameOver,
    GameStarted,
    Leave,
    PlayerJoined,
    Ready,
    ReadyChanged,
    Rematch,
    RematchDeal,
    RematchVoted,
    RoomPhase,
    RoomState,
    RulesSpec,
    SeatState,
    ServerMessage,
    SetAutoPlay,
    Summary,
    Termination,
    VoteFinish,
    WaitingFor,
    WarDeclared,
    Welcome,
)
from protocol.seat_requests import AnswerSeatRequest, SeatRequest, SeatRequested
from tests.client._fake import TIMEOUT, FakeLink

EN = catalog("en", strict=True)


def welcome(seat: int | None = 0, name: str = "Ann") -> Welcome:
    state = RoomState(
        room="r8k2",
        phase=RoomPhase.WAITING,
        rules=RulesSpec(),
        seats=(SeatState(seat=0, name=name, connected=True), SeatState(seat=1)),
    )
    return Welcome(
        seq=1,
        seat=seat,
        token=None if seat is None else "secret-token-0123456789",
        player_code=None if seat is None else "K7MX-QD4R",
        watch_code="9HWT-2CBN",
        state=state,
    )


START: list[ServerMessage] = [
    PlayerJoined(seq=2, seat=1, name="Ben"),
    GameStarted(seq=3, game=1, counts=(26, 26)),
    WaitingFor(seq=4, seats=(0, 1)),
]


def ben_wins(seq: int) -> GameOver:
    """Game over after 377 rounds: Ben has all 52 cards."""
    return GameOver(
        seq=seq,
        step=800,
        winner=1,
        termination=Termination.ALL_CARDS,
        summary=Summary(rounds=377, wars=21, longest_war=2, biggest_haul=14, deal=90210),
        counts=(0, 52),
    )


def text(app: WarApp, selector: str) -> str:
    widget = app.query_one(selector, Static)
    content = widget.content
    return content.plain if hasattr(content, "plain") else str(content)


@pytest.fixture
async def table() -> AsyncIterator[tuple[WarApp, FakeLink, Pilot[None]]]:
    link = FakeLink()
    # a haul stays lit, and flying cards stay in the air, while checked
    app = WarApp(
        link,
        viewer=Viewer(EN),
        haul=Haul(flight_seconds=TIMEOUT * 10, highlight_seconds=TIMEOUT * 10),
    )
    async with app.run_test(size=(100, 40)) as pilot:
        yield app, link, pilot


async def settle(link: FakeLink, pilot: Pilot[None]) -> None:
    await link.drained()
    await pilot.pause()


async def ben_takes_the_war(link: FakeLink, pilot: Pilot[None]) -> None:
    """Ann and Ben at war (drawn first, so the panels are laid out), then Ben takes 6."""
    link.push(welcome(), *START, *WAR_TO_ANN)
    await settle(link, pilot)
    link.push(CardsTaken(seq=9, step=2, round=1, seat=1, count=6, counts=(23, 29)))
    await settle(link, pilot)


async def landed(app: WarApp, pilot: Pilot[None]) -> None:
    """Land any taken cards in the air: animations turned off finish a flight at the next
    frame, through the same path as a flight that has run its time."""
    app.animation_level = "none"
    await pilot.wait_for_animation()
    await pilot.pause()


WAR_TO_ANN: list[ServerMessage] = [
    CardsTurned(seq=5, step=1, round=1, depth=0, cards=((0, "QH"), (1, "QS"))),
    WarDeclared(seq=6, step=1, round=1, depth=1, seats=(0, 1)),
    CardsLaidDown(seq=7, step=2, round=1, depth=1, counts=((0, 1), (1, 1))),
    CardsTurned(seq=8, step=2, round=1, depth=1, cards=((0, "TD"), (1, "4C"))),
]


def footer_keys(app: WarApp) -> set[str]:
    """The actions the footer shows now."""
    return {
        b.binding.action
        for b in app.screen.active_bindings.values()
        if b.binding.show and b.enabled and app.check_action(b.binding.action, ()) is not False
    }


async def test_the_footer_shows_the_keys_that_apply(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome())
    await settle(link, pilot)
    assert footer_keys(app) == {"auto", "rules", "leave", "message"}, "waiting room"
    link.push(*START)
    await settle(link, pilot)
    assert footer_keys(app) == {"turn_over", "auto", "finish", "rules", "leave", "message"}
    keys = {b.binding.action: b.binding.key_display for b in app.screen.active_bindings.values()}
    assert keys["turn_over"] == "space"
    link.push(ben_wins(seq=5))
    await settle(link, pilot)
    assert footer_keys(app) == {"rematch", "replay", "rules", "leave", "message"}


async def test_codes_are_shown_while_seats_are_open(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome())
    await settle(link, pilot)
    codes = app.query_one("#codes", Static)
    assert codes.display
    assert "Player code: K7MX-QD4R" in text(app, "#codes")
    assert "Watch code: 9HWT-2CBN" in text(app, "#codes")
    assert text(app, "#status") == "Waiting for 1 more player to join."
    link.push(*START)
    await settle(link, pilot)
    assert not codes.display
    assert text(app, "#status") == "Press space to turn over."


async def test_space_and_enter_send_ready_once(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    await pilot.press("space")
    assert await link.next_sent() == Ready(step=0)
    link.push(ReadyChanged(seq=5, seat=0, ready=True), WaitingFor(seq=6, seats=(1,)))
    await settle(link, pilot)
    await pilot.press("enter")
    await pilot.pause()
    assert link.sent == [Ready(step=0)], "a second tap for the same step sends nothing"
    assert "You are ready; waiting for the others." in text(app, "#said")
    assert text(app, "#status") == "Waiting for Ben."
    link.push(
        CardsTurned(seq=7, step=1, round=1, depth=0, cards=((0, "QH"), (1, "QS"))),
        WarDeclared(seq=8, step=1, round=1, depth=1, seats=(0, 1)),
        WaitingFor(seq=9, seats=(0, 1)),
    )
    await settle(link, pilot)
    await pilot.press("enter")
    assert await link.next_sent() == Ready(step=1)


async def test_auto_cycles_off_calm_quick(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    await pilot.press("a")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.CALM)
    link.push(AutoPlayChanged(seq=5, seat=0, mode=AutoPlay.CALM))
    await settle(link, pilot)
    assert "auto calm" in text(app, "#seat-0")
    await pilot.press("a")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.QUICK)
    link.push(AutoPlayChanged(seq=6, seat=0, mode=AutoPlay.QUICK))
    await settle(link, pilot)
    await pilot.press("a")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.OFF)
    assert text(app, "#status").startswith("Auto-play (quick) turns over for you.")


async def test_the_table_draws_cards_the_war_and_the_haul(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(
        welcome(),
        *START,
        CardsTurned(seq=5, step=1, round=1, depth=0, cards=((0, "QH"), (1, "QS"))),
        WarDeclared(seq=6, step=1, round=1, depth=1, seats=(0, 1)),
        CardsLaidDown(seq=7, step=2, round=1, depth=1, counts=((0, 1), (1, 1))),
        CardsTurned(seq=8, step=2, round=1, depth=1, cards=((0, "TD"), (1, "4C"))),
    )
    await settle(link, pilot)
    mine = text(app, "#seat-0")
    assert "23 cards" in mine
    assert "Q♥" in mine, "the earlier face-up card, small"
    assert "│10   │" in mine and "♦" in mine, "the latest face-up card, drawn"
    assert "░" in mine, "the face-down card as a back"
    assert app.query_one("#war", Static).display
    assert text(app, "#war") == "War between you and Ben!"
    link.push(CardsTaken(seq=9, step=2, round=1, seat=0, count=6, counts=(29, 23)))
    await settle(link, pilot)
    await landed(app, pilot)
    panel = app.query_one("#seat-0", SeatPanel)
    assert panel.has_class("won")
    assert "29 cards  +6" in text(app, "#seat-0")
    assert "Your 10 beats Ben's 4. You win the war and take 6 cards." in text(app, "#said")
    assert not app.query_one("#seat-1", SeatPanel).has_class("won")
    mine, ben = text(app, "#seat-0"), text(app, "#seat-1")
    assert "last round: won" in mine and "Q♥" in mine and "│10   │" in mine and "░" in mine
    assert "last round" in ben and "Q♠" in ben and "│4    │" in ben, "the war stays readable"


async def test_game_over_shows_the_summary_and_offers_rematches(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    assert app.check_action("turn_over", ()) is True
    assert app.check_action("rematch", ()) is False, "hidden during the game"
    await pilot.press("r")
    await pilot.press("f")
    assert await link.next_sent() == VoteFinish()
    link.push(ben_wins(seq=5))
    await settle(link, pilot)
    assert app.check_action("turn_over", ()) is False
    assert app.check_action("rematch", ()) is app.check_action("replay", ()) is True
    assert app.query_one("#summary", Static).display
    summary = text(app, "#summary")
    assert "Game over: Ben has all 52 cards. Ben wins." in summary
    for figure in ("Rounds        377", "Wars          21", "Longest war   double",
                   "Biggest haul  14 cards", "Deal          90 210"):  # fmt: skip
        assert figure in summary
    await pilot.press("r")
    assert await link.next_sent() == Rematch(deal=RematchDeal.NEW)
    await pilot.press("d")
    assert await link.next_sent() == Rematch(deal=RematchDeal.SAME)


async def test_reconnecting_is_shown_then_cleared(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    link.event(Reconnecting(1, 0.2, said("close.reason", code=1012)))
    await settle(link, pilot)
    assert text(app, "#status") == "Reconnecting… (the server is restarting; attempt 1)"
    link.event(Notice(said("close.join_anew")))
    await settle(link, pilot)
    assert "The stored seat could not be resumed; joining as new." in text(app, "#said")
    link.push(welcome())
    await settle(link, pilot)
    assert not text(app, "#status").startswith("Reconnecting")


async def test_a_spectator_cannot_turn_over(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    app, link, pilot = table
    link.push(welcome(seat=None), *START)
    await settle(link, pilot)
    await pilot.press("space", "a", "f", "r", "d")
    await pilot.pause()
    assert link.sent == []
    offered = {a for a in ("turn_over", "auto", "finish", "rematch", "replay", "leave")
               if app.check_action(a, ())}  # fmt: skip
    assert offered == {"leave"}, "a spectator's footer offers only q"
    assert "you are watching" in text(app, "#top")
    assert not app.query_one("#codes", Static).display or "Player code" not in text(app, "#codes")


async def test_names_are_text_not_markup(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    app, link, pilot = table
    link.push(welcome(name="[b]Ann[/b]"))
    await settle(link, pilot)
    title = app.query_one("#seat-0", SeatPanel).border_title
    assert title is not None
    assert Content.from_markup(title).plain == "[b]Ann[/b] (you)"
    assert "You are [b]Ann[/b], at seat 1 of 2." in text(app, "#said")


async def test_q_leaves_and_closes() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test() as pilot:
        link.push(welcome(), *START)
        await settle(link, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert link.sent == [] and not link.closed, "one q only asks"
        assert EN.say(CONFIRM_LEAVE_LINE) in text(app, "#said")
        await pilot.press("q")
        await pilot.pause()
    assert link.sent == [Leave()]
    assert link.closed
    assert app.return_code == 0


async def test_a_fatal_end_exits_non_zero_with_the_reason() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test() as pilot:
        link.event(
            Ended(False, said("error.reason", code="unknown_code", message="?"), "unknown_code")
        )
        await link.drained()
        await pilot.pause()
    assert app.return_code == 1
    assert app.end_reason is not None
    assert EN.say(app.end_reason) == "there is no game with that code"


async def test_taken_cards_fly_to_the_winners_pile_then_it_counts_them(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    await ben_takes_the_war(link, pilot)
    [flying] = app.query(FlyingCards)
    assert flying.seat == 1 and "+6" in str(flying.content)
    start, end = flying.route
    ben = app.query_one("#seat-1", SeatPanel).region
    assert ben.contains_point(end), "it lands on Ben's panel"
    assert not ben.contains_point(start), "it starts from the loser's side"
    assert "23 cards" in text(app, "#seat-1"), "the pile counts them once they land"
    assert not app.query_one("#seat-1", SeatPanel).has_class("won")
    await landed(app, pilot)
    assert not app.query(FlyingCards)
    assert app.query_one("#seat-1", SeatPanel).has_class("won")
    assert "29 cards  +6" in text(app, "#seat-1")


async def test_with_animations_off_nothing_flies(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    app.animation_level = "none"
    await ben_takes_the_war(link, pilot)
    assert not app.query(FlyingCards)
    assert app.query_one("#seat-1", SeatPanel).has_class("won")
    assert "29 cards  +6" in text(app, "#seat-1")


async def test_a_new_haul_lands_the_one_in_the_air_at_once(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    await ben_takes_the_war(link, pilot)
    assert [f.seat for f in app.query(FlyingCards)] == [1]
    link.push(
        CardsTurned(seq=10, step=3, round=2, depth=0, cards=((0, "KH"), (1, "2S"))),
        CardsTaken(seq=11, step=3, round=2, seat=0, count=2, counts=(24, 28)),
    )
    await settle(link, pilot)
    assert [f.seat for f in app.query(FlyingCards)] == [0], "only the newest haul flies"
    assert "28 cards" in text(app, "#seat-1"), "Ben's haul has landed"
    assert "22 cards" in text(app, "#seat-0")
    await landed(app, pilot)
    assert not app.query(FlyingCards)
    assert "24 cards  +2" in text(app, "#seat-0")
    assert not app.query_one("#seat-1", SeatPanel).has_class("won")


async def test_keys_work_while_cards_fly(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    app, link, pilot = table
    link.push(welcome(), *START, *WAR_TO_ANN)
    await settle(link, pilot)
    link.push(
        CardsTaken(seq=9, step=2, round=1, seat=1, count=6, counts=(23, 29)),
        WaitingFor(seq=10, seats=(0, 1)),
    )
    await settle(link, pilot)
    assert app.query(FlyingCards)
    app.post_message(Key("space", " "))  # pilot.press would wait for the flight to end
    assert await link.next_sent() == Ready(step=2)
    assert app.query(FlyingCards), "still in the air"
    await landed(app, pilot)


async def test_a_short_flight_lands_by_itself() -> None:
    link = FakeLink()
    app = WarApp(
        link, viewer=Viewer(EN), haul=Haul(flight_seconds=0.05, highlight_seconds=TIMEOUT * 10)
    )
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(welcome(), *START, *WAR_TO_ANN)
        await settle(link, pilot)
        link.push(CardsTaken(seq=9, step=2, round=1, seat=1, count=6, counts=(23, 29)))
        await settle(link, pilot)
        await pilot.wait_for_animation()
        await pilot.pause()
        assert not app.query(FlyingCards)
        assert app.query_one("#seat-1", SeatPanel).has_class("won")
        assert "29 cards  +6" in text(app, "#seat-1")


async def test_a_haul_flies_at_80_by_24() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN), haul=Haul(flight_seconds=TIMEOUT * 10))
    async with app.run_test(size=(80, 24)) as pilot:
        link.push(welcome(), *START, *WAR_TO_ANN)
        await settle(link, pilot)
        link.push(CardsTaken(seq=9, step=2, round=1, seat=0, count=6, counts=(29, 23)))
        await settle(link, pilot)
        [flying] = app.query(FlyingCards)
        assert app.screen.region.contains_point(flying.route[1])
        assert app.query_one("#seat-0", SeatPanel).region.contains_point(flying.route[1])
        await landed(app, pilot)
        assert not app.query(FlyingCards)
        assert "29 cards  +6" in text(app, "#seat-0")


async def test_the_header_names_the_round_being_played(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome())
    await settle(link, pilot)
    assert "round" not in text(app, "#top"), "no round before the game"
    link.push(*START, *WAR_TO_ANN)
    await settle(link, pilot)
    assert "· round 1 ·" in text(app, "#top"), "the first round, war and all"
    link.push(CardsTaken(seq=9, step=2, round=1, seat=0, count=6, counts=(29, 23)))
    await settle(link, pilot)
    assert "· round 2 ·" in text(app, "#top"), "the next round is the one to play"
    link.push(ben_wins(seq=10))
    await settle(link, pilot)
    assert "· 377 rounds" in text(app, "#top")


# --- issue 12, items 8, 11 and 12 ----------------------------------------------------------
THREE: list[ServerMessage] = [
    Welcome(
        seq=3,
        seat=0,
        token="secret-token-0123456789",
        state=RoomState(
            room="r8k2",
            phase=RoomPhase.WAITING,
            rules=RulesSpec(players=3),
            seats=tuple(
                SeatState(seat=s, name=n, connected=True)
                for s, n in enumerate(("Ann", "Ben", "Cy"))
            ),
        ),
    ),
    GameStarted(seq=4, game=1, counts=(17, 17, 17)),
    WaitingFor(seq=5, seats=(0, 1, 2)),
    CardsTurned(seq=6, step=1, round=1, depth=0, cards=((0, "2S"), (1, "AS"), (2, "TD"))),
]


def card_rows(panel: SeatPanel) -> range:
    """The screen rows where a panel draws cards (below all its lines of text)."""
    content = panel.content
    lines = (content.plain if hasattr(content, "plain") else str(content)).split("\n")
    first = panel.region.y + 1 + len(lines) - CARD_HEIGHT  # border, then the text lines
    return range(first, panel.region.bottom - 1)


async def test_a_haul_flies_from_the_table_never_from_the_winner_nor_over_words() -> None:
    link = FakeLink()
    app = WarApp(
        link,
        viewer=Viewer(EN),
        haul=Haul(flight_seconds=TIMEOUT * 10, highlight_seconds=TIMEOUT * 10),
    )
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(*THREE)
        await settle(link, pilot)
        link.push(CardsTaken(seq=7, step=1, round=1, seat=1, count=3, counts=(16, 19, 16)))
        await settle(link, pilot)
        [flying] = app.query(FlyingCards)
        start, end = flying.route
        panels = {p.seat: p for p in app.query(SeatPanel)}
        ben = panels[1]
        assert not ben.region.contains_point(start), "never from the winner's own panel"
        assert any(panels[s].region.contains_point(start) for s in (0, 2)), "from a loser's"
        assert ben.region.contains_point(end)
        for point, panel in (
            (end, ben),
            (start, next(p for p in panels.values() if p.region.contains_point(start))),
        ):
            rows = card_rows(panel)
            assert point.y >= rows.start and point.y + CARD_HEIGHT <= rows.stop, "no words covered"
        assert flying.region.height == CARD_HEIGHT


async def test_the_highlight_follows_the_round_just_played(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    app.animation_level = "none"
    link.push(welcome(), *START, *WAR_TO_ANN)
    link.push(CardsTaken(seq=9, step=2, round=1, seat=1, count=6, counts=(23, 29)))
    await settle(link, pilot)
    assert "29 cards  +6" in text(app, "#seat-1")
    link.push(CardsTurned(seq=10, step=3, round=2, depth=0, cards=((0, "KH"), (1, "2S"))))
    await settle(link, pilot)
    assert "+6" not in text(app, "#seat-1"), "the next flip ends the last haul's highlight"
    assert not app.query_one("#seat-1", SeatPanel).has_class("won")
    link.push(CardsTaken(seq=11, step=3, round=2, seat=0, count=2, counts=(24, 28)))
    await settle(link, pilot)
    assert "24 cards  +2" in text(app, "#seat-0")


async def test_a_flight_in_the_air_lands_when_the_next_round_is_turned(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    await ben_takes_the_war(link, pilot)
    assert app.query(FlyingCards)
    link.push(CardsTurned(seq=10, step=3, round=2, depth=0, cards=((0, "KH"), (1, "2S"))))
    await settle(link, pilot)
    await pilot.pause()
    assert not app.query(FlyingCards)
    assert "28 cards" in text(app, "#seat-1") and "+6" not in text(app, "#seat-1")


async def test_two_quick_taps_send_one_ready(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    """A second tap before the room answered the first sends nothing (it would be a
    stale ready once the first played the step)."""
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    await pilot.press("space", "space")
    await pilot.pause()
    assert link.sent == [Ready(step=0)]
    assert "You are ready; waiting for the others." in text(app, "#said")


async def test_two_quick_a_presses_step_twice(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    _app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    await pilot.press("a", "a")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.CALM)
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.QUICK)
    link.push(
        AutoPlayChanged(seq=5, seat=0, mode=AutoPlay.CALM),
        AutoPlayChanged(seq=6, seat=0, mode=AutoPlay.QUICK),
    )
    await settle(link, pilot)
    await pilot.press("a")
    assert await link.next_sent() == SetAutoPlay(mode=AutoPlay.OFF)


async def test_the_footer_fits_at_60_columns() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test(size=(60, 24)) as pilot:
        for messages in ([welcome()], START):
            link.push(*messages)
            await settle(link, pilot)
            keys = [k for k in app.query(FooterKey) if k.display]
            assert keys, "the footer shows keys"
            assert max(k.region.right for k in keys) <= 60, [str(k.region) for k in keys]


async def test_the_rules_show_in_the_waiting_room_and_on_demand(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome())
    await settle(link, pilot)
    rules = app.query_one("#rules", Static)
    assert rules.display and text(app, "#rules").startswith("Rules: Aces are high. One card")
    link.push(*START)
    await settle(link, pilot)
    assert not rules.display, "the game needs the room"
    await pilot.press("question_mark")
    assert rules.display
    await pilot.press("question_mark")
    assert not rules.display


async def test_game_over_shows_the_last_lines_and_the_rematch_votes(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(
        welcome(),
        *START,
        ben_wins(seq=5),
        RematchVoted(seq=6, seat=1, deal=RematchDeal.SAME),
    )
    await settle(link, pilot)
    assert app.query_one("#said", SaidLines).display
    assert "Ben asks for this deal again." in text(app, "#said")
    assert "Ben asked for this deal again; still to vote: you." in text(app, "#summary")
    await pilot.press("r")
    assert await link.next_sent() == Rematch(deal=RematchDeal.NEW)
    link.push(RematchVoted(seq=7, seat=0, deal=RematchDeal.NEW))
    await settle(link, pilot)
    assert "You asked for a new deal, Ben for this deal again." in text(app, "#summary")


async def test_q_and_ctrl_q_say_one_line_on_leaving() -> None:
    for key, farewell, sent in (
        ("q", LEFT_LINE, [Leave()]),
        ("ctrl+q", CLOSED_LINE, []),
    ):
        link = FakeLink()
        app = WarApp(link, viewer=Viewer(EN))
        async with app.run_test() as pilot:
            link.push(welcome(), *START)
            await settle(link, pilot)
            await pilot.press(*([key] * (2 if key == "q" else 1)))
            await pilot.pause()
        assert (app.farewell, link.sent, link.closed, app.return_code) == (farewell, sent, True, 0)
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test() as pilot:
        link.push(welcome(seat=None), *START)
        await settle(link, pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.farewell == STOPPED_WATCHING_LINE and link.sent == []


async def test_a_stop_signal_closes_the_link_as_going_away() -> None:
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(EN))
    async with app.run_test() as pilot:
        link.push(welcome(), *START)
        await settle(link, pilot)
        app.stopped_by_signal()
        await pilot.pause()
        await link.drained()
    assert (link.closed, link.close_code, app.return_code) == (True, 1001, 143)


async def test_y_and_n_answer_a_seat_request(table: tuple[WarApp, FakeLink, Pilot[None]]) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    await pilot.press("y")
    await pilot.pause()
    assert link.sent == [], "nobody asks: nothing is sent"
    link.push(SeatRequested(seq=5, seat=1, seconds=60))
    await settle(link, pilot)
    said = text(app, "#said")
    assert "Someone wants to take Ben's seat from another device — let them?" in said
    assert "Press y to allow, n to refuse." in said
    await pilot.press("n")
    assert await link.next_sent() == AnswerSeatRequest(seat=1, allow=False)


async def test_a_welcome_during_a_seat_request_asks_and_y_answers_it(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    first = welcome()
    seats = (SeatState(seat=0, name="Ann", connected=True), SeatState(seat=1, name="Ben"))
    state = replace(
        first.state,
        phase=RoomPhase.PLAYING,
        seats=seats,
        seat_request=SeatRequest(seat=1, seconds=30),
    )
    link.push(replace(first, state=state))  # the seat_requested came before this connection
    await settle(link, pilot)
    said = text(app, "#said")
    assert "Someone wants to take Ben's seat from another device — let them?" in said
    assert "Press y to allow, n to refuse." in said
    await pilot.press("y")
    assert await link.next_sent() == AnswerSeatRequest(seat=1, allow=True)


async def test_the_fingerprint_from_the_start_and_the_check_at_game_over(
    table: tuple[WarApp, FakeLink, Pilot[None]],
) -> None:
    app, link, pilot = table
    link.push(welcome(), *START)
    await settle(link, pilot)
    assert not app.query_one("#fair", Static).display  # no commitment shown: nothing to say
    link.event(
        Received(WaitingFor(seq=5, seats=(0, 1)), link.view, link.view, None, "DWRA-TF24-RV9T")
    )
    await settle(link, pilot)
    assert "Fair deal fingerprint: DWRA-TF24-RV9T" in text(app, "#fair")
    over = ben_wins(6)
    before, link.view = link.view, apply(link.view, over)
    problem = said("check.server_seed_mismatch")
    failed = FairVerdict(1, False, problem=problem)
    link.event(Received(over, before, link.view, failed, "DWRA-TF24-RV9T"))
    await settle(link, pilot)
    shown = text(app, "#fair")
    assert "DWRA-TF24-RV9T" in shown
    assert (
        "Fair deal: FAILED — the server seed revealed does not match the deal commitment shown"
        " at the start." in shown
    )


@pytest.mark.parametrize(
    ("tag", "line"),
    [
        (
            "en",
            "The deal is void: Ben's seed was not revealed (voids this evening: 2)."
            " A fresh deal is drawn.",
        ),
        (
            "de",
            "Die Mischung ist ungültig: Der Startwert von Ben wurde nicht aufgedeckt"
            " (ungültige Mischungen heute Abend: 2). Es wird neu gemischt.",
        ),
    ],
)
async def test_a_void_deal_is_said_in_the_log_as_plain_says_it(tag: str, line: str) -> None:
    """``deal_voided``: the TUI's log says the sentence `--plain` prints
    (`client.fair.watch.voided_line`), in the viewer's language."""
    link = FakeLink()
    app = WarApp(link, viewer=Viewer(catalog(tag, strict=True)))
    async with app.run_test(size=(100, 40)) as pilot:
        link.push(welcome(), *START)
        await settle(link, pilot)
        assert line not in text(app, "#said")
        link.push(DealVoided(seq=5, seat=1, voids=2))
        await settle(link, pilot)
        assert line in text(app, "#said")

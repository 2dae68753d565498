// The words of war-client for seat `me` (null: a spectator), as client/sentences.py;
// both are checked against tests/vectors/.

import { endedLine, requestedLine, waitingLine } from "./takeover.js";
import { rankWord } from "./cards.js";
import { clockText } from "./countdown.js";
import { eveningScore, talkLine } from "./talk.js";
import { awayWaited, nameOf, openSeats, seatOf, stillToVote, welcomed } from "./view.js";

const WAR_NAMES = { 1: "war", 2: "double war", 3: "triple war", 4: "quadruple war" };
const LONGEST = { 0: "none", 1: "single", 2: "double", 3: "triple", 4: "quadruple" };

/** ["a"] -> "a", ["a", "b"] -> "a and b", three -> "a, b and c". */
export function joinWords(items) {
  const words = [...items];
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

export const warName = (depth) => WAR_NAMES[depth] ?? `war ${depth} deep`;
export const longestName = (depth) => LONGEST[depth] ?? `${depth} deep`;

const cap = (text) => text.slice(0, 1).toUpperCase() + text.slice(1);
const sentence = (text) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
const plural = (count, word) => (count === 1 ? `${count} ${word}` : `${count} ${word}s`);
// The room's one computer opponent (the server names it "Computer") is "the computer".
const theComputer = (view, seat) => seatOf(view, seat)?.computer === true && view.seats[seat].name === "Computer";
export const who = (view, seat, me) => (seat === me ? "you" : theComputer(view, seat) ? "the computer" : nameOf(view, seat));
const whose = (view, seat, me) => (seat === me ? "your" : `${who(view, seat, me)}'s`);
// "you take" / "Ben takes"; again(): "it takes" for the computer, just named
const does = (view, seat, me, youForm, otherForm) => `${who(view, seat, me)} ${seat === me ? youForm : otherForm}`;
const again = (view, seat, me, youForm, otherForm) =>
  seat !== me && theComputer(view, seat) ? `it ${otherForm}` : does(view, seat, me, youForm, otherForm);
const cardOf = (view, seat, card, me) => `${whose(view, seat, me)} ${rankWord(card)}`;
const pending = (view, me) => {
  const seats = stillToVote(view);
  return seats.length ? [`Still to vote: ${joinWords(seats.map((s) => who(view, s, me)))}.`] : [];
};

/** What `message` changed, for `me` (maybe nothing); `table: true` leaves out of the welcome
 * what a table shows by itself (codes, players still awaited, the rules). */
export function describe(before, message, after, me, { table = false } = {}) {
  if (after === before) return [];
  if (after.needs_resync && !before.needs_resync) {
    return ["Some messages went missing; asking the server for the whole table."];
  }
  const m = message;
  switch (m.type) {
    case "welcome":
      return welcomeLines(after, me, table, !welcomed(before));
    case "error":
      if (!welcomed(after)) return []; // a refused opening: the connection's end says why, once
      return [`The server says: ${sentence(m.message || m.code)}`];
    case "player_joined":
      if (m.seat === me) return [];
      if (theComputer(after, m.seat)) return [`The computer takes seat ${m.seat + 1}.`];
      return [`${m.computer ? `${m.name} (the computer)` : m.name} takes seat ${m.seat + 1}.`];
    case "player_left":
      return [`${cap(does(before, m.seat, me, "leave", "leaves"))} the table.`];
    case "seat_request_waiting":
      return [waitingLine(m)];
    case "seat_requested":
      return [requestedLine(after, m, me)];
    case "seat_request_ended":
      return [endedLine(after, m, me)];
    case "connection_changed":
      if (m.seat === me) return [];
      if (m.rejoined) return [`${nameOf(after, m.seat)} is back, on another device (with the player code).`];
      return [`${nameOf(after, m.seat)} is ${m.connected ? "back" : "away"}.`];
    case "waiting_for": {
      const earlier = awayWaited(before);
      const away = awayWaited(after).filter((s) => !earlier.includes(s));
      if (!away.length || after.phase !== "playing") return [];
      return [`The game waits for ${joinWords(away.map((s) => nameOf(after, s)))}, away for now.`];
    }
    case "auto_play_changed":
      if (m.away) return [awayPlay(after, m.seat, me, m.mode === "calm")];
      if (m.seat === me) return [`Your auto-play is ${m.mode}.`];
      if (after.left.includes(m.seat)) {
        return m.mode === "off" ? [] : [`The computer plays for ${nameOf(after, m.seat)} from now on.`];
      }
      if (seatOf(after, m.seat)?.computer) return []; // the computer plays at its own pace
      return [`${nameOf(after, m.seat)} turns auto-play ${m.mode}.`];
    case "finish_voted":
      return [`${cap(does(after, m.seat, me, "vote", "votes"))} to finish the game.`, ...pending(after, me)];
    case "rematch_voted": {
      const wish = m.deal === "new" ? "a rematch with a new deal" : "this deal again";
      return [`${cap(does(after, m.seat, me, "ask", "asks"))} for ${wish}.`, ...pending(after, me)];
    }
    case "spectators_changed":
      if (m.count === 0) return ["Nobody is watching now."];
      return [m.count === 1 ? "1 person is watching." : `${m.count} people are watching.`];
    case "game_started":
      return gameStarted(before, after, m);
    case "time_up":
      return after.war_depth ? ["Time is up: the game ends once this war is settled."] : ["Time is up."];
    case "war_declared":
      return [war(after, m, me)];
    case "cards_laid_down":
      return laidDown(after, m, me);
    case "cards_taken":
      return [taken(after, m, me)];
    case "cards_returned": {
      const said = "Everyone in the war ran out of cards at once: each takes their own cards back.";
      return playedAgain(before, after) ? [said, "Nobody takes this round: it is played again."] : [said];
    }
    case "player_out": {
      const why = m.reason === "short_war" ? "too few cards to finish the war" : "no cards left";
      const [verb, out] = m.seat === me ? ["have", "are"] : ["has", "is"];
      return [`${cap(who(after, m.seat, me))} ${verb} ${why} and ${out} out.`];
    }
    case "game_over": {
      if (after.result === null) return [];
      const placed = standingsSentence(after, after.result, me);
      const lines = [resultSentence(after, after.result, me), summarySentence(after.result), ...(placed === null ? [] : [placed])];
      return after.evening.length ? [...lines, `The evening so far: ${eveningScore(after.evening)}.`] : lines;
    }
    case "said":
    case "reacted":
      return after.talk.length ? [talkLine(after, after.talk[after.talk.length - 1], me)] : [];
    default:
      return [];
  }
}

// The server starts (`playing`) or stops playing an away seat for its player.
function awayPlay(view, seat, me, playing) {
  if (seat === me) {
    return playing
      ? "You are away: the server plays for you calmly until you come back."
      : "While you were away the server played for you; now you play again.";
  }
  const name = nameOf(view, seat);
  return playing ? `${name} is away: the server plays for them calmly until they come back.` : `The server no longer plays for ${name}.`;
}

// A round given back is played again when someone outside the war that ran out is still in
// and the rules play on (both_short; 0.1's rooms end instead).
function playedAgain(before, after) {
  if (after.rules.both_short !== "play_on") return false;
  return after.seats.some((s) => s.name !== null && !s.out && !before.war_seats.includes(s.seat));
}

function welcomeLines(view, me, table, first) {
  const lines = [];
  if (me === null) {
    const seated = view.seats.filter((s) => s.name !== null).map((s) => who(view, s.seat, me));
    lines.push(`You are watching ${joinWords(seated) || "an empty table"}.`);
  } else {
    lines.push(`You are ${nameOf(view, me)}, at seat ${me + 1} of ${view.rules.players}.`);
  }
  const missing = openSeats(view).length;
  if (view.phase === "playing") {
    const on = `The game is on: round ${view.round + 1}`;
    if (view.time_up) lines.push(`${on}; time is up.`);
    else if (view.seconds_left !== null) lines.push(`${on}, ${clockText(view.seconds_left)} left.`);
    else lines.push(`${on}.`);
  } else if (view.phase === "over" && view.result !== null) {
    lines.push(resultSentence(view, view.result, me));
  } else if (missing && !table) {
    lines.push(`Waiting for ${plural(missing, "more player")}.`);
    if (view.player_code !== null) lines.push(`Player code: ${view.player_code}.`);
  }
  if (view.watch_code !== null && me !== null && !table) lines.push(`Watch code: ${view.watch_code}.`);
  if (first && !table) lines.push(`Rules: ${rulesSentence(view.rules, view.minutes)}`);
  return lines;
}

function gameStarted(before, view, m) {
  const counts = new Set(m.counts);
  const each = counts.size === 1 ? `${plural([...counts][0], "card")} each` : "cards dealt";
  const aside = m.counts.reduce((a, b) => a + b, 0) === 51 ? " (one card is set aside)" : "";
  const deal = m.deal !== null ? `, deal ${m.deal}` : "";
  const clock = view.minutes ? ` ${plural(view.minutes, "minute")} on the clock.` : "";
  if (m.game === 1) return [`The game begins${deal}: ${each}${aside}.${clock}`];
  const lines = [];
  if (new Set(before.seats.map((s) => s.rematch_vote).filter((v) => v !== null)).size > 1) {
    const won = m.deal !== null && m.deal === before.deal ? "this deal again" : "a new deal";
    lines.push(`The votes were split between a new deal and this deal again: ${won} won.`);
  }
  lines.push(`Rematch: game ${m.game} begins${deal}: ${each}${aside}.${clock}`);
  return lines;
}

function war(view, m, me) {
  const head = `${cap(warName(m.depth))}!`;
  const flip = view.last_flip;
  if (flip === null) {
    return `${head} ${cap(joinWords(m.seats.map((s) => who(view, s, me))))} go to war.`;
  }
  const tied = flip.cards.filter(([s]) => m.seats.includes(s));
  // a seat already out of the game does not "sit this one out": it is not playing
  const others = flip.cards.filter(([s]) => !m.seats.includes(s) && !seatOf(view, s)?.out).map(([s]) => s);
  let text;
  if (tied.length === 2) {
    // me first (a stable sort, as Python's)
    const [[s1, c1], [s2, c2]] = [...tied].sort((a, b) => Number(a[0] !== me) - Number(b[0] !== me));
    text = `${head} ${cap(cardOf(view, s1, c1, me))} ties ${cardOf(view, s2, c2, me)}.`;
  } else {
    text = `${head} ${cap(joinWords(tied.map(([s, c]) => cardOf(view, s, c, me))))} tie.`;
  }
  if (others.length) {
    text += ` ${cap(joinWords(others.map((s) => who(view, s, me))))} `;
    text += others.length > 1 || others[0] === me ? "sit this one out." : "sits this one out.";
  }
  return text;
}

// Only a short player is worth a sentence (last_card).
function laidDown(view, m, me) {
  if (view.rules.short_war !== "last_card") return [];
  const lines = [];
  for (const [seat, count] of m.counts) {
    const record = seatOf(view, seat);
    if (count >= view.rules.face_down || record === null) continue;
    if (count) {
      lines.push(`${cap(does(view, seat, me, "are", "is"))} short of cards: only ${count} face down.`);
    } else if (record.count) {
      lines.push(`${cap(does(view, seat, me, "have", "has"))} one card left: it goes face up.`);
    } else if (record.face_up.length) {
      const owner = seat !== me && theComputer(view, seat) ? "its" : whose(view, seat, me);
      const standing = `${owner} ${rankWord(record.face_up[record.face_up.length - 1])}`;
      lines.push(`${cap(does(view, seat, me, "have", "has"))} no cards left: ${standing} stands again.`);
    }
  }
  return lines;
}

function taken(view, m, me) {
  const winner = m.seat;
  const flip = view.last_flip;
  const haul = plural(m.count, "card");
  const verb = winner === me ? "take" : "takes";
  const cards = new Map(flip === null ? [] : flip.cards);
  if (flip === null || flip.step !== m.step || !cards.has(winner)) {
    return `${cap(does(view, winner, me, "are", "is"))} the last one left in the war and ${verb} ${haul}.`;
  }
  const beaten = joinWords(flip.cards.filter(([s]) => s !== winner).map(([s, c]) => cardOf(view, s, c, me)));
  const text = `${cap(cardOf(view, winner, cards.get(winner), me))} beats ${beaten}.`;
  if (flip.depth) {
    return `${text} ${cap(again(view, winner, me, "win", "wins"))} the ${warName(flip.depth)} and ${verb} ${haul}.`;
  }
  return `${text} ${cap(again(view, winner, me, "take", "takes"))} ${haul}.`;
}

const WHY = {
  both_short: "everyone in a war ran out of cards at once",
  time_limit: "time is up",
  endless: "the same position came round again, so the game would never end",
};

/** "Game over: you have all 52 cards. You win!" */
export function resultSentence(view, result, me) {
  const counts = new Map(view.seats.map((s) => [s.seat, s.count]));
  const winner = result.winner;
  const why = result.termination;
  let reason;
  if (why === "all_cards" && winner !== null) {
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    reason = `${does(view, winner, me, "have", "has")} all ${total} cards`;
  } else if (why === "opponents_short" && winner !== null) {
    const short = ranShort(view, winner);
    const named = joinWords(short.map((s) => who(view, s, me)));
    reason = `${short.length === 1 ? named : `one of ${named}`} ran short of cards in a war`;
  } else if (why === "round_limit") {
    reason = `the limit of ${plural(view.rules.round_limit || result.summary.rounds, "round")} is reached`;
  } else {
    reason = WHY[why] ?? why.replace(/_/g, " ");
  }
  return `Game over: ${reason}. ${winnerClause(view, result, counts, me)}`;
}

// Who went out short in the war that ended the game: the latest player_out for a short war
// if the view saw it; else the opponents not out before the end; else every opponent.
function ranShort(view, winner) {
  const said = view.recent.filter((m) => m.type === "player_out" && m.step === view.step && m.reason === "short_war");
  if (said.length) return [said[said.length - 1].seat];
  const opponents = view.seats.filter((s) => s.seat !== winner && s.name !== null).map((s) => s.seat);
  const stillIn = opponents.filter((s) => !view.seats[s].out);
  return stillIn.length ? stillIn : opponents;
}

function winnerClause(view, result, counts, me) {
  const winner = result.winner;
  if (winner === null) {
    const held = [...new Set([...counts].filter(([s]) => !view.seats[s].out).map(([, c]) => c))];
    return held.length === 1 ? `It's a draw: ${plural(held[0], "card")} each.` : "It's a draw.";
  }
  const win = winner === me ? "You win!" : `${cap(who(view, winner, me))} wins.`;
  if (result.termination === "all_cards" || result.termination === "opponents_short") return win;
  const rest = [...counts]
    .filter(([s]) => s !== winner && !view.seats[s].out)
    .map(([s, count]) => `${whose(view, s, me)} ${count}`);
  return `${win.slice(0, -1)} with ${counts.get(winner)} cards to ${joinWords(rest)}.`;
}

export const PLACE_WORDS = { 1: "1st", 2: "2nd", 3: "3rd", 4: "4th" };

/** The server's standings as [[place, [seat, ...]], ...], first place first. */
export function places(result) {
  const grouped = new Map();
  (result.standings ?? []).forEach((place, seat) => grouped.set(place, [...(grouped.get(place) ?? []), seat]));
  return [...grouped].sort((a, b) => a[0] - b[0]);
}

/** "Standings: 1st Ben, 2nd you, 3rd Grandma and Sam."; null for two players. */
export function standingsSentence(view, result, me) {
  if ((result.standings ?? []).length < 3) return null;
  const parts = places(result).map(([place, seats]) => `${PLACE_WORDS[place] ?? place} ${joinWords(seats.map((s) => who(view, s, me)))}`);
  return `Standings: ${parts.join(", ")}.`;
}

/** The game's figures, the same for everyone. */
export function summarySentence(result) {
  const s = result.summary;
  if (s.rounds === 0) return `No round was won. Deal ${s.deal}.`; // figures count rounds taken
  const parts = [plural(s.rounds, "round")];
  if (s.wars) parts.push(plural(s.wars, "war"), `longest war: ${longestName(s.longest_war)}`);
  else parts.push("no wars");
  parts.push(`biggest haul: ${plural(s.biggest_haul, "card")}`, `deal ${s.deal}`);
  return `${parts.join(", ")}.`;
}

/** What the game waits for and what `me` may do now; `touch`: name the buttons of a touch
 * screen ("Tap Turn over.") instead of keys. */
export function status(view, me, { touch = false } = {}) {
  const turn = touch ? "Tap Turn over" : "Press space";
  if (!welcomed(view)) return "Connecting…";
  if (view.needs_resync) return "Catching up with the table…";
  if (view.phase === "waiting") return `Waiting for ${plural(openSeats(view).length, "more player")} to join.`;
  if (view.phase === "over") {
    const mine = seatOf(view, me);
    if (mine === null || view.left.includes(mine.seat)) return "Game over.";
    if (mine.rematch_vote !== null) {
      const seats = stillToVote(view);
      return seats.length ? `Waiting for ${joinWords(seats.map((s) => who(view, s, me)))} to vote.` : "Starting the rematch…";
    }
    if (touch) return "Game over. Tap a rematch button to play again.";
    return "Game over. Press r for a rematch with a new deal, d to replay this deal, q to leave.";
  }
  const mine = seatOf(view, me);
  const away = new Set(awayWaited(view));
  const names = joinWords(view.waiting_for.filter((s) => s !== me).map((s) => who(view, s, me) + (away.has(s) ? " (away)" : "")));
  if (mine !== null && mine.out) return "You are out of this game; the others play on.";
  if (mine !== null && view.waiting_for.includes(me) && !mine.ready) {
    if (mine.auto !== "off") {
      const change = touch ? "Tap off under Auto-play to turn over yourself" : "Press a to change it";
      return `Auto-play (${mine.auto}) turns over for you. ${change}.`;
    }
    if (view.war_depth) {
      const down = view.rules.face_down;
      const lay = mine.count > down ? `lay ${plural(down, "card")} face down and turn one up` : "lay your cards down";
      return `${cap(warName(view.war_depth))}! ${turn} to ${lay}.`;
    }
    return touch ? "Tap Turn over." : `${turn} to turn over.`;
  }
  if (mine !== null && view.war_depth && !view.war_seats.includes(me)) {
    return `${cap(joinWords(view.war_seats.map((s) => who(view, s, me))))} are at war; you sit this one out.`;
  }
  return names ? `Waiting for ${names}.` : "Turning over…";
}

/** The rules in force in plain words, the same for everyone. */
export function rulesSentence(rules, minutes = null) {
  const lines = [rules.aces === "high" ? "Aces are high." : "Aces are low, below the 2s."];
  const down = { 1: "One", 3: "Three" }[rules.face_down] ?? String(rules.face_down);
  lines.push(`${down} card${rules.face_down !== 1 ? "s" : ""} face down in a war.`);
  if (rules.short_war === "last_card") lines.push("A player short of cards in a war turns up their last card.");
  else lines.push(`A player short of cards in a war ${rules.players === 2 ? "loses" : "is out"}.`);
  if (rules.players > 2 && rules.both_short === "end") lines.push("If everyone in a war runs out at once, the game ends (the old rule).");
  else if (rules.players > 2 && rules.taken_back === "as_laid" && rules.won_cards === "shuffle") lines.push("If everyone in a war runs out at once, their cards go back unshuffled (the old rule).");
  if (rules.won_cards === "fixed" && rules.fixed_order === "seat0") {
    lines.push("Won cards go under the pile in the order they were laid down, seat 1's first (the old rule).");
  } else if (rules.won_cards === "fixed") lines.push("Won cards go under the pile in the order they were laid down.");
  else lines.push("Won cards are shuffled before they go under the pile.");
  if (rules.round_limit === null && minutes === null) {
    lines.push("No limit: the game ends when one player has every card.");
    return lines.join(" ");
  }
  const limit = rules.round_limit !== null ? plural(rules.round_limit, "round") : plural(minutes || 0, "minute");
  lines.push(`The game ends after ${limit}: most cards wins.`);
  lines.push(rules.tie_break === "battle" ? "Equal counts then play on until one player has more." : "Equal counts then are a draw.");
  return lines.join(" ");
}

/** Who voted to finish, or asked for which rematch, and who still has to vote; or null. */
export function votesSentence(view, me) {
  const names = (seats) => joinWords(seats.map((s) => who(view, s, me)));
  const by = (test) => view.seats.filter(test).map((s) => s.seat);
  let said;
  if (view.phase === "playing") {
    const voted = by((s) => s.finish_vote);
    if (!voted.length) return null;
    said = `${cap(names(voted))} voted to finish now (the rest is played out at once)`;
  } else if (view.phase === "over") {
    const fresh = by((s) => s.rematch_vote === "new");
    const same = by((s) => s.rematch_vote === "same");
    if (!fresh.length && !same.length) return null;
    const asks = [];
    if (fresh.length) asks.push(`${names(fresh)} asked for a new deal`);
    if (same.length) asks.push(`${names(same)} ${fresh.length ? "for this deal again" : "asked for this deal again"}`);
    said = cap(asks.join(", "));
  } else {
    return null;
  }
  const waiting = stillToVote(view);
  return waiting.length ? `${said}; still to vote: ${names(waiting)}.` : `${said}.`;
}

/** The rules in force in one short line, for the table's header: "Aces high · 1 down ·
 * short loses · shuffled · no limit" (rulesSentence is the full text it opens to). */
export function rulesLine(rules, minutes = null) {
  const parts = [`Aces ${rules.aces}`, `${rules.face_down} down`];
  if (rules.short_war === "last_card") parts.push("short plays last card");
  else parts.push(rules.players === 2 ? "short loses" : "short is out");
  if (rules.players > 2 && rules.both_short === "end") parts.push("all short ends it");
  if (rules.won_cards === "fixed") parts.push(rules.fixed_order === "seat0" ? "in order, seat 1 first" : "in order");
  else parts.push("shuffled");
  if (rules.round_limit === null && minutes === null) parts.push("no limit");
  else {
    parts.push(rules.round_limit !== null ? plural(rules.round_limit, "round") : plural(minutes || 0, "minute"));
    parts.push(rules.tie_break === "battle" ? "ties play on" : "ties draw");
  }
  return parts.join(" · ");
}

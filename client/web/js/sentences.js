// The words of war-client for seat `me` (null: a spectator), as client/sentences.py;
// both are checked against tests/vectors/.

import { rankWord } from "./cards.js";
import { clockText } from "./countdown.js";
import { awayWaited, nameOf, openSeats, seatOf, welcomed } from "./view.js";

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
const plural = (count, word) => (count === 1 ? `${count} ${word}` : `${count} ${word}s`);
const who = (view, seat, me) => (seat === me ? "you" : nameOf(view, seat));
const whose = (view, seat, me) => (seat === me ? "your" : `${nameOf(view, seat)}'s`);
// "you take" / "Ben takes"
const does = (view, seat, me, youForm, otherForm) => `${who(view, seat, me)} ${seat === me ? youForm : otherForm}`;
const cardOf = (view, seat, card, me) => `${whose(view, seat, me)} ${rankWord(card)}`;

/** What `message` changed, for `me` (maybe nothing); `codes: false` leaves the room's codes
 * out of the welcome (a table shows them). */
export function describe(before, message, after, me, { codes = true } = {}) {
  if (after === before) return [];
  if (after.needs_resync && !before.needs_resync) {
    return ["Some messages went missing; asking the server for the whole table."];
  }
  const m = message;
  switch (m.type) {
    case "welcome":
      return welcomeLines(after, me, codes);
    case "error":
      if (!welcomed(after)) return []; // a refused opening: the connection's end says why, once
      return [`The server says: ${m.message || m.code} (${m.code}).`];
    case "player_joined": {
      if (m.seat === me) return [];
      const name = m.computer ? `${m.name} (the computer)` : m.name;
      return [`${name} takes seat ${m.seat + 1}.`];
    }
    case "player_left":
      return [`${cap(does(after, m.seat, me, "leave", "leaves"))} the table.`];
    case "connection_changed":
      if (m.seat === me) return [];
      return [`${nameOf(after, m.seat)} is ${m.connected ? "back" : "away"}.`];
    case "waiting_for": {
      const earlier = awayWaited(before);
      const away = awayWaited(after).filter((s) => !earlier.includes(s));
      if (!away.length || after.phase !== "playing") return [];
      return [`The game waits for ${joinWords(away.map((s) => nameOf(after, s)))}, away for now.`];
    }
    case "auto_play_changed":
      if (m.seat === me) return [`Your auto-play is ${m.mode}.`];
      return [`${nameOf(after, m.seat)} turns auto-play ${m.mode}.`];
    case "finish_voted":
      return [`${cap(does(after, m.seat, me, "vote", "votes"))} to finish the game.`];
    case "rematch_voted": {
      const wish = m.deal === "new" ? "a rematch with a new deal" : "this deal again";
      return [`${cap(does(after, m.seat, me, "ask", "asks"))} for ${wish}.`];
    }
    case "spectators_changed":
      if (m.count === 0) return ["Nobody is watching now."];
      if (m.count === 1) return ["1 person is watching."];
      return [`${m.count} people are watching.`];
    case "game_started":
      return [gameStarted(after, m)];
    case "time_up":
      return after.war_depth ? ["Time is up: the game ends once this war is settled."] : ["Time is up."];
    case "war_declared":
      return [war(after, m, me)];
    case "cards_laid_down":
      return laidDown(after, m, me);
    case "cards_taken":
      return [taken(after, m, me)];
    case "cards_returned":
      return ["Everyone in the war ran out of cards at once: each takes their own cards back."];
    case "player_out": {
      const why = m.reason === "short_war" ? "too few cards to finish the war" : "no cards left";
      const [verb, out] = m.seat === me ? ["have", "are"] : ["has", "is"];
      return [`${cap(who(after, m.seat, me))} ${verb} ${why} and ${out} out.`];
    }
    case "game_over":
      if (after.result === null) return [];
      return [resultSentence(after, after.result, me), summarySentence(after.result)];
    default:
      return [];
  }
}

function welcomeLines(view, me, codes) {
  const lines = [];
  if (me === null) {
    const seated = view.seats.filter((s) => s.name !== null).map((s) => s.name);
    lines.push(`You are watching ${joinWords(seated) || "an empty table"}.`);
  } else {
    lines.push(`You are ${nameOf(view, me)}, at seat ${me + 1} of ${view.rules.players}.`);
  }
  const missing = openSeats(view).length;
  if (view.phase === "playing") {
    const played = `The game is on: ${plural(view.round, "round")} played`;
    if (view.time_up) lines.push(`${played}; time is up.`);
    else if (view.seconds_left !== null) lines.push(`${played}, ${clockText(view.seconds_left)} left.`);
    else lines.push(`${played}.`);
  } else if (view.phase === "over" && view.result !== null) {
    lines.push(resultSentence(view, view.result, me));
  } else if (missing) {
    lines.push(`Waiting for ${plural(missing, "more player")}.`);
    if (view.player_code !== null && codes) lines.push(`Player code: ${view.player_code}.`);
  }
  if (view.watch_code !== null && me !== null && codes) lines.push(`Watch code: ${view.watch_code}.`);
  return lines;
}

function gameStarted(view, m) {
  const counts = new Set(m.counts);
  const each = counts.size === 1 ? `${plural([...counts][0], "card")} each` : "cards dealt";
  const aside = m.counts.reduce((a, b) => a + b, 0) === 51 ? " (one card is set aside)" : "";
  const start = m.game === 1 ? "The game begins" : `Rematch: game ${m.game} begins`;
  const deal = m.deal !== null ? `, deal ${m.deal}` : "";
  const clock = view.minutes ? ` ${plural(view.minutes, "minute")} on the clock.` : "";
  return `${start}${deal}: ${each}${aside}.${clock}`;
}

function war(view, m, me) {
  const head = `${cap(warName(m.depth))}!`;
  const flip = view.last_flip;
  if (flip === null) {
    return `${head} ${cap(joinWords(m.seats.map((s) => who(view, s, me))))} go to war.`;
  }
  const tied = flip.cards.filter(([s]) => m.seats.includes(s));
  const others = flip.cards.filter(([s]) => !m.seats.includes(s)).map(([s]) => s);
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
  const wanted = view.rules.face_down;
  const lines = [];
  for (const [seat, count] of m.counts) {
    const record = seatOf(view, seat);
    if (count >= wanted || record === null) continue;
    if (count) {
      lines.push(`${cap(does(view, seat, me, "are", "is"))} short of cards: only ${count} face down.`);
    } else if (record.count) {
      lines.push(`${cap(does(view, seat, me, "have", "has"))} one card left: it goes face up.`);
    } else if (record.face_up.length) {
      const standing = cardOf(view, seat, record.face_up[record.face_up.length - 1], me);
      lines.push(`${cap(does(view, seat, me, "have", "has"))} no cards left: ${standing} stands again.`);
    }
  }
  return lines;
}

function taken(view, m, me) {
  const winner = m.seat;
  const flip = view.last_flip;
  const take = does(view, winner, me, "take", "takes");
  const haul = plural(m.count, "card");
  const cards = new Map(flip === null ? [] : flip.cards);
  if (flip === null || flip.step !== m.step || !cards.has(winner)) {
    const last = cap(does(view, winner, me, "are", "is"));
    const verb = winner === me ? "take" : "takes";
    return `${last} the last one left in the war and ${verb} ${haul}.`;
  }
  const losers = flip.cards.filter(([s]) => s !== winner);
  const beaten =
    winner === me && losers.length === 1
      ? `the ${rankWord(losers[0][1])}`
      : joinWords(losers.map(([s, c]) => cardOf(view, s, c, me)));
  const text = `${cap(cardOf(view, winner, cards.get(winner), me))} beats ${beaten}.`;
  if (flip.depth) {
    const win = does(view, winner, me, "win", "wins");
    const verb = winner === me ? "take" : "takes";
    return `${text} ${cap(win)} the ${warName(flip.depth)} and ${verb} ${haul}.`;
  }
  return `${text} ${cap(take)} ${haul}.`;
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
    const losers = view.seats.filter((s) => s.seat !== winner && s.out).map((s) => s.seat);
    const short = joinWords(losers.slice(-1).map((s) => who(view, s, me))) || "the last opponent";
    reason = `${short} ran short of cards in a war`;
  } else if (why === "round_limit") {
    const limit = view.rules.round_limit || result.summary.rounds;
    reason = `the limit of ${plural(limit, "round")} is reached`;
  } else {
    reason = WHY[why] ?? why.replace(/_/g, " ");
  }
  return `Game over: ${reason}. ${winnerClause(view, result, counts, me)}`;
}

function winnerClause(view, result, counts, me) {
  const winner = result.winner;
  if (winner === null) {
    const held = [...new Set([...counts].filter(([s]) => !view.seats[s].out).map(([, c]) => c))];
    if (held.length === 1) return `It's a draw: ${plural(held[0], "card")} each.`;
    return "It's a draw.";
  }
  const win = winner === me ? "You win!" : `${nameOf(view, winner)} wins.`;
  if (result.termination === "all_cards" || result.termination === "opponents_short") return win;
  const rest = [...counts]
    .filter(([s]) => s !== winner && !view.seats[s].out)
    .map(([s, count]) => `${whose(view, s, me)} ${count}`);
  return `${win.slice(0, -1)} with ${counts.get(winner)} cards to ${joinWords(rest)}.`;
}

/** The game's figures, the same for everyone. */
export function summarySentence(result) {
  const s = result.summary;
  return (
    `${plural(s.rounds, "round")}, ${plural(s.wars, "war")}, ` +
    `longest war: ${longestName(s.longest_war)}, biggest haul: ${plural(s.biggest_haul, "card")}, ` +
    `deal ${s.deal}.`
  );
}

/** What the game waits for and what `me` may do now. */
export function status(view, me) {
  const turn = "Press space";
  if (!welcomed(view)) return "Connecting…";
  if (view.needs_resync) return "Catching up with the table…";
  if (view.phase === "waiting") return `Waiting for ${plural(openSeats(view).length, "more player")} to join.`;
  if (view.phase === "over") {
    if (me === null) return "Game over.";
    return "Game over. Press r for a rematch, d to replay this deal, q to leave.";
  }
  const mine = seatOf(view, me);
  const waiting = view.waiting_for.filter((s) => s !== me);
  const away = new Set(awayWaited(view));
  const names = joinWords(waiting.map((s) => nameOf(view, s) + (away.has(s) ? " (away)" : "")));
  if (mine !== null && mine.out) return "You are out of this game; the others play on.";
  if (mine !== null && view.waiting_for.includes(me) && !mine.ready) {
    if (mine.auto !== "off") return `Auto-play (${mine.auto}) turns over for you. Press a to change it.`;
    if (view.war_depth) {
      const down = view.rules.face_down;
      const lay = mine.count > down ? `lay ${plural(down, "card")} face down and turn one up` : "lay your cards down";
      return `${cap(warName(view.war_depth))}! ${turn} to ${lay}.`;
    }
    return `${turn} to turn over.`;
  }
  if (mine !== null && view.war_depth && !view.war_seats.includes(me)) {
    return `${joinWords(view.war_seats.map((s) => nameOf(view, s)))} are at war; you sit this one out.`;
  }
  if (names) return `Waiting for ${names}.`;
  return "Turning over…";
}

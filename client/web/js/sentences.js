// The words of war-client for seat `me` (null: a spectator) in the viewer's catalog
// (`words`, catalog.js), as client/words/sentences.py, client/words/standing.py and client/words/results.py;
// all are checked against tests/vectors/ in every language.

import { IT, YOU, card, count, said, war } from "./catalog.js";
import { endedLine, openRequestLine, requestedLine, waitingLine } from "./takeover.js";
import { clockText } from "./countdown.js";
import { dealText, eveningScore, talkLine } from "./talk.js";
import { awayWaited, nameOf, openSeats, seatOf, seatPerson, stillToVote, theComputer, welcomed } from "./view.js";

export { dealText };

// --- who is who, as client/words/who.py: language-neutral words
export { theComputer };

/** The seat by its name, a computer seat in the viewer's words, an open seat by its number;
 * never "you". */
export const nameWord = seatPerson;

/** `seat` as the sentences for `me` name it: you, the computer ("it", `again`), a name,
 * "Computer 2" in the viewer's words. */
export function who(view, seat, me, again = false) {
  if (seat === me) return YOU;
  if (again && theComputer(view, seat)) return IT;
  return seatPerson(view, seat);
}

export const persons = (view, seats, me) => seats.map((s) => who(view, s, me));
const cardOf = (view, seat, code, me, again = false) => card(who(view, seat, me, again), code);
const mode = (value) => said("auto.mode", { mode: value });
const pending = (view, me, w) => {
  const seats = stillToVote(view);
  if (seats.length) return [w.text("said.still_to_vote", { names: persons(view, seats, me) })];
  const seeds = seedsAwaited(view); // a fair deal's finish waits for every committed seed
  return seeds.length ? [w.text("said.finish_waits", { names: persons(view, seeds, me) })] : [];
};
/** What an error from the server means, by its code (its own sentence for a code we do not know). */
export const errorReason = (error) => said("error.reason", { code: error.code, message: error.message || error.code });

/** What `message` changed, for `me`, in `words` (maybe nothing); `table: true` leaves out
 * of the welcome what a table shows by itself (codes, players still awaited, the rules). */
export function describe(before, message, after, me, { table = false, words: w }) {
  if (after === before) return [];
  if (after.needs_resync && !before.needs_resync) return [w.text("said.resync")];
  const m = message;
  switch (m.type) {
    case "welcome":
      return welcomeLines(after, me, w, table, !welcomed(before));
    case "error":
      if (!welcomed(after)) return []; // a refused opening: the connection's end says why, once
      return [w.text("said.server_says", { reason: errorReason(m) })];
    case "player_joined":
      if (m.seat === me) return [];
      return [w.text("said.joined", { who: who(after, m.seat, me), seat: m.seat + 1 })];
    case "player_left":
      return [w.text("said.left", { who: who(before, m.seat, me) })];
    case "seat_request_waiting":
      return [waitingLine(m, w)];
    case "seat_requested":
      return [requestedLine(after, m, me, w)];
    case "seat_request_ended":
      return [endedLine(after, m, me, w)];
    case "snapshot": {
      // only drawn, but a request it brings (its seat_requested was missed) is told
      const asked = after.seat_request === before.seat_request ? null : openRequestLine(after, me, w);
      return asked === null ? [] : [asked];
    }
    case "connection_changed":
      if (m.seat === me) return [];
      if (m.rejoined) return [w.text("said.rejoined", { who: nameWord(after, m.seat) })];
      return [w.text(m.connected ? "said.back" : "said.away", { who: nameWord(after, m.seat) })];
    case "waiting_for": {
      const earlier = awayWaited(before);
      const away = awayWaited(after).filter((s) => !earlier.includes(s));
      if (!away.length || after.phase !== "playing") return [];
      return [w.text("said.waits_for_away", { names: away.map((s) => nameWord(after, s)) })];
    }
    case "auto_play_changed":
      return autoPlay(after, m, me, w);
    case "finish_voted":
      return [w.text("said.finish_voted", { who: who(after, m.seat, me) }), ...pending(after, me, w)];
    case "rematch_voted":
      return [w.text("said.rematch_voted", { who: who(after, m.seat, me), wish: m.deal }), ...pending(after, me, w)];
    case "spectators_changed":
      return [w.text("said.watching", { count: m.count })];
    case "game_started":
      return gameStarted(before, after, m, w);
    case "time_up":
      return [w.text(after.war_depth ? "said.time_up_war" : "said.time_up")];
    case "war_declared":
      return [warLine(after, m, me, w)];
    case "cards_laid_down":
      return laidDown(after, m, me, w);
    case "cards_taken":
      return [taken(after, m, me, w)];
    case "cards_returned": {
      const told = w.text("said.returned");
      return playedAgain(before, after) ? [told, w.text("said.played_again")] : [told];
    }
    case "player_out":
      return [w.text("said.out", { who: who(after, m.seat, me), why: m.reason })];
    case "game_over": {
      if (after.result === null) return [];
      const placed = standingsSentence(after, after.result, me, { words: w });
      const lines = [resultSentence(after, after.result, me, { words: w }), summarySentence(after.result, { words: w }), ...(placed === null ? [] : [placed])];
      return after.evening.length ? [...lines, w.text("talk.evening_so_far", { score: eveningScore(after.evening, { words: w, view: after }) })] : lines;
    }
    case "said":
    case "reacted":
      return after.talk.length ? [talkLine(after, after.talk[after.talk.length - 1], me, { words: w })] : [];
    default:
      return [];
  }
}

function autoPlay(view, m, me, w) {
  if (m.away) {
    const key = m.mode === "calm" ? "said.away_play" : "said.away_stop";
    return [w.text(key, { who: m.seat === me ? YOU : nameWord(view, m.seat) })];
  }
  if (m.seat === me) return [w.text("said.auto_yours", { mode: mode(m.mode) })];
  if (view.left.includes(m.seat)) return m.mode === "off" ? [] : [w.text("said.computer_plays_for", { who: nameWord(view, m.seat) })];
  if (seatOf(view, m.seat)?.computer) return []; // the computer plays at its own pace
  return [w.text("said.auto_other", { who: nameWord(view, m.seat), mode: mode(m.mode) })];
}

// A round given back is played again when someone outside the war that ran out is still in
// and the rules play on (both_short; 0.1's rooms end instead).
function playedAgain(before, after) {
  if (after.rules.both_short !== "play_on") return false;
  return after.seats.some((s) => s.name !== null && !s.out && !before.war_seats.includes(s.seat));
}

function welcomeLines(view, me, w, table, first) {
  const lines = [];
  if (me === null) {
    const seated = persons(view, view.seats.filter((s) => s.name !== null).map((s) => s.seat), me);
    lines.push(seated.length ? w.text("said.watching_table", { seated }) : w.text("said.watching_empty"));
  } else {
    lines.push(w.text("said.you_are", { name: nameOf(view, me), seat: me + 1, players: view.rules.players }));
  }
  const missing = openSeats(view).length;
  const round = view.round + 1;
  if (view.phase === "playing") {
    if (view.time_up) lines.push(w.text("said.game_on_time_up", { round }));
    else if (view.seconds_left !== null) lines.push(w.text("said.game_on_clock", { round, clock: clockText(view.seconds_left) }));
    else lines.push(w.text("said.game_on", { round }));
  } else if (view.phase === "over" && view.result !== null) {
    lines.push(resultSentence(view, view.result, me, { words: w }));
  } else if (missing && !table) {
    lines.push(w.text("said.waiting_players", { missing: count("player", missing) }));
    if (view.player_code !== null) lines.push(w.text("said.player_code", { code: view.player_code }));
  }
  if (view.watch_code !== null && me !== null && !table) lines.push(w.text("said.watch_code", { code: view.watch_code }));
  if (first && !table) lines.push(w.text("said.rules", { rules: rulesSentence(view.rules, view.minutes, { words: w }) }));
  const asked = openRequestLine(view, me, w); // a request open as this viewpoint came in
  if (asked !== null) lines.push(asked);
  return lines;
}

function gameStarted(before, view, m, w) {
  const counts = new Set(m.counts);
  let cards = counts.size === 1 ? said("said.each", { cards: count("card", [...counts][0]) }) : said("said.dealt");
  if (m.counts.reduce((a, b) => a + b, 0) === 51) cards = said("said.set_aside", { cards });
  const deal = m.deal === null ? "" : dealText(m.deal);
  const lines = [];
  if (m.game === 1) lines.push(w.text(m.deal === null ? "said.begins" : "said.begins_deal", { cards, deal }));
  else {
    if (new Set(before.seats.map((s) => s.rematch_vote).filter((v) => v !== null)).size > 1) {
      const won = m.deal !== null && m.deal === before.deal ? "same" : "new";
      lines.push(w.text("said.votes_split", { won }));
    }
    lines.push(w.text(m.deal === null ? "said.rematch_begins" : "said.rematch_begins_deal", { cards, deal, game: m.game }));
  }
  if (view.minutes) lines[lines.length - 1] += ` ${w.text("said.on_the_clock", { time: count("minute", view.minutes) })}`;
  return lines;
}

function warLine(view, m, me, w) {
  const head = w.text("said.war_head", { war: war(m.depth) });
  const flip = view.last_flip;
  if (flip === null) return `${head} ${w.text("said.go_to_war", { seats: persons(view, m.seats, me) })}`;
  const tied = flip.cards.filter(([s]) => m.seats.includes(s));
  // a seat already out of the game does not "sit this one out": it is not playing
  const others = flip.cards.filter(([s]) => !m.seats.includes(s) && !seatOf(view, s)?.out).map(([s]) => s);
  let text;
  if (tied.length === 2) {
    // me first (a stable sort, as Python's)
    const [[s1, c1], [s2, c2]] = [...tied].sort((a, b) => Number(a[0] !== me) - Number(b[0] !== me));
    text = `${head} ${w.text("said.ties", { first: cardOf(view, s1, c1, me), second: cardOf(view, s2, c2, me) })}`;
  } else {
    text = `${head} ${w.text("said.tie", { tied: tied.map(([s, c]) => cardOf(view, s, c, me)) })}`;
  }
  if (others.length) text += ` ${w.text("said.sits_out", { names: persons(view, others, me) })}`;
  return text;
}

// Only a short player is worth a sentence (last_card).
function laidDown(view, m, me, w) {
  if (view.rules.short_war !== "last_card") return [];
  const lines = [];
  for (const [seat, down] of m.counts) {
    const record = seatOf(view, seat);
    if (down >= view.rules.face_down || record === null) continue;
    const subject = who(view, seat, me);
    if (down) lines.push(w.text("said.short_down", { who: subject, count: down }));
    else if (record.count) lines.push(w.text("said.last_card_up", { who: subject }));
    else if (record.face_up.length) {
      const standing = cardOf(view, seat, record.face_up[record.face_up.length - 1], me, true);
      lines.push(w.text("said.card_stands", { who: subject, card: standing }));
    }
  }
  return lines;
}

function taken(view, m, me, w) {
  const winner = m.seat;
  const flip = view.last_flip;
  const haul = count("card", m.count);
  const cards = new Map(flip === null ? [] : flip.cards);
  if (flip === null || flip.step !== m.step || !cards.has(winner)) {
    return w.text("said.last_one_left", { who: who(view, winner, me), cards: haul });
  }
  const beaten = flip.cards.filter(([s]) => s !== winner).map(([s, c]) => cardOf(view, s, c, me));
  const text = w.text("said.beats", { card: cardOf(view, winner, cards.get(winner), me), beaten });
  const again = who(view, winner, me, true);
  const won = flip.depth
    ? w.text("said.wins_war", { who: again, war: war(flip.depth), cards: haul })
    : w.text("said.takes", { who: again, cards: haul });
  return `${text} ${won}`;
}

/** "Game over: you have all 52 cards. You win!" */
export function resultSentence(view, result, me, { words: w }) {
  const counts = new Map(view.seats.map((s) => [s.seat, s.count]));
  const winner = result.winner;
  const why = result.termination;
  let reason;
  if (why === "all_cards" && winner !== null) {
    reason = said("result.all_cards", { who: who(view, winner, me), count: [...counts.values()].reduce((a, b) => a + b, 0) });
  } else if (why === "opponents_short" && winner !== null) {
    reason = said("result.short", { names: persons(view, ranShort(view, winner, result.standings ?? []), me) });
  } else if (why === "round_limit") {
    reason = said("result.round_limit", { rounds: count("round", view.rules.round_limit || result.summary.rounds) });
  } else {
    reason = said("result.why", { why });
  }
  return w.text("result.over", { reason, winner: winnerClause(view, result, counts, me) });
}

// Who went out short in the war that ended the game: the latest player_out for a short war
// if the view saw it; else, from the game's standings (a game finished at once), the
// opponents placed best, who went out last; else the opponents not out before the end;
// else every opponent (as client/words/results.py).
function ranShort(view, winner, standings) {
  const told = view.recent.filter((m) => m.type === "player_out" && m.step === view.step && m.reason === "short_war");
  if (told.length) return [told[told.length - 1].seat];
  const opponents = view.seats.filter((s) => s.seat !== winner && s.name !== null).map((s) => s.seat);
  const placed = opponents.filter((s) => s < standings.length);
  if (placed.length) {
    const best = Math.min(...placed.map((s) => standings[s]));
    return placed.filter((s) => standings[s] === best);
  }
  const stillIn = opponents.filter((s) => !view.seats[s].out);
  return stillIn.length ? stillIn : opponents;
}

function winnerClause(view, result, counts, me) {
  const winner = result.winner;
  if (winner === null) {
    const held = [...new Set([...counts].filter(([s]) => !view.seats[s].out).map(([, c]) => c))];
    return held.length === 1 ? said("result.draw_each", { cards: count("card", held[0]) }) : said("result.draw");
  }
  if (result.termination === "all_cards" || result.termination === "opponents_short") return said("result.wins", { who: who(view, winner, me) });
  const rest = [...counts]
    .filter(([s]) => s !== winner && !view.seats[s].out)
    .map(([s, held]) => said("result.holding", { who: who(view, s, me), count: held }));
  return said("result.wins_with", { who: who(view, winner, me), cards: count("card", counts.get(winner)), rest });
}

/** The longest war of a game in a word ("double"). */
export const longestName = (depth) => said("summary.longest", { depth });

/** A place in the standings in words ("1st"; result.place). */
export const placeWord = (place) => said("result.place", { place: place >= 1 && place <= 4 ? String(place) : "other", n: place });

/** The server's standings as [[place, [seat, ...]], ...], first place first. */
export function places(result) {
  const grouped = new Map();
  (result.standings ?? []).forEach((place, seat) => grouped.set(place, [...(grouped.get(place) ?? []), seat]));
  return [...grouped].sort((a, b) => a[0] - b[0]);
}

/** "Standings: 1st Ben, 2nd you, 3rd Grandma and Sam."; null for two players. */
export function standingsSentence(view, result, me, { words: w }) {
  if ((result.standings ?? []).length < 3) return null;
  const parts = places(result).map(([place, seats]) => w.say(said("result.standing", { place: placeWord(place), names: persons(view, seats, me) })));
  return w.text("result.standings", { places: parts.join(", ") });
}

/** The game's figures, the same for everyone. */
export function summarySentence(result, { words: w }) {
  const s = result.summary;
  if (s.rounds === 0) return w.text("summary.none", { deal: dealText(s.deal) }); // figures count rounds taken
  return w.text("summary.figures", {
    rounds: count("round", s.rounds),
    wars: count("war", s.wars),
    longest: longestName(s.longest_war),
    haul: count("card", s.biggest_haul),
    deal: dealText(s.deal),
  });
}

/** What the game waits for and what `me` may do now; `touch`: name the buttons of a touch
 * screen ("Tap Turn over.") instead of keys. */
export function status(view, me, { touch = false, words: w }) {
  if (!welcomed(view)) return w.text("status.connecting");
  if (view.needs_resync) return w.text("status.catching_up");
  if (view.phase === "waiting") {
    const missing = openSeats(view).length; // none: the last one just sat down, the deal is next
    return missing ? w.text("status.waiting_players", { missing: count("player", missing) }) : w.text("status.starting");
  }
  return w.say(view.phase === "over" ? afterTheGame(view, me, touch) : inTheGame(view, me, touch));
}

function afterTheGame(view, me, touch) {
  const mine = seatOf(view, me);
  if (mine === null || view.left.includes(mine.seat)) return said("status.over");
  if (mine.rematch_vote !== null) {
    const seats = stillToVote(view);
    return seats.length ? said("status.waiting_votes", { names: persons(view, seats, me) }) : said("status.starting_rematch");
  }
  return said("status.over_rematch", { input: touch ? "touch" : "keys" });
}

function inTheGame(view, me, touch) {
  const input = touch ? "touch" : "keys";
  const mine = seatOf(view, me);
  if (mine !== null && mine.out) return said("status.out");
  if (mine !== null && view.waiting_for.includes(me) && !mine.ready) {
    if (mine.auto !== "off") return said("status.auto", { input, mode: mode(mine.auto) });
    if (!view.war_depth) return said("status.turn", { input });
    const down = view.rules.face_down;
    const lay = mine.count > down ? "down" : "all";
    return said("status.war_turn", { input, lay, war: war(view.war_depth), cards: count("card", down) });
  }
  if (mine !== null && view.war_depth && !view.war_seats.includes(me)) return said("status.sit_out", { names: persons(view, view.war_seats, me) });
  const away = new Set(awayWaited(view));
  const names = view.waiting_for.filter((s) => s !== me).map((s) => (away.has(s) ? said("status.away", { who: who(view, s, me) }) : who(view, s, me)));
  return names.length ? said("status.waiting_for", { names }) : said("status.turning");
}

const short = (rules) => (rules.short_war === "last_card" ? "last_card" : rules.players === 2 ? "loses" : "out");
const wonCards = (rules) => (rules.won_cards === "fixed" && rules.fixed_order === "seat0" ? "seat0" : rules.won_cards);
const limit = (rules, minutes) => (rules.round_limit !== null ? count("round", rules.round_limit) : count("minute", minutes || 0));

/** The rules in force in plain words, the same for everyone. */
export function rulesSentence(rules, minutes = null, { words: w }) {
  const lines = [said("rules.aces", { aces: rules.aces }), said("rules.face_down", { n: rules.face_down })];
  lines.push(said("rules.short_war", { short: short(rules) }));
  if (rules.players > 2 && rules.both_short === "end") lines.push(said("rules.all_short_end"));
  else if (rules.players > 2 && rules.taken_back === "as_laid" && rules.won_cards === "shuffle") lines.push(said("rules.taken_back_old"));
  lines.push(said("rules.won_cards", { won: wonCards(rules) }));
  if (rules.round_limit === null && minutes === null) lines.push(said("rules.no_limit"));
  else lines.push(said("rules.limit", { length: limit(rules, minutes) }), said("rules.tie_break", { tie: rules.tie_break }));
  return lines.map((line) => w.say(line)).join(" ");
}

/** Who voted to finish, or asked for which rematch, and who still has to vote; or null. */
export function votesSentence(view, me, { words: w }) {
  const by = (test) => persons(view, view.seats.filter(test).map((s) => s.seat), me);
  let votes;
  if (view.phase === "playing") {
    const voted = by((s) => s.finish_vote);
    if (!voted.length) return null;
    votes = said("votes.finish", { names: voted });
  } else if (view.phase === "over") {
    const fresh = by((s) => s.rematch_vote === "new");
    const same = by((s) => s.rematch_vote === "same");
    if (fresh.length && same.length) votes = said("votes.both", { new: fresh, same });
    else if (fresh.length) votes = said("votes.new", { names: fresh });
    else if (same.length) votes = said("votes.same", { names: same });
    else return null;
  } else {
    return null;
  }
  const waiting = stillToVote(view);
  const seeds = seedsAwaited(view);
  // a fair deal's finish waits for every committed seed (each seat's first Turn over)
  if (!waiting.length && seeds.length) return w.text("votes.seeds", { votes, names: persons(view, seeds, me) });
  return waiting.length ? w.text("votes.pending", { votes, names: persons(view, waiting, me) }) : w.text("votes.done", { votes });
}

/** The seats whose first Turn over a finish waits for: before the first cards of a deal
 * the server picks, each seat that committed to a seed and has not readied. */
export function seedsAwaited(view) {
  if (view.phase !== "playing" || view.step !== 0) return [];
  return view.seats.filter((s) => (s.seed_commitment ?? null) !== null && !s.ready).map((s) => s.seat);
}

/** The rules in force in one short line, for the table's header: "Aces high · 1 down ·
 * short loses · shuffled · no limit" (rulesSentence is the full text it opens to). */
export function rulesLine(rules, minutes = null, { words: w }) {
  const parts = [said("rules_line.aces", { aces: rules.aces }), said("rules_line.down", { n: rules.face_down })];
  parts.push(said("rules_line.short", { short: short(rules) }));
  if (rules.players > 2 && rules.both_short === "end") parts.push(said("rules_line.all_short_end"));
  parts.push(said("rules_line.won", { won: rules.won_cards === "fixed" ? wonCards(rules) : "shuffle" }));
  if (rules.round_limit === null && minutes === null) parts.push(said("rules_line.no_limit"));
  else parts.push(limit(rules, minutes), said("rules_line.ties", { tie: rules.tie_break }));
  return parts.map((part) => w.word(part)).join(" · ");
}

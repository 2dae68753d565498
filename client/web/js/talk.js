// Table talk and the evening in words, as client/talk.py (both are checked against
// tests/vectors/): what a reaction looks like, who said what, the score of the evening
// by name and its list of games. Pure functions of the view.

import { MAX_ITEMS, TEXTS } from "./vocabulary.js";

/** How each reaction is shown: the emojis first, then the phrases. */
export const REACTIONS = Object.freeze({
  clap: "👏",
  wow: "😮",
  laugh: "😂",
  sad: "😢",
  love: "❤️",
  party: "🎉",
  scared: "😱",
  oops: "🙈",
  good_game: "Good game!",
  well_played: "Well played!",
  oh_no: "Oh no!",
  one_more: "One more?",
});
const PHRASES = new Set(["good_game", "well_played", "oh_no", "one_more"]);
/** Who a spectator's message or reaction is from. */
export const SOMEONE_WATCHING = "Someone watching";

const plural = (count, word) => (count === 1 ? `${count} ${word}` : `${count} ${word}s`);
const nameAt = (view, seat) => view.seats[seat]?.name ?? `seat ${seat + 1}`;

/** Who sent a talk line: a seat's name, "You", or someone watching. */
export function sender(view, seat, me) {
  if (seat === null) return SOMEONE_WATCHING;
  if (seat === me) return "You";
  return nameAt(view, seat);
}

/** One line of talk: "Ben: Good game!" (a message, or a phrase), "Ben reacts 👏". */
export function talkLine(view, line, me) {
  const who = sender(view, line.seat, me);
  if (line.text !== undefined && line.text !== null) return `${who}: ${line.text}`;
  if (PHRASES.has(line.reaction)) return `${who}: ${REACTIONS[line.reaction]}`;
  return `${who} ${who === "You" ? "react" : "reacts"} ${REACTIONS[line.reaction]}`;
}

/** Why this room will not take a message (`say`) or a reaction from me, or null. */
export function talkRefused(setting, { say, seated }) {
  if (setting === "off") return "Talk is off at this table.";
  if (!say) return null;
  if (setting === "reactions") return "This table takes reactions only.";
  if (setting === "players" && !seated) return "Only the players write at this table; you may react.";
  return null;
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** The say message for `text` (normalized as the server will), or why not. */
export function sayIntent(view, text) {
  const refused = talkRefused(view.talk_setting, { say: true, seated: view.my_seat !== null });
  if (refused !== null) return refused;
  const clean = text.normalize("NFC").trim();
  const length = [...clean].length;
  if (length < 1 || length > TEXTS.say_text.max || UNPRINTABLE.test(clean)) {
    return `A message is 1 to ${TEXTS.say_text.max} characters on one line.`;
  }
  return { type: "say", text: clean };
}

/** The react message for a reaction's name, or why not. */
export function reactIntent(view, reaction) {
  const refused = talkRefused(view.talk_setting, { say: false, seated: view.my_seat !== null });
  if (refused !== null) return refused;
  return { type: "react", reaction };
}

/** The view with one more line of talk (the window of the last MAX_ITEMS.talk). */
export function withLine(view, line) {
  return { ...view, talk: [...view.talk, line].slice(-MAX_ITEMS.talk) };
}

function wins(evening) {
  const counted = new Map();
  let draws = 0;
  for (const game of evening) {
    for (const name of game.names) if (name !== null && !counted.has(name)) counted.set(name, 0);
    if (game.winner === null) draws += 1;
    else if (game.winner < game.names.length && game.names[game.winner] !== null) {
      const name = game.names[game.winner];
      counted.set(name, counted.get(name) + 1);
    }
  }
  const order = [...counted.keys()];
  const ranked = [...counted.entries()].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]));
  return [ranked, draws];
}

/** The score of the evening by name: "Grandma 3 – Ben 2 – 1 draw" ("" before a game). */
export function eveningScore(evening) {
  if (!evening.length) return "";
  const [ranked, draws] = wins(evening);
  const parts = ranked.map(([name, count]) => `${name} ${count}`);
  if (draws) parts.push(plural(draws, "draw"));
  return parts.join(" – ");
}

/** The evening's games, one line each: "Game 2: Ben won in 212 rounds (deal 90210)." */
export function eveningLines(evening) {
  return evening.map((game) => {
    const winner = game.winner === null ? null : game.names[game.winner] ?? `seat ${game.winner + 1}`;
    const outcome = winner === null ? "a draw" : `${winner} won`;
    return `Game ${game.game}: ${outcome} in ${plural(game.rounds, "round")} (deal ${game.deal}).`;
  });
}

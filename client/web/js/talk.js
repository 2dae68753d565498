// Table talk and the evening in words, as client/words/talk.py (both are checked against
// tests/vectors/): what a reaction looks like, who said what, the score of the evening
// by name and its list of games. Pure functions of the view.

import { YOU, count, named, openSeat, said } from "./catalog.js";
import { seatLabel, seatPerson } from "./view.js";
import { MAX_ITEMS, TEXTS } from "./vocabulary.js";

/** The emoji reactions; the others are phrases in the viewer's words (talk.phrase). */
export const EMOJIS = Object.freeze({
  clap: "👏",
  wow: "😮",
  laugh: "😂",
  sad: "😢",
  love: "❤️",
  party: "🎉",
  scared: "😱",
  oops: "🙈",
});

/** A reaction as this client shows it: an emoji, or a phrase in `w`. */
export const reactionText = (reaction, w) => EMOJIS[reaction] ?? w.text("talk.phrase", { reaction });

/** One line of talk in `words`: "Ben: Good game!" (a message, or a phrase), "Ben reacts 👏". */
export function talkLine(view, line, me, { words: w }) {
  const who = line.seat === null ? null : line.seat === me ? YOU : seatPerson(view, line.seat);
  const message = line.text !== undefined && line.text !== null;
  const text = message ? line.text : reactionText(line.reaction, w);
  const phrase = message || !Object.hasOwn(EMOJIS, line.reaction);
  if (who === null) return w.text(phrase ? "talk.watcher_says" : "talk.watcher_reacts", { text });
  return w.text(phrase ? "talk.says" : "talk.reacts", { who, text });
}

/** Why this room will not take a message (`say`) or a reaction from me (a said() message), or null. */
export function talkRefused(setting, { say, seated }) {
  if (setting === "off") return said("talk.off");
  if (!say) return null;
  if (setting === "reactions") return said("talk.reactions_only");
  if (setting === "players" && !seated) return said("talk.players_only");
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
    return said("talk.too_long", { most: TEXTS.say_text.max });
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

/** A deal number to read out, the same in every sentence and on the table (as
 * client/words/talk.py's deal_text): "18 446 744 073 709 551 615", groups of three past 4
 * digits; the page's deal field and war-client --deal take it back with its spaces. */
export const dealText = (deal) => {
  const digits = String(deal);
  return digits.length > 4 ? digits.replace(/\B(?=(\d{3})+$)/g, " ") : digits;
};

// The seat of the table `view` shows under `name`: an evening's names are the seats' names
// in each game, and a computer seat keeps its seat and its name all evening.
const seatNamed = (view, name) => view?.seats.find((s) => s.name === name)?.seat ?? null;

/** How the evening's score and games name `name`: a computer seat in the viewer's words. */
const eveningLabel = (view, name, w) => {
  const seat = seatNamed(view, name);
  return seat === null ? name : seatLabel(view, seat, w);
};

/** The score of the evening by name, in `words`: "Grandma: 3 · Ben: 2 · 1 draw" (talk.wins
 * for each, so that "Computer 1: 0" is never read as "Computer 10"); "" before a game.
 * `view`: the table, whose computer seats are named in the viewer's words. */
export function eveningScore(evening, { words: w, view = null }) {
  if (!evening.length) return "";
  const [ranked, draws] = wins(evening);
  const parts = ranked.map(([name, n]) => w.text("talk.wins", { who: named(eveningLabel(view, name, w)), count: n }));
  if (draws) parts.push(w.text("talk.draws", { count: draws }));
  return parts.join(" · ");
}

/** The evening's games, one line each: "Game 2: Ben won in 212 rounds (deal 90210)." */
export function eveningLines(evening, { words: w, view = null }) {
  return evening.map((game) => {
    const rounds = count("round", game.rounds);
    if (game.winner === null) return w.text("talk.game_draw", { game: game.game, rounds, deal: dealText(game.deal) });
    const name = game.names[game.winner] ?? null;
    const seat = name === null ? null : seatNamed(view, name);
    const who = name === null ? openSeat(game.winner + 1) : seat === null ? named(name) : seatPerson(view, seat);
    return w.text("talk.game_won", { who, game: game.game, rounds, deal: dealText(game.deal) });
  });
}

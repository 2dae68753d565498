// Helpers for the JavaScript tests: where the page's modules and the shared vectors are,
// and the view digest tests/vectors/generate.py writes (the same fields, the same format).

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = join(here, "..", "..", "..");
export const WEB = join(REPO, "client", "web");
export const VECTORS = join(REPO, "tests", "vectors");

/** The languages the page has catalogs for, English first. */
export const LANGUAGES = readdirSync(join(WEB, "lang"))
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -5))
  .sort((a, b) => Number(b === "en") - Number(a === "en") || a.localeCompare(b));

/** A language's catalog, parsed (client/web/lang/<tag>.json). */
export const loadCatalog = (tag) => JSON.parse(readFileSync(join(WEB, "lang", `${tag}.json`), "utf8"));

/** What each viewpoint of vector `name` is told in language `tag` (tests/vectors/words/). */
export const wordsOf = (tag, name) => JSON.parse(readFileSync(join(VECTORS, "words", tag, name), "utf8"));

/** Files beside the scenes that are no scene (tests/vectors/generate.py, NOT_SCENES). */
const NOT_SCENES = new Set(["paths.json"]);

/** Every scene's vector file, parsed: [[name, vector], ...]. */
export function vectors() {
  return readdirSync(VECTORS)
    .filter((name) => name.endsWith(".json") && !NOT_SCENES.has(name))
    .sort()
    .map((name) => [name, JSON.parse(readFileSync(join(VECTORS, name), "utf8"))]);
}

/** A frame of a vector as bytes. */
export const frameOf = (step) => new Uint8Array(Buffer.from(step.frame, "base64"));

/** tests/vectors/generate.py's digest(view), for the JavaScript view. */
export function digest(view) {
  const seats = view.seats.map((s) => {
    let flags = [
      ["n", s.name !== null],
      ["C", s.computer],
      ["c", s.connected],
      ["r", s.ready],
      ["o", s.out],
      ["f", s.finish_vote],
    ]
      .filter(([, on]) => on)
      .map(([letter]) => letter)
      .join("");
    if (s.auto !== "off") flags += `a${s.auto}`;
    if (s.rematch_vote !== null) flags += `m${s.rematch_vote}`;
    return `${s.count}|${s.face_up.join(",")}|${s.face_down}|${flags}`;
  });
  const taken = view.last_taken;
  return {
    phase: view.phase,
    game: view.game,
    step: view.step,
    round: view.round,
    war: [view.war_depth, [...view.war_seats]],
    waiting: [...view.waiting_for],
    seats,
    spectators: view.spectators,
    left: [...view.left].sort((a, b) => a - b),
    time: [view.minutes, view.seconds_left, view.time_up],
    deal: view.deal === null ? null : String(view.deal),
    taken: taken === null ? null : [taken.round, taken.seat, taken.count],
    seq: view.last_seq,
    resync: view.needs_resync,
    talk: [view.talk.length, view.talk_setting],
    asked: view.seat_request,
  };
}

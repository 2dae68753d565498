// What the page's modules share (README.md, "The page"): the viewer's words, the parts of
// the table, the one connection, the view it follows and the marks of what was sent or said.

import { noCountdown } from "./countdown.js";
import { initialView } from "./view.js";

export const $ = (id) => document.getElementById(id);

/** localStorage, or null where the browser refuses it. */
export function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // refused (a sandboxed or private window): nothing is remembered
  }
}

/** The page's state, from the viewer's first words and the seats kept in this browser.
 * main.js adds the parts it makes (table, invitation, input, alive, seatQuestion,
 * sharedComputer, talk) and `hear`, what it does with each event of the connection. */
export function newPage(doc, words, seats) {
  return {
    doc,
    words, // the picked language's catalog (lang.js); the picker changes it
    seats,
    // the refusals and closes told in a plain sentence of their own (page.plain); the rest
    // say the reason (page.ended)
    plain: new Set(Object.keys(words.data.messages.page.plain).filter((code) => code !== "select" && code !== "other")),
    connection: null,
    warm: null, // the join page's socket, opened while a name is typed (connection.js warm)
    fair: null, // the connection's fair deals (fair.js)
    loadFairView: null, // imports fairview.js (fair.js, loadView)
    fairView: null, // the fingerprint and the check at game over (fairview.js), once a game is on
    held: null, // the connection's events waiting for a game's words (session.js, held)
    released: null, // a promise: they were heard (whenHeard)
    entered: 0, // the latest enter(): an earlier one still hashing its seed gives way
    view: initialView(),
    countdown: noCountdown(),
    clock: null,
    reconnecting: null, // what the status line says while the connection is away (a key)
    readySentFor: null, // the step of a ready sent on this connection: a double tap sends one
    saidStep: null, // the step of the sentence under the cards
    leaveArmed: null,
    askingLine: null, // while the table is asked whether this device may take a seat
    autoAsked: null, // a mode sent, not yet confirmed: two quick presses step twice
    hear: null,
  };
}

const SOUND_KEY = "war.sound";

/** Whether the sound is on, as remembered in `storage` (localStorage; on when refused). */
export function soundOn(storage) {
  try {
    return storage?.getItem(SOUND_KEY) !== "off";
  } catch {
    return true; // storage refused: sound on, not remembered
  }
}

/** Remember the sound switch in `storage` (for this visit only where the browser refuses). */
export function rememberSound(storage, on) {
  try {
    storage?.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    // a private window: the choice lasts this visit
  }
}

/** The table's sounds and its screen kept awake (alive.js, `Alive`) before they come: the
 * sound switch alone (nothing to hear in a waiting room), and `load`, which imports
 * alive.js once (`load` given: `() => import("./alive.js")`) and puts its `Alive` for
 * `win` in the page's `alive` (session.js, `held`: with a game; or the first talk line's ding),
 * on as the switch is. */
export function quietAlive(page, { win, storage, load }) {
  let loading = null;
  return {
    on: soundOn(storage),
    setSound(on) {
      this.on = on;
      rememberSound(storage, on);
    },
    hear() {},
    awake() {},
    ding() {
      this.load?.().then((alive) => alive?.ding());
    },
    load() {
      loading ??= load()
        .then(({ Alive }) => {
          const alive = new Alive(win, storage);
          alive.on = this.on;
          page.alive = alive;
          return alive;
        })
        .catch(() => {
          this.load = null; // could not be had: the table stays quiet, nothing waits for it
          return null;
        });
      return loading;
    },
  };
}

let gameStyle = null;

/** The table's game styles (game.css: the cards, a war, the game over, a seat request, the
 * fair deal), added to `doc` once, with a game (session.js, `held`): a promise that
 * resolves when they are in, or could not be had (the table is then drawn plainer). */
export function loadGameStyle(doc) {
  gameStyle ??= new Promise((resolve) => {
    const link = doc.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL("../game.css", import.meta.url).href;
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve);
    doc.head.append(link);
  });
  return gameStyle;
}


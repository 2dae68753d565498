// The table's talk on the page: a bar of reactions (one tap each), a message box, the
// bubbles at the seats (or "someone watching") for a few seconds, and a mute for other
// people's bubbles and sounds, remembered. The words are talk.js's; the log (read out by
// its aria-live region) gets every line through sentences.js, muted or not. Everything
// is set as text, never as markup.

import { REACTIONS, SOMEONE_WATCHING, eveningLines, eveningScore, reactIntent, sayIntent, talkRefused } from "./talk.js";
import { ENUMS } from "./vocabulary.js";

const BUBBLE_SECONDS = 4;
const MUTE_KEY = "war.talk.muted";
const LABELS = Object.freeze({
  clap: "Clap", wow: "Wow", laugh: "Laugh", sad: "Sad", love: "Love", party: "Party",
  scared: "Scared", oops: "Oops",
});

export class TalkBar {
  /** `send(message)` sends one client message and returns whether it went out;
   * `tell(text)` says why nothing was sent. */
  constructor(doc, { send, tell, storage = null, tone = null }) {
    this.doc = doc;
    this.send = send;
    this.tell = tell;
    this.storage = storage;
    this.tone = tone;
    this.view = null;
    this.timers = new Map();
    this.muted = this.read() === "1";
    const bar = this.$("reactions");
    bar.replaceChildren(
      ...ENUMS.reaction.map((name) => {
        const button = doc.createElement("button");
        button.type = "button";
        button.className = `reaction${Object.hasOwn(LABELS, name) ? " emoji" : " phrase"}`;
        button.dataset.reaction = name;
        button.textContent = REACTIONS[name];
        if (Object.hasOwn(LABELS, name)) button.setAttribute("aria-label", LABELS[name]);
        return button;
      }),
    );
    bar.addEventListener("click", (event) => {
      const button = event.target instanceof Element ? event.target.closest("[data-reaction]") : null;
      if (button !== null) this.act(reactIntent(this.view, button.dataset.reaction));
    });
    this.$("say-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const box = this.$("say-text");
      if (this.act(sayIntent(this.view, box.value))) box.value = "";
    });
    this.$("talk-mute").addEventListener("click", () => this.mute(!this.muted));
    this.drawMute();
  }

  $(id) {
    return this.doc.getElementById(id);
  }

  read() {
    try {
      return this.storage?.getItem(MUTE_KEY) ?? null;
    } catch {
      return null;
    }
  }

  act(intent) {
    if (typeof intent === "string") {
      this.tell(intent);
      return false;
    }
    const sent = this.send(intent);
    if (!sent) this.tell("Not connected right now; try again in a moment.");
    return sent;
  }

  /** Mute (or not) other people's bubbles and sounds; remembered. */
  mute(on) {
    this.muted = on;
    try {
      this.storage?.setItem(MUTE_KEY, on ? "1" : "0");
    } catch {
      // a private window: muted until the page is closed
    }
    this.drawMute();
  }

  drawMute() {
    const button = this.$("talk-mute");
    button.setAttribute("aria-pressed", String(this.muted));
    button.textContent = this.muted ? "Others muted" : "Mute others";
  }

  /** What the room says: a reaction or a message makes a bubble (not muted: mine always). */
  hear(message, view) {
    this.view = view;
    if (message.type !== "said" && message.type !== "reacted") return;
    const mine = message.seat !== null && message.seat === view.my_seat;
    if (this.muted && !mine) return;
    const text = message.type === "said" ? message.text : REACTIONS[message.reaction];
    this.bubble(message.seat, text);
    if (!mine && message.type === "reacted") this.tone?.();
  }

  bubble(seat, text) {
    const host = seat === null ? this.$("watchers") : this.doc.querySelector(`#seats .seat[data-seat="${seat}"]`);
    if (host === null) return;
    let bubble = host.querySelector(":scope > .bubble");
    if (bubble === null) {
      bubble = this.doc.createElement("p");
      bubble.className = "bubble";
      bubble.setAttribute("aria-hidden", "true"); // the log reads it out, once
      host.append(bubble);
    }
    bubble.textContent = seat === null ? `${SOMEONE_WATCHING}: ${text}` : text;
    host.classList.add("talking");
    const key = seat === null ? "watchers" : String(seat);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        bubble.remove();
        host.classList.remove("talking");
      }, BUBBLE_SECONDS * 1000),
    );
  }

  /** Show what this connection may send in this room, and the evening's games. */
  draw(view) {
    this.view = view;
    const seated = view.my_seat !== null;
    const welcomed = view.last_seq !== null;
    const react = talkRefused(view.talk_setting, { say: false, seated });
    const say = talkRefused(view.talk_setting, { say: true, seated });
    this.$("talk").hidden = !welcomed || react !== null;
    this.$("say-form").hidden = say !== null;
    this.$("talk-why").hidden = say === null || react !== null;
    this.$("talk-why").textContent = say ?? "";
    const games = this.$("evening");
    games.hidden = !view.evening.length;
    const drawn = JSON.stringify(view.evening, (_, v) => (typeof v === "bigint" ? String(v) : v));
    if (games.dataset.drawn !== drawn) {
      games.dataset.drawn = drawn;
      this.$("evening-score").textContent = eveningScore(view.evening);
      this.$("evening-games").replaceChildren(
        ...eveningLines(view.evening).map((line) => {
          const item = this.doc.createElement("li");
          item.textContent = line;
          return item;
        }),
      );
    }
  }
}

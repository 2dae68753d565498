// The table's talk on the page: a bar of reactions (one tap each), a message box, the
// bubbles at the seats (or "someone watching") for a few seconds, and a mute for other
// people's bubbles and sounds, remembered. The words are talk.js's; the log (read out by
// its aria-live region) gets every line through sentences.js, muted or not. Everything
// is set as text, never as markup.

import { said } from "./catalog.js";
import { EMOJIS, eveningLines, eveningScore, reactIntent, reactionText, sayIntent, talkRefused } from "./talk.js";
import { ENUMS } from "./vocabulary.js";

const BUBBLE_SECONDS = 4;
const MUTE_KEY = "war.talk.muted";

export class TalkBar {
  /** `send(message)` sends one client message and returns whether it went out;
   * `tell(text)` says why nothing was sent. */
  constructor(doc, { words, send, tell, storage = null, tone = null }) {
    this.doc = doc;
    this.words = words; // the viewer's catalog
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
        button.className = `reaction${Object.hasOwn(EMOJIS, name) ? " emoji" : " phrase"}`;
        button.dataset.reaction = name;
        return button;
      }),
    );
    this.speakButtons();
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

  /** Say everything again in `words` (the viewer picked another language). */
  speak(words) {
    this.words = words;
    this.speakButtons();
    this.drawMute();
    this.$("evening").dataset.drawn = "";
    if (this.view !== null) this.draw(this.view);
  }

  speakButtons() {
    for (const button of this.$("reactions").querySelectorAll("[data-reaction]")) {
      const name = button.dataset.reaction;
      button.textContent = reactionText(name, this.words);
      if (Object.hasOwn(EMOJIS, name)) button.setAttribute("aria-label", this.words.text("page.reaction_label", { reaction: name }));
    }
  }

  read() {
    try {
      return this.storage?.getItem(MUTE_KEY) ?? null;
    } catch {
      return null;
    }
  }

  act(intent) {
    if ("key" in intent) {
      this.tell(this.words.say(intent)); // a said() message: why nothing is sent
      return false;
    }
    const sent = this.send(intent);
    if (!sent) this.tell(this.words.say(said("keys.not_connected")));
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
    button.textContent = this.words.text(this.muted ? "page.muted" : "page.mute");
  }

  /** What the room says: a reaction or a message makes a bubble (not muted: mine always). */
  hear(message, view) {
    this.view = view;
    if (message.type !== "said" && message.type !== "reacted") return;
    const mine = message.seat !== null && message.seat === view.my_seat;
    if (this.muted && !mine) return;
    const text = message.type === "said" ? message.text : reactionText(message.reaction, this.words);
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
    bubble.textContent = seat === null ? this.words.text("talk.watcher_says", { text }) : text;
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
    // drawn at every message: each part written only when it changes (docs/performance.md)
    const show = (node, shown) => {
      if (node.hidden === shown) node.hidden = !shown;
    };
    show(this.$("talk"), welcomed && react === null);
    show(this.$("say-form"), say === null);
    show(this.$("talk-why"), say !== null && react === null);
    const why = say === null ? "" : this.words.say(say);
    if (this.$("talk-why").textContent !== why) this.$("talk-why").textContent = why;
    const games = this.$("evening");
    show(games, view.evening.length > 0);
    const drawn = JSON.stringify(view.evening, (_, v) => (typeof v === "bigint" ? String(v) : v));
    if (games.dataset.drawn !== drawn) {
      games.dataset.drawn = drawn;
      this.$("evening-score").textContent = eveningScore(view.evening, { words: this.words, view });
      this.$("evening-games").replaceChildren(
        ...eveningLines(view.evening, { words: this.words, view }).map((line) => {
          const item = this.doc.createElement("li");
          item.textContent = line;
          return item;
        }),
      );
    }
  }
}

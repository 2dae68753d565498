// What the table shows of a fair deal (docs/fairness.md): the fingerprint from the start
// of a game, so relatives on a call can compare it aloud, and at game over what this
// phone's check found, with the details a curious relative can open and a record to save
// for `war-sim verify`. Its words are the catalogs' fair section; what the check found
// and what it proved, their check section (fairwords.js), in the viewer's language.

import { more } from "./lang.js";
import { seatPerson as seatWord } from "./view.js";

const sentence = (text) => `${text[0].toUpperCase()}${text.slice(1)}.`;

export class FairView {
  // `doc`: the document; `fair`: the connection's Fair (js/fair.js).
  constructor(doc, fair, words) {
    this.doc = doc;
    this.fair = fair;
    this.words = words; // the viewer's catalog
    this.shown = null; // the last check's result, said again in another language
    this.printed = ""; // what the fingerprint line says (printLine)
    this.printedFor = null; // the view and fingerprint it was said for, to say again in another language
    this.pending = null;
    const $ = (id) => doc.getElementById(id);
    this.el = { print: $("fingerprint"), box: $("fair"), line: $("fair-line"), about: $("fair-about"), proved: $("fair-proved"), save: $("fair-export") };
    this.el.save.onclick = () => this.save();
  }

  reset() {
    // written only where they change: the table writes only what changed
    if (!this.el.print.hidden) this.el.print.hidden = true;
    if (!this.el.box.hidden) this.el.box.hidden = true;
    this.printed = ""; // what the fingerprint line says: nothing
  }

  /** A received event: the fingerprint (or that the deal was chosen); the check's result.
   * Returns the lines to say in the log (a deal void, and whose seed it waited for). */
  follow({ message, view, fingerprint, check }) {
    if (message.type === "game_started" && !check && !this.el.box.hidden) this.el.box.hidden = true;
    this.printLine(view, fingerprint);
    const printing = fingerprint === null ? this.fair.printing : null;
    if (printing !== null) {
      // hashed asynchronously (crypto.subtle): drawn when it is ready, if nothing came since
      printing.then((print) => this.fair.fingerprint === print && this.printLine(view, print)).catch(() => {});
    }
    if (check) {
      this.show({ ok: null, checking: true });
      // the check's words come apart from the catalog (lang.js, more): fetched meanwhile
      const pending = (this.pending = Promise.all([check, more(this.words, "check")]).then(
        ([result]) => pending === this.pending && this.show(result),
      ));
    }
    if (message.type !== "deal_voided") return [];
    return [this.words.text("fair.voided", { who: seatWord(view, message.seat), count: message.voids })];
  }

  // The fingerprint line (from the start of the game), or that the deal was chosen. It is
  // followed at every message and written again only when what it says changed: a write
  // invalidates the page's style and layout (docs/performance.md).
  printLine(view, fingerprint) {
    const { print } = this.el;
    this.printedFor = [view, fingerprint];
    const chosen = fingerprint === null && this.fair.game?.shown_deal != null;
    const none = fingerprint === null ? [] : this.fair.noSeed().map((seat) => seatWord(view, seat));
    const drawn = view.phase === "waiting" || (fingerprint === null && !chosen) ? "" : JSON.stringify([fingerprint, none]);
    if (drawn === this.printed) return;
    this.printed = drawn;
    if (print.hidden !== (drawn === "")) print.hidden = drawn === "";
    if (drawn === "") return;
    const w = this.words;
    if (chosen) {
      print.textContent = w.text("fair.page_chosen_deal");
      return;
    }
    const strong = this.doc.createElement("b");
    strong.textContent = fingerprint;
    // the fingerprint in bold, inside the catalog's sentence (text only, never markup)
    const [before, after = ""] = w.text("fair.page_fingerprint", { print: "\u0000" }).split("\u0000");
    print.replaceChildren(before, strong, after);
    if (none.length) print.append(" ", w.text("fair.no_seed", { names: none }));
  }

  /** Say the check's result again in `words` (the viewer picked another language). */
  speak(words) {
    this.words = words;
    this.printed = null; // the fingerprint line too, at once (no message may come for a while)
    if (this.printedFor !== null) this.printLine(...this.printedFor);
    if (this.shown !== null) more(words, "check").then(() => words === this.words && this.show(this.shown));
  }

  show(result) {
    this.shown = result;
    const w = this.words;
    const { box, line, about, proved } = this.el;
    if (box.hidden) box.hidden = false;
    box.classList.toggle("ok", result.ok === true);
    box.classList.toggle("failed", result.ok === false);
    box.open = result.ok === false;
    const problem = { problem: result.problem ?? "" };
    let text = w.text("fair.page_checking");
    if (!result.checking) {
      if (result.chosen) text = result.ok ? w.text("fair.page_chosen") : w.text("fair.page_chosen_failed", problem);
      else if (result.ok === null) text = w.text("fair.page_not_checked", problem);
      else text = result.ok ? w.text("fair.page_ok") : w.text("fair.page_failed", problem);
    }
    line.textContent = text;
    about.textContent = result.chosen || result.checking ? "" : w.text("fair.page_about");
    proved.replaceChildren(
      ...(result.proved ?? []).map((item) => {
        const li = this.doc.createElement("li");
        li.textContent = sentence(w.say(item));
        return li;
      }),
    );
  }

  // The game record (one server message a line), as a file.
  save() {
    const blob = new Blob([this.fair.record()], { type: "application/x-ndjson" });
    const link = this.doc.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `war-game-${this.fair.game?.number ?? 1}.jsonl`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    this.el.about.textContent = this.words.text("fair.page_saved");
  }
}

// What the table shows of a fair deal (docs/fairness.md): the fingerprint from the start
// of a game, so relatives on a call can compare it aloud, and at game over what this
// phone's check found, with the details a curious relative can open and a record to save
// for `war-sim verify`. Its English words are here, in one table.

export const WORDS = {
  fingerprint: (print) => `Deal fingerprint <b>${print}</b> — everyone at the table should see the same`,
  dropped: (name) => `${name}'s seed was not revealed in time: the deal goes on without it.`,
  noSeed: (names) => `No seed from ${names.join(", ")}: the deal does not depend on that seat.`,
  chosenDeal: "This deal was chosen, not drawn: nothing to prove about it",
  ok: "Fair deal ✓ — checked on this phone",
  failed: (problem) => `Fair deal check FAILED: ${problem}`,
  chosen: "Chosen deal ✓ — every card matched it, checked on this phone",
  chosenFailed: (problem) => `The chosen deal's cards do not match: ${problem}`,
  notChecked: (problem) => `Fair deal not checked: ${problem}`,
  about:
    "The server locked in its secret before anyone added theirs, each player's phone or computer could add a secret " +
    "of its own, and at the end this phone replayed the whole game with its own copy of the rules.",
  checking: "Checking the deal on this phone…",
  saved: "Game record saved: war-sim verify can check it on a computer.",
};

const sentence = (text) => `${text[0].toUpperCase()}${text.slice(1)}.`;

export class FairView {
  // `doc`: the document; `fair`: the connection's Fair (js/fair.js).
  constructor(doc, fair) {
    this.doc = doc;
    this.fair = fair;
    this.pending = null;
    const $ = (id) => doc.getElementById(id);
    this.el = { print: $("fingerprint"), box: $("fair"), line: $("fair-line"), about: $("fair-about"), proved: $("fair-proved"), save: $("fair-export") };
    this.el.save.onclick = () => this.save();
  }

  reset() {
    this.el.print.hidden = this.el.box.hidden = true;
  }

  /** A received event: the fingerprint (or that the deal was chosen); the check's result.
   * Returns the lines to say in the log (a seat dropped from the deal). */
  follow({ message, view, fingerprint, check }) {
    const { print, box } = this.el;
    if (message.type === "game_started") box.hidden = true;
    if (view.phase === "waiting") print.hidden = true; // from the start of the game
    else if (fingerprint !== null) {
      print.innerHTML = WORDS.fingerprint(fingerprint);
      const none = this.fair.noSeed().map((seat) => view.seats[seat]?.name ?? `seat ${seat + 1}`);
      if (none.length) print.append(" ", WORDS.noSeed(none));
      print.hidden = false;
    } else if (this.fair.game?.shown_deal != null) {
      print.textContent = WORDS.chosenDeal;
      print.hidden = false;
    } else print.hidden = true;
    if (check) {
      this.show({ ok: null, checking: true });
      const pending = (this.pending = check.then((result) => pending === this.pending && this.show(result)));
    }
    if (message.type !== "seed_dropped") return [];
    return [WORDS.dropped(view.seats[message.seat]?.name ?? `seat ${message.seat + 1}`)];
  }

  show(result) {
    const { box, line, about, proved } = this.el;
    box.hidden = false;
    box.classList.toggle("ok", result.ok === true);
    box.classList.toggle("failed", result.ok === false);
    box.open = result.ok === false;
    let text = WORDS.checking;
    if (!result.checking) {
      if (result.chosen) text = result.ok ? WORDS.chosen : WORDS.chosenFailed(result.problem);
      else if (result.ok === null) text = WORDS.notChecked(result.problem);
      else text = result.ok ? WORDS.ok : WORDS.failed(result.problem);
    }
    line.textContent = text;
    about.textContent = result.chosen || result.checking ? "" : WORDS.about;
    proved.replaceChildren(
      ...(result.proved ?? []).map((item) => {
        const li = this.doc.createElement("li");
        li.textContent = sentence(item);
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
    this.el.about.textContent = WORDS.saved;
  }
}

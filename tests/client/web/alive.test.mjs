// The table's sounds (client/web/js/alive.js): each rendered once into a buffer and played
// by one buffer source, the audio context suspended when no sound played for a while and
// resumed for the next one, which still plays. A fake AudioContext and a fake clock.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Alive, SOUNDS, render } from "../../../client/web/js/alive.js";
import { quietAlive } from "../../../client/web/js/page.js";
import { MemoryStorage } from "./_storage.mjs";

/** An AudioContext that records what the page asks of it; suspend and resume settle when
 * the test says (`settle`), as a browser's do some milliseconds later. */
class FakeContext {
  constructor() {
    this.sampleRate = 8000;
    this.state = "suspended"; // as a browser makes it before the page was touched
    this.destination = { name: "speakers" };
    this.played = [];
    this.pending = [];
    this.calls = [];
  }
  change(to) {
    this.calls.push(to);
    return new Promise((resolve) => this.pending.push(() => ((this.state = to), resolve())));
  }
  resume() {
    return this.change("running");
  }
  suspend() {
    return this.change("suspended");
  }
  async settle() {
    for (const done of this.pending.splice(0)) done();
    await new Promise((resolve) => setImmediate(resolve));
  }
  createBuffer(channels, length, rate) {
    const data = new Float32Array(length);
    return { channels, length, rate, getChannelData: () => data };
  }
  createBufferSource() {
    const source = { buffer: null, to: null };
    source.connect = (to) => (source.to = to);
    source.start = () => this.played.push(source);
    return source;
  }
}

/** A window with a fake clock: `tick(ms)` runs the timers due. */
function fakeWindow() {
  let now = 0;
  let timers = [];
  let next = 1;
  const listeners = {};
  const win = {
    contexts: [],
    navigator: { vibrate: () => true },
    document: {
      visibilityState: "visible",
      addEventListener: (type, listener) => (listeners[type] = listener),
    },
    addEventListener: (type, listener) => (listeners[type] = listener),
    touch: () => listeners.pointerdown(),
    show(state) {
      win.document.visibilityState = state;
      listeners.visibilitychange();
    },
    setTimeout: (run, ms) => {
      timers.push({ id: next, at: now + ms, run });
      return next++;
    },
    clearTimeout: (id) => (timers = timers.filter((t) => t.id !== id)),
    tick(ms) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.run();
    },
  };
  win.AudioContext = class extends FakeContext {
    constructor() {
      super();
      win.contexts.push(this);
    }
  };
  return win;
}

const turned = { type: "cards_turned" };

async function unlocked() {
  const win = fakeWindow();
  const alive = new Alive(win, new MemoryStorage());
  win.touch();
  const context = win.contexts[0];
  await context.settle();
  assert.equal(context.state, "running");
  return { win, alive, context };
}

test("nothing plays before the page was touched, nor with the sound off", async () => {
  const win = fakeWindow();
  const alive = new Alive(win, new MemoryStorage());
  alive.hear(turned, 0);
  assert.equal(win.contexts.length, 0);
  const storage = new MemoryStorage();
  storage.setItem("war.sound", "off");
  const quiet = new Alive(win, storage);
  quiet.unlock();
  quiet.hear(turned, 0);
  assert.equal(win.contexts.length, 0);
});

test("a sound is one buffer source straight to the speakers, its buffer rendered once", async () => {
  const { alive, context } = await unlocked();
  alive.hear(turned, 0);
  alive.hear(turned, 0);
  alive.hear({ type: "war_declared" }, 0);
  assert.equal(context.played.length, 3);
  assert.ok(context.played.every((source) => source.to === context.destination));
  const [first, second, war] = context.played.map((source) => source.buffer);
  assert.equal(first, second);
  assert.notEqual(first, war);
});

test("the context sleeps after three quiet seconds and wakes for the next sound, which plays", async () => {
  const { win, alive, context } = await unlocked();
  alive.hear(turned, 0);
  win.tick(2999);
  alive.hear(turned, 0); // a sound puts the nap off
  win.tick(2999);
  assert.deepEqual(context.calls, ["running"]);
  win.tick(1);
  await context.settle();
  assert.equal(context.state, "suspended");
  assert.deepEqual(context.calls, ["running", "suspended"]);
  alive.hear(turned, 0);
  alive.hear({ type: "war_declared" }, 0);
  assert.equal(context.played.length, 2, "not into a suspended context");
  assert.deepEqual(context.calls, ["running", "suspended", "running"], "one resume for both");
  await context.settle();
  assert.equal(context.played.length, 4, "both play once it runs");
  win.tick(3000);
  await context.settle();
  assert.equal(context.state, "suspended", "and sleeps again");
});

test("a sound due while the context is being suspended waits for it to wake", async () => {
  const { win, alive, context } = await unlocked();
  win.tick(3000); // suspend asked, not yet done: the context still says running
  assert.equal(context.state, "running");
  alive.hear(turned, 0);
  assert.equal(context.played.length, 0);
  await context.settle();
  assert.equal(context.state, "running");
  assert.equal(context.played.length, 1);
});

test("a touch wakes a sleeping context before the next sound is due", async () => {
  const { win, alive, context } = await unlocked();
  win.tick(3000);
  await context.settle();
  win.touch();
  await context.settle();
  assert.equal(context.state, "running");
  alive.hear(turned, 0);
  assert.equal(context.played.length, 1, "at once");
});

test("the rendered sounds: their length, loudness, and a quiet end", () => {
  const c = new FakeContext();
  const war = render(c, SOUNDS.war);
  assert.equal(war.length, Math.ceil(8000 * 0.45));
  const data = war.getChannelData(0);
  const peak = Math.max(...data.map(Math.abs));
  assert.ok(peak > 0.3 && peak <= 0.5, `war peak ${peak}`);
  assert.ok(Math.abs(data[data.length - 1]) < 0.01);
  const snap = render(c, SOUNDS.snap).getChannelData(0);
  assert.equal(snap.length, Math.ceil(8000 * 0.07));
  assert.ok(Math.max(...snap.map(Math.abs)) <= 0.35);
  const chime = render(c, SOUNDS.big).getChannelData(0);
  assert.equal(chime.length, Math.ceil(8000 * (3 * 0.08 + 0.16)));
  assert.ok(Math.abs(chime[0]) < 0.01, "no click at the start");
});

test("a hidden page's context sleeps at once, and a sound after it is shown again plays", async () => {
  const { win, alive, context } = await unlocked();
  win.show("hidden");
  await context.settle();
  assert.equal(context.state, "suspended");
  win.show("visible");
  alive.hear(turned, 0);
  await context.settle();
  assert.equal(context.played.length, 1);
});

test("before a game the sound switch alone; alive.js comes once, on as the switch, and sounds", async () => {
  const win = fakeWindow();
  const storage = new MemoryStorage();
  const page = {};
  let imports = 0;
  const load = async () => ((imports += 1), { Alive });
  page.alive = quietAlive(page, { win, storage, load });
  const quiet = page.alive;
  quiet.hear(turned, 0); // a waiting room: nothing to hear, no screen to keep awake
  quiet.awake(true);
  quiet.setSound(false);
  assert.equal(storage.getItem("war.sound"), "off", "remembered as alive.js remembers it");
  const [first, again] = await Promise.all([quiet.load(), quiet.load()]);
  assert.equal(imports, 1);
  assert.equal(first, again);
  assert.equal(page.alive, first, "the page's from now on");
  assert.ok(first instanceof Alive && first.on === false, "off, as the switch was");
  first.setSound(true);
  win.navigator.userActivation = { hasBeenActive: true }; // the page was touched before it came
  const later = await quietAlive({}, { win, storage, load }).load();
  const context = win.contexts.at(-1);
  await context.settle();
  assert.equal(context.state, "running", "made after a touch: unlocked at once");
  later.hear(turned, 0);
  assert.equal(context.played.length, 1);
});

test("a ding before a game brings alive.js; one that could not come leaves the table quiet", async () => {
  const win = fakeWindow();
  win.navigator.userActivation = { hasBeenActive: true };
  const page = {};
  page.alive = quietAlive(page, { win, storage: new MemoryStorage(), load: async () => ({ Alive }) });
  page.alive.ding();
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(page.alive instanceof Alive, "the talk line's ding brought it");
  const none = {};
  none.alive = quietAlive(none, { win, storage: null, load: () => Promise.reject(new Error("offline")) });
  const quiet = none.alive;
  assert.equal(await quiet.load(), null);
  assert.equal(none.alive, quiet);
  assert.equal(quiet.load, null, "nothing waits for it any more (session.js, held)");
  quiet.ding(); // no throw
});


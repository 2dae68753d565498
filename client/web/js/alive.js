// A table that feels alive: short sounds made in the page, a buzz on a war, the screen
// kept awake while a game is on (README.md). Imported with a game, or with the first talk
// line's ding (page.js `quietAlive`): a waiting room has nothing else to hear.

import { rememberSound, soundOn } from "./page.js";

const NAP_MS = 3000; // the longest sound lasts 0.45 s

// Each sound as notes: [frequency (Hz), start (s), length (s), wave, volume, frequency at
// the end (exponential glide) or null], or "noise" for the snap (a burst of noise,
// band-passed at 2,400 Hz, fading out).
const chime = (notes, gap) => notes.map((f, i) => [f, i * gap, 0.16, "triangle", 0.18, null]);
export const SOUNDS = {
  snap: "noise",
  war: [
    [150, 0, 0.18, "sine", 0.5, 55],
    [150, 0.2, 0.25, "sine", 0.5, 50],
  ],
  won: chime([659, 784, 988], 0.08),
  big: chime([523, 659, 784, 1047], 0.08),
  ding: [[880, 0, 0.12, "sine", 0.08, null]],
};

/** A sound of `SOUNDS` rendered into a mono buffer of context `c` (as an oscillator, a
 * gain falling exponentially to 0.001 and, for the snap, a band-pass filter would play it). */
export function render(c, sound) {
  const rate = c.sampleRate;
  const seconds = sound === "noise" ? 0.07 : Math.max(...sound.map(([, at, length]) => at + length));
  const buffer = c.createBuffer(1, Math.ceil(rate * seconds), rate);
  const data = buffer.getChannelData(0);
  if (sound === "noise") {
    // The biquad band-pass Web Audio uses (Q 1), then a gain of 0.35.
    const w = (2 * Math.PI * 2400) / rate;
    const alpha = Math.sin(w) / 2;
    const [b0, a0, a1, a2] = [alpha, 1 + alpha, -2 * Math.cos(w), 1 - alpha];
    let [x1, x2, y1, y2] = [0, 0, 0, 0];
    for (let i = 0; i < data.length; i += 1) {
      const x = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
      const y = (b0 * x - b0 * x2 - a1 * y1 - a2 * y2) / a0;
      [x2, x1, y2, y1] = [x1, x, y1, y];
      data[i] = 0.35 * y;
    }
    return buffer;
  }
  for (const [from, at, length, wave, volume, to] of sound) {
    let phase = 0;
    const first = Math.round(at * rate);
    const count = Math.min(Math.ceil(length * rate), data.length - first);
    for (let i = 0; i < count; i += 1) {
      const t = i / rate / length;
      const value = wave === "sine" ? Math.sin(2 * Math.PI * phase) : 1 - 4 * Math.abs(((phase + 0.25) % 1) - 0.5);
      data[first + i] += value * volume * (0.001 / volume) ** t;
      phase += (to === null ? from : from * (to / from) ** t) / rate;
    }
  }
  return buffer;
}

/** Sounds (Web Audio, synthesised: nothing to download), a vibration on a war where the
 * device has one, and a Screen Wake Lock while a game is on. The sound switch is
 * remembered (`storage`, localStorage); off also stops the buzz. Nothing plays before the
 * player touched the page (browsers refuse sound until then). */
export class Alive {
  constructor(win, storage = null) {
    this.win = win;
    this.storage = storage;
    this.context = null;
    this.buffers = {}; // each sound rendered once, at its first play
    this.asleep = false; // suspended by us (not by the browser before a touch)
    this.waking = null;
    this.nap = null;
    this.lock = null;
    this.wantLock = false;
    this.refused = false; // asked and refused: not again until the page is shown again
    this.on = soundOn(storage);
    const unlock = () => this.unlock();
    win.addEventListener("pointerdown", unlock, true);
    win.addEventListener("keydown", unlock, true);
    // made after the player touched the page (it comes with a game: main.js): sound may play
    if (win.navigator?.userActivation?.hasBeenActive) this.unlock();
    win.document.addEventListener("visibilitychange", () => {
      this.refused = false;
      this.awake(this.wantLock);
      if (win.document.visibilityState === "hidden") this.sleep(); // nothing to hear: at once
    });
  }

  /** Turn sounds (and the buzz) on or off, remembered. */
  setSound(on) {
    this.on = on;
    rememberSound(this.storage, on);
  }

  unlock() {
    if (!this.on) return;
    const Context = this.win.AudioContext ?? this.win.webkitAudioContext;
    if (Context === undefined) return;
    this.context ??= new Context();
    if (this.context.state === "suspended" || this.asleep) this.wake(); // awake before the next sound
    this.snooze();
  }

  /** What a room message sounds like for seat `me`: a flip, a war (with a buzz), a win. */
  hear(message, me) {
    if (!this.on) return;
    if (message.type === "cards_turned") this.play("snap");
    else if (message.type === "war_declared") {
      this.play("war");
      if (this.win.navigator.userActivation?.hasBeenActive !== false) this.win.navigator.vibrate?.([90, 60, 90]);
    } else if (message.type === "cards_taken" && message.seat === me && me !== null) this.win.setTimeout(() => this.play("won"), 120);
    else if (message.type === "game_over" && message.winner === me && me !== null) this.play("big");
  }

  /** The talk bar's short ding. */
  ding() {
    if (this.on) this.play("ding");
  }

  // --- the sounds: a card's snap, two low drum beats, a rising chime, a ding. Each is
  // rendered into a buffer once (`SOUNDS`), then played by one buffer source straight to
  // the speakers: no oscillator or filter left in the audio graph. The context sleeps
  // (suspended: its audio thread stops) once no sound played for `NAP_MS`, and wakes for
  // the next one, which plays as soon as it is awake (docs/performance.md).
  play(name) {
    const c = this.context;
    if (c === null || !(c.state === "running" || this.asleep)) return; // not unlocked yet
    this.snooze();
    if (!this.asleep) this.start(name);
    else this.wake().then(() => c.state === "running" && this.start(name));
  }

  start(name) {
    const c = this.context;
    this.buffers[name] ??= render(c, SOUNDS[name]);
    const source = c.createBufferSource();
    source.buffer = this.buffers[name];
    source.connect(c.destination);
    source.start();
  }

  snooze() {
    this.win.clearTimeout(this.nap);
    this.nap = this.win.setTimeout(() => this.sleep(), NAP_MS);
  }

  sleep() {
    if (this.context?.state !== "running" || this.asleep) return;
    this.asleep = true;
    this.context.suspend().catch(() => {});
  }

  /** Resume the context (a promise; one at a time). */
  wake() {
    this.waking ??= this.context
      .resume()
      .catch(() => {})
      .then(() => {
        this.waking = null;
        this.asleep = this.context.state !== "running" && this.asleep;
      });
    return this.waking;
  }

  // --- the screen stays awake while a game is on (seated or watching)
  async awake(wanted) {
    this.wantLock = wanted;
    const wakeLock = this.win.navigator.wakeLock;
    if (!wanted || this.win.document.visibilityState !== "visible") {
      const held = this.lock;
      this.lock = null; // a request still on its way lets go when it comes
      if (held !== null && held !== "asking") await held.release().catch(() => {});
      return;
    }
    if (wakeLock === undefined || this.lock !== null || this.refused) return;
    this.lock = "asking";
    try {
      const lock = await wakeLock.request("screen");
      if (this.lock !== "asking" || !this.wantLock) {
        await lock.release();
        return;
      }
      this.lock = lock;
      lock.addEventListener?.("release", () => {
        if (this.lock === lock) this.lock = null; // the browser let go (page hidden)
      });
    } catch {
      this.lock = null; // refused (battery saver, no permission): the screen may sleep
      this.refused = true;
    }
  }
}

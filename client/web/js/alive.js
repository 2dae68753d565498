// A table that feels alive: short sounds made in the page, a buzz on a war, the screen
// kept awake while a game is on (README.md).

const SOUND_KEY = "war.sound";

/** Sounds (Web Audio, synthesised: nothing to download), a vibration on a war where the
 * device has one, and a Screen Wake Lock while a game is on. The sound switch is
 * remembered (`storage`, localStorage); off also stops the buzz. Nothing plays before the
 * player touched the page (browsers refuse sound until then). */
export class Alive {
  constructor(win, storage = null) {
    this.win = win;
    this.storage = storage;
    this.context = null;
    this.snap = null; // the flip's sound, made at the first flip
    this.lock = null;
    this.wantLock = false;
    this.refused = false; // asked and refused: not again until the page is shown again
    let stored = null;
    try {
      stored = storage?.getItem(SOUND_KEY) ?? null;
    } catch {
      stored = null; // storage refused: sound on, not remembered
    }
    this.on = stored !== "off";
    const unlock = () => this.unlock();
    win.addEventListener("pointerdown", unlock, true);
    win.addEventListener("keydown", unlock, true);
    win.document.addEventListener("visibilitychange", () => {
      this.refused = false;
      this.awake(this.wantLock);
    });
  }

  /** Turn sounds (and the buzz) on or off, remembered. */
  setSound(on) {
    this.on = on;
    try {
      this.storage?.setItem(SOUND_KEY, on ? "on" : "off");
    } catch {
      // a private window: the choice lasts this visit
    }
  }

  unlock() {
    if (!this.on) return;
    const Context = this.win.AudioContext ?? this.win.webkitAudioContext;
    if (Context === undefined) return;
    this.context ??= new Context();
    if (this.context.state === "suspended") this.context.resume().catch(() => {});
  }

  /** What a room message sounds like for seat `me`: a flip, a war (with a buzz), a win. */
  hear(message, me) {
    if (!this.on) return;
    if (message.type === "cards_turned") this.flip();
    else if (message.type === "war_declared") {
      this.war();
      if (this.win.navigator.userActivation?.hasBeenActive !== false) this.win.navigator.vibrate?.([90, 60, 90]);
    } else if (message.type === "cards_taken" && message.seat === me && me !== null) this.win.setTimeout(() => this.won(), 120);
    else if (message.type === "game_over" && message.winner === me && me !== null) this.won(true);
  }

  // --- the sounds: a card's snap, two low drum beats, a rising three-note chime
  tone(frequency, start, length, { type = "triangle", volume = 0.18, to = null } = {}) {
    const c = this.context;
    const osc = c.createOscillator();
    const gain = c.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(frequency, start);
    if (to !== null) osc.frequency.exponentialRampToValueAtTime(to, start + length);
    gain.gain.setValueAtTime(volume, start);
    gain.gain.exponentialRampToValueAtTime(0.001, start + length);
    osc.connect(gain).connect(c.destination);
    osc.start(start);
    osc.stop(start + length);
  }

  ready() {
    return this.context !== null && this.context.state === "running";
  }

  flip() {
    if (!this.ready()) return;
    const c = this.context;
    if (this.snap === null) {
      // Made once, played at every flip: a burst of noise, band-passed, fading out.
      const length = 0.07;
      const buffer = c.createBuffer(1, Math.ceil(c.sampleRate * length), c.sampleRate);
      const data = buffer.getChannelData(0);
      for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
      const filter = c.createBiquadFilter();
      const gain = c.createGain();
      filter.type = "bandpass";
      filter.frequency.value = 2400;
      gain.gain.value = 0.35;
      filter.connect(gain).connect(c.destination);
      this.snap = { buffer, input: filter };
    }
    const noise = c.createBufferSource();
    noise.buffer = this.snap.buffer;
    noise.connect(this.snap.input);
    noise.start();
  }

  war() {
    if (!this.ready()) return;
    const t = this.context.currentTime;
    this.tone(150, t, 0.18, { type: "sine", volume: 0.5, to: 55 });
    this.tone(150, t + 0.2, 0.25, { type: "sine", volume: 0.5, to: 50 });
  }

  won(big = false) {
    if (!this.ready()) return;
    const t = this.context.currentTime;
    const notes = big ? [523, 659, 784, 1047] : [659, 784, 988];
    notes.forEach((f, i) => this.tone(f, t + i * 0.08, 0.16));
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

// Touch or keys: what this device has, so the sentences name it (README.md).

const TEXT_FIELDS = "input:not([type=radio]):not([type=checkbox]), select, textarea";

/** Follows how the player plays: a touch screen ("Tap Turn over") or keys ("Press space").
 * It starts from the primary pointer (coarse: a finger) and then follows the last thing
 * used: a finger's tap makes it touch, a key pressed outside a text field makes it keys
 * (a tablet with a keyboard). `onChange` is called when it changes. */
export class InputKind {
  constructor(win, onChange = () => {}) {
    this.touch = Boolean(win.matchMedia?.("(pointer: coarse)").matches);
    this.onChange = onChange;
    this.pointerAt = -Infinity;
    win.addEventListener("pointerdown", (event) => {
      this.pointerAt = event.timeStamp;
      if (event.pointerType === "touch") this.set(true);
      else if (event.pointerType === "mouse") this.set(false);
    }, true);
    win.addEventListener("keydown", (event) => {
      const target = event.target;
      if (!(target instanceof win.Element && target.closest(TEXT_FIELDS))) this.set(false);
    }, true);
  }

  set(touch) {
    if (touch === this.touch) return;
    this.touch = touch;
    this.onChange(touch);
  }
}

/** Is `target` a text field, where letters are typed rather than being the table's keys? */
export const typing = (target) => Boolean(target?.closest?.(TEXT_FIELDS));

/** After a tap or click on a control inside `root` (an auto-play option, Finish, Copy),
 * hand the focus back to the page, so that space and the letter keys work at once again
 * (a focused radio or button would keep them). Keyboard use keeps its focus. */
export function releaseFocusAfterPointer(doc, root, kind) {
  root.addEventListener("click", (event) => {
    const control = event.target.closest?.("button, input, label");
    if (control === null || event.timeStamp - kind.pointerAt > 1000) return;
    // a label's click reaches its radio afterwards: let it, then blur
    queueMicrotask(() => doc.activeElement?.blur?.());
  });
}

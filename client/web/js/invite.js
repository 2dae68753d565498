// The invitation: the links, their QR code, Share or Copy, and a warning when the page's
// own address reaches only this machine (README.md).

import { said } from "./catalog.js";
import { spectating } from "./view.js";

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/i;

/** Whether `hostname` (a URL's) is this machine only: 127.x.x.x, localhost, [::1]. */
export const isLoopback = (hostname) => LOOPBACK.test(hostname);

/** The address the links start with: the page's own, or, on a page opened on this
 * machine, the first of the server's `addresses` (welcome.addresses) others can reach. */
export function linkBase(location, addresses = []) {
  const own = new URL(location.href);
  own.hash = "";
  if (!isLoopback(own.hostname)) return own.href;
  for (const address of addresses) {
    let url;
    try {
      url = new URL(address);
      url.hash = "";
    } catch {
      // not a URL: ignored
      continue;
    }
    if (/^https?:$/.test(url.protocol) && !isLoopback(url.hostname)) return url.href;
  }
  return own.href;
}

// A command in a sentence ("make run HOST=0.0.0.0", "war-server --host 0.0.0.0"): one
// piece that never breaks at its hyphens or spaces on a narrow phone.
const COMMAND = /(make run HOST=\d+(?:\.\d+)*|war-server --host \d+(?:\.\d+)*)/;

/** Write `text` into `node`, each command in it a <code class="command"> (as text, never markup). */
export function writeWithCommands(doc, node, text) {
  node.replaceChildren(
    ...text.split(COMMAND).map((part, i) => {
      if (i % 2 === 0) return doc.createTextNode(part);
      const code = doc.createElement("code");
      code.className = "command";
      code.textContent = part;
      return code;
    }),
  );
}

/** What to say about the links' address (a said() message), or null when others can
 * reach it. */
export function localWarning(location, base, addresses = null) {
  const host = new URL(location.href).hostname;
  if (!isLoopback(host)) return null;
  const used = new URL(base);
  if (!isLoopback(used.hostname)) return said("page.local_warning_used", { origin: used.origin, host });
  if (Array.isArray(addresses) && addresses.length === 0) return said("page.local_warning_only", { host });
  return said("page.local_warning", { host });
}

/** The outside link's base (welcome.outside: `war-server --outside`'s https://ADDRESS/)
 * for a page that is not itself opened at it, or null: then the page's links are the only
 * ones (a relative's page opened at the outside link builds its links from it anyway). */
export function outsideBase(location, outside) {
  if (typeof outside !== "string") return null;
  let url;
  try {
    url = new URL(outside);
  } catch {
    return null; // not a URL: ignored
  }
  url.hash = "";
  if (url.protocol !== "https:" || isLoopback(url.hostname)) return null;
  return url.origin === new URL(location.href).origin ? null : url.href;
}

export class Invitation {
  constructor(doc) {
    this.doc = doc;
    this.addresses = null;
    this.outside = null;
    this.inviting = null;
    this.drawnQr = this.drawn = null;
    this.qr = null; // the QR module, loaded when first needed
    this.words = null; // the catalog of the last drawing
    const share = doc.defaultView?.navigator.share;
    for (const button of doc.querySelectorAll("[data-share]")) {
      button.hidden = typeof share !== "function";
      button.addEventListener("click", (event) => this.share(event.currentTarget));
    }
    for (const button of doc.querySelectorAll("[data-copy]")) {
      button.addEventListener("click", (event) => this.copy(event.currentTarget));
    }
  }

  $(id) {
    return this.doc.getElementById(id);
  }

  /** The welcome's `addresses` (null: not told; []: the server is on loopback alone). */
  useAddresses(addresses) {
    const told = Array.isArray(addresses) ? addresses.filter((a) => typeof a === "string") : null;
    if (String(told) === String(this.addresses)) return;
    this.addresses = told;
    this.drawnQr = this.drawn = null;
  }

  /** The welcome's `outside` (the link for relatives elsewhere; null: none, or not told). */
  useOutside(outside) {
    const told = typeof outside === "string" ? outside : null;
    if (told === this.outside) return;
    this.outside = told;
    this.drawnQr = this.drawn = null;
  }

  /** Draw it for `view`, in `words` (the viewer's catalog). */
  draw(view, words) {
    const share = this.$("share");
    const inviting = view.phase === "waiting" && view.player_code !== null && view.seats.some((s) => s.name === null);
    // Drawn again only when something it shows changed (not at every message of a game).
    const drawn = `${inviting}|${spectating(view)}|${view.player_code}|${view.watch_code}|${this.doc.location.href}|${words.tag}`;
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    this.words = words;
    share.hidden = spectating(view) || view.watch_code === null;
    if (share.hidden) return;
    // open while inviting
    if (inviting !== this.inviting) share.open = this.inviting = inviting;
    this.$("share-title").textContent = words.text(inviting ? "page.invite" : "page.let_watch");
    // out of the way while playing
    share.classList.toggle("later", !inviting);
    this.$("share-join").hidden = !inviting;
    const location = this.doc.location;
    const base = linkBase(location, this.addresses ?? []);
    const warning = localWarning(location, base, this.addresses);
    this.$("local-warning").hidden = warning === null;
    writeWithCommands(this.doc, this.$("local-warning"), warning === null ? "" : words.say(warning));
    const join = inviting ? `${base}#join=${view.player_code}` : "";
    this.$("join-link").textContent = join;
    // With an outside link: it first, for relatives elsewhere; the page's own (its QR
    // code) for phones in this house, each saying which it is.
    const outside = inviting ? outsideBase(location, this.outside) : null;
    this.$("share-outside").hidden = outside === null;
    this.$("outside-link").textContent = outside === null ? "" : `${outside}#join=${view.player_code}`;
    this.$("qr").setAttribute("aria-label", words.text(outside === null ? "page.qr_label" : "page.qr_label_house"));
    this.$("watch-link").textContent = `${base}#watch=${view.watch_code}`;
    const codes = { player: view.player_code, watch: view.watch_code };
    this.$("share-codes").textContent = words.text(inviting ? "page.codes_inviting" : "page.codes", codes);
    if (inviting && join !== this.drawnQr) this.drawQr(join);
  }

  async drawQr(link) {
    this.drawnQr = link;
    this.qr ??= await import("./qr.js");
    if (this.drawnQr === link) this.qr.drawQr(this.doc, this.$("qr"), link);
  }

  async share(button) {
    const url = this.$(button.dataset.share).textContent;
    try {
      const words = this.words;
      await this.doc.defaultView.navigator.share({ title: words.text("app.title"), text: words.text("page.share_text"), url });
    } catch {
      // dismissed, or refused: the link is still there to copy
    }
  }

  async copy(button) {
    const text = this.$(button.dataset.copy).textContent;
    const label = button.textContent;
    let copied = false;
    try {
      await this.doc.defaultView.navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      // no clipboard API on a plain http:// address: select the text for the reader
      const range = this.doc.createRange();
      range.selectNodeContents(this.$(button.dataset.copy));
      this.doc.getSelection()?.removeAllRanges();
      this.doc.getSelection()?.addRange(range);
      copied = this.doc.execCommand?.("copy") ?? false;
    }
    button.textContent = this.words.text(copied ? "page.copied" : "page.selected");
    setTimeout(() => {
      button.textContent = label;
    }, 2500);
  }
}

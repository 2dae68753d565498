// The second path's merge (PROTOCOL.md §11), a port of protocol/paths.py: the messages of one
// connection and of its second path, each delivered once, in order, whichever came first.

export const FIRST = 0;
export const SECOND = 1;
/** What the second path may bring ahead of the first: messages, then bytes. */
export const MOST_HELD = 16;
export const MOST_HELD_BYTES = 64 * 1024;

/** The second path brought more than MOST_HELD or MOST_HELD_BYTES ahead (it is detached). */
export class PathOverflowError extends Error {}

const size = (message) => message.byteLength ?? message.length;

export class PathMerge {
  constructor(mostMessages = MOST_HELD, mostBytes = MOST_HELD_BYTES) {
    this.next = 0; // the index delivered next
    this.counts = [0, null]; // each path's next index (null: no second path)
    this.most = [mostMessages, mostBytes];
    this.detach();
  }

  get attached() {
    return this.counts[SECOND] !== null;
  }

  /** A second path starts, its first message numbered `after`; one before it is replaced. */
  attach(after) {
    this.detach();
    this.counts[SECOND] = after;
  }

  /** The second path ended: what it held is dropped (the first connection brings it). */
  detach() {
    this.counts[SECOND] = null;
    this.held = new Map();
    this.heldBytes = 0;
  }

  /** `message` came on `path`: the messages now delivered, in order. Throws PathOverflowError. */
  receive(path, message) {
    const index = this.counts[path];
    if (index === null) throw new Error("no second path");
    this.counts[path] = index + 1;
    if (index < this.next) return []; // its other copy was delivered
    if (index > this.next) {
      const bytes = this.heldBytes + size(message);
      if (this.held.size >= this.most[0] || bytes > this.most[1]) {
        this.detach();
        throw new PathOverflowError("too far ahead");
      }
      this.held.set(index, message);
      this.heldBytes = bytes;
      return [];
    }
    const out = [message];
    for (this.next = index + 1; this.held.has(this.next); this.next++) {
      const held = this.held.get(this.next);
      this.held.delete(this.next);
      this.heldBytes -= size(held);
      out.push(held);
    }
    return out;
  }
}

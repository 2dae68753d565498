// The second path's merge (PROTOCOL.md §11), a port of protocol/paths: the messages of one
// connection and of its second path, each delivered once, in order, whichever came first.

/** The paths, and what the second may bring ahead of the first: messages, then bytes. */
export const FIRST = 0,
  SECOND = 1,
  MOST_HELD = 16,
  MOST_HELD_BYTES = 65536;

/** The second path brought more than its bounds ahead (it is detached). */
export class PathOverflowError extends Error {}

const size = (message) => message.byteLength ?? message.length;

export class PathMerge {
  constructor(most = MOST_HELD, mostBytes = MOST_HELD_BYTES) {
    this.next = 0; // the index delivered next
    this.counts = [0, null]; // each path's next index (null: no second path)
    this.most = most;
    this.mostBytes = mostBytes;
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
    if (index === null) throw Error("no second path");
    this.counts[path] = index + 1;
    if (index < this.next) return []; // its other copy was delivered
    if (index > this.next) {
      if (this.held.size >= this.most || (this.heldBytes += size(message)) > this.mostBytes) {
        this.detach();
        throw new PathOverflowError("too far ahead");
      }
      this.held.set(index, message);
      return [];
    }
    const out = [message];
    while (this.held.has(++this.next)) {
      const held = this.held.get(this.next);
      this.held.delete(this.next);
      this.heldBytes -= size(held);
      out.push(held);
    }
    return out;
  }
}

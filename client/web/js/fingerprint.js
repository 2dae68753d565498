// The fingerprint of a deal commitment (protocol/PROTOCOL.md §10), in a module of its own
// with no imports: the table shows it from the start of a game, long before it loads the
// engine and the hashes (engine/fairness.js re-exports it, and its vectors check it).

export const FINGERPRINT_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
const HEX64 = /^[0-9a-f]{64}$/;

/** What people compare aloud: the commitment mod 30**12 in base 30, "XXXX-XXXX-XXXX". */
export function fingerprint(commitmentHex) {
  if (typeof commitmentHex !== "string" || !HEX64.test(commitmentHex)) {
    throw new Error(`commitment must be 64 lowercase hex digits, not ${String(commitmentHex).slice(0, 80)}`);
  }
  let number = BigInt(`0x${commitmentHex}`);
  const base = BigInt(FINGERPRINT_ALPHABET.length);
  const symbols = [];
  for (let i = 0; i < 12; i += 1) {
    symbols.unshift(FINGERPRINT_ALPHABET[Number(number % base)]);
    number /= base;
  }
  const text = symbols.join("");
  return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8)}`;
}

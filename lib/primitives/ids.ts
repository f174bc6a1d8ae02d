import { randomFillSync } from "node:crypto";

// The one table of ID prefixes. An ID is its prefix plus 24 base62 characters (~143 bits).
export const ID_PREFIXES = {
  workspace: "ws_",
  apiKey: "key_",
  generation: "gen_",
  batch: "bat_",
  file: "file_",
  upload: "upl_",
  request: "req_",
  hold: "hold_",
  ledgerEntry: "led_",
  event: "evt_",
  webhook: "wh_",
  delivery: "dlv_",
  user: "usr_",
  shareLink: "shr_",
  invitation: "inv_",
  auditEvent: "aud_",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random base62 characters made 4 KB of CSPRNG bytes at a time and handed out as slices: every
// request gets an ID, and a CSPRNG call or a string built a character at a time per ID costs more.
// Each character is used once; rejection sampling (bytes ≥ 248 dropped) keeps every character
// equally likely.
const bytes = Buffer.alloc(4096);
const made = Buffer.alloc(bytes.length);
const ALPHABET_CODES = Buffer.from(ALPHABET, "latin1");
let chars = "";
let charsOffset = 0;

function refill(): void {
  randomFillSync(bytes);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 248) made[length++] = ALPHABET_CODES[byte % 62]!;
  }
  chars = chars.slice(charsOffset) + made.toString("latin1", 0, length);
  charsOffset = 0;
}

/** Random base62 text. */
export function randomBase62(length: number): string {
  while (chars.length - charsOffset < length) refill();
  charsOffset += length;
  return chars.slice(charsOffset - length, charsOffset);
}

export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + randomBase62(24);
}

// Every ID there is: a prefix of the table, then base62 (24 characters when made here; a little
// room either way for IDs written by hand, such as a built-in preset's poster file).
const POSSIBLE_ID = new RegExp(`^(?:${Object.values(ID_PREFIXES).join("|")})[0-9A-Za-z]{1,64}$`);

/**
 * Whether `value` could be an ID of some kind. One that could not (another character, such as
 * U+0000, a space or a dash, or no known prefix) names nothing: the API answers 404 without a query.
 */
export function isPossibleId(value: string): boolean {
  return POSSIBLE_ID.test(value);
}

export function hasIdPrefix(kind: IdKind, value: string): boolean {
  return value.startsWith(ID_PREFIXES[kind]);
}

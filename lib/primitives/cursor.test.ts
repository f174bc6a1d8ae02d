import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor";
import { ApiError } from "./errors";

const SECRET = "cursor-test-secret-0123456789abcdef";
const FILTERS = JSON.stringify(["atelier/gradient", ["api"], null]);
const POSITION = { t: "2026-11-02T10:11:12.345Z", i: "gen_0123456789ABCDEFGHIJabcd" };

function refusal(fn: () => unknown): ApiError {
  let caught: unknown = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.code).toBe("invalid_parameter");
  expect(err.status).toBe(400);
  expect(err.param).toBe("cursor");
  return err;
}

describe("list cursors", () => {
  it("round-trips the position with the filters it was made with", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    expect(decodeCursor(SECRET, cursor, FILTERS)).toEqual(POSITION);
  });

  it("is two URL-safe base64 parts joined by a dot, the second 43 characters", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    const parts = cursor.split(".");
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(parts[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Opaque to the client: nothing of the position or the filters can be read in it.
    const inside = Buffer.from(parts[0]!, "base64url").toString("latin1");
    for (const secret of [POSITION.t, POSITION.i, POSITION.t.slice(0, 10), FILTERS])
      expect(inside).not.toContain(secret);
    expect(() => JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"))).toThrow();
    // The same position and filters always give the same cursor.
    expect(encodeCursor(SECRET, POSITION, FILTERS)).toBe(cursor);
  });

  it("stays within 512 characters whatever the filters (a 200-character search in any script)", () => {
    const search = "検索".repeat(100);
    const filters = JSON.stringify([
      "atelier/gradient",
      ["api", "mcp"],
      ["failed"],
      "bat_x",
      "usr_x",
      search,
      null,
      null,
    ]);
    const cursor = encodeCursor(SECRET, { t: "2026-11-29T02:20:00.000Z", i: `gen_${"x".repeat(40)}` }, filters);
    expect(cursor.length).toBeLessThanOrEqual(512);
    expect(decodeCursor(SECRET, cursor, filters)).toEqual({
      t: "2026-11-29T02:20:00.000Z",
      i: `gen_${"x".repeat(40)}`,
    });
  });

  it("round-trips any position and filters (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 80 }),
        (t, i, filters) => {
          const cursor = encodeCursor(SECRET, { t, i }, filters);
          expect(cursor.split(".")[1]).toHaveLength(43);
          if (cursor.length <= 512) expect(decodeCursor(SECRET, cursor, filters)).toEqual({ t, i });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses a cursor with any one character changed (property)", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/";
    fc.assert(
      fc.property(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...alphabet), (at, ch) => {
        fc.pre(cursor[at] !== ch);
        const tampered = cursor.slice(0, at) + ch + cursor.slice(at + 1);
        refusal(() => decodeCursor(SECRET, tampered, FILTERS));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a payload re-encoded to point elsewhere, keeping the old signature", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    const [, signature] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify({ t: "2099-01-01T00:00:00.000Z", i: POSITION.i, f: FILTERS })).toString(
      "base64url",
    );
    refusal(() => decodeCursor(SECRET, `${forged}.${signature}`, FILTERS));
  });

  it("refuses a cursor signed with another secret", () => {
    const cursor = encodeCursor("another-secret", POSITION, FILTERS);
    refusal(() => decodeCursor(SECRET, cursor, FILTERS));
  });

  it("refuses a cursor sent with other filters, naming the reason", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    const err = refusal(() => decodeCursor(SECRET, cursor, JSON.stringify([null, null, null])));
    expect(err.message).toMatch(/other filters/);
  });

  it("refuses malformed cursors and cursors outside 1 to 512 characters", () => {
    const cursor = encodeCursor(SECRET, POSITION, FILTERS);
    const [payload, signature] = cursor.split(".");
    for (const bad of ["", "abc", ".", `${payload}.`, `.${signature}`, `${cursor}.x`, `${payload}`, "x".repeat(513)]) {
      refusal(() => decodeCursor(SECRET, bad, FILTERS));
    }
  });

  it("refuses a correctly signed payload that is not JSON", () => {
    // Signed with the right secret but not made by encodeCursor: still refused, never a 500.
    const notJson = Buffer.from("not json").toString("base64url");
    const good = encodeCursor(SECRET, POSITION, FILTERS);
    refusal(() => decodeCursor(SECRET, `${notJson}.${good.split(".")[1]}`, FILTERS));
  });
});

import { describe, expect, it } from "vitest";
import { ApiError } from "../../primitives/errors";
import { eventStreamBody, type StreamedEvent } from "./event-stream";
import { LIMITS } from "../../primitives/limits";
import {
  acquireKeyReader,
  acquireUserReader,
  inKeyReaderSlot,
  OpenReaders,
  openKeyReaders,
  releasingSource,
} from "./open-readers";

const owner = () => `key_${Math.random().toString(36).slice(2)}`;

describe("OpenReaders", () => {
  it("refuses past the cap per owner and takes one again once a slot is released", () => {
    const readers = new OpenReaders(2);
    const a = readers.tryAcquire("k1")!;
    readers.tryAcquire("k1");
    expect(readers.tryAcquire("k1")).toBeNull();
    expect(readers.tryAcquire("k2")).not.toBeNull();
    a();
    a(); // a second release gives nothing more back
    expect(readers.count("k1")).toBe(1);
    expect(readers.tryAcquire("k1")).not.toBeNull();
    expect(readers.tryAcquire("k1")).toBeNull();
  });

  it("answers 429 rate_limit_exceeded naming the cap, with Retry-After", () => {
    const key = owner();
    const held = Array.from({ length: LIMITS.openReadersPerKey }, () => acquireKeyReader(key));
    let refused: unknown;
    try {
      acquireKeyReader(key);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(429);
    expect((refused as ApiError).code).toBe("rate_limit_exceeded");
    expect((refused as ApiError).message).toContain(
      `already has ${LIMITS.openReadersPerKey} status streams and Prefer: wait reads open`,
    );
    expect((refused as ApiError).headers["Retry-After"]).toBe(String(LIMITS.openReaderRetryAfterSeconds));
    held.forEach((release) => release());
    expect(openKeyReaders(key)).toBe(0);
    expect(() => acquireUserReader(key)).not.toThrow();
  });

  it("gives a wait's slot back whether the read answers or throws", async () => {
    const key = owner();
    await inKeyReaderSlot(key, async () => expect(openKeyReaders(key)).toBe(1));
    await expect(inKeyReaderSlot(key, async () => Promise.reject(new Error("store down")))).rejects.toThrow(
      "store down",
    );
    expect(openKeyReaders(key)).toBe(0);
  });
});

/** A source whose every next() is `next`. */
const iterating = (next: () => Promise<IteratorResult<StreamedEvent>>): AsyncIterable<StreamedEvent> => ({
  [Symbol.asyncIterator]: () => ({ next }),
});

describe("releasingSource", () => {
  const key = owner();
  const drain = async (body: ReadableStream<Uint8Array>) => {
    const reader = body.getReader();
    while (!(await reader.read()).done);
  };

  it("releases when the stream's items end", async () => {
    const release = acquireKeyReader(key);
    await drain(
      eventStreamBody(
        releasingSource(release, async function* () {
          yield { id: 1, event: "e", data: 1 };
        }),
      ),
    );
    expect(openKeyReaders(key)).toBe(0);
  });

  it("releases when the source throws", async () => {
    const release = acquireKeyReader(key);
    const errors: unknown[] = [];
    await drain(
      eventStreamBody(
        releasingSource(release, () => iterating(() => Promise.reject(new Error("boom")))),
        { onError: (e) => errors.push(e) },
      ),
    );
    expect(errors).toHaveLength(1);
    expect(openKeyReaders(key)).toBe(0);
  });

  it("releases when the client goes away while the source is waiting", async () => {
    const release = acquireKeyReader(key);
    // A source that never yields and ignores its stop signal: only the abort can give the slot back.
    const body = eventStreamBody(releasingSource(release, () => iterating(() => new Promise(() => {}))));
    const reader = body.getReader();
    await reader.read(); // the retry line
    expect(openKeyReaders(key)).toBe(1);
    await reader.cancel();
    expect(openKeyReaders(key)).toBe(0);
  });
});

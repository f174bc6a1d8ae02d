import { describe, expect, it } from "vitest";
import { acceptsEventStream, eventStreamBody, parseLastEventId, type StreamedEvent } from "./event-stream";

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

describe("event stream bodies", () => {
  it("frames each item as one event (JSON data on one line), after a retry line, and ends with the items", async () => {
    const body = eventStreamBody(async function* () {
      yield { id: 1, event: "generation", data: { text: "two\nlines", n: 1 } };
      yield { id: 2, event: "generation", data: { n: 2 } };
    });
    expect(await readAll(body)).toBe(
      'retry: 1000\n\nid: 1\nevent: generation\ndata: {"text":"two\\nlines","n":1}\n\nid: 2\nevent: generation\ndata: {"n":2}\n\n',
    );
  });

  it("keeps an idle stream open with comment lines, and tells the source to stop when the reader goes away", async () => {
    let stopped: AbortSignal | null = null;
    const body = eventStreamBody(
      (stop) => {
        stopped = stop;
        return (async function* (): AsyncGenerator<StreamedEvent> {
          await new Promise<void>((resolve) => stop.addEventListener("abort", () => resolve()));
          if (!stop.aborted) yield { id: 1, event: "generation", data: {} };
        })();
      },
      { keepAliveMs: 5 },
    );
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) text += decoder.decode((await reader.read()).value);
    expect(stopped!.aborted).toBe(false);
    await reader.cancel();
    expect(stopped!.aborted).toBe(true);
  });

  it("reports a source's failure and ends the stream", async () => {
    const errors: unknown[] = [];
    const body = eventStreamBody(
      async function* () {
        yield { id: 1, event: "generation", data: {} };
        throw new Error("store gone");
      },
      { onError: (err) => errors.push(err) },
    );
    expect(await readAll(body)).toContain("id: 1\n");
    expect(errors).toHaveLength(1);
  });

  it("reads Accept and Last-Event-ID as clients send them", () => {
    expect(acceptsEventStream("text/event-stream")).toBe(true);
    expect(acceptsEventStream("application/json, Text/Event-Stream;q=0.5")).toBe(true);
    expect(acceptsEventStream("text/event-stream;q=0")).toBe(false);
    expect(acceptsEventStream("application/json")).toBe(false);
    expect(acceptsEventStream(undefined)).toBe(false);
    expect(parseLastEventId(" 42 ")).toBe(42);
    expect(parseLastEventId("-1")).toBe(0);
    expect(parseLastEventId("1e9")).toBe(0);
    expect(parseLastEventId("9".repeat(20))).toBe(0);
    expect(parseLastEventId(null)).toBe(0);
  });
});

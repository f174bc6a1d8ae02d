// A small Server-Sent Events client for the API tests: opens a stream with Node's fetch and
// parses its body incrementally (WHATWG event stream format: blocks separated by a blank line,
// `field: value` lines, `:` comment lines), keeping every event, `retry:` value and comment in
// the order they came. A deadline aborts the request, so a stream that never ends fails the
// test with what it had seen instead of hanging it.

export interface SseEvent {
  /** The `id:` field, or null when the event had none. */
  id: string | null;
  /** The `event:` field ("message" when absent, as browsers name it). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/** One block of the stream as it came: an event, a `retry:` line or a comment. */
export type SseItem =
  { kind: "event"; event: SseEvent } | { kind: "retry"; ms: number } | { kind: "comment"; text: string };

export class EventStream {
  /** Everything parsed so far, in order. */
  readonly items: SseItem[] = [];
  /** The events parsed so far, in order. */
  readonly events: SseEvent[] = [];
  /** True once the server closed the body (the read loop ended by itself). */
  ended = false;
  /** Text after the last blank line when the body ended (an event cut short); "" when none. */
  trailing = "";

  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private delivered = 0;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
    readonly label: string,
  ) {
    this.reader = response.body!.getReader();
  }

  /** The next event, or null once the server has closed the stream. */
  async next(): Promise<SseEvent | null> {
    for (;;) {
      if (this.delivered < this.events.length) return this.events[this.delivered++]!;
      if (this.ended) return null;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.reader.read();
      } catch (err) {
        throw new Error(
          `${this.label}: the stream broke or did not end in time (${String(err)}); seen so far:\n${this.describe()}`,
        );
      }
      if (chunk.done) {
        this.buffer += this.decoder.decode();
        this.parse();
        this.trailing = this.buffer;
        this.buffer = "";
        this.ended = true;
      } else {
        this.buffer += this.decoder.decode(chunk.value, { stream: true });
        this.parse();
      }
    }
  }

  /** Reads every remaining event until the server closes the stream; returns all events seen. */
  async readToEnd(): Promise<SseEvent[]> {
    while ((await this.next()) !== null) {
      // Collected in this.events.
    }
    return this.events;
  }

  /** Reads events until one satisfies `until` (returned), or null if the stream ended first. */
  async readUntil(until: (event: SseEvent) => boolean): Promise<SseEvent | null> {
    for (;;) {
      const event = await this.next();
      if (event === null || until(event)) return event;
    }
  }

  /** Stops reading and lets go of the connection (the client going away). */
  close(): void {
    this.abort.abort();
    void this.reader.cancel().catch(() => undefined);
  }

  /** What was seen, one line per block, for failure messages. */
  describe(): string {
    return this.items
      .map((item) =>
        item.kind === "event"
          ? `id=${item.event.id} event=${item.event.event} ${brief(item.event.data)}`
          : item.kind === "retry"
            ? `retry: ${item.ms}`
            : `:${item.text}`,
      )
      .join("\n");
  }

  private parse(): void {
    for (;;) {
      const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer);
      if (!match) return;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.block(block);
    }
  }

  private block(block: string): void {
    let id: string | null = null;
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line === "") continue;
      if (line.startsWith(":")) {
        this.items.push({ kind: "comment", text: line.slice(1) });
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) this.items.push({ kind: "retry", ms: Number(value) });
    }
    if (data.length === 0) return;
    const parsed: SseEvent = { id, event: event ?? "message", data: data.join("\n") };
    this.events.push(parsed);
    this.items.push({ kind: "event", event: parsed });
  }
}

function brief(data: string): string {
  try {
    const g = JSON.parse(data) as Record<string, unknown>;
    return JSON.stringify({
      status: g.status,
      progress: g.progress,
      queue_position: g.queue_position,
      preview: g.preview ? "yes" : null,
    });
  } catch {
    return data.slice(0, 200);
  }
}

/**
 * GET `url` asking for an event stream (Accept: text/event-stream) with `headers`; the request
 * (and so any read of its body) is aborted after `seconds`.
 */
export async function openEventStream(
  url: string,
  headers: Record<string, string>,
  seconds = 60,
): Promise<EventStream> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no end within ${seconds} s`)), seconds * 1000);
  timer.unref();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  return new EventStream(response, abort, `GET ${url}`);
}

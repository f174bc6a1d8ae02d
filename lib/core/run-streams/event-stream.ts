// Server-Sent Events (the WHATWG event stream format) as a web ReadableStream, for every door
// that streams runs: an event per item, a comment line to keep idle connections open, and the
// end of the items' iterator (or the reader going away) ends the stream.
export interface StreamedEvent {
  id: number;
  event: string;
  data: unknown;
}

/** A comment line this often keeps proxies and clients from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;

/** Tells clients how long to wait before reconnecting after the stream is cut. */
const RETRY_MS = 1_000;

const encoder = new TextEncoder();

function frame(item: StreamedEvent): Uint8Array {
  // JSON.stringify never writes a raw line break, so the data is one `data:` line.
  return encoder.encode(`id: ${item.id}\nevent: ${item.event}\ndata: ${JSON.stringify(item.data)}\n\n`);
}

/**
 * The body of an event stream. `stop` is aborted when the reader cancels (the client went away),
 * which the source must honour to end its iterator and let go of what it follows.
 */
export function eventStreamBody(
  source: (stop: AbortSignal) => AsyncIterable<StreamedEvent>,
  options: { keepAliveMs?: number; onError?: (err: unknown) => void } = {},
): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  let keepAlive: NodeJS.Timeout | null = null;
  const end = () => {
    if (keepAlive) clearInterval(keepAlive);
    keepAlive = null;
    stop.abort();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n\n`));
      keepAlive = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          end();
        }
      }, options.keepAliveMs ?? KEEP_ALIVE_MS);
      keepAlive.unref();
      void (async () => {
        try {
          for await (const item of source(stop.signal)) controller.enqueue(frame(item));
        } catch (err) {
          // The client resumes with Last-Event-ID; the error itself is the server's to log.
          if (!stop.signal.aborted) options.onError?.(err);
        } finally {
          end();
          try {
            controller.close();
          } catch {
            // Already canceled by the reader.
          }
        }
      })();
    },
    cancel() {
      end();
    },
  });
}

/** The resume point a client sent (Last-Event-ID), or 0 when absent or not a whole number. */
export function parseLastEventId(value: string | undefined | null): number {
  if (!value || !/^\d{1,15}$/.test(value.trim())) return 0;
  return Number(value.trim());
}

/** Whether an Accept header asks for an event stream rather than JSON. */
export function acceptsEventStream(accept: string | undefined | null): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(";");
    return type?.trim() === "text/event-stream" && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}

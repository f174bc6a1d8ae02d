// Reading a whole body into memory with a ceiling: a request to the API, or an answer from a
// remote provider, can never fill the memory. Stops as soon as the declared or streamed size
// passes the limit.

/** The stream itself failed: the sender closed the connection mid-body or sent a malformed body. */
export class BodyReadError extends Error {
  constructor(cause: unknown) {
    super("the body could not be read", { cause });
    this.name = "BodyReadError";
  }
}

export async function readCappedStream(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | null,
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (declaredLength !== null && declaredLength !== "" && Number(declaredLength) > limit) {
    await body?.cancel();
    throw tooLarge();
  }
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (err) {
      throw new BodyReadError(err);
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The same from a Node stream (the API's request as node:http gave it): no web-stream adapter
 * between the socket and the bytes, a cost every JSON POST would pay.
 */
export function readCappedNodeStream(
  stream: NodeJS.ReadableStream,
  declaredLength: string | null,
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (declaredLength !== null && declaredLength !== "" && Number(declaredLength) > limit)
    return Promise.reject(tooLarge());
  return new Promise<Buffer>((resolve, reject) => new CappedNodeRead(stream, limit, tooLarge, resolve, reject).start());
}

/**
 * One read of a Node stream. Its listeners are methods bound to it rather than closures: tsx
 * names every named closure anew each time one is made (Object.defineProperty), which would be
 * most of a read's cost.
 */
class CappedNodeRead {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.end.bind(this);
  private readonly onError = this.error.bind(this);
  private readonly onClose = this.close.bind(this);

  constructor(
    private readonly stream: NodeJS.ReadableStream,
    private readonly limit: number,
    private readonly tooLarge: () => Error,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  start(): void {
    this.stream.on("data", this.onData);
    this.stream.once("end", this.onEnd);
    this.stream.once("error", this.onError);
    this.stream.once("close", this.onClose);
    this.stream.resume();
  }

  private data(chunk: Buffer): void {
    this.size += chunk.byteLength;
    if (this.size > this.limit) {
      // The rest is left unread: node:http discards it once the answer is sent.
      this.stream.pause();
      this.finish(this.tooLarge());
      return;
    }
    this.chunks.push(chunk);
  }

  private end(): void {
    this.finish(null, this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size));
  }

  private error(err: unknown): void {
    this.finish(new BodyReadError(err));
  }

  /** Closed before its end: the sender went away mid-body. */
  private close(): void {
    this.finish(new BodyReadError(new Error("the connection closed before the body ended")));
  }

  private finish(err: Error | null, body?: Buffer): void {
    this.stream.off("data", this.onData);
    this.stream.off("end", this.onEnd);
    this.stream.off("error", this.onError);
    this.stream.off("close", this.onClose);
    if (err) this.reject(err);
    else this.resolve(body!);
  }
}

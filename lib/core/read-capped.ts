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

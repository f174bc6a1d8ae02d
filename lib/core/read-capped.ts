// Reading a whole body into memory with a ceiling: a request to the API, or an answer from a
// remote provider, can never fill the memory. Stops as soon as the declared or streamed size
// passes the limit.
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
    const { done, value } = await reader.read();
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

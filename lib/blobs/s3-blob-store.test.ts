// The S3 blob store against a real S3-compatible server (s3rver, in this process), and the
// contract both stores share. s3rver does not check SigV4 signatures, so the presigned URLs are
// checked here with an independent SigV4 computation.
import { spawn } from "node:child_process";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobNotFoundError, BlobTooLargeError, localBlobStore, readAllOf, type BlobStore } from "./blob-store";
import { s3BlobStore, type S3Settings } from "./s3-blob-store";
import { startTestS3Server, type TestS3Server } from "./testing/test-s3-server";

const MB = 1024 * 1024;
const SECRET = "S3RVER";

let server: TestS3Server;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  server = await startTestS3Server();
  // The store takes its credentials from the SDK's default chain, as a server process would.
  for (const [name, value] of Object.entries(server.env(""))) {
    if (!name.startsWith("AWS_")) continue;
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server?.close();
});

/** A prefix of this test's own, so tests never see each other's objects. */
function freshPrefix(): string {
  return `t${randomBytes(4).toString("hex")}/`;
}

function bytes(n: number): Buffer {
  const data = Buffer.alloc(n);
  for (let i = 0; i < n; i++) data[i] = (i * 7 + (i >> 8)) & 0xff;
  return data;
}

async function* chunksOf(data: Buffer, chunkSize: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += chunkSize) yield data.subarray(at, Math.min(data.length, at + chunkSize));
}

/** `total` random bytes in odd-sized chunks, hashed on the way. */
function randomSource(total: number, chunkSize: number): { source: AsyncIterable<Uint8Array>; sha256: () => string } {
  const hash = createHash("sha256");
  async function* generate(): AsyncGenerator<Uint8Array> {
    for (let sent = 0; sent < total;) {
      const chunk = randomBytes(Math.min(chunkSize, total - sent));
      hash.update(chunk);
      sent += chunk.length;
      yield chunk;
    }
  }
  return { source: generate(), sha256: () => hash.digest("hex") };
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Subject {
  store: BlobStore;
  /** What the store holds right now (file paths or object keys), to see that nothing stayed. */
  stored(): Promise<string[]>;
  /** Whether withLocalFile hands out a temporary copy (removed afterwards). */
  tempCopy: boolean;
  cleanup(): Promise<void>;
}

const subjects: { name: string; make: () => Promise<Subject> }[] = [
  {
    name: "disk",
    make: async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-blobs-"));
      return {
        store: localBlobStore(dataDir),
        stored: async () => filesUnder(path.join(dataDir, "blobs")),
        tempCopy: false,
        cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "s3",
    make: async () => {
      const prefix = freshPrefix();
      const store = s3BlobStore(server.settings(prefix));
      return { store, stored: () => server.listKeys(prefix), tempCopy: true, cleanup: async () => store.close() };
    },
  },
];

describe.each(subjects)("blob store contract ($name)", ({ make }) => {
  let subject: Subject;
  let store: BlobStore;
  beforeAll(async () => {
    subject = await make();
    store = subject.store;
  });
  afterAll(async () => {
    await subject?.cleanup();
  });

  it("round-trips put, read, readAll and size", async () => {
    const data = bytes(5000);
    const key = await store.put(data, "image/png");
    expect(key).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(await store.size(key)).toBe(5000);
    expect((await store.readAll(key)).equals(data)).toBe(true);
    expect((await readAllOf(await store.read(key))).equals(data)).toBe(true);
    // Never the same key twice.
    expect(await store.put(data)).not.toBe(key);
  });

  it("keeps an empty blob", async () => {
    const key = await store.put(Buffer.alloc(0));
    expect(await store.size(key)).toBe(0);
    expect((await store.readAll(key)).length).toBe(0);
  });

  it("reads byte ranges, end inclusive", async () => {
    const data = bytes(1000);
    const key = await store.put(data);
    expect((await readAllOf(await store.read(key, { start: 10, end: 19 }))).equals(data.subarray(10, 20))).toBe(true);
    expect((await readAllOf(await store.read(key, { start: 0, end: 0 }))).equals(data.subarray(0, 1))).toBe(true);
    expect((await readAllOf(await store.read(key, { start: 999, end: 999 }))).equals(data.subarray(999))).toBe(true);
    expect((await readAllOf(await store.read(key, { start: 500, end: 999 }))).equals(data.subarray(500))).toBe(true);
  });

  it("answers size null and BlobNotFoundError for missing and invalid keys", async () => {
    const missing = store.newKey();
    for (const key of [missing, "../../etc/passwd", "short", "", `${missing}x`, "AbCdEfGhIjKlMnOpQrStUvWxYz01234/"]) {
      expect(await store.size(key)).toBeNull();
      await expect(store.read(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.readAll(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      let used = false;
      await expect(
        store.withLocalFile(key, async () => {
          used = true;
        }),
      ).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(used).toBe(false);
    }
  });

  it("streams a blob in with putStream, under a chosen key when given", async () => {
    const data = bytes(300_000);
    const { key, bytes: count } = await store.putStream(chunksOf(data, 65_537), 300_000, "video/mp4");
    expect(count).toBe(300_000);
    expect((await store.readAll(key)).equals(data)).toBe(true);

    const chosen = store.newKey();
    expect(await store.putStream(chunksOf(data, 1000), 1_000_000, undefined, chosen)).toEqual({
      key: chosen,
      bytes: 300_000,
    });
    expect(await store.size(chosen)).toBe(300_000);

    await expect(store.putStream(chunksOf(data, 1000), 1_000_000, undefined, "not/a/key")).rejects.toThrow();
  });

  it("snapshots a blob under a new key that later writes to the old key do not reach", async () => {
    const first = bytes(70_000);
    const key = store.newKey();
    await store.putStream(chunksOf(first, 4096), 100_000, "audio/wav", key);
    const copy = await store.snapshot(key);
    expect(copy).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(copy).not.toBe(key);
    const second = Buffer.alloc(70_000, 0x3c);
    await store.putStream(chunksOf(second, 4096), 100_000, "text/html", key);
    expect((await store.readAll(key)).equals(second)).toBe(true);
    expect((await store.readAll(copy)).equals(first)).toBe(true);
    await store.delete(key);
    expect((await store.readAll(copy)).equals(first)).toBe(true);
    for (const missing of [key, store.newKey(), "not/a/key"])
      await expect(store.snapshot(missing)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it("refuses a putStream past maxBytes and keeps nothing", async () => {
    const before = await subject.stored();
    const key = store.newKey();
    await expect(store.putStream(chunksOf(bytes(300_000), 10_000), 299_999, "image/png", key)).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(await store.size(key)).toBeNull();
    expect(await subject.stored()).toEqual(before);
  });

  it("keeps nothing when the source fails, and reports the source's error", async () => {
    const before = await subject.stored();
    const key = store.newKey();
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield bytes(1000);
      throw new Error("client went away");
    }
    await expect(store.putStream(broken(), 1_000_000, undefined, key)).rejects.toThrow("client went away");
    expect(await store.size(key)).toBeNull();
    expect(await subject.stored()).toEqual(before);
  });

  it("hands withLocalFile a readable file with the bytes, also when `use` throws", async () => {
    const data = bytes(70_000);
    const key = await store.put(data);
    let seen = "";
    const answer = await store.withLocalFile(key, async (file) => {
      seen = file;
      expect((await readFile(file)).equals(data)).toBe(true);
      return 42;
    });
    expect(answer).toBe(42);
    expect(existsSync(seen)).toBe(!subject.tempCopy);

    let seenOnThrow = "";
    await expect(
      store.withLocalFile(key, async (file) => {
        seenOnThrow = file;
        expect((await stat(file)).size).toBe(70_000);
        throw new Error("ffmpeg failed");
      }),
    ).rejects.toThrow("ffmpeg failed");
    expect(existsSync(seenOnThrow)).toBe(!subject.tempCopy);
    if (subject.tempCopy) {
      // The temporary directory goes too, not only the file.
      expect(existsSync(path.dirname(seenOnThrow))).toBe(false);
    }
    // The blob itself is untouched.
    expect(await store.size(key)).toBe(70_000);
  });

  it("deletes, and deleting a missing or invalid key is fine", async () => {
    const key = await store.put(bytes(10));
    await store.delete(key);
    expect(await store.size(key)).toBeNull();
    await expect(store.read(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.delete(key);
    await store.delete(store.newKey());
    await store.delete("../nope");
  });

  it("passes check()", async () => {
    await expect(store.check()).resolves.toBeUndefined();
  });
});

// --- S3 only -------------------------------------------------------------------------------------

/** An HTTP proxy in front of s3rver that records each request's method and URL. */
async function startRecordingProxy(
  target: string,
  options: { dropRange?: boolean } = {},
): Promise<{ endpoint: string; requests: string[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: string[] = [];
  const proxy = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    // A server that ignores Range and answers 200 with the whole object.
    if (options.dropRange) delete req.headers.range;
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", (err) => res.destroy(err));
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      proxy.closeAllConnections();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Recomputes a presigned URL's SigV4 signature (written from the AWS spec, not with the SDK) for
 * a request carrying `headers`: true when S3 would accept it.
 */
function sigV4Accepts(url: string, method: string, headers: Record<string, string>): boolean {
  const u = new URL(url);
  const query = u.searchParams;
  const signedHeaders = (query.get("X-Amz-SignedHeaders") ?? "").split(";");
  const [, date, region, service] = (query.get("X-Amz-Credential") ?? "").split("/");
  const amzDate = query.get("X-Amz-Date") ?? "";
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(headers[name] ?? "").trim()}\n`).join("");
  const canonicalRequest = [
    method,
    u.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(";"),
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${SECRET}`, date ?? ""), region ?? ""), service ?? ""), "aws4_request");
  return createHmac("sha256", signingKey).update(stringToSign).digest("hex") === query.get("X-Amz-Signature");
}

function amzDateMs(url: string): number {
  const value = new URL(url).searchParams.get("X-Amz-Date") ?? "";
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) throw new Error(`bad X-Amz-Date ${value}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

describe("s3BlobStore", () => {
  let prefix: string;
  let store: ReturnType<typeof s3BlobStore>;
  beforeAll(() => {
    prefix = freshPrefix();
    store = s3BlobStore(server.settings(prefix));
  });
  afterAll(() => store?.close());

  it("stores every blob as prefix + key", async () => {
    const a = await store.put(bytes(10));
    const b = (await store.putStream(chunksOf(bytes(20), 7), 100)).key;
    const c = store.newKey();
    const put = await store.signedPutUrl(c, { bytes: 3, expiresAt: new Date(Date.now() + 60_000) });
    expect((await fetch(put!, { method: "PUT", body: "abc" })).status).toBe(200);
    expect(store.keyOf(a)).toBe(`${prefix}${a}`);
    expect(await server.listKeys(prefix)).toEqual([a, b, c].map((key) => `${prefix}${key}`).sort());
    // Nothing written outside the prefix.
    const all = await server.listKeys();
    expect(all.filter((key) => [a, b, c].some((k) => key.endsWith(k)))).toEqual(
      [a, b, c].map((key) => `${prefix}${key}`).sort(),
    );
  });

  it("uses the prefix verbatim, also an empty one", async () => {
    const bare = s3BlobStore(server.settings(""));
    try {
      const key = await bare.put(bytes(3));
      expect(bare.keyOf(key)).toBe(key);
      expect(await server.listKeys(key)).toEqual([key]);
      await bare.delete(key);
      expect(await server.listKeys(key)).toEqual([]);
    } finally {
      bare.close();
    }
  });

  it("stores the content type", async () => {
    const key = await store.put(bytes(10), "image/webp");
    const plain = await store.put(bytes(10));
    const typeOf = async (k: string) =>
      (await fetch(`${server.endpoint}/${server.bucket}/${store.keyOf(k)}`)).headers.get("content-type");
    expect(await typeOf(key)).toBe("image/webp");
    expect(await typeOf(plain)).toBe("application/octet-stream");
    const streamed = await store.putStream(chunksOf(bytes(10), 5), 100, "audio/mpeg");
    expect(await typeOf(streamed.key)).toBe("audio/mpeg");
  });

  describe("multipart putStream (through a recording proxy)", () => {
    let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
    let viaProxy: ReturnType<typeof s3BlobStore>;
    let proxyPrefix: string;
    beforeAll(async () => {
      proxy = await startRecordingProxy(server.endpoint);
      proxyPrefix = freshPrefix();
      viaProxy = s3BlobStore({ ...server.settings(proxyPrefix), endpoint: proxy.endpoint });
    });
    afterAll(async () => {
      viaProxy?.close();
      await proxy?.close();
    });

    it("round-trips 20 MB byte for byte in 8 MB parts", async () => {
      proxy.requests.length = 0;
      const total = 20 * MB + 12_345;
      const { source, sha256: sent } = randomSource(total, 100_003);
      const { key, bytes: count } = await viaProxy.putStream(source, 25 * MB, "video/mp4");
      expect(count).toBe(total);
      expect(await viaProxy.size(key)).toBe(total);
      expect(sha256(await viaProxy.readAll(key))).toBe(sent());
      // CreateMultipartUpload, three UploadParts (8 + 8 + 4 MB), CompleteMultipartUpload.
      expect(proxy.requests.filter((r) => r.startsWith("POST") && /[?&]uploads\b/.test(r))).toHaveLength(1);
      expect(proxy.requests.filter((r) => r.startsWith("PUT") && /[?&]partNumber=/.test(r))).toHaveLength(3);
      expect(proxy.requests.filter((r) => r.startsWith("POST") && /[?&]uploadId=/.test(r))).toHaveLength(1);
      // A range across a part boundary.
      const whole = await viaProxy.readAll(key);
      const ranged = await readAllOf(await viaProxy.read(key, { start: 8 * MB - 10, end: 8 * MB + 9 }));
      expect(ranged.equals(whole.subarray(8 * MB - 10, 8 * MB + 10))).toBe(true);
    });

    it("aborts past maxBytes after parts went up, and leaves no object", async () => {
      proxy.requests.length = 0;
      const before = await server.listKeys(proxyPrefix);
      const key = viaProxy.newKey();
      const { source } = randomSource(20 * MB, 100_003);
      await expect(viaProxy.putStream(source, 12 * MB, "video/mp4", key)).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(proxy.requests.some((r) => r.startsWith("PUT") && /[?&]partNumber=1\b/.test(r))).toBe(true);
      // AbortMultipartUpload was tried (s3rver answers 405), then DeleteObject.
      expect(proxy.requests.some((r) => r.startsWith("DELETE") && /[?&]uploadId=/.test(r))).toBe(true);
      expect(proxy.requests.some((r) => r === `DELETE /${server.bucket}/${proxyPrefix}${key}?x-id=DeleteObject`)).toBe(
        true,
      );
      expect(proxy.requests.some((r) => r.startsWith("POST") && /[?&]uploadId=/.test(r))).toBe(false);
      expect(await viaProxy.size(key)).toBeNull();
      expect(await server.listKeys(proxyPrefix)).toEqual(before);
    });
  });

  it("cuts the range out when the server answers with more (Range ignored)", async () => {
    const proxy = await startRecordingProxy(server.endpoint, { dropRange: true });
    const ignoring = s3BlobStore({ ...server.settings(prefix), endpoint: proxy.endpoint });
    try {
      const data = bytes(200_000);
      const key = await store.put(data);
      for (const [start, end] of [
        [0, 0],
        [1, 1],
        [70_000, 140_000],
        [199_999, 199_999],
        [0, 199_999],
      ] as const) {
        expect((await readAllOf(await ignoring.read(key, { start, end }))).equals(data.subarray(start, end + 1))).toBe(
          true,
        );
      }
    } finally {
      ignoring.close();
      await proxy.close();
    }
  });

  it("signs read links that serve the bytes with the requested headers until expiresAt", async () => {
    const data = bytes(2048);
    const key = await store.put(data, "application/octet-stream");
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + 3600) * 1000);
    const url = await store.signedReadUrl(key, { contentType: "image/png", filename: "cat picture.png", expiresAt });
    expect(url).not.toBeNull();
    const link = new URL(url!);
    expect(`${link.origin}${link.pathname}`).toBe(`${server.endpoint}/${server.bucket}/${prefix}${key}`);
    expect(link.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    // X-Amz-Date + X-Amz-Expires is the requested expiry (here a whole second).
    const expires = Number(link.searchParams.get("X-Amz-Expires"));
    expect(expires).toBeGreaterThanOrEqual(3599);
    expect(expires).toBeLessThanOrEqual(3601);
    expect(amzDateMs(url!) + expires * 1000).toBe(expiresAt.getTime());
    expect(sigV4Accepts(url!, "GET", { host: link.host })).toBe(true);

    const answer = await fetch(url!);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("image/png");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="cat picture.png"');
    expect(Buffer.from(await answer.arrayBuffer()).equals(data)).toBe(true);

    const inline = new URL((await store.signedReadUrl(key, { contentType: "video/mp4", expiresAt }))!);
    expect(inline.searchParams.has("response-content-disposition")).toBe(false);
    const inlineAnswer = await fetch(inline);
    expect(inlineAnswer.headers.get("content-type")).toBe("video/mp4");
    expect(inlineAnswer.headers.get("content-disposition")).toBeNull();
    await inlineAnswer.arrayBuffer();
  });

  it("keeps a link's expiry within SigV4's 1 second to 7 days", async () => {
    const key = await store.put(bytes(1));
    const expiresOf = async (expiresAt: Date) =>
      Number(
        new URL((await store.signedReadUrl(key, { contentType: "image/png", expiresAt }))!).searchParams.get(
          "X-Amz-Expires",
        ),
      );
    expect(await expiresOf(new Date(Date.now() - 60_000))).toBe(1);
    expect(await expiresOf(new Date(Date.now() + 30 * 24 * 3600_000))).toBe(604_800);
    expect(await expiresOf(new Date(Date.now() + 90_500))).toBeGreaterThanOrEqual(91);
    expect(await expiresOf(new Date(Date.now() + 90_500))).toBeLessThanOrEqual(92);
  });

  it("signs PUT URLs for exactly `bytes`, and the blob is there afterwards", async () => {
    const key = store.newKey();
    const data = bytes(4321);
    const url = await store.signedPutUrl(key, { bytes: data.length, expiresAt: new Date(Date.now() + 600_000) });
    expect(url).not.toBeNull();
    const link = new URL(url!);
    expect(`${link.origin}${link.pathname}`).toBe(`${server.endpoint}/${server.bucket}/${prefix}${key}`);
    // content-length is signed (a header, not hoisted into the query), so S3 refuses another length.
    expect(link.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
    expect(sigV4Accepts(url!, "PUT", { host: link.host, "content-length": String(data.length) })).toBe(true);
    expect(sigV4Accepts(url!, "PUT", { host: link.host, "content-length": String(data.length + 1) })).toBe(false);
    expect(sigV4Accepts(url!, "GET", { host: link.host, "content-length": String(data.length) })).toBe(false);

    expect(await store.size(key)).toBeNull();
    const answer = await fetch(url!, {
      method: "PUT",
      body: new Uint8Array(data),
      headers: { "content-type": "image/png" },
    });
    expect(answer.status).toBe(200);
    expect(await store.size(key)).toBe(data.length);
    expect((await store.readAll(key)).equals(data)).toBe(true);

    await expect(store.signedPutUrl("../x", { bytes: 1, expiresAt: new Date(Date.now() + 60_000) })).rejects.toThrow();
    await expect(
      store.signedReadUrl("../x", { contentType: "image/png", expiresAt: new Date(Date.now() + 60_000) }),
    ).rejects.toThrow();
  });

  it("signs for publicEndpoint when set: another host, a signature valid for that host only", async () => {
    const settings: S3Settings = { ...server.settings(prefix), publicEndpoint: "https://media.example.com:8443" };
    const publicStore = s3BlobStore(settings);
    try {
      const key = await publicStore.put(bytes(8));
      // Reads and writes still go to the internal endpoint.
      expect(await store.size(key)).toBe(8);
      const expiresAt = new Date(Date.now() + 60_000);
      for (const url of [
        await publicStore.signedReadUrl(key, { contentType: "image/png", filename: "a.png", expiresAt }),
        await publicStore.signedPutUrl(publicStore.newKey(), { bytes: 8, expiresAt }),
      ]) {
        const link = new URL(url!);
        expect(link.origin).toBe("https://media.example.com:8443");
        expect(link.pathname.startsWith(`/${server.bucket}/${prefix}`)).toBe(true);
        const method = link.searchParams.get("x-id") === "PutObject" ? "PUT" : "GET";
        expect(sigV4Accepts(url!, method, { host: "media.example.com:8443", "content-length": "8" })).toBe(true);
        // Swapping the host afterwards would break it: the signature covers the host.
        expect(sigV4Accepts(url!, method, { host: new URL(server.endpoint).host, "content-length": "8" })).toBe(false);
      }
    } finally {
      publicStore.close();
    }
  });

  it("answers a CORS preflight for a browser PUT and exposes headers on GET", async () => {
    const key = await store.put(bytes(100), "image/png");
    const objectUrl = `${server.endpoint}/${server.bucket}/${store.keyOf(key)}`;
    const preflight = await fetch(objectUrl, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:3999",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");

    const get = await fetch(
      (await store.signedReadUrl(key, { contentType: "image/png", expiresAt: new Date(Date.now() + 60_000) }))!,
      {
        headers: { origin: "http://127.0.0.1:3999", range: "bytes=0-9" },
      },
    );
    expect(get.status).toBe(206);
    expect(get.headers.get("access-control-allow-origin")).toBe("*");
    expect(get.headers.get("access-control-expose-headers")).toMatch(
      /ETag.*Content-Length.*Content-Range.*Accept-Ranges/,
    );
    expect((await get.arrayBuffer()).byteLength).toBe(10);
  });

  it("check() fails fast against a closed port", async () => {
    const closed = s3BlobStore({ ...server.settings(prefix), endpoint: `http://127.0.0.1:${await freePort()}` });
    const started = Date.now();
    try {
      await expect(closed.check()).rejects.toThrow(/not reachable/);
    } finally {
      closed.close();
    }
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("check() fails within a few seconds against a server that never answers", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const hung = s3BlobStore({ ...server.settings(prefix), endpoint: `http://127.0.0.1:${port}` });
    const started = Date.now();
    try {
      await expect(hung.check()).rejects.toThrow(/not reachable/);
    } finally {
      hung.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("check() fails for a missing bucket", async () => {
    const missing = s3BlobStore({ ...server.settings(prefix), bucket: "no-such-bucket" });
    try {
      await expect(missing.check()).rejects.toThrow(/no-such-bucket/);
    } finally {
      missing.close();
    }
  });
});

describe("test S3 server", () => {
  it("gives the environment and settings a server process needs", () => {
    expect(server.env("atelier/")).toEqual({
      S3_BUCKET: server.bucket,
      S3_PREFIX: "atelier/",
      S3_ENDPOINT: server.endpoint,
      S3_REGION: "us-east-1",
      S3_FORCE_PATH_STYLE: "1",
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_EC2_METADATA_DISABLED: "true",
    });
    expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect(server.settings("p/")).toEqual({
      bucket: server.bucket,
      prefix: "p/",
      endpoint: server.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      publicEndpoint: null,
    });
  });

  it("lists past one page of 1000 keys", async () => {
    const prefix = freshPrefix();
    const store = s3BlobStore(server.settings(prefix));
    try {
      const keys: string[] = [];
      const one = Buffer.from("x");
      for (let batch = 0; batch < 1005; batch += 50) {
        keys.push(...(await Promise.all(Array.from({ length: Math.min(50, 1005 - batch) }, () => store.put(one)))));
      }
      const listed = await server.listKeys(prefix);
      expect(listed).toHaveLength(1005);
      expect(listed).toEqual(keys.map((key) => `${prefix}${key}`).sort());
    } finally {
      store.close();
    }
  }, 60_000);

  it("runs as a program: fresh directory, GET / answers 200, stops on SIGTERM", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-s3-cli-"));
    const s3dir = path.join(dir, "s3");
    mkdirSync(s3dir);
    writeFileSync(path.join(s3dir, "stale"), "from an earlier run");
    const port = await freePort();
    const tsx = path.resolve("node_modules/.bin/tsx");
    const file = fileURLToPath(new URL("./testing/test-s3-server.ts", import.meta.url));
    const child = spawn(tsx, [file, "--port", String(port), "--dir", s3dir, "--bucket", "cli-bucket"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      let output = "";
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready: ${output}`)), 20_000);
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("ready")) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
        child.on("exit", () => reject(new Error(`exited: ${output}`)));
      });
      expect(output).toContain(`http://127.0.0.1:${port}`);
      const root = await fetch(`http://127.0.0.1:${port}/`);
      expect(root.status).toBe(200);
      expect(await root.text()).toContain("cli-bucket");
      expect(existsSync(path.join(s3dir, "stale"))).toBe(false);
      const preflight = await fetch(`http://127.0.0.1:${port}/cli-bucket/some/key`, {
        method: "OPTIONS",
        headers: { origin: "http://127.0.0.1:3000", "access-control-request-method": "PUT" },
      });
      expect(preflight.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  }, 40_000);
});

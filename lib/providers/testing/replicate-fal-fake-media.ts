// For tests: what the Replicate and fal fakes share: a media host on its own origin, like
// replicate.delivery or v3.fal.media (outputs link there, their bytes from fake-media.ts; it
// records whether a key was sent), which also takes uploads the way fal storage does (a signed
// upload URL the client PUTs the bytes to, or, for a large file, PUTs its parts to and completes);
// the answers a test injects ahead of a fake's own; a job's input files as its model reads
// them (a data URI decoded, an uploaded file's URL looked up), so a test sees the bytes arrived;
// and the webhooks a fake sends as its provider would (POSTed JSON, the receiver's answer kept).
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Where a fal-storage-like upload goes (upload_url) and where the file is served once it is there (file_url). */
export interface UploadSlot {
  uploadUrl: string;
  fileUrl: string;
}

export interface MediaHost {
  url: string;
  /** Serves `data` at a new path; returns its URL. */
  put(name: string, data: Buffer, type: string): string;
  /** A signed URL that takes one PUT of a file's bytes, served as `type` at fileUrl from then on. */
  openUpload(name: string, type: string): UploadSlot;
  /** A signed URL for a multipart upload: PUT {uploadUrl}/{n} per part (answers {partNumber, etag}), then POST {uploadUrl}/complete {parts}. */
  openMultipartUpload(name: string, type: string): UploadSlot;
  /** The file served at `url`, if this host serves one there. */
  read(url: string): { data: Buffer; type: string } | null;
  /** Every request it got: method, path and headers (tests check no key was sent). */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  /** The next `times` requests to this host answer `status` with `body` (a storage outage…). */
  failNext(status: number, body: unknown, times?: number, headers?: Record<string, string>): void;
  /** The next `times` requests to this host are never answered. */
  hangNext(times?: number): void;
  close(): Promise<void>;
}

interface Slot {
  token: string;
  signature: string;
  name: string;
  type: string;
  /** Parts received so far (multipart), by part number. */
  parts: Map<number, { data: Buffer; etag: string }> | null;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** A file host on 127.0.0.1 (`port` 0: any free port). */
export async function startMediaHost(port = 0): Promise<MediaHost> {
  const files = new Map<string, { data: Buffer; type: string }>();
  const slots = new Map<string, Slot>();
  const requests: MediaHost["requests"] = [];
  const injected = injectedAnswers();

  function slotFor(path: string, search: URLSearchParams, multipart: boolean): { slot: Slot; rest: string } | null {
    const match = /^\/(uploads|multipart)\/([0-9a-f]+)(\/.*)?$/.exec(path);
    const slot = match ? slots.get(match[2]!) : undefined;
    if (!slot || (match![1] === "multipart") !== multipart || search.get("signature") !== slot.signature) return null;
    return { slot, rest: match![3] ?? "" };
  }

  function store(slot: Slot, data: Buffer): void {
    files.set(`/files/${slot.token}/${slot.name}`, { data, type: slot.type });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://media.local");
    const method = req.method ?? "GET";
    requests.push({ method, path: url.pathname, headers: req.headers });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const next = injected.next();
      if (next === "hang") return;
      if (next) return sendJson(res, next.status, next.body, next.headers);
      const body = Buffer.concat(chunks);
      if (method === "PUT" || method === "POST") {
        // A signed URL that does not match: refused as a storage service would (403).
        const single = method === "PUT" ? slotFor(url.pathname, url.searchParams, false) : null;
        if (single && single.rest === "") {
          store(single.slot, body);
          return void res.writeHead(200, { "content-length": 0 }).end();
        }
        const multi = slotFor(url.pathname, url.searchParams, true);
        const part = multi && method === "PUT" ? /^\/(\d+)$/.exec(multi.rest) : null;
        if (multi && part) {
          const etag = `"${createHash("md5").update(body).digest("hex")}"`;
          multi.slot.parts!.set(Number(part[1]), { data: body, etag });
          return sendJson(res, 200, { partNumber: Number(part[1]), etag });
        }
        if (multi && method === "POST" && multi.rest === "/complete") {
          let parts: Array<{ partNumber?: unknown; etag?: unknown }>;
          try {
            parts = (JSON.parse(body.toString("utf8")) as { parts: typeof parts }).parts;
          } catch {
            return sendJson(res, 400, { detail: "The body is not {parts: [...]}" });
          }
          const received = multi.slot.parts!;
          const ok =
            Array.isArray(parts) &&
            parts.length === received.size &&
            parts.every((p, i) => p.partNumber === i + 1 && received.get(i + 1)?.etag === p.etag);
          if (!ok) return sendJson(res, 400, { detail: "The parts do not match the parts uploaded" });
          store(multi.slot, Buffer.concat(parts.map((_, i) => received.get(i + 1)!.data)));
          return sendJson(res, 200, { status: "completed" });
        }
        return void res.writeHead(403, { "content-type": "text/plain" }).end("signature does not match");
      }
      const file = files.get(url.pathname);
      if (!file) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      res.writeHead(200, { "content-type": file.type, "content-length": file.data.length }).end(file.data);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function open(name: string, type: string, multipart: boolean): UploadSlot {
    const slot: Slot = {
      token: randomBytes(12).toString("hex"),
      signature: randomBytes(16).toString("hex"),
      name: name.replace(/[^A-Za-z0-9_.-]/g, "_") || "file",
      type,
      parts: multipart ? new Map() : null,
    };
    slots.set(slot.token, slot);
    return {
      uploadUrl: `${origin}/${multipart ? "multipart" : "uploads"}/${slot.token}?signature=${slot.signature}`,
      fileUrl: `${origin}/files/${slot.token}/${slot.name}`,
    };
  }

  return {
    url: origin,
    requests,
    put(name, data, type) {
      const at = `/${name.replace(/^\/+/, "")}`;
      files.set(at, { data, type });
      return `${origin}${at}`;
    },
    openUpload: (name, type) => open(name, type, false),
    openMultipartUpload: (name, type) => open(name, type, true),
    read(url) {
      if (!url.startsWith(`${origin}/`)) return null;
      return files.get(new URL(url).pathname) ?? null;
    },
    failNext: injected.failNext,
    hangNext: injected.hangNext,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook a fake sent, as its provider would, and how the receiver answered. */
export interface FakeWebhookDelivery {
  url: string;
  /** What it told of (Replicate's event: start, output, logs, completed; fal's: completed). */
  event: string;
  body: unknown;
  /** The receiver's status; null while unanswered; 0 when it could not be reached. Never retried. */
  status: number | null;
  /** The receiver's answer body. */
  answer: string | null;
}

/** POSTs `body` as JSON to `url` without waiting, recording the delivery in `deliveries`. */
export function sendFakeWebhook(deliveries: FakeWebhookDelivery[], url: string, event: string, body: unknown): void {
  const delivery: FakeWebhookDelivery = { url, event, body, status: null, answer: null };
  deliveries.push(delivery);
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  })
    .then(async (res) => {
      delivery.answer = await res.text();
      delivery.status = res.status;
    })
    .catch(() => {
      delivery.status = 0;
    });
}

/** What the Replicate and fal fakes both offer a test. */
export interface HostedFake {
  media: MediaHost;
  /** "auto": a job ends (succeeds, or fails as the provider would) as soon as it is created; "manual": only when told. */
  mode: "auto" | "manual";
  /**
   * "auto" mode: how long a job runs before it ends, in ms. 0 (the default): within its create
   * call. Longer: it ends that long after, on its own (its webhooks sent then), so a run that ends
   * sooner than its polls could notice owes that to the webhook.
   */
  autoDelayMs: number;
  /** The webhooks it sent (to the URL a job was created with), in order. */
  webhooks: FakeWebhookDelivery[];
  /** Every API request, as it came. */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }>;
  /** The next `times` API requests answer `status` with `body` (an outage, a rate limit…). */
  failNext(status: number, body: unknown, times?: number, headers?: Record<string, string>): void;
  /** The next `times` API requests are never answered. */
  hangNext(times?: number): void;
  close(): Promise<void>;
}

/** An answer a test injects in place of the fake's own: an error answer, or "hang" (never answered). */
export type InjectedAnswer = { status: number; body: unknown; headers: Record<string, string> } | "hang";

/** The answers injected by a fake's failNext and hangNext, taken one a request by `next`. */
export function injectedAnswers() {
  const queue: InjectedAnswer[] = [];
  return {
    /** The next `times` requests answer `status` with `body` (an outage, a rate limit…). */
    failNext(status: number, body: unknown, times = 1, headers: Record<string, string> = {}): void {
      for (let i = 0; i < times; i++) queue.push({ status, body, headers });
    },
    /** The next `times` requests are never answered. */
    hangNext(times = 1): void {
      for (let i = 0; i < times; i++) queue.push("hang");
    },
    next: (): InjectedAnswer | undefined => queue.shift(),
  };
}

/** A file a job's input names, as the fake's model read it. */
export interface FakeInputFile {
  data: Buffer;
  contentType: string;
  /** "inline": a data URI; "upload": the URL of a file uploaded to the provider. */
  via: "inline" | "upload";
}

/**
 * The files a job's input names, as its model reads them: top-level strings (and strings in
 * top-level lists, keyed "field[i]") that are data URIs are decoded; those `isUpload` claims are
 * looked up with `lookup`, and listed in `missing` when it holds no such file.
 */
export function readInputFiles(
  input: Record<string, unknown>,
  isUpload: (url: string) => boolean,
  lookup: (url: string) => { data: Buffer; contentType: string } | null,
): { files: Record<string, FakeInputFile>; missing: string[] } {
  const files: Record<string, FakeInputFile> = {};
  const missing: string[] = [];
  const read = (key: string, value: unknown) => {
    if (typeof value !== "string") return;
    const inline = /^data:([^;,]*)(;base64)?,/i.exec(value);
    if (inline) {
      const payload = value.slice(inline[0].length);
      const data = inline[2] ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "utf8");
      files[key] = { data, contentType: inline[1] ?? "", via: "inline" };
    } else if (isUpload(value)) {
      const file = lookup(value);
      if (file) files[key] = { ...file, via: "upload" };
      else missing.push(key);
    }
  };
  for (const [field, value] of Object.entries(input)) {
    if (Array.isArray(value)) value.forEach((item, i) => read(`${field}[${i}]`, item));
    else read(field, value);
  }
  return { files, missing };
}

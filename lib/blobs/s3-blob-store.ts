// The BlobStore on an S3-compatible bucket (AWS S3, MinIO, Garage, B2, R2, s3rver in tests).
// Object key = settings.prefix + blob key. Credentials come from the AWS SDK's default chain
// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles), never from here.
// Links and direct uploads are presigned SigV4 URLs, signed for `publicEndpoint` when the
// browser reaches the bucket under another address than the server does.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline as pipelineWithCallback, Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { BlobNotFoundError, BlobTooLargeError, isBlobKey, newBlobKey, readAllOf, type BlobStore } from "./blob-store";

export interface S3Settings {
  bucket: string;
  /** Prepended verbatim to every blob key ("atelier/" gives "atelier/<key>"); may be "". */
  prefix: string;
  /** e.g. "http://127.0.0.1:9000" for MinIO; null for AWS S3 (from the region). */
  endpoint: string | null;
  region: string;
  /** Path-style URLs (endpoint/bucket/key) instead of virtual-hosted (bucket.endpoint/key). */
  forcePathStyle: boolean;
  /** The endpoint browsers use, when it differs from `endpoint`; presigned URLs are signed for it. */
  publicEndpoint: string | null;
}

/** Multipart part size for putStream; S3's minimum is 5 MiB. */
const PART_SIZE = 8 * 1024 * 1024;
/** Parts in flight at once: at most QUEUE_SIZE * PART_SIZE bytes buffered per upload. */
const QUEUE_SIZE = 2;
/** SigV4's longest presigned validity: 7 days. */
const MAX_PRESIGN_SECONDS = 604_800;
/** check() (GET /readyz) answers within about this. */
const CHECK_TIMEOUT_MS = 2_000;

interface S3ErrorShape {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function s3ErrorOf(err: unknown): S3ErrorShape {
  return typeof err === "object" && err !== null ? (err as S3ErrorShape) : {};
}

/** The object (not the bucket) is missing: HeadObject answers a bare 404, GetObject NoSuchKey. */
function isNotFound(err: unknown): boolean {
  const e = s3ErrorOf(err);
  if (e.name === "NoSuchBucket" || e.Code === "NoSuchBucket") return false;
  return (
    e.name === "NotFound" || e.name === "NoSuchKey" || e.Code === "NoSuchKey" || e.$metadata?.httpStatusCode === 404
  );
}

function describe(err: unknown): string {
  const e = s3ErrorOf(err);
  const status = e.$metadata?.httpStatusCode;
  const message = err instanceof Error ? err.message : String(err);
  return [e.name, status ? `HTTP ${status}` : null, message && message !== "UnknownError" ? message : null]
    .filter(Boolean)
    .join(": ");
}

/**
 * Bytes `skip` to `skip + take` of `body`. For servers that answer a Range with more than asked:
 * s3rver reads "bytes=0-0" as the whole object; others may ignore Range and send it all (200).
 */
function sliceOf(body: Readable, skip: number, take: number): Readable {
  let toSkip = skip;
  let left = take;
  const slice = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let part = chunk;
      if (toSkip > 0) {
        const skipped = Math.min(toSkip, part.length);
        part = part.subarray(skipped);
        toSkip -= skipped;
      }
      if (part.length > left) part = part.subarray(0, left);
      left -= part.length;
      done(null, part.length > 0 ? part : undefined);
    },
  });
  // An error on either side destroys both.
  pipelineWithCallback(body, slice, () => undefined);
  return slice;
}

/** Seconds from the signing second until `expiresAt` (rounded up), within SigV4's limits. */
function presignTiming(expiresAt: Date, signedAt?: Date): { signingDate: Date; expiresIn: number } {
  // X-Amz-Date has whole seconds: sign at the caller's second (or the current one) so that
  // X-Amz-Date + X-Amz-Expires lands on expiresAt (for a whole-second expiresAt), even when a
  // second ticks over between the caller's clock read and this one.
  const signingDate = new Date(Math.floor((signedAt ?? new Date()).getTime() / 1000) * 1000);
  const seconds = Math.ceil((expiresAt.getTime() - signingDate.getTime()) / 1000);
  return { signingDate, expiresIn: Math.min(MAX_PRESIGN_SECONDS, Math.max(1, seconds)) };
}

// The SDK warns on Node 20 that versions published after January 2027 will need Node 22; the
// versions package.json pins are not those, so every process would print a warning about
// nothing it runs. An operator's own setting wins.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export function s3BlobStore(settings: S3Settings): BlobStore & { close(): void; keyOf(key: string): string } {
  const { bucket, prefix } = settings;
  const baseConfig: S3ClientConfig = {
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    // Since 3.729 the SDK sends and checks CRC32 checksums by default, which MinIO, Garage, B2
    // and s3rver reject or mangle.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  };
  const client = new S3Client({
    ...baseConfig,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    // Only the connection phase: a big upload or download may take long once connected.
    requestHandler: { connectionTimeout: 5_000 },
  });
  // SigV4 signs the host, so URLs for another host must be signed for that host, not rewritten.
  const presignClient = settings.publicEndpoint
    ? new S3Client({ ...baseConfig, endpoint: settings.publicEndpoint })
    : client;
  // GET /readyz must answer fast: one attempt, short timeouts.
  const checkClient = new S3Client({
    ...baseConfig,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: CHECK_TIMEOUT_MS,
      requestTimeout: CHECK_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  });

  const keyOf = (key: string): string => `${prefix}${key}`;
  const objectKeyOf = (key: string): string => {
    if (!isBlobKey(key)) throw new Error(`not a blob key: ${key}`);
    return keyOf(key);
  };

  const deleteObject = async (objectKey: string): Promise<void> => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  const read = async (key: string, range?: { start: number; end: number }): Promise<Readable> => {
    if (!isBlobKey(key)) throw new BlobNotFoundError(key);
    let answer: GetObjectCommandOutput;
    try {
      answer = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: keyOf(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
    const body: unknown = answer.Body;
    if (!(body instanceof Readable)) throw new Error(`GetObject ${keyOf(key)} gave no Node stream`);
    const wanted = range ? range.end - range.start + 1 : null;
    if (range && wanted !== null && answer.ContentLength !== undefined && answer.ContentLength > wanted) {
      // More than asked for: cut the range out of what came (from where the answer starts).
      const answeredStart = Number(/^bytes (\d+)-/.exec(answer.ContentRange ?? "")?.[1] ?? 0);
      return sliceOf(body, Math.max(0, range.start - answeredStart), wanted);
    }
    return body;
  };

  const store: BlobStore & { close(): void; keyOf(key: string): string } = {
    kind: "s3",
    newKey: newBlobKey,
    keyOf,

    async put(data, contentType) {
      const key = newBlobKey();
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(key),
          Body: data,
          ContentLength: data.byteLength,
          ContentType: contentType ?? "application/octet-stream",
        }),
      );
      return key;
    },

    async putStream(source, maxBytes, contentType, chosenKey) {
      const key = chosenKey ?? newBlobKey();
      const objectKey = objectKeyOf(key);
      let bytes = 0;
      // The error that stopped the source (too large, or the client went away), which wins over
      // whatever the upload then reports.
      let sourceError: unknown = null;
      async function* counted(): AsyncGenerator<Uint8Array> {
        try {
          for await (const chunk of source) {
            bytes += chunk.byteLength;
            if (bytes > maxBytes) throw new BlobTooLargeError(`more than ${maxBytes} bytes`);
            yield chunk;
          }
        } catch (err) {
          sourceError ??= err;
          throw err;
        }
      }
      const body = Readable.from(counted(), { objectMode: false });
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: objectKey, Body: body, ContentType: contentType ?? "application/octet-stream" },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        // We abort ourselves below: the SDK's own abort would replace the real error with the
        // abort's (s3rver answers AbortMultipartUpload with 405).
        leavePartsOnError: true,
      });
      try {
        await upload.done();
      } catch (err) {
        body.destroy();
        if (upload.uploadId) {
          await client
            .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey, UploadId: upload.uploadId }))
            .catch(() => undefined);
        }
        // Whatever got through (a single PutObject, or a completed upload) must not stay.
        await deleteObject(objectKey).catch(() => undefined);
        throw sourceError ?? err;
      }
      return { key, bytes };
    },

    async snapshot(key) {
      if (!isBlobKey(key)) throw new BlobNotFoundError(key);
      const copy = newBlobKey();
      // A server-side copy of the object as it is at this moment (CopyObject reads one version);
      // the copy's key is never given out for writing. Objects up to 5 GiB, as uploads are.
      const source = `${bucket}/${keyOf(key).split("/").map(encodeURIComponent).join("/")}`;
      try {
        await client.send(new CopyObjectCommand({ Bucket: bucket, Key: objectKeyOf(copy), CopySource: source }));
      } catch (err) {
        if (isNotFound(err)) throw new BlobNotFoundError(key);
        throw err;
      }
      return copy;
    },

    async size(key) {
      if (!isBlobKey(key)) return null;
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
        return head.ContentLength ?? 0;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    read,

    async readAll(key) {
      return readAllOf(await read(key));
    },

    async withLocalFile(key, use) {
      const stream = await read(key);
      let dir: string;
      try {
        dir = await mkdtemp(path.join(os.tmpdir(), "atelier-blob-"));
      } catch (err) {
        stream.destroy();
        throw err;
      }
      try {
        const file = path.join(dir, key);
        await pipeline(stream, createWriteStream(file));
        return await use(file);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async signedReadUrl(key, link) {
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: objectKeyOf(key),
        ResponseContentType: link.contentType,
        ...(link.filename ? { ResponseContentDisposition: `attachment; filename="${link.filename}"` } : {}),
      });
      return getSignedUrl(presignClient, command, presignTiming(link.expiresAt, link.signedAt));
    },

    async signedPutUrl(key, upload) {
      // content-length is a signed header (it stays a header, not a query parameter): S3 refuses
      // a PUT of any other length. The presigner signs it already; the two sets pin that down.
      // content-type is left unsigned by the presigner, so the browser may send any.
      const command = new PutObjectCommand({ Bucket: bucket, Key: objectKeyOf(key), ContentLength: upload.bytes });
      return getSignedUrl(presignClient, command, {
        ...presignTiming(upload.expiresAt),
        signableHeaders: new Set(["content-length"]),
        unhoistableHeaders: new Set(["content-length"]),
      });
    },

    async delete(key) {
      if (isBlobKey(key)) await deleteObject(keyOf(key));
    },

    async check() {
      try {
        await checkClient.send(new HeadBucketCommand({ Bucket: bucket }), {
          abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS * 2),
        });
      } catch (err) {
        throw new Error(`S3 bucket "${bucket}" is not reachable (${describe(err)})`, { cause: err });
      }
    },

    close() {
      client.destroy();
      if (presignClient !== client) presignClient.destroy();
      checkClient.destroy();
    },
  };
  return store;
}

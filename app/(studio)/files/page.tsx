import Link from "next/link";
import { ApiError } from "@/lib/primitives/errors";
import { listFiles, type File as StudioFile, type FileList } from "@/lib/core/files/files";
import { UPLOAD_CONTENT_TYPES } from "@/lib/core/files/uploads";
import { cursorPages, CursorPager } from "@/components/cursor-pager";
import { FilesUpload } from "@/components/files-upload";
import { relativeTime } from "@/components/run-status";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const dynamic = "force-dynamic";
export const metadata = { title: "Files · Atelier" };

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
const PAGE_SIZE = "20";

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

function measures(file: StudioFile): string {
  const parts: string[] = [];
  if (file.width && file.height) parts.push(`${file.width}×${file.height}`);
  if (file.duration !== null) parts.push(`${file.duration.toFixed(1)} s`);
  return parts.join(" · ") || "—";
}

function Thumbnail({ file }: { file: StudioFile }) {
  const box = "h-12 w-12 shrink-0 rounded-md border border-zinc-200";
  if (file.content_type.startsWith("image/")) {
    return (
      <img
        src={file.url}
        alt=""
        loading="lazy"
        data-testid="file-thumbnail"
        className={`${box} bg-zinc-100 object-cover`}
      />
    );
  }
  const video = file.content_type.startsWith("video/");
  return (
    <div
      data-testid="file-thumbnail"
      className={`${box} flex items-center justify-center ${video ? "bg-ink text-on-ink" : "bg-indigo-50 text-indigo-600"}`}
    >
      <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth={1.6} aria-hidden>
        {video ? (
          <path d="M8 6.5v11l9-5.5-9-5.5z" strokeLinejoin="round" />
        ) : (
          <path d="M3 12h2M7 8v8M11 5v14M15 9v6M19 11v2" strokeLinecap="round" />
        )}
      </svg>
    </div>
  );
}

// The workspace's files, newest first: uploads and run outputs kept as files.
export default async function FilesPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const ctx = await requireStudioCtx();
  const cursor = one(sp.cursor);
  const back = one(sp.back)?.split(",") ?? [];
  let page: FileList | null = null;
  let error: string | null = null;
  try {
    page = await listFiles(ctx, { limit: PAGE_SIZE, cursor });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    error = err.message;
  }
  const href = (extra: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(extra)) if (v) q.set(k, v);
    const s = q.toString();
    return s ? `/files?${s}` : "/files";
  };
  const pages = cursorPages({ back, cursor, nextCursor: page?.next_cursor, href });
  const now = Date.now();

  return (
    <div className="mx-auto max-w-6xl">
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Files</h1>
        <p className="mt-1 text-sm text-zinc-500">
          Images, videos and sounds of this workspace, newest first. A model takes a file by its ID in a file field.
        </p>
      </div>
      <div className="mb-6">
        <FilesUpload accept={["image/*", ...UPLOAD_CONTENT_TYPES].join(",")} />
      </div>
      {error ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          {error}{" "}
          <Link href="/files" className="font-medium underline">
            Back to the first page
          </Link>
        </p>
      ) : page && page.data.length === 0 ? (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-10 text-center text-sm text-zinc-500">
          <p className="font-medium text-zinc-700">No files yet.</p>
          <p className="mt-1">
            Upload one above, or on a model page with a file field (such as{" "}
            <Link href="/catalog/atelier/upscale" className="font-medium text-indigo-600 hover:text-indigo-700">
              atelier/upscale
            </Link>
            ), or press “Keep as file” under an image a run made.
          </p>
        </div>
      ) : page ? (
        <>
          <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
            <table className="w-full text-left text-sm" data-testid="files-table">
              <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
                <tr>
                  <th scope="col" className="w-16 px-4 py-2.5">
                    <span className="sr-only">Preview</span>
                  </th>
                  <th scope="col" className="px-4 py-2.5">
                    File
                  </th>
                  <th scope="col" className="px-4 py-2.5">
                    Type
                  </th>
                  <th scope="col" className="px-4 py-2.5 text-right">
                    Size
                  </th>
                  <th scope="col" className="px-4 py-2.5 text-right">
                    Dimensions · duration
                  </th>
                  <th scope="col" className="px-4 py-2.5 text-right">
                    Created
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {page.data.map((f) => (
                  <tr key={f.id} data-testid="file-row" className="hover:bg-zinc-50">
                    <td className="px-4 py-2">
                      <a
                        href={f.url}
                        target="_blank"
                        rel="noreferrer"
                        aria-label={`Open ${f.filename ?? f.id}`}
                        className="block rounded-md focus-visible:outline-2 focus-visible:outline-indigo-500"
                      >
                        <Thumbnail file={f} />
                      </a>
                    </td>
                    <td className="max-w-xs px-4 py-2">
                      <a
                        href={f.url}
                        target="_blank"
                        rel="noreferrer"
                        className="block truncate font-medium text-zinc-900 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
                      >
                        {f.filename ?? "Untitled"}
                      </a>
                      <div className="font-mono text-xs text-zinc-400">{f.id}</div>
                    </td>
                    <td className="px-4 py-2 font-mono text-xs text-zinc-600">{f.content_type}</td>
                    <td className="px-4 py-2 text-right text-zinc-700 tabular-nums">{formatBytes(f.bytes)}</td>
                    <td className="px-4 py-2 text-right text-zinc-700 tabular-nums" data-testid="file-measures">
                      {measures(f)}
                    </td>
                    <td
                      className="px-4 py-2 text-right whitespace-nowrap text-zinc-500"
                      title={new Date(f.created_at).toISOString()}
                    >
                      <time dateTime={f.created_at}>{relativeTime(f.created_at, now)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <CursorPager pages={pages} count={page.data.length} noun={["file", "files"]} />
        </>
      ) : null}
    </div>
  );
}

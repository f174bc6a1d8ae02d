// The studio's live runs: one event stream (Server-Sent Events) for the runs a page shows, for
// the signed-in user's workspace. The same core as the API's status stream (lib/core/run-streams/run-follow);
// each event also says whether cancel can still stop the run, which the studio shows.
import { actionError } from "@/app/_studio/action-error";
import { studioCtxFor, studioUser } from "@/app/_studio/studio-ctx";
import { ERROR_CODES, type ErrorCode } from "@/lib/primitives/error-codes";
import { ApiError } from "@/lib/primitives/errors";
import { eventStreamBody, parseLastEventId } from "@/lib/core/run-streams/event-stream";
import { acquireUserReader, releasingSource, type Release } from "@/lib/core/run-streams/open-readers";
import { followRuns } from "@/lib/core/run-streams/run-follow";
import type { StudioRunEvent } from "@/app/_studio/run-event";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const ids = (new URL(request.url).searchParams.get("ids") ?? "").split(",").filter(Boolean);
  let follow;
  let release: Release | null = null;
  try {
    const user = await studioUser();
    if (!user) throw new ApiError("authentication_required", "Sign in to follow runs.");
    // One of the user's open-stream slots (429 past the cap), given back when the stream ends.
    release = acquireUserReader(user.id);
    follow = await followRuns(await studioCtxFor(user), {
      ids,
      afterSeq: parseLastEventId(request.headers.get("last-event-id")),
    });
  } catch (err) {
    release?.();
    const error = actionError(err);
    const headers = err instanceof ApiError ? err.headers : {};
    return Response.json({ error }, { status: ERROR_CODES[error.code as ErrorCode]?.status ?? 500, headers });
  }
  const body = eventStreamBody(
    releasingSource(release, async function* (stop) {
      for await (const event of follow(stop)) {
        const data: StudioRunEvent = { generation: event.generation, uncancelable_reason: event.uncancelableReason };
        yield { id: event.seq, event: "run", data };
      }
    }),
    { onError: (err) => actionError(err) },
  );
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}

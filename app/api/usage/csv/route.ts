// The Usage page's "Download CSV": the same rows as GET /v1/usage with Accept: text/csv, for the
// signed-in member (owners and admins: the verb checks the role) or, with ?workspace= or none,
// the ops of the install across workspaces. A route handler because a download is a plain link;
// the studio's session, not an API key, opens it.
import { actionError } from "@/app/_studio/action-error";
import { studioCtxFor, studioOps, studioUser } from "@/app/_studio/studio-ctx";
import { ERROR_CODES, type ErrorCode } from "@/lib/primitives/error-codes";
import { ApiError } from "@/lib/primitives/errors";
import { getUsage } from "@/lib/core/usage/usage";
import { usageCsv } from "@/lib/core/usage/usage-csv";
import { getUsageForOps } from "@/lib/core/usage/usage-ops";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const query = {
    from: params.get("from") ?? undefined,
    to: params.get("to") ?? undefined,
    group_by: params.get("group_by") ?? undefined,
  };
  try {
    const user = await studioUser();
    if (!user) throw new ApiError("authentication_required", "Sign in to download usage.");
    const ctx = await studioCtxFor(user);
    const ops = await studioOps(ctx);
    const usage = ops
      ? await getUsageForOps(ops, { ...query, workspace: params.get("workspace") ?? undefined })
      : await getUsage(ctx, query);
    return new Response(usageCsv(usage), {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="usage-${usage.from}-${usage.to}-by-${usage.group_by}.csv"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (err) {
    const error = actionError(err);
    return Response.json({ error }, { status: ERROR_CODES[error.code as ErrorCode]?.status ?? 500 });
  }
}

// Counts a signed-in user's studio actions and live-run streams before Next sees them
// (server.ts), so that past the budget the answer is a real 429 in the API's error envelope with
// Retry-After, not an action that fails inside a page. Also stamps the connection's address on
// the request for the sign-in throttle, replacing any value a client sent.
import type { IncomingMessage } from "node:http";
import type { Services } from "@/lib/core/context";
import { ApiError } from "@/lib/primitives/errors";
import { studioSessionUser } from "@/lib/core/workspaces/studio-sessions";
import { createStudioUserBudget } from "@/lib/core/workspaces/studio-throttles";
import type { Db } from "@/lib/store/database";
import { sessionCookie, sessionIdOf } from "./session-cookie";
import { CLIENT_IP_HEADER } from "./studio-throttles";

/** Server actions (a POST naming its action) and the live-run stream: what the budget counts. */
function counted(req: IncomingMessage): boolean {
  if (req.method === "POST" && req.headers["next-action"] !== undefined) return true;
  return req.method === "GET" && (req.url ?? "").startsWith("/api/runs/events");
}

/**
 * For each studio request: null at once when it is not counted (most are), else a promise of
 * the refusal past the budget, or of null.
 */
export function createStudioBudgetDoor(deps: {
  db: Db;
  services: Services;
}): (req: IncomingMessage) => Promise<ApiError | null> | null {
  // This module's own budget: the server's copy of the core, whose ApiError this door knows.
  const budget = createStudioUserBudget();
  const refusal = async (req: IncomingMessage): Promise<ApiError | null> => {
    // Signed out, or a cookie that does not open: the action or stream refuses it itself.
    const sid = await sessionIdOf(sessionCookie(req.headers.cookie));
    if (sid === null) return null;
    const user = await studioSessionUser({ db: deps.db }, deps.services.studioSessions, sid);
    if (!user) return null;
    try {
      await budget.spend(user.id);
      return null;
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
  };
  return (req) => {
    req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    return counted(req) ? refusal(req) : null;
  };
}

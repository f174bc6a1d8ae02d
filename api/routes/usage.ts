import { getUsage } from "../../lib/core/usage/usage";
import { acceptsCsv, usageCsv } from "../../lib/core/usage/usage-csv";
import { jsonResponse } from "../respond";
import { requestHeader, type Router } from "../route";

export function usageRoutes(router: Router): void {
  // GET /v1/usage – runs and spend over a range of days, grouped; Accept: text/csv for the rows as CSV
  router.keyed("GET", "/v1/usage", { query: ["from", "to", "group_by", "model"] }, async (c, ctx, { query }) => {
    const usage = await getUsage(ctx, query);
    if (!acceptsCsv(requestHeader(c, "accept"))) return jsonResponse(usage, 200, { Vary: "Accept" });
    return new Response(usageCsv(usage), {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        Vary: "Accept",
      },
    });
  });
}

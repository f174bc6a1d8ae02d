// A workspace's usage as GET /v1/usage shows it: the one source of its type and of the document's
// components (lib/primitives/api-shape.ts). Each row names its group in a field named after it.
import { z } from "zod";
import { closed, usd } from "../../primitives/api-shape";
import { SOURCES } from "../context";

export const USAGE_GROUPS = ["day", "model", "key", "member", "source"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

const count = (what: string) => z.int().min(0).meta({ description: what });

const counts = {
  runs: count("Runs started in the range, in any state (queued and running ones included)."),
  succeeded: count("Of them, succeeded (the only ones charged)."),
  failed: count("Of them, failed."),
  canceled: count("Of them, canceled."),
  cost_usd: usd.meta({ description: "What the workspace was charged for them: its succeeded runs' prices." }),
};

export const UsageRowShape = z.union([
  closed({ day: z.string().meta({ description: "The day the runs started (UTC, `YYYY-MM-DD`)." }), ...counts }),
  closed({ model: z.string().meta({ description: "The model ID the runs ran, as a run shows it." }), ...counts }),
  closed({
    key: z
      .string()
      .nullable()
      .meta({ description: "The API key (`key_…`) that started the runs; null: runs started in the studio." }),
    name: z.string().nullable().meta({ description: "The key's name; null when there is no key (or it is gone)." }),
    ...counts,
  }),
  closed({
    member: z.string().nullable().meta({
      description:
        "The member (`usr_…`) who started the runs in the studio, or who made the API key that did; null: keys the admin CLI made.",
    }),
    email: z.string().nullable().meta({ description: "The member's email; null when there is no member." }),
    ...counts,
  }),
  closed({ source: z.enum(SOURCES).meta({ description: "Where the runs were started." }), ...counts }),
]);

export const UsageShape = closed({
  object: z.literal("usage"),
  from: z.string().meta({ description: "The range's first day (UTC, `YYYY-MM-DD`), included." }),
  to: z.string().meta({ description: "The range's last day (UTC, `YYYY-MM-DD`), included." }),
  group_by: z.enum(USAGE_GROUPS),
  data: z.array(UsageRowShape),
  total: closed({
    runs: count("Every run started in the range (with the model filter, if any)."),
    cost_usd: usd.meta({ description: "Their charges: exactly the ledger's charges for these runs." }),
  }),
});

export type UsageRow = z.infer<typeof UsageRowShape>;
export type Usage = z.infer<typeof UsageShape>;

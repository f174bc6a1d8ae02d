// A budget as GET /v1/budgets and the admin CLI show it: the one source of its type and of the
// document's components (lib/primitives/api-shape.ts). Amounts are strings of US dollars like
// every amount of the API; a period without a cap has null for its cap, spent and left.
import { z } from "zod";
import { closed, usd } from "../../primitives/api-shape";

const perPeriod = (what: string, period: "day" | "month") =>
  usd.nullable().meta({
    description: `${what} (UTC ${period === "day" ? "day" : "calendar month"}); null without a ${period === "day" ? "daily" : "monthly"} cap.`,
  });

export const BudgetShape = closed({
  object: z.literal("budget"),
  scope: z.enum(["workspace", "member", "key"]).meta({
    description:
      "Whom it caps: the whole workspace; a member (their studio runs and the runs of the keys they made); an API key (its runs).",
  }),
  subject_id: z
    .string()
    .meta({ description: "The workspace's ID (`ws_…`), the member's (`usr_…`) or the key's (`key_…`)." }),
  email: z.string().nullable().meta({ description: "The member's email; null for the workspace and keys." }),
  daily_usd: usd.nullable().meta({ description: "The cap per UTC day; null: no daily cap. 0 lets nothing be spent." }),
  monthly_usd: usd.nullable().meta({ description: "The cap per UTC calendar month; null: no monthly cap." }),
  spent_today_usd: perPeriod("Held and charged by the runs it covers that started today", "day"),
  spent_this_month_usd: perPeriod("Held and charged by the runs it covers that started this month", "month"),
  left_today_usd: perPeriod("What may still be spent today: the cap less what is spent, never below 0", "day"),
  left_this_month_usd: perPeriod("What may still be spent this month, never below 0", "month"),
  updated_at: z.string().meta({ format: "date-time", description: "When its caps last changed." }),
});

export const BudgetListShape = closed({
  object: z.literal("list"),
  data: z.array(BudgetShape).meta({ description: "The workspace's budget first, then members', then keys'." }),
});

export type Budget = z.infer<typeof BudgetShape>;
export type BudgetList = z.infer<typeof BudgetListShape>;

// The workspace's balance as GET /v1/credits shows it: the one source of its type and of the
// document's component (lib/primitives/api-shape.ts); and its low-balance alert as the studio and
// the admin CLI read it (lib/core/credits/low-credit.ts).
import { z } from "zod";
import { closed, usd } from "../../primitives/api-shape";

export const CreditsShape = closed({ object: z.literal("credits"), available_usd: usd, held_usd: usd });

export const LowCreditAlertShape = closed({
  object: z.literal("low_credit_alert"),
  threshold_usd: usd.nullable().meta({
    description: "A `credits.low` event is written when the available balance drops under it; null: no alert.",
  }),
  available_usd: usd,
  under: z.boolean().meta({ description: "The available balance is under the threshold now (false without one)." }),
});

export type Credits = z.infer<typeof CreditsShape>;
export type LowCreditAlert = z.infer<typeof LowCreditAlertShape>;

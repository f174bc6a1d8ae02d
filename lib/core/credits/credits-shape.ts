// The workspace's balance as GET /v1/credits shows it: the one source of its type and of the
// document's component (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, usd } from "../../primitives/api-shape";

export const CreditsShape = closed({ object: z.literal("credits"), available_usd: usd, held_usd: usd });

export type Credits = z.infer<typeof CreditsShape>;

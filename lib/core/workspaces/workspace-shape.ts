// A workspace as the API shows it: the one source of its type and of the document's component
// (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, prefixedId, timestamp } from "../../primitives/api-shape";

export const WorkspaceShape = closed({
  id: prefixedId("workspace"),
  object: z.literal("workspace"),
  name: z.string(),
  created_at: timestamp,
});

export type Workspace = z.infer<typeof WorkspaceShape>;

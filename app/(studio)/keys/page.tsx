import { keyMakingRefusal, listApiKeys } from "@/lib/core/keys/api-keys";
import { roleAtLeast } from "@/lib/core/workspaces/roles";
import { KeysManager } from "@/components/keys-manager";
import { ConnectAgent } from "@/components/connect-agent";
import { TOOLS } from "@/api/mcp/tools";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const metadata = { title: "API keys · Atelier" };

export default async function KeysPage() {
  const ctx = await requireStudioCtx();
  const maker = { userId: ctx.user.id, role: ctx.user.role };
  const [keys, makeRefusal] = await Promise.all([
    listApiKeys(ctx, { workspaceId: ctx.workspaceId }),
    keyMakingRefusal(ctx, ctx.workspaceId, maker),
  ]);
  return (
    <div className="mx-auto max-w-5xl">
      <KeysManager
        keys={keys}
        rights={{ makeRefusal, revokeAny: roleAtLeast(ctx.user.role, "admin"), userId: ctx.user.id }}
        intro={
          <div>
            <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">API keys</h1>
            <p className="mt-1 text-sm text-zinc-500">
              Keys let programs call the API as this workspace. A key is shown once, when it is made.
            </p>
          </div>
        }
      />
      <ConnectAgent
        url={`${ctx.services.publicBaseUrl}/mcp`}
        tools={Object.entries(TOOLS).map(([name, tool]) => ({
          name,
          title: tool.title,
          description: tool.description,
        }))}
      />
    </div>
  );
}

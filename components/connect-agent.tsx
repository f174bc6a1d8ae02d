"use client";
// "Connect an agent": this install's MCP URL, configuration to paste into the common MCP clients,
// and what the tools do. The key stays a placeholder: keys are shown once, when made (above).
import { useState } from "react";
import { CopyButton } from "./run-view";

export interface AgentTool {
  name: string;
  title: string;
  description: string;
}

function clientConfigs(url: string): Array<{ client: string; where: string; text: string }> {
  const headers = { Authorization: "Bearer YOUR_ATELIER_KEY" };
  return [
    {
      client: "Claude Code",
      where: "in a terminal",
      text: `claude mcp add --transport http atelier ${url} --header "Authorization: Bearer YOUR_ATELIER_KEY"`,
    },
    {
      client: "Cursor",
      where: "~/.cursor/mcp.json",
      text: JSON.stringify({ mcpServers: { atelier: { url, headers } } }, null, 2),
    },
    {
      client: "VS Code",
      where: ".vscode/mcp.json",
      text: JSON.stringify({ servers: { atelier: { type: "http", url, headers } } }, null, 2),
    },
    {
      client: "Claude Desktop",
      where: "claude_desktop_config.json (through the mcp-remote bridge)",
      text: JSON.stringify(
        {
          mcpServers: {
            atelier: {
              command: "npx",
              args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH}"],
              env: { AUTH: "Bearer YOUR_ATELIER_KEY" },
            },
          },
        },
        null,
        2,
      ),
    },
  ];
}

export function ConnectAgent({ url, tools }: { url: string; tools: AgentTool[] }) {
  const configs = clientConfigs(url);
  const [chosen, setChosen] = useState(configs[0]!.client);
  const config = configs.find((c) => c.client === chosen) ?? configs[0]!;
  return (
    <section aria-labelledby="connect-agent" className="mt-10 rounded-lg border border-zinc-200 bg-white p-5">
      <h2 id="connect-agent" className="text-lg font-semibold text-zinc-900">
        Connect an agent
      </h2>
      <p className="mt-1 text-sm text-zinc-500">
        Claude, Cursor, VS Code and any MCP client can browse the catalog, price and run models, and see the results,
        spending this workspace&apos;s credit like the API. Runs they start show as source{" "}
        <code className="font-mono">mcp</code> in Runs.
      </p>
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <span className="text-sm font-medium text-zinc-700">MCP URL</span>
        <code data-testid="mcp-url" className="rounded bg-zinc-100 px-2 py-1 font-mono text-sm text-zinc-800">
          {url}
        </code>
        <CopyButton label="Copy URL" text={() => url} />
      </div>
      <div className="mt-4" role="tablist" aria-label="MCP client">
        {configs.map((c) => (
          <button
            key={c.client}
            type="button"
            role="tab"
            aria-selected={c.client === chosen}
            onClick={() => setChosen(c.client)}
            className={`mr-1 rounded-md px-3 py-1.5 text-sm font-medium ${c.client === chosen ? "bg-indigo-50 text-indigo-700" : "text-zinc-600 hover:bg-zinc-50"}`}
          >
            {c.client}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={config.client} className="mt-2">
        <div className="flex items-center justify-between gap-2">
          <p className="text-xs text-zinc-500">
            {config.where}: replace YOUR_ATELIER_KEY with a key from the table above.
          </p>
          <CopyButton label="Copy" text={() => config.text} />
        </div>
        <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-900 p-3 text-xs leading-relaxed text-zinc-100">
          {config.text}
        </pre>
      </div>
      <h3 className="mt-5 text-sm font-semibold text-zinc-900">Tools</h3>
      <dl className="mt-2 grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[12rem_1fr]">
        {tools.map((tool) => (
          <div key={tool.name} className="contents">
            <dt className="font-mono text-zinc-800">{tool.name}</dt>
            <dd className="text-zinc-600">{tool.description}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

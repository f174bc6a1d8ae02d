// "Connect an agent" beside the API keys: this install's MCP URL and client configuration; a
// run an agent starts through /mcp shows in the history as source mcp, and the MCP filter finds it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { newKey, newUser, screenshot, signInCookie } from "./helpers";
import { STUDIO_URL } from "./playwright.config";

test("the keys page shows the MCP URL and client configuration; an agent's run is found by the MCP filter", async ({
  page,
}) => {
  const user = newUser("owner");
  await signInCookie(page, user);
  await page.goto("/keys");
  const section = page.getByRole("region", { name: "Connect an agent" });
  await expect(section.getByTestId("mcp-url")).toHaveText(`${STUDIO_URL}/mcp`);
  await expect(section.getByRole("tabpanel")).toContainText(
    `claude mcp add --transport http atelier ${STUDIO_URL}/mcp`,
  );
  await section.getByRole("tab", { name: "VS Code" }).click();
  await expect(section.getByRole("tab", { name: "VS Code" })).toHaveAttribute("aria-selected", "true");
  await expect(section.getByRole("tabpanel")).toContainText('"type": "http"');
  await expect(section.getByText("generate", { exact: true })).toBeVisible();
  await section.scrollIntoViewIfNeeded();
  await screenshot(page, "connect-agent");

  // The URL shown is the one an MCP client connects to.
  const client = new Client({ name: "studio-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${STUDIO_URL}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${newKey(user.workspaceId)}` } },
    }),
  );
  const result = await client.callTool({
    name: "generate",
    arguments: { model: "atelier/gradient", input: { prompt: "agent's harbour" }, wait_seconds: 30 },
  });
  const id = (result.structuredContent as { id: string }).id;
  await client.close();

  await page.goto("/runs");
  await page.getByLabel("Source").selectOption("mcp");
  await expect(page).toHaveURL(/source=mcp/);
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(id);
  await expect(page.getByTestId("run-source").first()).toHaveText("mcp");
});

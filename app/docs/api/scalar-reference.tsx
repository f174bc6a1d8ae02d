"use client";
// Scalar's API reference (a Vue app behind a React wrapper), set up for a self-hosted studio:
// nothing leaves the origin (no fonts from Scalar's CDN, no request proxy, no "Test request"
// client, no AI agent, MCP or sharing toolbar that call Scalar's services, no telemetry), the
// code samples are the document's own (x-codeSamples: curl and the TypeScript SDK), and the
// colours are the studio's palette, light or dark as the system is.
import { useEffect, useMemo, useSyncExternalStore } from "react";
import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import "./scalar-page.css";

type Configuration = Parameters<typeof ApiReferenceReact>[0]["configuration"];

/*
 * Scalar's theme variables from the studio's palette (app/globals.css). The palette itself turns
 * round under a dark system setting, so one mapping serves both of Scalar's modes. Unlayered, so
 * it wins over Scalar's theme (@layer scalar-theme).
 */
const STUDIO_THEME = `
.light-mode, .dark-mode {
  --scalar-font: var(--font-sans, ui-sans-serif, system-ui, sans-serif);
  --scalar-font-code: var(--font-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
  --scalar-background-1: var(--color-white);
  --scalar-background-2: var(--color-zinc-50);
  --scalar-background-3: var(--color-zinc-100);
  --scalar-background-accent: var(--color-indigo-50);
  --scalar-color-1: var(--color-zinc-900);
  --scalar-color-2: var(--color-zinc-600);
  --scalar-color-3: var(--color-zinc-500);
  --scalar-color-accent: var(--color-indigo-600);
  --scalar-border-color: var(--color-zinc-200);
  --scalar-link-color: var(--color-indigo-600);
  --scalar-link-color-hover: var(--color-indigo-700);
  --scalar-sidebar-background-1: var(--color-white);
  --scalar-sidebar-item-active-background: var(--color-indigo-50);
  --scalar-sidebar-color-active: var(--color-indigo-700);
  --scalar-radius: 6px;
  --scalar-radius-lg: 8px;
  --scalar-radius-xl: 8px;
}
`;

const darkQuery = "(prefers-color-scheme: dark)";
function subscribeToScheme(onChange: () => void): () => void {
  const media = window.matchMedia(darkQuery);
  media.addEventListener("change", onChange);
  return () => media.removeEventListener("change", onChange);
}
const systemIsDark = () => window.matchMedia(darkQuery).matches;

export default function ScalarReference({ spec }: { spec: Record<string, unknown> }) {
  const dark = useSyncExternalStore(subscribeToScheme, systemIsDark, () => false);
  const configuration = useMemo<Configuration>(
    () => ({
      content: spec,
      theme: "default",
      customCss: STUDIO_THEME,
      withDefaultFonts: false,
      // Follows the system, as the rest of the studio does; no toggle of its own.
      forceDarkModeState: dark ? "dark" : "light",
      hideDarkModeToggle: true,
      // No request client: "Test request" and "Open API client" would send requests from the
      // page (and offer Scalar's proxy); the samples show how to call the API instead.
      hideTestRequestButton: true,
      hideClientButton: true,
      // Only the document's own samples (curl and the SDK), not generated clients.
      hiddenClients: true,
      // The document has a "Models" tag and a "Webhooks" tag (the endpoints that manage them):
      // Scalar's own sections for components.schemas and the webhooks get names of their own.
      modelsSectionLabel: "Schemas",
      localization: { translations: { navigation: { webhooks: "Webhook events" } } },
      documentDownloadType: "json",
      showDeveloperTools: "never",
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      defaultOpenAllTags: false,
      orderRequiredPropertiesFirst: true,
    }),
    [spec, dark],
  );
  // Scalar marks <body> light-mode or dark-mode and leaves it there: take it off on the way out.
  useEffect(() => () => window.document.body.classList.remove("light-mode", "dark-mode"), []);
  return <ApiReferenceReact configuration={configuration} />;
}

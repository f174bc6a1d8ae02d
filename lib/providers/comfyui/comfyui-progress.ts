// ComfyUI tells how far a prompt is only over its websocket (GET /ws?clientId=…: `progress`
// messages `{value, max, prompt_id}` per sampler step). One socket per adapter, opened while a
// prompt of ours is pending and closed when none is; progress is best effort, so a socket that
// cannot open or drops only means polls carry no progress until it is back.
import WebSocket from "ws";

/** Reconnects after a drop at most this often while prompts are pending. */
const RECONNECT_MS = 2_000;
/** Messages larger than this are not progress: dropped by ws before parsing. */
const MAX_MESSAGE_BYTES = 64 * 1024;

export interface ComfyProgress {
  /** Starts following a queued prompt (opens the socket if it is not open). */
  watch(promptId: string): void;
  /** Stops following it (closes the socket when nothing is followed). */
  forget(promptId: string): void;
  /** How far the prompt's current sampler is, 0 to 1; null before its first step. */
  progressOf(promptId: string): number | null;
}

export function comfyProgress(baseUrl: string, clientId: string, headers: Record<string, string>): ComfyProgress {
  const progress = new Map<string, number | null>();
  let socket: WebSocket | null = null;
  let retry: NodeJS.Timeout | null = null;

  const url = `${baseUrl.replace(/^http/, "ws")}/ws?clientId=${encodeURIComponent(clientId)}`;

  const open = () => {
    if (socket || retry || progress.size === 0) return;
    const ws = new WebSocket(url, {
      headers,
      maxPayload: MAX_MESSAGE_BYTES,
      handshakeTimeout: 10_000,
      followRedirects: false,
    });
    socket = ws;
    ws.on("message", (data, isBinary) => {
      // Binary frames are preview images: not ours to read.
      if (isBinary) return;
      try {
        const message = JSON.parse(data.toString()) as {
          type?: unknown;
          data?: { value?: unknown; max?: unknown; prompt_id?: unknown };
        };
        if (
          message.type !== "progress" ||
          typeof message.data?.prompt_id !== "string" ||
          !progress.has(message.data.prompt_id)
        )
          return;
        const { value, max } = message.data;
        if (typeof value === "number" && typeof max === "number" && max > 0 && value >= 0 && value <= max)
          progress.set(message.data.prompt_id, value / max);
      } catch {
        // Not JSON: not progress.
      }
    });
    ws.on("error", () => undefined);
    ws.on("close", () => {
      if (socket === ws) socket = null;
      if (progress.size > 0 && !retry) {
        retry = setTimeout(() => {
          retry = null;
          open();
        }, RECONNECT_MS);
        retry.unref();
      }
    });
  };

  return {
    watch(promptId) {
      if (!progress.has(promptId)) progress.set(promptId, null);
      open();
    },
    forget(promptId) {
      progress.delete(promptId);
      if (progress.size > 0) return;
      if (retry) clearTimeout(retry);
      retry = null;
      socket?.terminate();
      socket = null;
    },
    progressOf(promptId) {
      return progress.get(promptId) ?? null;
    },
  };
}

"use client";
// The workspace's default signing secret: hidden until asked for (the page never sends it), copy,
// and rotate with a confirmation that says how long the old one keeps signing.
import { useState } from "react";
import { revealSecretAction, rotateSecretAction } from "@/app/_studio/actions/webhooks";
import { card, ConfirmDialog, secondary, When } from "./webhooks-ui";

const MASK = `whsec_${"•".repeat(28)}`;

export function WebhookSecretCard({
  previousExpiresAt,
  overlapHours,
}: {
  previousExpiresAt: string | null;
  overlapHours: number;
}) {
  const [secret, setSecret] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotateError, setRotateError] = useState<string | null>(null);

  async function load(): Promise<string | null> {
    if (secret) return secret;
    const result = await revealSecretAction();
    if (!result.ok) {
      setNote({ text: result.message, error: true });
      return null;
    }
    setSecret(result.value.secret);
    return result.value.secret;
  }

  async function toggle() {
    if (shown) return setShown(false);
    if (await load()) setShown(true);
  }

  async function copy() {
    const value = await load();
    if (!value) return;
    try {
      await navigator.clipboard.writeText(value);
      setNote({ text: "Copied to the clipboard.", error: false });
    } catch {
      setShown(true);
      setNote({ text: "Could not copy here: select the secret and copy it.", error: true });
    }
  }

  async function rotate() {
    setRotating(true);
    setRotateError(null);
    const result = await rotateSecretAction();
    setRotating(false);
    if (!result.ok) {
      setRotateError(result.message);
      return;
    }
    setConfirming(false);
    setSecret(null);
    setShown(false);
    setNote({
      text: "Rotated. New deliveries are signed with the new secret, and with the old one until the overlap ends.",
      error: false,
    });
  }

  return (
    <section aria-labelledby="secret-title" className={`${card} p-5`}>
      <h2 id="secret-title" className="text-base font-semibold text-zinc-900">
        Signing secret
      </h2>
      <p className="mt-1 text-sm text-zinc-500">
        Every delivery carries a <code className="text-xs">webhook-signature</code> header: an HMAC of the body made
        with this secret (Standard Webhooks). Check it on your receiver to know a request came from Atelier.
      </p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          data-testid="webhook-secret"
          aria-label={shown ? "Signing secret" : "Signing secret (hidden)"}
          className="min-w-0 flex-1 overflow-x-auto rounded-md bg-zinc-50 px-3 py-2 font-mono text-sm whitespace-nowrap text-zinc-900 ring-1 ring-zinc-200"
        >
          {shown && secret ? secret : MASK}
        </code>
        <div className="flex flex-wrap gap-2">
          <button type="button" onClick={() => void toggle()} aria-pressed={shown} className={secondary}>
            {shown ? "Hide" : "Reveal"}
          </button>
          <button type="button" onClick={() => void copy()} className={secondary}>
            Copy
          </button>
          <button type="button" onClick={() => setConfirming(true)} className={secondary}>
            Rotate…
          </button>
        </div>
      </div>
      <p role="status" aria-live="polite" className={`mt-2 text-sm ${note?.error ? "text-red-700" : "text-zinc-600"}`}>
        {note?.text}
      </p>
      {previousExpiresAt ? (
        <p className="text-sm text-amber-800" data-testid="previous-secret">
          After the last rotation the previous secret also signs deliveries; that overlap ends{" "}
          <When iso={previousExpiresAt} />.
        </p>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busy={rotating}
        error={rotateError}
        onConfirm={() => void rotate()}
        onCancel={() => {
          setConfirming(false);
          setRotateError(null);
        }}
      >
        <p>A new secret starts signing deliveries at once.</p>
        <p>
          The current secret keeps signing too for {overlapHours} hours: during that time every delivery carries both
          signatures, so receivers that still check the old secret keep working. Update them with the new secret before
          the {overlapHours} hours are over.
        </p>
      </ConfirmDialog>
    </section>
  );
}

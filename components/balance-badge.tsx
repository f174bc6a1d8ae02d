"use client";
// The top bar's balance. It shows what the layout rendered, and reads the balance again when a
// page says it changed (balanceChanged: a run started and its price is held) rather than that
// page asking the server to render every part of it again: that render ran in the server while
// the new run ran and finished, and held back the run's own events.
import { useEffect, useState } from "react";
import { readBalanceAction } from "@/app/_studio/actions/balance";
import type { StudioBalance } from "@/app/_studio/studio-balance";

const BALANCE_CHANGED = "atelier:balance-changed";

/** Tells the top bar to read the balance again. */
export function balanceChanged(): void {
  window.dispatchEvent(new Event(BALANCE_CHANGED));
}

export function BalanceBadge({ initial }: { initial: StudioBalance }) {
  const [balance, setBalance] = useState(initial);
  // A new render of the layout (a navigation, a refresh) brings the server's figure.
  useEffect(() => setBalance(initial), [initial]);
  useEffect(() => {
    let asked = 0;
    const readAgain = () => {
      const ask = ++asked;
      readBalanceAction().then(
        (read) => {
          if (ask === asked) setBalance(read);
        },
        () => undefined, // the next change or render brings it
      );
    };
    window.addEventListener(BALANCE_CHANGED, readAgain);
    return () => window.removeEventListener(BALANCE_CHANGED, readAgain);
  }, []);
  return (
    <div className={`text-sm ${balance.low ? "text-amber-700" : "text-zinc-600"}`} data-testid="balance">
      ${balance.available_usd} available
      {balance.held_usd !== null ? <span className="text-zinc-500"> · ${balance.held_usd} held</span> : null}
      {balance.low ? <span className="ml-2 text-xs">Low credit: ask ops to add some.</span> : null}
    </div>
  );
}

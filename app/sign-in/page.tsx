import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/sign-in-form";
import { BrandCard } from "@/components/brand-card";
import { findCatalogEntry } from "@/lib/core/catalog/catalog";
import { getRuntime } from "@/lib/boot/runtime";
import { SSO_REFUSALS } from "@/lib/core/workspaces/single-sign-on";
import { oauthSignInOptions, safeCallbackPath, studioUser } from "../auth";
import { modelIdOf } from "../(studio)/catalog/[creator]/[name]/model-id";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Atelier" };

// next-auth sends failed OAuth sign-ins back here with ?error=…; single sign-on's refusals say why.
const OAUTH_ERRORS: Record<string, string> = {
  AccessDenied: "That account's email is not an Atelier user. Ask ops to create a user with it, then sign in again.",
  ...Object.fromEntries(Object.entries(SSO_REFUSALS).map(([reason, message]) => [`sso_${reason}`, message])),
};

/**
 * Where signing in leads and, for a model page, the model to name: only a real catalog entry is
 * named (never words taken from the URL), and a catalog path that does not decode leads to the
 * catalog itself.
 */
function destination(path: string): { callback: string; model: string | null } {
  const chosen = /^\/catalog\/([^/?#]+)\/([^/?#]+)/.exec(path);
  if (!chosen) return { callback: path, model: null };
  let id: string;
  try {
    id = modelIdOf(chosen[1]!, chosen[2]!);
  } catch {
    return { callback: "/catalog", model: null };
  }
  try {
    return { callback: path, model: findCatalogEntry(id).model.id };
  } catch {
    return { callback: path, model: null };
  }
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sp = await searchParams;
  await getRuntime(); // the catalog, remote entries included
  // Where the visitor was going (a model chosen in /explore): same-origin paths only.
  const asked = safeCallbackPath(Array.isArray(sp.callbackUrl) ? sp.callbackUrl[0] : sp.callbackUrl) ?? "/catalog";
  const { callback, model } = destination(asked);
  if (await studioUser()) redirect(callback);
  const code = sp.error;
  const error =
    typeof code === "string"
      ? ((Object.hasOwn(OAUTH_ERRORS, code) ? OAUTH_ERRORS[code] : undefined) ?? "Signing in did not work. Try again.")
      : null;
  return (
    <BrandCard
      after={
        <>
          <p className="mt-4 text-center text-sm text-zinc-600">
            <Link href="/explore" className="font-medium text-indigo-600 hover:text-indigo-700">
              Browse the models and prices
            </Link>{" "}
            without signing in.
          </p>
          <p className="mt-2 text-center text-xs text-zinc-500">Programs use API keys instead: see the API at /v1.</p>
        </>
      }
    >
      <h1 className="text-xl font-semibold tracking-tight text-zinc-900">Sign in to Atelier</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-500">
        {model ? (
          <>
            Then you go on to{" "}
            <span data-testid="sign-in-next" className="font-medium text-zinc-800">
              {model}
            </span>
            .{" "}
          </>
        ) : null}
        Use the login ops gave you, or the demo login printed on the first start.
      </p>
      <SignInForm oauth={oauthSignInOptions()} initialError={error} callbackUrl={callback} />
    </BrandCard>
  );
}

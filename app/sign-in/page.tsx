import { redirect } from "next/navigation";
import { SignInForm } from "@/components/sign-in-form";
import { studioUser } from "../auth";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Atelier" };

export default async function SignInPage() {
  if (await studioUser()) redirect("/catalog");
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4">
      <div className="w-full max-w-sm">
        <p className="mb-6 text-center text-lg font-semibold tracking-tight text-zinc-900">
          Atelier<span className="text-indigo-600">.</span>
        </p>
        <div className="rounded-lg border border-zinc-200 bg-white p-8 shadow-sm">
          <h1 className="text-xl font-semibold tracking-tight text-zinc-900">Sign in to Atelier</h1>
          <p className="mt-1 mb-6 text-sm text-zinc-500">Use the login ops gave you, or the demo login printed on the first start.</p>
          <SignInForm />
        </div>
        <p className="mt-4 text-center text-xs text-zinc-500">Programs use API keys instead: see the API at /v1.</p>
      </div>
    </main>
  );
}

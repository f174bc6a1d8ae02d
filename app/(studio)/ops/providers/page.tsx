// Operators only: the stored catalog's providers (issue 37), each with how its key is given (never
// the key), its entries, whether it is in service (the outage every process records in the store)
// and its failed runs of the last day; add, edit, remove and test one. It asks for the ops
// principal itself: the layout's 404 sets the status but does not stop this page's render.
import Link from "next/link";
import { opsProviders } from "@/lib/providers/stored-catalog/ops-providers";
import { PROVIDER_KINDS } from "@/lib/providers/kinds";
import { requireOps } from "@/app/_studio/studio-ctx";
import { Breadcrumb } from "@/components/breadcrumb";
import { OpsProviders, type ProviderKindChoice } from "@/components/ops-providers";

export const dynamic = "force-dynamic";
export const metadata = { title: "Providers · Ops · Atelier" };

export default async function OpsProvidersPage() {
  const { ops } = await requireOps();
  const providers = await opsProviders(ops);
  const kinds: ProviderKindChoice[] = Object.values(PROVIDER_KINDS).map((k) => ({
    name: k.name,
    baseUrlRequired: k.baseUrlRequired,
    fields: [...k.providerFields],
  }));
  return (
    <div className="mx-auto max-w-6xl">
      <Breadcrumb parent={{ href: "/ops", label: "Ops" }}>
        <span>Providers</span>
      </Breadcrumb>
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Providers</h1>
        <p className="mt-1 max-w-3xl text-sm text-zinc-500">
          The remote providers in the store, with how each one&apos;s key is given, its entries, whether it is in
          service and its failed runs of the last 24 hours. A pasted key is stored encrypted and never shown again.
          Their models are added and edited on the{" "}
          <Link href="/ops/entries" className="font-medium text-indigo-600 hover:text-indigo-700">
            Entries
          </Link>{" "}
          pages; removing a provider removes its entries.
        </p>
      </div>
      <OpsProviders providers={providers} kinds={kinds} now={Date.now()} />
    </div>
  );
}

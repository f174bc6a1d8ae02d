import { redirect } from "next/navigation";

// /models/<creator>/<name> is the address people type; the page itself lives under /catalog,
// because the one server hands non-HTML requests on /models/… (RSC fetches, server actions) to the API.
export default async function ModelAlias({ params }: { params: Promise<{ creator: string; name: string }> }) {
  const { creator, name } = await params;
  redirect(`/catalog/${creator}/${name}`);
}

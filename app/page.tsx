import { redirect } from "next/navigation";
import { studioUser } from "./auth";

export const dynamic = "force-dynamic";

// The studio starts at the catalog when signed in, else at sign-in.
export default async function Home() {
  redirect((await studioUser()) ? "/catalog" : "/sign-in");
}

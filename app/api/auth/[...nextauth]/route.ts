// /api/auth/* – next-auth's sign-in, sign-out, session and CSRF endpoints.
import NextAuth from "next-auth";
import { authOptions } from "@/app/auth";

const handler = NextAuth(authOptions);
export { handler as GET, handler as POST };

// /api/auth/* – next-auth's sign-in, sign-out, session and CSRF endpoints. A password sign-in is
// counted first (per email and per IP, app/studio-throttles.ts): past the limit it answers 429
// in the API's error envelope with Retry-After, before any password is checked.
import NextAuth from "next-auth";
import { authOptions } from "@/app/auth";
import { CLIENT_IP_HEADER, studioThrottles } from "@/app/studio-throttles";
import { config } from "@/lib/boot/config";
import { ApiError, toErrorResponse } from "@/lib/primitives/errors";
import { newId } from "@/lib/primitives/ids";

const handler = NextAuth(authOptions);

async function POST(request: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  if (new URL(request.url).pathname.endsWith("/callback/credentials")) {
    const form = await request
      .clone()
      .formData()
      .catch(() => null);
    const email = form?.get("email");
    try {
      await studioThrottles().signIn.attempt(
        typeof email === "string" ? email : "",
        request.headers.get(CLIENT_IP_HEADER) ?? "unknown",
      );
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const requestId = newId("request");
      const answer = toErrorResponse(err, requestId, config().publicBaseUrl);
      return Response.json(answer.body, {
        status: answer.status,
        headers: { ...answer.headers, "X-Request-Id": requestId },
      });
    }
  }
  return handler(request, context) as Promise<Response>;
}

export { handler as GET, POST };

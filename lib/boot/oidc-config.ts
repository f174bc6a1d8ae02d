// Single sign-on with an OpenID Connect provider (OIDC_*), read and checked with the rest of the
// configuration (config.ts). Invitation-only unless OIDC_ALLOWED_DOMAINS names the domains whose
// verified emails get an account at first sign-in, in OIDC_JOIN_WORKSPACE as OIDC_JOIN_ROLE.
import { MEMBER_ROLES, isMemberRole, type MemberRole } from "../core/workspaces/roles";

export interface OidcSettings {
  /** OIDC_ISSUER: discovery reads `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** OIDC_NAME: the sign-in button's words ("Sign in with …"). */
  name: string;
  /** OIDC_ALLOWED_DOMAINS, lower-cased: verified emails of these domains get an account; empty: invitations only. */
  allowedDomains: string[];
  /** Where those accounts join (OIDC_JOIN_WORKSPACE) and as what (OIDC_JOIN_ROLE, viewer by default). */
  join: { workspaceId: string; role: MemberRole } | null;
}

type Env = Record<string, string | undefined>;
type Refuse = (message: string) => Error;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function readOidc(env: Env, refuse: Refuse): OidcSettings | null {
  const issuer = env.OIDC_ISSUER?.trim() ?? "";
  const clientId = env.OIDC_CLIENT_ID?.trim() ?? "";
  const clientSecret = env.OIDC_CLIENT_SECRET ?? "";
  const rest = ["OIDC_ALLOWED_DOMAINS", "OIDC_JOIN_WORKSPACE", "OIDC_JOIN_ROLE", "OIDC_NAME"].filter((n) => env[n]);
  if (!issuer && !clientId && !clientSecret) {
    if (rest.length)
      throw refuse(`${rest.join(", ")} mean nothing without OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.`);
    return null;
  }
  if (!issuer || !clientId || !clientSecret)
    throw refuse(
      "OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three for single sign-on, or none.",
    );
  let url: URL | null = null;
  try {
    url = new URL(issuer);
  } catch {
    // Refused below.
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash)
    throw refuse(
      `OIDC_ISSUER must be the provider's issuer URL, such as https://id.example.com/realms/acme; got "${issuer.slice(0, 200)}".`,
    );

  const allowedDomains = (env.OIDC_ALLOWED_DOMAINS ?? "")
    .split(",")
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  for (const domain of allowedDomains)
    if (!DOMAIN.test(domain))
      throw refuse(
        `OIDC_ALLOWED_DOMAINS is a comma-separated list of email domains such as example.com; "${domain.slice(0, 100)}" is not one.`,
      );
  const workspaceId = env.OIDC_JOIN_WORKSPACE?.trim() ?? "";
  const role = env.OIDC_JOIN_ROLE?.trim() || "viewer";
  // Ownership is given by a person, never by a domain.
  const roles = MEMBER_ROLES.filter((r) => r !== "owner");
  if (!isMemberRole(role) || role === "owner")
    throw refuse(`OIDC_JOIN_ROLE is one of ${roles.join(", ")}; got "${role.slice(0, 40)}".`);
  if (allowedDomains.length > 0 && !workspaceId)
    throw refuse("OIDC_ALLOWED_DOMAINS needs OIDC_JOIN_WORKSPACE: the workspace (ws_…) new accounts join.");
  if (allowedDomains.length === 0 && (workspaceId || env.OIDC_JOIN_ROLE))
    throw refuse(
      "OIDC_JOIN_WORKSPACE and OIDC_JOIN_ROLE take effect only with OIDC_ALLOWED_DOMAINS: set it, or unset them.",
    );
  return {
    issuer: issuer.replace(/\/+$/, ""),
    clientId,
    clientSecret,
    name: env.OIDC_NAME?.trim().slice(0, 60) || "single sign-on",
    allowedDomains,
    join: allowedDomains.length ? { workspaceId, role } : null,
  };
}

// A real OpenID Connect provider for the single sign-on tests: the npm `oidc-provider` package
// (OpenID-certified) with its development login form, in a process of its own (it is ESM only,
// and Playwright compiles specs to CommonJS). Any login is accepted; the login is the account's
// email, and a login starting with "unverified" has email_verified false. First-party: consent is
// granted without asking, as a company's own identity provider does for its own apps.
// Usage: node oidc-idp.mjs PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI
import process from "node:process";
import Provider from "oidc-provider";

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: id,
          email_verified: !id.startsWith("unverified"),
          name: `Person ${id.split("@")[0]}`,
        };
      },
    };
  },
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope("openid email profile");
    await grant.save();
    return grant;
  },
});

provider.listen(Number(port), "127.0.0.1", () => process.stderr.write(`oidc-idp: ${issuer} ready\n`));

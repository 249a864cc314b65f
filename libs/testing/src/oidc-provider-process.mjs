// A local OpenID Connect provider for the tests (decision 0042): the `oidc-provider` package,
// its development login form (any login, any password), one confidential client, and accounts
// with groups, all from OIDC_TEST_CONFIG (JSON). Prints one JSON line once it listens.
import http from 'node:http';
import Provider from 'oidc-provider';

const { port, clientId, clientSecret, redirectUri, accounts } = JSON.parse(process.env.OIDC_TEST_CONFIG ?? '{}');
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
  scopes: ['openid', 'profile', 'groups'],
  claims: { openid: ['sub'], profile: ['name'], groups: ['groups'] },
  // The ID token carries the claims itself (as many providers configure for groups).
  conformIdTokenClaims: false,
  async findAccount(_ctx, sub) {
    const account = accounts[sub] ?? { name: sub, groups: [] };
    return { accountId: sub, claims: async () => ({ sub, name: account.name, groups: account.groups }) };
  },
  // A first-party client: consent is given, so the login form is the only page a person sees.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid profile groups');
    grant.addOIDCClaims(['name', 'groups']);
    await grant.save();
    return grant;
  },
  ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
});

http.createServer(provider.callback()).listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'oidc provider listening', issuer }));
});

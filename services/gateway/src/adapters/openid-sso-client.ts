import { AppError, ErrorCode } from '@switchyard/contracts';
import type { SsoClient, SsoIdentity, SsoStart } from '../sso-ports';

type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' } });
type Discovered = { client: OpenIdClient; config: import('openid-client', { with: { 'resolution-mode': 'import' } }).Configuration };

/** Options of OpenIdSsoClient: the operator's OIDC_* settings. */
export interface OpenIdSsoClientOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes. */
  scopes: string;
  /** The claim listing a person's groups. */
  groupsClaim: string;
  /** Allow an `http:` issuer (local providers only). */
  allowHttp: boolean;
}

const textOf = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
const groupsOf = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : typeof value === 'string' ? [value] : undefined);

/**
 * The relying party on `openid-client` (an ES module, loaded on first use, so that a gateway
 * without single sign-on never loads it). The provider is discovered once; a failed discovery
 * is tried again at the next sign-in.
 */
export class OpenIdSsoClient implements SsoClient {
  private discovered: Promise<Discovered> | undefined;

  constructor(private readonly options: OpenIdSsoClientOptions) {}

  private discover(): Promise<Discovered> {
    this.discovered ??= (async () => {
      const client = await import('openid-client');
      const { issuer, clientId, clientSecret, allowHttp } = this.options;
      const config = await client.discovery(new URL(issuer), clientId, clientSecret, undefined, allowHttp ? { execute: [client.allowInsecureRequests] } : undefined);
      return { client, config };
    })().catch((error: unknown) => {
      this.discovered = undefined;
      throw new AppError(ErrorCode.UNAVAILABLE, 'the single sign-on provider does not answer', { issuer: this.options.issuer }, { cause: error });
    });
    return this.discovered;
  }

  async start(redirectUri: string): Promise<SsoStart> {
    const { client, config } = await this.discover();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.options.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  async finish(callbackUrl: URL, pending: Pick<SsoStart, 'state' | 'nonce' | 'codeVerifier'>): Promise<SsoIdentity> {
    const { client, config } = await this.discover();
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
      claims = tokens.claims()! as Record<string, unknown>;
      accessToken = tokens.access_token;
    } catch (error) {
      throw new AppError(ErrorCode.SSO_REFUSED, 'the provider’s answer did not verify', { error: (error as Error).message }, { cause: error });
    }
    let groups = groupsOf(claims[this.options.groupsClaim]);
    let name = textOf(claims.name) ?? textOf(claims.preferred_username) ?? textOf(claims.email);
    // Providers that keep groups out of the ID token release them on userinfo.
    if (groups === undefined) {
      const info = (await client.fetchUserInfo(config, accessToken, String(claims.sub))) as Record<string, unknown>;
      groups = groupsOf(info[this.options.groupsClaim]);
      name ??= textOf(info.name) ?? textOf(info.preferred_username) ?? textOf(info.email);
    }
    return { issuer: String(claims.iss), subject: String(claims.sub), name, groups: groups ?? [] };
  }
}

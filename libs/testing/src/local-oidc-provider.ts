import path from 'node:path';
import { freePort } from './free-port';
import { spawnScript, type ServiceProcess } from './spawn-service';

/** A local OpenID Connect provider and what a relying party needs to use it. */
export interface LocalOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  process: ServiceProcess;
  close(): Promise<void>;
}

/** Options of startLocalOidcProvider. */
export interface LocalOidcProviderOptions {
  /** The one redirect URI its client may use (the gateway's `/v1/sso/callback`). */
  redirectUri: string;
  /** Accounts by login: their name and groups (any other login signs in with no groups). */
  accounts: Record<string, { name: string; groups: string[] }>;
}

/**
 * Why this exists: single sign-on must be tested against a real OpenID Connect provider
 * speaking the real protocol (discovery, authorization code with PKCE, signed ID tokens), and
 * no outside provider is reachable here. This runs the `oidc-provider` package (an ES module)
 * as its own process, with its development login form: any login, any password.
 */
export async function startLocalOidcProvider(options: LocalOidcProviderOptions): Promise<LocalOidcProvider> {
  const port = await freePort();
  const config = { port, clientId: 'switchyard-test', clientSecret: 'switchyard-test-secret-0123456789', redirectUri: options.redirectUri, accounts: options.accounts };
  const proc = await spawnScript(path.join('libs/testing/src/oidc-provider-process.mjs'), { OIDC_TEST_CONFIG: JSON.stringify(config) }, { readyPattern: /oidc provider listening/ });
  return { issuer: `http://127.0.0.1:${port}`, clientId: config.clientId, clientSecret: config.clientSecret, process: proc, close: async () => void (await proc.stop()) };
}

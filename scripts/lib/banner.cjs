// The banner `npm start` prints once the platform answers: where the web UI is and how to sign
// in, the BullMQ dashboard's state, then what runs where — only addresses that exist, each
// checked before it is printed. Plain Node.js (CommonJS, so that start.mjs and jest load it).
'use strict';

const { HEALTH_PORTS } = require('./platform-ports.cjs');

/** Resolves with the response's status and content type, or null when nothing answered within a second. */
async function probe(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return { status: res.status, type: res.headers.get('content-type') ?? '' };
  } catch {
    return null;
  }
}

/**
 * The services whose health server answers on 127.0.0.1, with its port.
 * @param {Record<string, string | undefined>} env the services' environment
 * @returns {Promise<Array<{name: string, port: number}>>}
 */
async function answeringHealthPorts(env) {
  const ports = HEALTH_PORTS.map(([name, variable, fallback]) => ({ name, port: Number(env[variable] || fallback) }));
  const up = await Promise.all(ports.map(async ({ port }) => port > 0 && (await probe(`http://127.0.0.1:${port}/healthz`))?.status === 200));
  return ports.filter((_, index) => up[index]);
}

/**
 * What the gateway serves a person: the web UI at `/` (an HTML page, when it was built) and the
 * BullMQ dashboard at `/admin/queues` (served, behind GATEWAY_ADMIN_TOKEN, when it asks for
 * that credential; 404 when the token is unset — decision 0033).
 * @param {string} gatewayUrl
 * @returns {Promise<{ui: boolean, dashboard: boolean}>}
 */
async function frontDoorState(gatewayUrl) {
  const [page, dashboard] = await Promise.all([probe(`${gatewayUrl}/`), probe(`${gatewayUrl}/admin/queues`)]);
  return { ui: page?.status === 200 && page.type.startsWith('text/html'), dashboard: dashboard?.status === 401 };
}

/** The web UI's lines: where, and how a person signs in (a one-time link first, when there is one). */
function signInLines(gatewayUrl, ui, signInLink) {
  if (!ui) return ['  web UI      not built (`npm run ui:build`); the API works without it'];
  const withToken = 'with an API token: npm run admin -- create-workspace NAME   (a new workspace and its admin token)';
  return [
    `  web UI      ${gatewayUrl}/`,
    ...(signInLink ? [`  sign in     ${signInLink}   (one-time link for the first admin)`, `              or ${withToken}`] : [`  sign in     ${withToken}`]),
    '              lost it? npm run admin -- create-token NAME --role admin',
  ];
}

/** The dashboard's line: its URL and credential, or why it is not served. */
function dashboardLine(gatewayUrl, dashboard) {
  return dashboard
    ? `  dashboard   ${gatewayUrl}/admin/queues   (BullMQ; password: GATEWAY_ADMIN_TOKEN, any user name)`
    : '  dashboard   not served: set GATEWAY_ADMIN_TOKEN (32+ characters) and start again to get the BullMQ dashboard';
}

/**
 * The banner's text.
 * @param {{pid: number, gatewayUrl: string, frontDoor: {ui: boolean, dashboard: boolean},
 *   healthPorts: Array<{name: string, port: number}>, redis: string, postgres: string,
 *   secretsKey: string, platformFile: string, signInLink?: string}} platform what runs (URLs
 *   already redacted); signInLink: a one-time sign-in link to print first, when there is one
 */
function formatBanner({ pid, gatewayUrl, frontDoor, healthPorts, redis, postgres, secretsKey, platformFile, signInLink }) {
  const health = healthPorts.map(({ name, port }) => `${name} :${port}`).join(', ');
  return [
    '',
    `Switchyard is running (pid ${pid}).`,
    ...signInLines(gatewayUrl, frontDoor.ui, signInLink),
    dashboardLine(gatewayUrl, frontDoor.dashboard),
    `  API         ${gatewayUrl}/v1/openapi.json   (REST under /v1/workspaces/{ws}/…, MCP server /mcp)`,
    ...(health ? [`  health      /healthz /readyz /metrics on 127.0.0.1 ports: ${health}`] : []),
    `  Redis       ${redis}`,
    `  PostgreSQL  ${postgres}`,
    `  secrets key ${secretsKey}`,
    `  recorded in ${platformFile} (the servers \`npm run admin\` uses)`,
    '',
    'Stop: Ctrl+C',
    '',
  ].join('\n');
}

module.exports = { answeringHealthPorts, formatBanner, frontDoorState, HEALTH_PORTS };

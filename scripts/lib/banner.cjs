// The banner `npm start` prints once the platform answers: only addresses that exist, each
// checked before it is printed. Plain Node.js (CommonJS, so that start.mjs and jest load it).
'use strict';

/** Each service's health port variable and its default, as the services' configs read them. */
const HEALTH_PORTS = [
  ['gateway', 'GATEWAY_HEALTH_PORT', 9100],
  ['event-log', 'EVENT_LOG_HEALTH_PORT', 9101],
  ['matcher', 'MATCHER_HEALTH_PORT', 9102],
  ['runner', 'RUNNER_HEALTH_PORT', 9103],
  ['approvals', 'APPROVALS_HEALTH_PORT', 9104],
  ['notifier', 'NOTIFIER_HEALTH_PORT', 9105],
];

/** Resolves true when GET url answers 200 within a second. */
async function answers(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The services whose health server answers on 127.0.0.1, with its port.
 * @param {Record<string, string | undefined>} env the services' environment
 * @returns {Promise<Array<{name: string, port: number}>>}
 */
async function answeringHealthPorts(env) {
  const ports = HEALTH_PORTS.map(([name, variable, fallback]) => ({ name, port: Number(env[variable] || fallback) }));
  const up = await Promise.all(ports.map(({ port }) => port > 0 && answers(`http://127.0.0.1:${port}/healthz`)));
  return ports.filter((_, index) => up[index]);
}

/**
 * The banner's text.
 * @param {{gatewayUrl: string, healthPorts: Array<{name: string, port: number}>, redis: string,
 *   postgres: string, secretsKey: string, platformFile: string}} platform what runs (URLs already redacted)
 */
function formatBanner({ gatewayUrl, healthPorts, redis, postgres, secretsKey, platformFile }) {
  const health = healthPorts.map(({ name, port }) => `${name} :${port}`).join(', ');
  return [
    '',
    'Switchyard is running.',
    `  gateway     ${gatewayUrl}  (REST API /v1/workspaces/{ws}/…, MCP server /mcp)`,
    `  API spec    ${gatewayUrl}/v1/openapi.json`,
    ...(health ? [`  health      /healthz /readyz /metrics on 127.0.0.1 ports: ${health}`] : []),
    `  Redis       ${redis}`,
    `  PostgreSQL  ${postgres}`,
    `  secrets key ${secretsKey}`,
    `  recorded in ${platformFile} (the servers \`npm run admin\` uses)`,
    '',
    'Get an API token:   npm run admin -- create-workspace NAME',
    'Stop:               Ctrl+C',
    '',
  ].join('\n');
}

module.exports = { answeringHealthPorts, formatBanner, HEALTH_PORTS };

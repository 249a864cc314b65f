// The ports `npm start` binds on 127.0.0.1 — the gateway's and each service's health port — and
// whether another program holds one already, so that a start stops with a clear message before
// it installs or migrates anything (rather than crash on EADDRINUSE once the services start).
// Plain Node.js with no dependencies (CommonJS: start.mjs, banner.cjs and jest load it).
'use strict';

const net = require('node:net');

/** Each service's health port variable and its default, as the services' configs read them. */
const HEALTH_PORTS = [
  ['gateway', 'GATEWAY_HEALTH_PORT', 9100],
  ['event-log', 'EVENT_LOG_HEALTH_PORT', 9101],
  ['matcher', 'MATCHER_HEALTH_PORT', 9102],
  ['runner', 'RUNNER_HEALTH_PORT', 9103],
  ['approvals', 'APPROVALS_HEALTH_PORT', 9104],
  ['notifier', 'NOTIFIER_HEALTH_PORT', 9105],
];

/** The gateway's port: PORT, else 8080. */
const gatewayPort = (env) => Number(env.PORT || 8080);

/**
 * Every fixed port the platform binds: the gateway's, then the health ports (0, "any free
 * port", and values the services' configs would refuse are left out).
 * @param {Record<string, string | undefined>} env the services' environment
 * @returns {Array<{what: string, variable: string, port: number}>}
 */
function platformPorts(env) {
  const ports = [
    { what: 'the gateway', variable: 'PORT', port: gatewayPort(env) },
    ...HEALTH_PORTS.map(([name, variable, fallback]) => ({ what: `the ${name}'s health port`, variable, port: Number(env[variable] || fallback) })),
  ];
  return ports.filter(({ port }) => Number.isInteger(port) && port > 0 && port < 65536);
}

/** Resolves true when something accepts a TCP connection on host:port within a second. */
function accepts(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * The platform's ports that something already listens on at 127.0.0.1.
 * @param {Record<string, string | undefined>} env
 */
async function takenPorts(env) {
  const ports = platformPorts(env);
  const taken = await Promise.all(ports.map(({ port }) => accepts('127.0.0.1', port)));
  return ports.filter((_, index) => taken[index]);
}

/**
 * Why a start cannot go on when ports are taken, and how to choose others.
 * @param {Array<{what: string, variable: string, port: number}>} taken
 */
function portsTakenMessage(taken) {
  const lines = taken.map(({ what, variable, port }) => `  port ${port} (${what}, ${variable})`);
  const hint = taken.map(({ variable, port }) => (variable === 'PORT' ? `PORT=${port + 1}` : `${variable}=0`)).join(' ');
  return [
    'another program already listens on a port Switchyard needs:',
    ...lines,
    `Stop that program, or choose other ports, e.g. \`${hint} npm start\`${taken.some(({ variable }) => variable !== 'PORT') ? ' (0: any free health port)' : ''}.`,
  ].join('\n');
}

module.exports = { accepts, gatewayPort, HEALTH_PORTS, platformPorts, portsTakenMessage, takenPorts };

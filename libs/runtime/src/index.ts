export { closeAll, closeOnSignals } from './lifecycle';
export type { Closable, CloseOnSignalsOptions } from './lifecycle';
export { runChecks, startHealthServer } from './health-server';
export type { HealthServer, HealthServerOptions, ReadinessCheck } from './health-server';

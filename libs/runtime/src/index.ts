export { closeAll, closeOnSignals } from './lifecycle';
export type { Closable, CloseOnSignalsOptions } from './lifecycle';
export { runChecks, startHealthServer, storeChecks } from './health-server';
export type { HealthServer, HealthServerOptions, ReadinessCheck } from './health-server';
export { runService } from './run-service';
export { createMetricsRegistry, startService } from './start-service';
export type { RunningService, ServicePart, ServiceScope, StartServiceOptions } from './start-service';
export { registerDeadLetterGauge } from './dead-letter-gauge';
export type { DeadLetterCounts } from './dead-letter-gauge';

export { closeAll, closeOnSignals } from './lifecycle';
export type { Closable, CloseOnSignalsOptions } from './lifecycle';
export { runChecks, startHealthServer, storeChecks } from './health-server';
export type { HealthServer, HealthServerOptions, ReadinessCheck } from './health-server';
export { runService } from './run-service';
export { startShellService } from './shell-service';
export type { RunningShellService, ShellServiceOptions } from './shell-service';
export { registerDeadLetterGauge } from './dead-letter-gauge';
export type { DeadLetterCounts } from './dead-letter-gauge';

/**
 * `@switchyard/runs`: the run lifecycle (decision 0044). Its protocol is the PL/pgSQL in `sql/`,
 * one current file per function, applied by generated migrations.
 */
export { functionDrift, type FunctionDrift } from './function-drift';

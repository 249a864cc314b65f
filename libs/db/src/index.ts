/**
 * `@switchyard/db`: the Prisma client factory and the migration tooling of the one Switchyard
 * schema (`prisma/schema.prisma`). Run `npm run db:generate` before importing it: the client in
 * `./generated` is generated, not committed.
 */
export { createPrismaClient, type CreatePrismaClientOptions } from './prisma-client';
export { SqlPool, type SqlRunner, type SqlTransactions } from './sql-pool';
export {
  Prisma,
  PrismaClient,
  Role,
  type Agent,
  type AgentVersion,
  type ApiToken,
  type Membership,
  type PlatformEvent,
  type User,
  type Workspace,
  type WorkspaceEventSeq,
} from './generated/client';
export {
  applyMigrations,
  diffMigrationSql,
  type ApplyMigrationsOptions,
  type DiffMigrationSqlOptions,
  type DiffSource,
} from './migrations';
export type { SchemaEngineLog, SchemaEngineLogEntry } from './schema-engine';
export { DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMA_PATH } from './migration-files';
export { databaseNameOf, dropDatabase, ensureDatabase, withDatabaseName } from './database-admin';
export { FACT_COLUMNS, factFromRow, type FactRow } from './fact-rows';
export { flushFacts, OUTBOX_CHANNEL, OUTBOX_INSERT_SQL, OutboxRelay, outboxParams, recordFacts, type FactSink, type OutboxRelayOptions, type RelayLog } from './fact-outbox';
export { SqlFactStore, type AppendOutcome, type FactStore } from './sql-fact-store';
export { FactRecorder, type FactPublisher, type FactToRecord } from './fact-recorder';
export {
  readWorkspaceSecret,
  readWorkspaceSecrets,
  type RawQueryClient,
  type SecretOpener,
  type StoredSealedSecret,
} from './workspace-secrets';
export { SqlDeadLetterStore, type DeadLetterCount, type ListDeadLettersOptions } from './dead-letter-store';
export { createWorkspace, type CreatedWorkspace } from './workspaces';
export { createSignInLink, type CreatedSignInLink } from './access-links';
export { TOKEN_INFO_COLUMNS, tokenInfoFromRow, type TokenInfoRow } from './token-rows';
export { APPROVAL_COLUMNS, approvalFromRow, type ApprovalRow } from './approval-rows';
export {
  DEFAULT_FUNCTIONS_DIR,
  readFunctionFiles,
  type FunctionFile,
} from './function-files';
export { AgentMessageStore, senderKeyOf, type DigestRead, type Observable, type ObserveOutcome, type QuarantineRecord } from './agent-message-store';
export { fireParams, INSERT_FIRES_SQL, SCHEDULE_COLUMNS, scheduleFromRow, type FireToWrite, type ScheduleRecord, type ScheduleRow } from './schedule-rows';

export { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, databaseServerUrl, redisUrl, templateDatabase, withDatabase } from './infra';
export { adminQuery, createTestDatabase } from './test-database';
export type { TestDatabase } from './test-database';
export { createTestSql } from './test-sql';
export type { TestSql } from './test-sql';
export { createTestRedis, deleteKeys } from './test-redis';
export type { TestRedis } from './test-redis';
export { GiveUp, waitFor } from './wait-for';
export { waitForTeammateAtRest, waitForTurnsEnded } from './teammate-at-rest';
export type { SessionTurnRow } from './teammate-at-rest';
export { freePort } from './free-port';
export { RedisServer } from './redis-server';
export { RedisCluster } from './redis-cluster';
export { PgBouncer } from './pgbouncer';
export type { RedisClusterOptions } from './redis-cluster';
export type { RedisServerOptions } from './redis-server';
export { processWakeups } from './process-wakeups';
export { processFootprint } from './process-footprint';
export type { ProcessFootprint } from './process-footprint';
export { runInflightLoad } from './inflight-load';
export type { InflightLoadOptions, InflightLoadResult, InflightSample } from './inflight-load';
export { spawnScript, spawnService } from './spawn-service';
export { nodeArgsFor } from './test-bundles';
export { buildUi } from './ui-build';
export type { ServiceProcess, SpawnOptions } from './spawn-service';
export { startAnotherGateway, startTestPlatform } from './platform';
export type { TestPlatform, TestPlatformOptions } from './platform';
export { apiClient } from './http-client';
export type { ApiResponse } from './http-client';
export { openSse } from './sse-client';
export type { SseConnection, SseEvent } from './sse-client';
export { postFactsConcurrently } from './load';
export { startSlowCommits } from './slow-commits';
export type { SlowCommits } from './slow-commits';
export type { LoadResult } from './load';
export { pick, prng } from './random';
export { longestSharedPrefix, startLocalOpenAiServer } from './local-openai-server';
export type {
  ChatCompletionRequestBody,
  LocalDisconnectReply,
  LocalErrorReply,
  LocalMessageReply,
  LocalOpenAiReply,
  LocalOpenAiRequest,
  LocalOpenAiServer,
  LocalOpenAiServerOptions,
  LocalToolCall,
  LocalUsage,
} from './local-openai-server';
export { connectTestMcpServer, readTestMcpLog, startTestMcpServer, TEST_MCP_INJECTION, TEST_MCP_STDIO_SCRIPT, testMcpStdioCommand } from './test-mcp-server';
export type { TestMcpCall, TestMcpHttpServer, TestMcpHttpServerOptions, TestMcpToolsOptions } from './test-mcp-server';
// The run queue's fake and conformance suite live beside the queue, in libs/runs (decision 0044).
export { describeRunQueueConformance, FakeRunQueue, FakeRunQueueStore, setRunColumns } from '@switchyard/runs/src/testing';
export type { FakeQueuedRun, RunColumns, RunQueueHarness, RunTarget } from '@switchyard/runs/src/testing';
export { startLocalMattermostServer } from './local-mattermost-server';
export { startLocalOtlpReceiver } from './local-otlp-receiver';
export type { LocalOtlpReceiver, ReceivedSpan } from './local-otlp-receiver';
export { startLocalOidcProvider } from './local-oidc-provider';
export type { LocalOidcProvider, LocalOidcProviderOptions } from './local-oidc-provider';
export type { LocalMattermostFault, LocalMattermostPost, LocalMattermostRequest, LocalMattermostServer } from './local-mattermost-server';
export { insertApproval, insertParkedRun } from './approval-fixtures';
export type { ApprovalFixture, ParkedRunFixture } from './approval-fixtures';
export { FakeMailbox } from './mailbox/fake-mailbox';
export { describeMailboxConformance } from './mailbox/mailbox-conformance';
export type { MailboxHarness } from './mailbox/mailbox-conformance';
export type { ConformingMailbox, ConformingMailboxDrain, MailboxPostOutcome } from './mailbox/mailbox-types';
export { FakeTranscriptStore } from './transcript/fake-transcript-store';
export type { FakeTranscriptRow } from './transcript/fake-transcript-store';
export { describeTranscriptConformance } from './transcript/transcript-conformance';
export type { TranscriptHarness } from './transcript/transcript-conformance';
export type { ConformingStoredEntry, ConformingTranscriptStore, ConformingTranscriptWriter, TranscriptRunRef } from './transcript/transcript-types';
export { scorecardBatchFacts, startStandInMcpServer } from './stand-in-mcp-server';
export type { ScriptedCase, StandInCall, StandInMcpServer, StandInName, StandInPullRequest } from './stand-in-mcp-server';

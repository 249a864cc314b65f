import { z } from 'zod';
import { TeammateNameSchema, TeamNameSchema, TranscriptQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, queryParameters, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const { $schema: _dialect, ...nameSchema } = z.toJSONSchema(TeammateNameSchema, { io: 'input' });
const name = pathParameter('name', nameSchema, "the teammate's name (unique in the workspace)");
const { $schema: _teamDialect, ...teamNameSchema } = z.toJSONSchema(TeamNameSchema, { io: 'input' });
const teamName = pathParameter('name', teamNameSchema, "the team's name (the `team` its teammates were spawned with)");
const conflict = (codes: string) => ({ '409': json('Error', codes) });

/** The teammates roster's paths (decision 0035): viewers read, members spawn, stop and message. */
export function teammatePaths(): OpenApiPaths {
  return {
    [`${base}/teammates`]: {
      get: { operationId: 'listTeammates', summary: 'The teammates of the workspace, stopped ones too, with status, last turn, turns and spend', parameters: [ws], responses: { '200': json('ListTeammatesResponse', 'the roster'), ...errors } },
      post: {
        operationId: 'spawnTeammate',
        summary: 'Spawn a long-lived teammate of an enabled agent (member); idle until messaged or a fact its watch matches arrives (the matcher delivers it as an event message); records teammate.spawned',
        parameters: [ws],
        requestBody: body('SpawnTeammateRequest'),
        responses: { '201': json('Teammate', 'the teammate, idle; Location is its URL'), ...errors, ...conflict('TEAMMATE_NAME_TAKEN (stopped teammates keep their names)') },
      },
    },
    [`${base}/teammates/{name}`]: {
      get: { operationId: 'getTeammate', summary: 'One teammate by name', parameters: [ws, name], responses: { '200': json('Teammate', 'the teammate'), ...errors } },
    },
    [`${base}/teammates/{name}/transcript`]: {
      get: {
        operationId: 'getTeammateTranscript',
        summary: "A teammate's whole conversation: its session's transcript across turns in seq order, compactions and the raw entries they replaced alike (viewer; decision 0052)",
        parameters: [ws, name, ...queryParameters(TranscriptQuerySchema, { after: 'the next of the previous page' })],
        responses: { '200': json('TranscriptResponse', 'a page of entries'), ...errors },
      },
    },
    [`${base}/teammates/{name}/stop`]: {
      post: {
        operationId: 'stopTeammate',
        summary: 'Stop a teammate for good (member): its queued turn cancelled, a running one flagged, its mailbox retired; records teammate.stopped. Stopping a stopped one changes nothing',
        parameters: [ws, name],
        responses: { '200': json('Teammate', 'the teammate, stopped'), ...errors },
      },
    },
    [`${base}/teammates/{name}/messages`]: {
      post: {
        operationId: 'postTeammateMessage',
        summary: "A person's message to a teammate (member): an idle one wakes for one turn, a busy one reads it at its next step; records message.sent",
        parameters: [ws, name],
        requestBody: body('PostTeammateMessageRequest'),
        responses: { '202': json('PostTeammateMessageResponse', 'delivered; woke says whether it queued a turn'), ...errors, ...conflict('TEAMMATE_STOPPED'), '503': json('Error', 'UNAVAILABLE: not delivered, try again') },
      },
    },
    [`${base}/teams`]: {
      get: { operationId: 'listTeams', summary: 'The teams of the workspace (the teammates sharing a team), by name, with status and member counts', parameters: [ws], responses: { '200': json('ListTeamsResponse', 'the teams'), ...errors } },
    },
    [`${base}/teams/{name}`]: {
      get: { operationId: 'getTeam', summary: 'One team with its members (stopped ones too); TEAM_NOT_FOUND when no teammate of the workspace has it', parameters: [ws, teamName], responses: { '200': json('TeamDetail', 'the team'), ...errors } },
    },
  };
}

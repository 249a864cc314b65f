import { z } from 'zod';
import { ScheduleIdSchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, WS_PARAMETER as ws, type OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const { $schema: _dialect, ...idSchema } = z.toJSONSchema(ScheduleIdSchema, { io: 'input' });
const id = pathParameter('id', idSchema, "the schedule's id");
const invalid = { '400': json('Error', 'VALIDATION_FAILED (a wrong type, an unknown time zone, both or neither of cron and everyMs) or SCHEDULE_INVALID {field, reason} (a cron that does not parse or never fires); nothing written') };
const limit = { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, description: 'at most this many fires' };

/** Schedules (docs/schedules.md, decision 0048): members write, viewers read; every fire is a fact. */
export function schedulePaths(): OpenApiPaths {
  return {
    [`${base}/schedules`]: {
      get: { operationId: 'listSchedules', summary: 'The workspace’s schedules by name, each with its next fire (an instant, and the same in the schedule’s zone)', parameters: [ws], responses: { '200': json('ListSchedulesResponse', 'the schedules'), ...errors } },
      post: {
        operationId: 'createSchedule',
        summary: 'Create a schedule (member): cron (five fields) in an IANA timezone, or everyMs; emit {kind (schedule.fired), subject, payload}; missed skip | fire_once. Records schedule.created',
        parameters: [ws],
        requestBody: body('CreateScheduleRequest'),
        responses: { '201': json('Schedule', 'created'), ...errors, ...invalid, '409': json('Error', 'SCHEDULE_NAME_TAKEN or SCHEDULE_LIMIT_REACHED') },
      },
    },
    [`${base}/schedules/{id}`]: {
      get: { operationId: 'getSchedule', summary: 'One schedule', parameters: [ws, id], responses: { '200': json('Schedule', 'the schedule'), ...errors, '404': json('Error', 'SCHEDULE_NOT_FOUND') } },
      patch: {
        operationId: 'updateSchedule',
        summary: 'Change a schedule (member); a new timing, or enabling it, reckons the next fire from now. Records schedule.updated',
        parameters: [ws, id],
        requestBody: body('UpdateScheduleRequest'),
        responses: { '200': json('Schedule', 'changed'), ...errors, ...invalid, '404': json('Error', 'SCHEDULE_NOT_FOUND'), '409': json('Error', 'SCHEDULE_NAME_TAKEN') },
      },
      delete: { operationId: 'deleteSchedule', summary: 'Delete a schedule and its fire history (member); records schedule.deleted', parameters: [ws, id], responses: { '204': { description: 'deleted' }, ...errors, '404': json('Error', 'SCHEDULE_NOT_FOUND') } },
    },
    [`${base}/schedules/{id}/fire`]: {
      post: {
        operationId: 'fireSchedule',
        summary: 'Fire a schedule now (member), enabled or not: one fact as a slot’s fire records it, marked manual, attributed to the caller',
        parameters: [ws, id],
        responses: { '201': json('ScheduleFire', 'the fire and its fact id'), ...errors, '404': json('Error', 'SCHEDULE_NOT_FOUND') },
      },
    },
    [`${base}/schedules/{id}/fires`]: {
      get: { operationId: 'listScheduleFires', summary: 'A schedule’s fires, newest first, each with the id of the fact it recorded', parameters: [ws, id, limit], responses: { '200': json('ListScheduleFiresResponse', 'the fires'), ...errors, '404': json('Error', 'SCHEDULE_NOT_FOUND') } },
    },
  };
}

import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { AppError, ErrorCode } from '@switchyard/contracts';

/** Parses `value` with `schema`, or throws VALIDATION_FAILED carrying the zod issues. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError(ErrorCode.VALIDATION_FAILED, `invalid ${where}`, result.error.issues);
}

/** The JSON body of a request, parsed with `schema`. */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  return parseInput(schema, req.body ?? {}, 'body');
}

/** The query string, parsed with `schema`. */
export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  return parseInput(schema, { ...(req.query as Record<string, unknown>) }, 'query');
}

/**
 * Requests with a body must say it is JSON: anything else is 415 rather than
 * being silently read as an empty object.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    next(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'request body must be application/json'));
    return;
  }
  next();
};

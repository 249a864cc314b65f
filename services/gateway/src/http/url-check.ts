import type { RequestHandler } from 'express';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { unstorableIn } from '@switchyard/core';

/**
 * Refuses, before any route, a URL whose path or query cannot be meant: a
 * path segment that is not valid percent-encoding (`/events/%E0%A4%A`), or
 * a path segment, query name or query value holding U+0000 or a lone
 * surrogate — text that PostgreSQL refuses, and that ids, secret names and
 * filters would carry into a query. 400 `VALIDATION_FAILED` naming where.
 */
export const checkUrl: RequestHandler = (req, _res, next) => {
  const segments = req.path.split('/');
  for (let i = 0; i < segments.length; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segments[i]!);
    } catch {
      return next(refusal(['path', i], 'is not valid percent-encoding'));
    }
    const found = unstorableIn(decoded);
    if (found) return next(refusal(['path', i], `contains ${found}, which cannot be stored`));
  }
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value])]) {
      const found = typeof text === 'string' ? unstorableIn(text) : undefined;
      if (found) return next(refusal(['query', name], `contains ${found}, which cannot be stored`));
    }
  }
  next();
};

function refusal(path: Array<string | number>, problem: string): AppError {
  const message = `${path.join('.')}: ${problem}`;
  return new AppError(ErrorCode.VALIDATION_FAILED, `invalid ${path[0]}`, [{ code: 'invalid_url', path, message }]);
}

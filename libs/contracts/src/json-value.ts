import { z } from 'zod';

/**
 * Any JSON value. One shared instance rather than `z.json()` at each use: the
 * schema is recursive, and a JSON Schema generator can give a recursive schema
 * one name (`#/components/schemas/JsonValue` in the OpenAPI document) only if
 * every use is the same schema.
 */
export const JsonValueSchema = z.json();

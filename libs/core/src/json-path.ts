import { AppError, ErrorCode, JSON_PATH_SELECTOR, JsonPathSchema } from '@switchyard/contracts';

// Bound once: inside a vm context (jest's sandbox) every global lookup costs more than a module binding,
// and the trigger filters walk paths per fact.
const { isArray } = Array;
const { hasOwn } = Object;

/**
 * One step into a JSON value: an object's own member by `key`, an array's
 * element by `index`. A step with only a key never indexes an array; one with
 * only an index never reads an object's member. The trigger filters' path
 * segments carry both (a segment of digits may be either).
 */
export interface JsonStep {
  key?: string;
  index?: number;
}

/**
 * The value at `steps` inside `root`, or undefined when a step is missing
 * (no such own member, an index past the end, a step into a scalar). Only own
 * properties are read, so `__proto__` or `constructor` find nothing that the
 * JSON did not hold. `null` is a present value.
 */
export function walkJson(root: unknown, steps: readonly JsonStep[]): unknown {
  let current = root;
  for (const { key, index } of steps) {
    if (isArray(current)) current = index === undefined ? undefined : current[index];
    else if (key !== undefined && isRecord(current) && hasOwn(current, key)) current = current[key];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !isArray(value);
}

const SELECTOR = new RegExp(JSON_PATH_SELECTOR.source, 'y');

/**
 * The steps of a JSONPath of the documented subset (JsonPathSchema): `$`,
 * `.name`, `['name']` (escapes `\'` and `\\`), `[index]`.
 *
 * @throws AppError VALIDATION_FAILED for a path the schema refuses.
 */
export function parseJsonPath(path: string): JsonStep[] {
  const checked = JsonPathSchema.safeParse(path);
  if (!checked.success) throw new AppError(ErrorCode.VALIDATION_FAILED, `invalid JSONPath ${JSON.stringify(path)}`, checked.error.issues);
  const steps: JsonStep[] = [];
  SELECTOR.lastIndex = 1;
  while (SELECTOR.lastIndex < path.length) {
    const [, dotted, quoted, index] = SELECTOR.exec(path)!;
    if (dotted !== undefined) steps.push({ key: dotted });
    else if (quoted !== undefined) steps.push({ key: quoted.replace(/\\(['\\])/g, '$1') });
    else steps.push({ index: Number(index) });
  }
  return steps;
}

/** The value at a JSONPath of the subset inside `root` (undefined when missing); see parseJsonPath and walkJson. */
export function resolveJsonPath(root: unknown, path: string): unknown {
  return walkJson(root, parseJsonPath(path));
}

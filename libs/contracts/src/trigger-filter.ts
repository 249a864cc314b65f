import { z } from 'zod';
import { KindGlobSchema } from './facts';
import { checkRegexSafety, REGEX_MAX_COST, REGEX_MAX_SOURCE_CHARS, REGEX_TOO_COSTLY } from './regex-safety';
import { checkFilterBounds, FILTER_MAX_NODES, FILTER_MAX_STRING_CHARS } from './trigger-filter-bounds';

/**
 * Trigger filters: a small declarative JSON language over a fact, validated
 * when an agent is saved and compiled by `compileFilter` (libs/core). A filter
 * is a tree of nodes; each node is exactly one of
 *
 * - a condition `{"path": "payload.failures", "op": "gt", "value": 0}`,
 * - `{"all": [node, ...]}` (every node holds), `{"any": [node, ...]}` (at least one),
 * - `{"not": node}`.
 *
 * Limits (enforced here, so an agent save answers 400 with the issue's path):
 * FILTER_MAX_DEPTH levels, FILTER_MAX_NODES nodes, FILTER_MAX_LIST_ITEMS items
 * in `in`/`nin`, FILTER_MAX_STRING_CHARS per string, regex sources of
 * REGEX_MAX_SOURCE_CHARS that pass checkRegexSafety and together stay within
 * REGEX_MAX_COST.
 */

/** Most items in an `in`/`nin` list. */
export const FILTER_MAX_LIST_ITEMS = 100;

/** Most dot-separated segments in a path, the root (`payload`, `actor`, …) included. */
export const FILTER_MAX_PATH_SEGMENTS = 10;

/** Longest path string. */
export const FILTER_MAX_PATH_CHARS = 512;

/**
 * Where a condition looks in the fact: `kind`, `subject.type`, `subject.id`,
 * `actor`, `actor.type`, `actor.id`, `actor.name`, `payload`, or
 * `payload.<segment>…` with segments of `[A-Za-z0-9_-]+` (a segment of digits
 * also indexes an array, e.g. `payload.items.0.name`), at most 10 segments.
 */
export const FILTER_PATH_PATTERN = new RegExp(
  `^(kind|subject\\.(type|id)|actor(\\.(type|id|name))?|payload(\\.[A-Za-z0-9_-]+){0,${FILTER_MAX_PATH_SEGMENTS - 1}})$`,
);

/** A JSON value, as found in a fact payload and in condition values. */
export type FilterValue = z.core.util.JSONType;

/**
 * A leaf check that reports its own message and never aborts the parse, so the
 * union keeps the precise issue path. `jsonSchema` describes it in the OpenAPI
 * document, where a custom check would otherwise show as any value.
 */
function leaf<T>(check: (v: unknown) => boolean, message: string, jsonSchema: Record<string, unknown>) {
  return z.custom<T>(check, { message, abort: false }).meta(jsonSchema);
}

const isShortString = (v: unknown): v is string => typeof v === 'string' && v.length <= FILTER_MAX_STRING_CHARS;

/** A condition's `path` (see FILTER_PATH_PATTERN). */
export const FilterPathSchema = leaf<string>(
  (v) => typeof v === 'string' && v.length <= FILTER_MAX_PATH_CHARS && FILTER_PATH_PATTERN.test(v),
  'path must be kind, subject.type, subject.id, actor, actor.type, actor.id, actor.name, payload ' +
    `or payload.<segment>… with segments of [A-Za-z0-9_-] (at most ${FILTER_MAX_PATH_SEGMENTS} segments)`,
  { type: 'string', maxLength: FILTER_MAX_PATH_CHARS, pattern: FILTER_PATH_PATTERN.source },
);

// Values are already checked to be bounded JSON by checkFilterBounds; here only their shape per operator.
const AnyValueSchema = leaf<FilterValue>((v) => v !== undefined, 'eq, ne and contains need a value', {
  description: 'any JSON value',
});
const ComparableSchema = leaf<number | string>(
  (v) => typeof v === 'number' || isShortString(v),
  'gt, gte, lt and lte compare with a number or a string',
  { type: ['number', 'string'], maxLength: FILTER_MAX_STRING_CHARS },
);
const ListSchema = leaf<FilterValue[]>(
  (v) => Array.isArray(v) && v.length <= FILTER_MAX_LIST_ITEMS,
  `in and nin take a list of at most ${FILTER_MAX_LIST_ITEMS} values`,
  { type: 'array', maxItems: FILTER_MAX_LIST_ITEMS },
);
const BooleanSchema = leaf<boolean>((v) => typeof v === 'boolean', 'exists takes true or false', { type: 'boolean' });
const PrefixSchema = leaf<string>(isShortString, 'startsWith takes a string', {
  type: 'string',
  maxLength: FILTER_MAX_STRING_CHARS,
});
const RegexSchema = leaf<string>(
  (v) => typeof v === 'string' && v.length <= REGEX_MAX_SOURCE_CHARS,
  `matches takes a regex source of at most ${REGEX_MAX_SOURCE_CHARS} characters`,
  { type: 'string', maxLength: REGEX_MAX_SOURCE_CHARS, description: 'a u-mode regex that passes checkRegexSafety' },
).superRefine((source, ctx) => {
  if (typeof source !== 'string' || source.length > REGEX_MAX_SOURCE_CHARS) return;
  const safety = checkRegexSafety(source);
  if (!safety.ok) ctx.addIssue({ code: 'custom', message: safety.reason, input: source });
});

/** One condition `{path, op, value}`; the value's type depends on `op`. */
export const FilterConditionSchema = z.discriminatedUnion('op', [
  z.strictObject({ path: FilterPathSchema, op: z.enum(['eq', 'ne', 'contains']), value: AnyValueSchema }),
  z.strictObject({ path: FilterPathSchema, op: z.enum(['gt', 'gte', 'lt', 'lte']), value: ComparableSchema }),
  z.strictObject({ path: FilterPathSchema, op: z.enum(['in', 'nin']), value: ListSchema }),
  z.strictObject({ path: FilterPathSchema, op: z.literal('exists'), value: BooleanSchema }),
  z.strictObject({ path: FilterPathSchema, op: z.literal('startsWith'), value: PrefixSchema }),
  z.strictObject({ path: FilterPathSchema, op: z.literal('matches'), value: RegexSchema }),
]);
export type FilterCondition = z.infer<typeof FilterConditionSchema>;

/** A condition operator. */
export type FilterOperator = FilterCondition['op'];

// Getters make the schema recursive (the zod 4 idiom); the annotations break the type cycle.
const AllSchema = z.strictObject({
  get all(): z.ZodArray<typeof FilterNodeSchema> {
    return z.array(FilterNodeSchema).min(1).max(FILTER_MAX_NODES);
  },
});
const AnySchema = z.strictObject({
  get any(): z.ZodArray<typeof FilterNodeSchema> {
    return z.array(FilterNodeSchema).min(1).max(FILTER_MAX_NODES);
  },
});
const NotSchema = z.strictObject({
  get not(): typeof FilterNodeSchema {
    return FilterNodeSchema;
  },
});

/**
 * One node of a filter, without the depth and size limits: use
 * TriggerFilterSchema to validate input.
 */
export const FilterNodeSchema = z.union([FilterConditionSchema, AllSchema, AnySchema, NotSchema]);

/**
 * A whole trigger filter, with its limits. The bounds check runs first and
 * stops the parse when it fails, which keeps the recursive parse shallow.
 */
export const TriggerFilterSchema = z.preprocess(checkFilterBounds, FilterNodeSchema).superRefine(checkRegexBudget);
export type TriggerFilter = z.infer<typeof TriggerFilterSchema>;

/**
 * One budget for all the regexes of a filter, so that the worst case of a
 * filter does not grow with its number of `matches` conditions. Reports the
 * condition that takes the sum over. The tree is at most FILTER_MAX_DEPTH deep.
 */
function checkRegexBudget(filter: z.infer<typeof FilterNodeSchema>, ctx: z.core.$RefinementCtx): void {
  let total = 0;
  const visit = (node: z.infer<typeof FilterNodeSchema>, path: Array<string | number>): void => {
    if ('all' in node) node.all.forEach((child, i) => visit(child, [...path, 'all', i]));
    else if ('any' in node) node.any.forEach((child, i) => visit(child, [...path, 'any', i]));
    else if ('not' in node) visit(node.not, [...path, 'not']);
    else if (node.op === 'matches' && typeof node.value === 'string') {
      const safety = checkRegexSafety(node.value);
      // An unsafe regex already has its own issue; only safe ones count against the budget.
      if (!safety.ok) return;
      total += safety.cost;
      if (total > REGEX_MAX_COST) ctx.addIssue({ code: 'custom', message: REGEX_TOO_COSTLY, path: [...path, 'value'], input: node.value });
    }
  };
  visit(filter, []);
}

/** One trigger of an agent: facts whose kind matches the glob and, if given, the filter. */
export const TriggerSchema = z.strictObject({
  kind: KindGlobSchema,
  filter: TriggerFilterSchema.optional(),
});
export type Trigger = z.infer<typeof TriggerSchema>;

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The check the SDK's client makes of a result against the tool's output
 * schema, which it only knows from a tools/list of its own session: a run's
 * session never lists (its tools come from the cached listing), so the host
 * checks here. Validators are compiled once per listed tool (the cache
 * shares the listing's objects between runs).
 */
const validator = new AjvJsonSchemaValidator();
const compiled = new WeakMap<Tool, JsonSchemaValidator<unknown>>();

/** Why the result breaks the tool's output schema, or undefined when it does not (or the tool has none). */
export function outputProblem(tool: Tool, result: CallToolResult): string | undefined {
  if (!tool.outputSchema || result.isError === true) return undefined;
  if (!result.structuredContent) return `the tool ${tool.name} has an output schema but did not return structured content`;
  let check = compiled.get(tool);
  if (!check) {
    try {
      check = validator.getValidator(tool.outputSchema);
    } catch (error) {
      return `the tool's output schema cannot be used: ${error instanceof Error ? error.message : String(error)}`;
    }
    compiled.set(tool, check);
  }
  const outcome = check(result.structuredContent);
  return outcome.valid ? undefined : `structured content does not match the tool's output schema: ${outcome.errorMessage ?? 'invalid'}`;
}

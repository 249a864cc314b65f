import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { outputProblem } from '../src/tools/tool-output';

/** The output-schema check a run's session no longer gets from the SDK (its session never lists; decision 0012). */
describe('outputProblem', () => {
  const tool: Tool = {
    name: 'sum',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
  };

  it('passes structured content that matches, and tools without a schema', () => {
    expect(outputProblem(tool, { content: [], structuredContent: { total: 3 } })).toBeUndefined();
    expect(outputProblem({ name: 'echo', inputSchema: { type: 'object' } }, { content: [{ type: 'text', text: 'x' }] })).toBeUndefined();
  });

  it('names a result without structured content, or with content that breaks the schema', () => {
    expect(outputProblem(tool, { content: [{ type: 'text', text: '3' }] })).toMatch(/did not return structured content/);
    expect(outputProblem(tool, { content: [], structuredContent: { total: 'three' } })).toMatch(/does not match the tool's output schema/);
    expect(outputProblem(tool, { content: [], structuredContent: {} })).toMatch(/does not match/);
  });

  it('leaves a tool error alone', () => {
    expect(outputProblem(tool, { content: [{ type: 'text', text: 'failed' }], isError: true })).toBeUndefined();
  });
});

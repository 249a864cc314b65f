import { PLATFORM_TOOLS } from '../../gateway/src/mcp/platform-tools';
import { classifyTool } from '../src/loop/tool-classes';
import type { ToolDefinition } from '../src/tools';

/**
 * Issue 30: the schedule tools are governed like the platform's other
 * tools, from the annotations the gateway serves: listing is a read,
 * creating a write (asked in `default` mode, captured in shadow), deleting
 * guarded (a delete).
 */
const platformTool = (name: 'create_schedule' | 'list_schedules' | 'delete_schedule'): ToolDefinition => {
  const { annotations } = PLATFORM_TOOLS[name];
  return {
    name: `platform.${name}`,
    modelName: `platform__${name}`,
    description: PLATFORM_TOOLS[name].description,
    inputSchema: { type: 'object' },
    server: 'platform',
    readOnly: annotations.readOnlyHint,
    destructive: annotations.destructiveHint ?? false,
    trusted: true,
  };
};

describe('issue 30: the schedule tools’ classes', () => {
  it.each([
    ['list_schedules', 'read'],
    ['create_schedule', 'write'],
    ['delete_schedule', 'guarded'],
  ] as const)('%s is %s', (name, cls) => {
    expect(classifyTool(platformTool(name)).class).toBe(cls);
  });
});

import { CraftAgentArgumentsSchema, CraftMessageRequestSchema, JsonPointerSchema, MAX_CRAFT_PATCH_OPS } from '../src';

const draft = { name: 'd', instructions: 'Do.', model: { provider: 'openai', name: 'm' }, triggers: [{ kind: 'a.b' }] };

describe('crafting contracts (decision 0056)', () => {
  it.each(['', '/', '/triggers/0/filter', '/a~1b/~0', '/triggers/-'])('takes the JSON Pointer %j', (pointer) => {
    expect(JsonPointerSchema.safeParse(pointer).success).toBe(true);
  });

  it.each(['triggers', '/a~2', '/a~'])('refuses the JSON Pointer %j', (pointer) => {
    expect(JsonPointerSchema.safeParse(pointer).success).toBe(false);
  });

  it('takes add, replace and remove only, one to MAX_CRAFT_PATCH_OPS of them, with nothing more', () => {
    expect(CraftAgentArgumentsSchema.safeParse({ patch: [{ op: 'add', path: '/task', value: 'x' }, { op: 'remove', path: '/task' }] }).success).toBe(true);
    for (const patch of [[], [{ op: 'move', from: '/a', path: '/b' }], [{ op: 'test', path: '/a', value: 1 }], [{ op: 'remove', path: '/a', value: 1 }]]) {
      expect(CraftAgentArgumentsSchema.safeParse({ patch }).success).toBe(false);
    }
    const many = Array.from({ length: MAX_CRAFT_PATCH_OPS + 1 }, () => ({ op: 'remove', path: '/task' }));
    expect(CraftAgentArgumentsSchema.safeParse({ patch: many }).success).toBe(false);
    expect(CraftAgentArgumentsSchema.safeParse({ patch: [{ op: 'remove', path: '/task' }], extra: 1 }).success).toBe(false);
  });

  it('takes a message with a valid draft and the conversation it continues; refuses an invalid draft at its path', () => {
    expect(CraftMessageRequestSchema.parse({ message: 'hi', draft }).sessionId).toBeUndefined();
    const invalid = CraftMessageRequestSchema.safeParse({ message: 'hi', draft: { ...draft, instructions: '' } });
    expect(invalid.success || invalid.error.issues.map((issue) => issue.path)).toEqual([['draft', 'instructions']]);
    expect(CraftMessageRequestSchema.safeParse({ message: 'hi', draft, history: [] }).success).toBe(false);
    expect(CraftMessageRequestSchema.safeParse({ message: 'hi', draft, sessionId: 'not-a-uuid' }).success).toBe(false);
    expect(CraftMessageRequestSchema.safeParse({ message: '', draft }).success).toBe(false);
  });
});

/**
 * Why this exists: conversational crafting (decision 0056) is tested with the
 * platform's own `scripted` model provider as the built-in crafting agent's
 * model (CRAFT_MODEL, CRAFT_SCRIPT), so a crafting message runs the real path:
 * a `craft` run on a runner, its tools served there, its transcript followed by
 * the gateway. Each step answers only what the person said (`heard`, over the
 * newest user message: their words, then the canvas), so the script answers
 * issue 32's three messages ("watch scorecards with more than 2 failures",
 * "only in the nightly suite", "try it on the last one") and the bad patches
 * of the API test, each with its tool call, then a remark.
 */

/** The filter the first message asks for, and the one the second makes of it. */
export const MORE_THAN_TWO = { path: 'payload.failedCases', op: 'gt', value: 2 } as const;
export const NIGHTLY_AND_MORE_THAN_TWO = { all: [MORE_THAN_TWO, { path: 'payload.suite', op: 'eq', value: 'nightly' }] } as const;

/** The bad patches of the API test, by the message that asks for one. */
export const BAD_PATCHES: Record<string, Record<string, unknown>> = {
  'a move': { patch: [{ op: 'move', from: '/name', path: '/task' }] },
  'a missing path': { patch: [{ op: 'replace', path: '/flow/nope/deeper', value: 1 }] },
  'a bad mode': { patch: [{ op: 'replace', path: '/permissionMode', value: 'yolo' }] },
};

/** A message's two steps: its tool call, then the remark (held back `pauseMs`). */
const answer = (heard: string, tool: string, args: Record<string, unknown>, say: string, pauseMs = 0) => [
  // Literal: a patch may write the crafted agent's own placeholders (`{{event.subject.id}}`).
  { heard, tool, arguments: args, literal: true },
  { heard, say, ...(pauseMs ? { pauseMs } : {}) },
];

/** The crafting agent's script; `remarkPauseMs` holds the first message's remark back (the patch is then seen while the answer streams). */
export function craftingScript(remarkPauseMs = 0): unknown[] {
  return [
    ...answer(
      '^watch .*more than 2 failures',
      'craft_agent',
      {
        patch: [
          { op: 'replace', path: '/name', value: 'scorecard-watch' },
          { op: 'replace', path: '/instructions', value: 'Flag a scorecard with more than 2 failed cases.' },
          { op: 'replace', path: '/model', value: { provider: 'scripted', name: 'script' } },
          { op: 'add', path: '/script', value: [{ say: 'flagging {{event.subject.id}}: {{event.payload.failedCases}} failed in {{event.payload.suite}}' }] },
          { op: 'replace', path: '/triggers', value: [{ kind: 'scorecard.completed', filter: MORE_THAN_TWO }] },
        ],
      },
      'Watching scorecard.completed with more than 2 failed cases.',
      remarkPauseMs,
    ),
    ...answer('^only in the nightly', 'craft_agent', { patch: [{ op: 'replace', path: '/triggers/0/filter', value: NIGHTLY_AND_MORE_THAN_TWO }] }, 'Only the nightly suite now.'),
    ...answer('^try it', 'try_agent_draft', {}, 'Tried on the newest matching scorecard: see the result.'),
    ...answer('^add a filter', 'craft_agent', { patch: [{ op: 'add', path: '/triggers/0/filter', value: MORE_THAN_TWO }] }, 'noted'),
    ...Object.entries(BAD_PATCHES).flatMap(([message, args]) => answer(`^${message}\\n`, 'craft_agent', args, 'noted')),
    // The conversation reaches the model: what an earlier turn said after `remember:` ({{recall}}, decision 0052).
    { heard: '^remember:', say: 'noted' },
    { heard: '^what did I ask', say: 'You asked: {{recall}}' },
  ];
}

/** The gateway's environment for crafting with the scripted model (CRAFT_MODEL, CRAFT_SCRIPT). */
export function craftingEnv(remarkPauseMs = 0): Record<string, string> {
  return { CRAFT_MODEL: JSON.stringify({ provider: 'scripted', name: 'crafting-script' }), CRAFT_SCRIPT: JSON.stringify(craftingScript(remarkPauseMs)) };
}

/** The person's words and the canvas of a crafting turn's first message (its transcript's `user` entry). */
export function turnMessage(text: string): { text: string; canvas: Record<string, unknown> } {
  const [words, canvas] = text.split('\n\n--- the canvas now:\n');
  return { text: words!, canvas: JSON.parse(canvas ?? '{}') as Record<string, unknown> };
}

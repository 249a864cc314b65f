import type { LocalOpenAiReply, LocalOpenAiRequest } from '@switchyard/testing';

/**
 * Why this exists: conversational crafting (decision 0056) is tested with a
 * scripted crafting model behind the local OpenAI-compatible server, so the
 * gateway's real model client and wire format are exercised. This answers the
 * three messages of issue 32's scenario ("watch scorecards with more than 2
 * failures", "only in the nightly suite", "try it on the last one"): the first
 * answer to a message is its tool call, the answer after the tool's result a
 * remark. It reads the canvas the message carries, so a hand edit is what the
 * next patch is applied over.
 */

/** The filter the first message asks for, and the one the second makes of it. */
export const MORE_THAN_TWO = { path: 'payload.failedCases', op: 'gt', value: 2 } as const;
export const NIGHTLY_AND_MORE_THAN_TWO = { all: [MORE_THAN_TWO, { path: 'payload.suite', op: 'eq', value: 'nightly' }] } as const;

/** Whether a request is the crafting agent's (it offers craft_agent), not a try run's. */
export const isCraftRequest = (request: LocalOpenAiRequest) => (request.body?.tools ?? []).some((tool) => (tool as { function?: { name?: string } }).function?.name === 'craft_agent');

/** The person's last message and the canvas it carried. */
export function lastMessage(request: LocalOpenAiRequest): { text: string; canvas: Record<string, unknown>; answered: boolean } {
  const messages = request.body?.messages ?? [];
  const index = messages.map((m) => m.role).lastIndexOf('user');
  const content = String(messages[index]?.content ?? '');
  const [text, canvas] = content.split('\n\n--- the canvas now:\n');
  return { text: text!, canvas: JSON.parse(canvas ?? '{}') as Record<string, unknown>, answered: index < messages.length - 1 };
}

const call = (name: string, args: Record<string, unknown>): LocalOpenAiReply => ({ type: 'message', content: null, toolCalls: [{ name, arguments: args }] });
const say = (content: string): LocalOpenAiReply => ({ type: 'message', content });

/** The scripted crafting agent's answer to one request; `delayMs` is the model's latency. */
export function craftingReply(request: LocalOpenAiRequest, delayMs = 0): LocalOpenAiReply {
  const { text, answered } = lastMessage(request);
  const reply = ((): LocalOpenAiReply => {
    if (/more than 2 failures/.test(text)) {
      if (answered) return say('Watching scorecard.completed with more than 2 failed cases.');
      return call('craft_agent', {
        patch: [
          { op: 'replace', path: '/name', value: 'scorecard-watch' },
          { op: 'replace', path: '/instructions', value: 'Flag a scorecard with more than 2 failed cases.' },
          { op: 'replace', path: '/model', value: { provider: 'scripted', name: 'script' } },
          { op: 'add', path: '/script', value: [{ say: 'flagging {{event.subject.id}}: {{event.payload.failedCases}} failed in {{event.payload.suite}}' }] },
          { op: 'replace', path: '/triggers', value: [{ kind: 'scorecard.completed', filter: MORE_THAN_TWO }] },
        ],
      });
    }
    if (/nightly/.test(text)) {
      if (answered) return say('Only the nightly suite now.');
      return call('craft_agent', { patch: [{ op: 'replace', path: '/triggers/0/filter', value: NIGHTLY_AND_MORE_THAN_TWO }] });
    }
    if (/try it/.test(text)) {
      if (answered) return say('Tried on the newest matching scorecard: see the result.');
      return call('try_agent_draft', {});
    }
    return say('Tell me what the agent should watch.');
  })();
  return { ...reply, delayMs };
}

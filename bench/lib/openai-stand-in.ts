/**
 * The local OpenAI-compatible server as a process of its own, for
 * bench:inflight: its CPU is then neither the runner's nor the bare loop's.
 * Every call is answered after STAND_IN_LATENCY_MS; a conversation with
 * fewer than STAND_IN_TURNS - 1 assistant messages gets a call of the tool
 * `noop` (the loop records it unknown and calls the model again), the
 * next its final answer. Logs one JSON line with its base URL.
 */
import { startLocalOpenAiServer, type LocalOpenAiReply, type LocalOpenAiRequest } from '@switchyard/testing';

const latencyMs = Number(process.env.STAND_IN_LATENCY_MS ?? 2000);
const turns = Number(process.env.STAND_IN_TURNS ?? 1);
const usage = { prompt_tokens: 40, completion_tokens: 4 };

function respond(request: LocalOpenAiRequest): LocalOpenAiReply {
  const answered = (request.body?.messages ?? []).filter((message) => message.role === 'assistant').length;
  if (answered < turns - 1) return { type: 'message', toolCalls: [{ name: 'noop', arguments: '{}' }], usage, delayMs: latencyMs };
  return { type: 'message', content: 'done', usage, delayMs: latencyMs };
}

void startLocalOpenAiServer({ respond }).then((server) => {
  // The requests are not kept: a long bench would hold every body.
  setInterval(() => server.requests.splice(0), 1000).unref();
  process.stdout.write(`${JSON.stringify({ msg: 'stand-in listening', baseUrl: server.baseUrl })}\n`);
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
});

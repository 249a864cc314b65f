import { SHADOW_RESULT_TEXT } from '@switchyard/contracts';
import { ShadowToolHost, type ToolCallResult, type ToolDefinition, type ToolHost } from '../src/tools';

/** A tool of the given kind; `trusted` is the platform's own server. */
const tool = (name: string, flags: { trusted: boolean; readOnly: boolean }): ToolDefinition => ({
  name,
  modelName: name.replace('.', '__'),
  description: '',
  inputSchema: { type: 'object' },
  server: name.split('.')[0]!,
  readOnly: flags.readOnly,
  destructive: !flags.readOnly,
  trusted: flags.trusted,
});

/** A host that answers every call and records which it got, as the real one would reach its server. */
class RecordingHost implements ToolHost {
  readonly called: string[] = [];
  closed = false;
  constructor(private readonly defined: ToolDefinition[]) {}
  tools(): ToolDefinition[] {
    return this.defined;
  }
  async call(name: string): Promise<ToolCallResult> {
    this.called.push(name);
    return { ok: true, content: `ran ${name}`, durationMs: 1 };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('ShadowToolHost (try-drive, decision 0027)', () => {
  const defined = [
    tool('platform.list_events', { trusted: true, readOnly: true }),
    tool('platform.emit_event', { trusted: true, readOnly: false }),
    tool('web.echo', { trusted: false, readOnly: true }),
    tool('web.delete_everything', { trusted: false, readOnly: false }),
  ];

  it('calls only the platform’s own reads; every other call is captured with the fixed answer', async () => {
    const inner = new RecordingHost(defined);
    const host = new ShadowToolHost(inner);
    const signal = new AbortController().signal;
    expect(await host.call('platform.list_events', {}, signal)).toEqual({ ok: true, content: 'ran platform.list_events', durationMs: 1 });
    for (const name of ['platform.emit_event', 'web.echo', 'web.delete_everything']) {
      expect(await host.call(name, { a: 1 }, signal)).toEqual({ ok: true, content: SHADOW_RESULT_TEXT, durationMs: 0, wouldHave: true });
    }
    expect(inner.called).toEqual(['platform.list_events']);
  });

  it('offers the same tools, leaves unknown names to the real host, and closes it', async () => {
    const inner = new RecordingHost(defined);
    const host = new ShadowToolHost(inner);
    expect(host.tools()).toEqual(defined);
    await host.call('made.up', {}, new AbortController().signal);
    expect(inner.called).toEqual(['made.up']);
    await host.close();
    expect(inner.closed).toBe(true);
  });
});

import { capText, renderToolContent } from '../src/tools/tool-result';

describe('tool results for the model', () => {
  it('joins text blocks and summarizes the others', () => {
    const text = renderToolContent({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'https://example.com/a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///notes.md', text: 'notes' } },
        { type: 'resource', resource: { uri: 'file:///x.bin', mimeType: 'application/octet-stream', blob: 'AAAAAA==' } },
        { type: 'hologram' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'first',
      '[image: image/png, 3 bytes, not shown]',
      '[audio: audio/wav, 2 bytes, not shown]',
      '[resource link: a https://example.com/a]',
      '[resource file:///notes.md]',
      'notes',
      '[resource file:///x.bin: application/octet-stream, 4 bytes, not shown]',
      '[hologram content, not shown]',
    ]);
  });

  it('uses structured content when there is no content', () => {
    expect(renderToolContent({ content: [], structuredContent: { count: 3 } })).toBe('{"count":3}');
    expect(renderToolContent({ content: [] })).toBe('');
  });

  it('leaves text within the cap untouched', () => {
    expect(capText('short', 1024)).toBe('short');
    expect(capText('x'.repeat(1024), 1024)).toBe('x'.repeat(1024));
  });

  it('cuts longer text to the cap, on a character boundary, and says so', () => {
    const capped = capText('é'.repeat(5_000), 1024);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(1024);
    expect(capped).not.toContain('\uFFFD');
    expect(capped).toMatch(/^é+\n\[truncated: \d+ of 10000 bytes shown\]$/);
  });
});

/** A content block of an MCP tool result, as far as rendering needs it. */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/**
 * The text of a tool result for the model: text blocks as they are, other
 * blocks as a one-line summary (the model gets no images or binary data
 * here), joined by newlines. A result with no content but structured content
 * is that content as JSON.
 */
export function renderToolContent(result: { content?: readonly unknown[]; structuredContent?: unknown }): string {
  const blocks = (result.content ?? []) as readonly ContentBlock[];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map(renderBlock).join('\n');
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data)} bytes, not shown]`;
    case 'resource_link':
      return `[resource link: ${block.name ?? ''} ${block.uri ?? ''}]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return `[resource ${resource.uri ?? ''}]\n${resource.text}`;
      return `[resource ${resource.uri ?? ''}: ${resource.mimeType ?? 'unknown type'}, ${base64Bytes(resource.blob)} bytes, not shown]`;
    }
    default:
      return `[${block.type} content, not shown]`;
  }
}

function base64Bytes(data: string | undefined): number {
  return data ? Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) : 0;
}

/** Room kept for the truncation marker, so a capped text stays within maxBytes. */
const MARKER_RESERVE = 80;

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes (on a character boundary),
 * ending with a line that says how much was cut, so the model knows it saw
 * only part. Untouched when it fits.
 */
export function capText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const keep = Math.max(0, maxBytes - MARKER_RESERVE);
  // A cut inside a multi-byte character decodes to U+FFFD: drop it.
  const head = bytes.subarray(0, keep).toString('utf8').replace(/\uFFFD+$/, '');
  const shown = Buffer.byteLength(head, 'utf8');
  return `${head}\n[truncated: ${shown} of ${bytes.length} bytes shown]`;
}

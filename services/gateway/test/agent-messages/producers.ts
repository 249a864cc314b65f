import { waitFor, type ServiceProcess } from '@switchyard/testing';
import { defective, DEFECTS, envelope, type Defect } from './envelopes';

/** One body a producer posts, and what must become of it. */
export interface PlannedPost {
  body: string;
  /** The messageId a valid body must be observed under; undefined for a defect. */
  messageId?: string;
  /** The quarantine reason a defective body must get. */
  defect?: Defect;
  /** The sender-sequence metadata a valid body must be recorded with. */
  sequence?: 'first' | 'next' | 'gap' | 'regression';
}

/**
 * Why this exists: the crash test (issue 34 §4) needs producers whose every
 * body's fate is known in advance. Producer `p` posts `count` bodies: valid
 * envelopes with senderSeq rising by one, one deliberate gap and one
 * regression, and every 100th body a defect, the six kinds in turn. The
 * marker is planted in every content.
 */
export function planPosts(p: number, count: number, marker: string): PlannedPost[] {
  const posts: PlannedPost[] = [];
  let seq = 0;
  let lastValid: Record<string, unknown> | undefined;
  for (let i = 0; i < count; i++) {
    if (i % 100 === 99 && lastValid) {
      const defect = DEFECTS[(p + Math.floor(i / 100)) % DEFECTS.length]!;
      posts.push({ body: defective(defect, marker, lastValid), defect });
      continue;
    }
    const previous = seq;
    // A gap at the 10th valid body (three seqs skipped), a regression at the 20th (back two).
    seq = i === 10 ? seq + 4 : i === 20 ? seq - 2 : seq + 1;
    const sequence = previous === 0 ? 'first' : seq === previous + 1 ? 'next' : seq > previous ? 'gap' : 'regression';
    const note = envelope({ senderSeq: seq, thread: `thread-${p % 4}`, content: `${marker} note ${i} of producer ${p}` });
    posts.push({ body: JSON.stringify(note), messageId: note.messageId as string, sequence });
    lastValid = note;
  }
  return posts;
}

/** What one post came to, as the producer finally heard it. */
export interface PostResult {
  status: number;
  body: { disposition?: string; reason?: string; messageId?: string | null };
  attempts: number;
}

/**
 * Posts `body` until the gateway answers (a killed gateway refuses or drops
 * the connection; the producer retries the same bytes, as a real one would),
 * with a deadline.
 */
export async function postUntilAnswered(url: () => string, token: string, body: string, deadlineMs = 120_000): Promise<PostResult> {
  let attempts = 0;
  try {
    return await waitFor(
      async () => {
        attempts += 1;
        try {
          const response = await fetch(url(), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
          if (response.status < 500) return { status: response.status, body: (await response.json()) as PostResult['body'], attempts };
        } catch {
          // Connection refused or reset: the gateway is down or was killed mid-request.
        }
        return undefined;
      },
      { timeoutMs: deadlineMs, intervalMs: 25, what: 'an answer' },
    );
  } catch {
    throw new Error(`no answer for a post after ${attempts} attempts`);
  }
}

/** Every process incarnation's output, for the marker grep. */
export const outputsOf = (procs: ServiceProcess[]) => procs.map((proc) => proc.output()).join('\n');

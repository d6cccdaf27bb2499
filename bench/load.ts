// The benchmark's HTTP client: posts each message to the Glacier-compatible endpoint, with
// `concurrency` requests in flight over keep-alive connections, and times each one from the
// moment it is sent to the moment the whole answer has arrived.
import { Agent, request } from 'node:http';
import { cpuStallUs } from './cpu-pressure.js';

export interface LoadRequest {
  /** The service's base URL. */
  url: string;
  messagesHex: string[];
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  concurrency: number;
  /** Per request. */
  timeoutMs: number;
}

export interface RequestOutcome {
  /** Index into messagesHex. */
  message: number;
  latencyMs: number;
  status: number;
  /** The answer's signed message (hex), checked by the harness after timing. */
  signedMessageHex?: string;
  /** Set when the service did not answer 201 with a signed message. */
  error?: string;
  /** How long some task on the machine waited for a core while the request was out (bench/cpu-pressure.ts); where Linux reports it. */
  cpuStallMs?: number;
}

export interface LoadResult {
  outcomes: RequestOutcome[];
  /** From the first request sent to the last answer received. */
  wallMs: number;
}

function post(agent: Agent, url: URL, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad(r: LoadRequest): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: r.concurrency });
  const url = new URL('/v1/signatureAggregator/fuji/aggregateSignatures', r.url);
  const outcomes: RequestOutcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < r.messagesHex.length) {
      const message = next++;
      const body = JSON.stringify({
        message: r.messagesHex[message],
        quorumPercentage: r.quorumPercentage,
        quorumPercentageBuffer: r.quorumPercentageBuffer,
      });
      const stallAtSend = cpuStallUs();
      const sent = performance.now();
      try {
        const { status, text } = await post(agent, url, body, r.timeoutMs);
        const latencyMs = performance.now() - sent;
        const stallNow = cpuStallUs();
        const stall = stallAtSend !== undefined && stallNow !== undefined ? { cpuStallMs: (stallNow - stallAtSend) / 1000 } : {};
        const signed = status === 201 ? (JSON.parse(text) as { signedMessage?: unknown }).signedMessage : undefined;
        outcomes.push(
          typeof signed === 'string'
            ? { message, latencyMs, status, signedMessageHex: signed, ...stall }
            : { message, latencyMs, status, error: text.slice(0, 300), ...stall },
        );
      } catch (err) {
        outcomes.push({ message, latencyMs: performance.now() - sent, status: 0, error: err instanceof Error ? err.message : String(err) });
      }
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(r.concurrency, r.messagesHex.length) }, worker));
  } finally {
    agent.destroy();
  }
  return { outcomes: outcomes.sort((a, b) => a.message - b.message), wallMs: performance.now() - started };
}

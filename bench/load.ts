// The benchmark's HTTP client: posts each message to the service's aggregation endpoint
// (warpgate's Glacier-compatible one, or icm-services' POST /aggregate-signatures), with
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
  /** Whose API: warpgate's (the default) or icm-services'. */
  api?: 'warpgate' | 'icmServices';
  /** Sign at this P-Chain height (both APIs take one); absent: each service's default. */
  pChainHeight?: number;
}

/** One API's path, request body and successful answer. */
interface Api {
  path: string;
  body(messageHex: string, r: LoadRequest): Record<string, unknown>;
  /** The signed message (hex) from a successful answer, else undefined. */
  signed(status: number, text: string): string | undefined;
}

const APIS: Record<'warpgate' | 'icmServices', Api> = {
  warpgate: {
    path: '/v1/signatureAggregator/fuji/aggregateSignatures',
    body: (message, r) => ({
      message,
      quorumPercentage: r.quorumPercentage,
      quorumPercentageBuffer: r.quorumPercentageBuffer,
      ...(r.pChainHeight === undefined ? {} : { pChainHeight: r.pChainHeight }),
    }),
    signed: (status, text) => {
      const signed = status === 201 ? (JSON.parse(text) as { signedMessage?: unknown }).signedMessage : undefined;
      return typeof signed === 'string' ? signed : undefined;
    },
  },
  // icm-services signature-aggregator/api/api.go: 200 {"signed-message": hex without 0x}.
  icmServices: {
    path: '/aggregate-signatures',
    body: (message, r) => ({
      message,
      'quorum-percentage': r.quorumPercentage,
      'quorum-percentage-buffer': r.quorumPercentageBuffer,
      ...(r.pChainHeight === undefined ? {} : { 'pchain-height': r.pChainHeight }),
    }),
    signed: (status, text) => {
      const signed = status === 200 ? (JSON.parse(text) as { 'signed-message'?: unknown })['signed-message'] : undefined;
      return typeof signed === 'string' ? (signed.startsWith('0x') ? signed : `0x${signed}`) : undefined;
    },
  },
};

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
  const api = APIS[r.api ?? 'warpgate'];
  const url = new URL(api.path, r.url);
  const outcomes: RequestOutcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < r.messagesHex.length) {
      const message = next++;
      const body = JSON.stringify(api.body(r.messagesHex[message]!, r));
      const stallAtSend = cpuStallUs();
      const sent = performance.now();
      try {
        const { status, text } = await post(agent, url, body, r.timeoutMs);
        const latencyMs = performance.now() - sent;
        const stallNow = cpuStallUs();
        const stall = stallAtSend !== undefined && stallNow !== undefined ? { cpuStallMs: (stallNow - stallAtSend) / 1000 } : {};
        let signed: string | undefined;
        try {
          signed = api.signed(status, text);
        } catch {
          signed = undefined;
        }
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

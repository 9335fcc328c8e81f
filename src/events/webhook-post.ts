import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AppConfig } from '../config/config.js';
import type { WebhookSubscription } from './events.entities.js';
import type { EventResponseDto } from './events.responses.js';
import { type CheckedAddress, checkedAddress, parseWebhookUrl, pinnedLookup } from './webhook-target.js';

/** A delivery is a 2xx within this time. */
export const ATTEMPT_MS = 10_000;
/** The most of a receiver's answer that is read. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** How long an idle kept-alive connection to a receiver stays open. */
const KEEP_ALIVE_MS = 4000;

export interface Attempt {
  status: number | null;
  error: string | null;
}

/** `webhook-signature` (Standard Webhooks): HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the secret's bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The HTTP side of a delivery (EXTENSIONS "Events" → "Webhooks"): one
 * signed POST of an event to a subscription's URL, checked again first, over
 * the subscription's own kept-alive connection.
 */
export class WebhookPoster {
  /** Set at shutdown: a POST cut off then is not an attempt, and a reset socket is not tried again. */
  stopped = false;
  private readonly requests = new Set<http.ClientRequest>();
  /**
   * A kept-alive connection pool per subscription, bound to the address its
   * URL was checked to: a POST after the first skips the TCP (and TLS)
   * handshake. A new check that gives another address gets a new pool, so a
   * connection never goes to an address that was not checked.
   */
  private readonly agents = new Map<number, { address: string; agent: http.Agent }>();

  constructor(private readonly config: AppConfig) {}

  /** Cuts off every POST in flight and closes every kept-alive connection. */
  close(): void {
    this.stopped = true;
    for (const request of this.requests) request.destroy(new Error('the service is shutting down'));
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** Closes the kept-alive pool of a subscription this instance no longer holds (deleted, or its lease lost): the map holds only those in work. */
  dropAgent(subscriptionId: number): void {
    this.agents.get(subscriptionId)?.agent.destroy();
    this.agents.delete(subscriptionId);
  }

  /**
   * One POST: the URL checked again (it may resolve elsewhere now, or the
   * rule may have changed) and the connection made to the address checked;
   * no redirect followed; a 2xx within ATTEMPT_MS is a delivery; at most
   * MAX_ANSWER_BYTES of the answer are read.
   */
  async post(sub: WebhookSubscription, event: EventResponseDto): Promise<Attempt> {
    let url: URL;
    let address;
    try {
      url = parseWebhookUrl(sub.url);
      address = await checkedAddress(url, this.config.webhookAllowPrivate);
    } catch (error) {
      return { status: null, error: `refused: ${(error as Error).message}`.slice(0, 200) };
    }
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': 'inventory-service-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(sub.secret, event.id, timestamp, body),
    };
    const first = await this.exchange(sub.id, url, address, headers, body);
    // A kept-alive connection the receiver closed just as it was reused: once more, on a new one (nothing was answered).
    return first.staleSocket ? this.exchange(sub.id, url, address, headers, body) : first;
  }

  /** One request of a POST (see `post`); `staleSocket` when a reused connection failed before any answer. */
  private exchange(subscriptionId: number, url: URL, address: CheckedAddress, headers: http.OutgoingHttpHeaders, body: string): Promise<Attempt & { staleSocket?: boolean }> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (attempt: Attempt & { staleSocket?: boolean }) => {
        if (settled) return;
        settled = true;
        resolve(attempt);
      };
      const request = client.request(url, { method: 'POST', headers, lookup: pinnedLookup(address), agent: this.agentFor(subscriptionId, url, address) }, (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', () => this.requests.delete(request));
        settle({ status: response.statusCode ?? null, error: response.statusCode && response.statusCode < 300 && response.statusCode >= 200 ? null : `HTTP ${response.statusCode}` });
      });
      // Bounds the whole exchange, the answer's body included.
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${ATTEMPT_MS / 1000} s`)), ATTEMPT_MS);
      request.on('close', () => clearTimeout(timer));
      this.requests.add(request);
      request.on('error', (error) => {
        this.requests.delete(request);
        const reset = (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE';
        settle({ status: null, error: error.message.slice(0, 200), staleSocket: request.reusedSocket && reset && !this.stopped });
      });
      request.end(body);
    });
  }

  /** The subscription's kept-alive pool for the address just checked (a new one when the address changed). */
  private agentFor(subscriptionId: number, url: URL, address: { address: string }): http.Agent {
    const known = this.agents.get(subscriptionId);
    if (known?.address === address.address && (known.agent instanceof https.Agent) === (url.protocol === 'https:')) return known.agent;
    known?.agent.destroy();
    // An idle connection is closed after KEEP_ALIVE_MS, before the usual 5 s of a receiver's own keep-alive.
    const options = { keepAlive: true, maxSockets: 1, timeout: KEEP_ALIVE_MS };
    const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(subscriptionId, { address: address.address, agent });
    return agent;
  }

}

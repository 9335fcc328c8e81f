/*
 * When the webhook relay acts (webhook-relay.ts): how long its claim on a
 * subscription lasts, when its scheduler looks for work (RelayLoop), and
 * when an event whose delivery failed is tried again (`afterFailure`).
 */

/** How long a claim on a subscription lasts; renewed before a POST (which takes at most ATTEMPT_MS) once less than RENEW_BEFORE_MS of it is left. */
export const LEASE_MS = 30_000;
export const RENEW_BEFORE_MS = 15_000;

/** Polling: once a second when a look found nothing to start (a publication in this instance, or a retry falling due, wakes it earlier). */
const IDLE_POLL_MS = 1000;

/**
 * When the webhook relay's scheduler looks for work: at once again after a
 * look that says so (it started a worker and has room for more) or while it
 * was nudged during the look, yielding to the requests in between; else
 * after IDLE_POLL_MS, or as soon as it is nudged (a new event published) or
 * a retry it was told of falls due (`wakeAt`). A look that fails is reported
 * and the loop goes on. What a look does is the relay's (`look`).
 */
export class RelayLoop {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    /** One look for work; whether to look again at once. */
    private readonly look: () => Promise<boolean>,
    private readonly failed: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.loop && !this.stopped) this.loop = this.run();
  }

  /** Looks for work again as soon as the loop is free: a new event was published, or a retry is due. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Looks for work when a retry falls due, rather than at the next poll. */
  wakeAt(when: Date): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.nudge();
    }, Math.max(0, when.getTime() - Date.now()) + 10);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops: no more looks; resolves once the look in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    for (const timer of this.timers) clearTimeout(timer);
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let again = false;
      this.nudged = false;
      try {
        again = await this.look();
      } catch (error) {
        this.failed(error);
      }
      if (this.stopped) break;
      if (again || this.nudged) {
        // More may be due: look again at once, yielding to the requests in between.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, IDLE_POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}

/**
 * After the `attempt`-th failed attempt at an event (`answer`): the event is
 * tried again after the next pause of WEBHOOK_RETRY_SECONDS (`pauses`, ±20 %
 * jitter), the events after it waiting (the relay wakes its loop then,
 * `wakeAt`); once the pauses are used up there is no next try: it is
 * recorded as failed, with the reason, and the subscription moves on.
 */
export function afterFailure(attempt: number, pauses: number[], answer: { status: number | null; error: string | null }): { nextTry: Date | null; error: string | null } {
  if (attempt <= pauses.length) return { nextTry: new Date(Date.now() + pauses[attempt - 1] * 1000 * (0.8 + 0.4 * Math.random())), error: answer.error };
  return { nextTry: null, error: `${answer.error ?? `HTTP ${answer.status}`}; no retries left: failed`.slice(0, 200) };
}

import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { poolUse } from '../database/pool-use.js';
import type { DatabaseMetrics, ListReadSource, RetryCause } from '../database/reporting.js';

/** The write routes whose committed answers count as stock operations, by route template. */
const STOCK_OPERATIONS: Record<string, string> = {
  '/api/v1/Inventory/Receive': 'receive',
  '/api/v1/Inventory/Issue': 'issue',
  '/api/v1/Inventory/Move': 'move',
  '/api/v1/Inventory/Hold': 'hold',
  '/api/v1/Inventory/Release': 'release',
  '/api/v1/Inventory/Count': 'count',
  '/api/v1/Inventory/Batch': 'batch',
};

/**
 * The service's Prometheus metrics (prom-client), one registry per
 * application, served by GET /metrics. Labels are bounded: a route is its
 * template (`/api/v1/Item/:item`, or `unmatched` for a path no route has),
 * never the path a client sent.
 */
@Injectable()
export class Metrics implements DatabaseMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests refused with 429 by the rate limit',
    registers: [this.registry],
  });
  private readonly replays = new Counter({
    name: 'idempotent_replays_total',
    help: 'Write requests answered from the stored answer of their Idempotency-Key (nothing done again)',
    registers: [this.registry],
  });
  private readonly operations = new Counter({
    name: 'stock_operations_total',
    help: 'Stock operations committed, by type (a Batch counts once, as batch)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'db_transaction_retries_total',
    help: 'Transaction attempts that failed transiently and were run again or given up, by cause',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });

  private readonly listReads = new Counter({
    name: 'db_list_reads_total',
    help: 'List reads by where they were served: replica, primary (Consistency: strong, or no DATABASE_READ_URL), fallback (the replica failed or is resting)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by result: delivered (a 2xx), retry (to be tried again), failed (no retries left)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly webhookOldest = new Gauge({
    name: 'webhook_oldest_undelivered_seconds',
    help: "Age of the oldest event after a webhook subscription's position (0 when every subscription is up to date)",
    registers: [this.registry],
  });

  constructor(dataSource: DataSource) {
    collectDefaultMetrics({ register: this.registry });
    const pool = poolUse(dataSource);
    if (pool) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'Open connections of the database pool, by state (in_use, idle); MySQL/MariaDB only',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          this.set({ state: 'in_use' }, pool.inUse);
          this.set({ state: 'idle' }, pool.idle);
        },
      });
      new Counter({
        name: 'db_pool_waits_total',
        help: 'Requests for a pooled database connection that waited, every connection being in use; MySQL/MariaDB only',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(pool.waits);
        },
      });
    }
  }

  /** Counts a webhook delivery attempt. */
  webhookDelivery(result: 'delivered' | 'retry' | 'failed'): void {
    this.webhookDeliveries.inc({ result });
  }

  /** Sets the age of the oldest event not yet delivered to its subscription. */
  webhookLag(seconds: number): void {
    this.webhookOldest.set(seconds);
  }

  /** Counts a list read by where it was served. */
  listRead(source: ListReadSource): void {
    this.listReads.inc({ source });
  }

  /** Counts a transient failure of a transaction attempt. */
  retried(cause: RetryCause): void {
    this.retries.inc({ cause });
  }

  /** The request series of each (method, route template, status) seen, made once: prom-client hashes a label set at every call. */
  private readonly series = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();

  /**
   * Counts and times a request whose answer was sent (a client that hangs up
   * before is not counted); the request context's one `finish` listener
   * calls it (it is the RequestObserver of http/request-context.ts). `matched`
   * is the route template, null when no route matched.
   */
  readonly observe = (req: Request, res: Response, matched: string | null, durationMs: number): void => {
    const route = matched ?? 'unmatched';
    const status = res.statusCode;
    const key = `${req.method} ${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method: req.method, route, status: String(status) };
      series = { requests: this.requests.labels(labels), duration: this.duration.labels(labels) };
      this.series.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(durationMs / 1000);
    if (status === 429) this.rateLimited.inc();
    else if (res.getHeader('idempotent-replayed') === 'true') this.replays.inc();
    else if (status < 300 && req.method === 'POST' && STOCK_OPERATIONS[route]) this.operations.inc({ type: STOCK_OPERATIONS[route] });
  };
}

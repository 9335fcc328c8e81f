import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * A client generated from the served OpenAPI document runs the README's Quick
 * start: openapi-typescript makes the types from /api/v1/openapi.json of the
 * built service, tsc checks `test/client/walkthrough.ts` against them (a
 * path, parameter or field the document lacks fails the check), and the
 * compiled program runs it over HTTP with the first start's admin client.
 * The document is the same whatever the database, so this runs on SQLite only
 * (jest.config.js leaves it out of the MariaDB run).
 */
const GENERATED = 'test/client/openapi.d.ts';
const run = (args: string[]) => spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
const generate = (source: string) => run(['node_modules/openapi-typescript/bin/cli.js', source, '-o', GENERATED]);
const typecheck = (...flags: string[]) => run(['node_modules/typescript/bin/tsc', '-p', 'test/client/tsconfig.json', ...flags]);

describe('a client generated from the OpenAPI document', () => {
  let dir: string;
  let service: ServiceProcess;
  let credentials: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-client-'));
    service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'client.sqlite')}` });
    const line = service.output().split('\n').find((l) => l.includes('"bootstrap"'));
    credentials = (JSON.parse(line!) as { bootstrap: typeof credentials }).bootstrap;
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the type check when the document lacks a field the walk-through uses (the check can fail)', async () => {
    const doc = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } };
    const level = doc.components.schemas.StockLevel;
    level.properties = Object.fromEntries(Object.entries(level.properties).map(([k, v]) => [k === 'available' ? 'availableUnits' : k, v]));
    level.required = level.required.map((k) => (k === 'available' ? 'availableUnits' : k));
    writeFileSync(join(dir, 'drifted.json'), JSON.stringify(doc));
    expect(generate(join(dir, 'drifted.json')).status).toBe(0);
    const check = typecheck('--noEmit');
    expect(check.status).not.toBe(0);
    expect(check.stdout).toMatch(/walkthrough\.ts.*Property 'available' does not exist/);
  });

  it('fails the type check when the conflict reasons in the document drift from those the walk-through switches on (the check can fail)', async () => {
    const doc = (await (await fetch(`${service.url}/api/v1/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
    const reason = doc.components.schemas.ConflictDetails.properties.reason;
    expect(reason.enum).toContain('concurrent_change');
    reason.enum = reason.enum!.filter((r) => r !== 'concurrent_change');
    writeFileSync(join(dir, 'drifted-reasons.json'), JSON.stringify(doc));
    expect(generate(join(dir, 'drifted-reasons.json')).status).toBe(0);
    const check = typecheck('--noEmit');
    expect(check.status).not.toBe(0);
    expect(check.stdout).toMatch(/walkthrough\.ts.*'"concurrent_change"' is not comparable/);
  });

  it('type-checks the walk-through against the served document and runs it: token, items, Receive with an Idempotency-Key, Issue, stock levels, a typed 404 and 409', () => {
    const generated = generate(`${service.url}/api/v1/openapi.json`);
    expect({ status: generated.status, stderr: generated.status ? generated.stderr : '' }).toEqual({ status: 0, stderr: '' });
    const compiled = typecheck();
    expect({ status: compiled.status, errors: compiled.stdout }).toEqual({ status: 0, errors: '' });

    const walk = run(['dist/client/walkthrough.js', service.url, credentials.clientId, credentials.clientSecret]);
    expect({ status: walk.status, stderr: walk.stderr }).toEqual({ status: 0, stderr: '' });
    const steps = walk.stdout.trim().split('\n').map((l) => JSON.parse(l) as { step: string; status: number });
    expect(steps.map(({ step, status }) => `${status} ${step}`)).toEqual([
      '200 health',
      '200 token',
      '201 create item',
      '200 list items',
      '200 look up by key and partNo',
      '201 receive, then the same Idempotency-Key again',
      '200 issue',
      '200 stock levels',
      '404 unknown item',
      '409 issue more than in stock',
      '409 duplicate item',
    ]);
    expect(steps[7]).toMatchObject({ available: 70 });
  });
});

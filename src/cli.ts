import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AdminModule } from './auth/admin.module.js';
import { AdminInputError, AdminService } from './auth/admin.service.js';
import { ItemsService } from './catalog/items.service.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { AppConfig, ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DomainError } from './errors.js';
import { EventsModule } from './events/events.module.js';
import { WebhookInputError } from './events/webhook-target.js';
import { WebhookService } from './events/webhooks.service.js';
import { LedgerCheck } from './inventory/ledger-check.js';
import { LedgerCheckModule } from './inventory/ledger-check.module.js';
import { runtimeProblem } from './database/sqlite-driver.js';

/**
 * Admin CLI: `npm run --silent cli -- <command> [flags]`. The same modules as
 * the service, without HTTP. Success: one JSON object on stdout. Errors read
 * one way, on stderr, nothing written: a command line it cannot take (an
 * unknown command, a missing or unknown flag) is `error: …` and a `usage: …`
 * line, exit 2; input the command refuses is `error: …` alone, exit 1.
 * `--help` alone lists every command; after a command, shows its usage.
 */
@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(config.database, { migrate: config.migrationsAtStart }), AdminModule, CatalogModule, EventsModule, LedgerCheckModule] };
  }
}

type Flags = Record<string, { type: 'string' | 'boolean' }>;
interface Services {
  admin: AdminService;
  items: ItemsService;
  webhooks: WebhookService;
  ledger: LedgerCheck;
}
const str = { type: 'string' } as const;

interface Command {
  /** The command's flags as its usage line shows them. */
  usage: string;
  flags: Flags;
  required: string[];
  run: (services: Services, v: Record<string, string | boolean>) => Promise<object>;
  /** The exit status for a result that was printed (default 0). */
  status?: (result: object) => number;
}

const COMMANDS: Record<string, Command> = {
  'warehouse:create': {
    usage: '--id 2 --name "North"',
    flags: { id: str, name: str },
    required: ['id', 'name'],
    run: ({ admin: a }, v) => a.createWarehouse(/^\d+$/.test(String(v.id)) ? Number(v.id) : Number.NaN, String(v.name)),
  },
  'group:create': {
    usage: '--name pickers --permissions 11,15,88',
    flags: { name: str, permissions: str },
    required: ['name', 'permissions'],
    run: ({ admin: a }, v) => a.createGroup(String(v.name), String(v.permissions)),
  },
  'client:create': {
    usage: '--name erp --group pickers --warehouses 1,2 [--read-only]',
    flags: { name: str, group: str, warehouses: str, 'read-only': { type: 'boolean' } },
    required: ['name', 'group', 'warehouses'],
    run: ({ admin: a }, v) => a.createClient({ name: String(v.name), group: String(v.group), warehouses: String(v.warehouses), readOnly: v['read-only'] === true }),
  },
  'client:list': { usage: '', flags: {}, required: [], run: ({ admin: a }) => a.listClients() },
  'client:disable': { usage: '--client-id X', flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.setDisabled(String(v['client-id']), true) },
  'client:enable': { usage: '--client-id X', flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.setDisabled(String(v['client-id']), false) },
  'client:rotate-secret': { usage: '--client-id X', flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.rotateSecret(String(v['client-id'])) },
  'alias:create': {
    usage: '--short-id ABC-1 --alias CUST-9',
    flags: { 'short-id': str, alias: str },
    required: ['short-id', 'alias'],
    run: ({ items }, v) => items.createAlias(String(v['short-id']), String(v.alias)),
  },
  'webhook:create': {
    usage: '--client-id X --url https://erp.example.com/hooks [--types stock.*,item.created]',
    flags: { 'client-id': str, url: str, types: str },
    required: ['client-id', 'url'],
    run: ({ webhooks }, v) => webhooks.create({ clientId: String(v['client-id']), url: String(v.url), types: v.types === undefined ? undefined : String(v.types) }),
  },
  'webhook:list': { usage: '[--client-id X]', flags: { 'client-id': str }, required: [], run: ({ webhooks }, v) => webhooks.list(v['client-id'] === undefined ? undefined : String(v['client-id'])) },
  'webhook:delete': { usage: '--id N', flags: { id: str }, required: ['id'], run: ({ webhooks }, v) => webhooks.delete(String(v.id)) },
  'webhook:deliveries': { usage: '--id N', flags: { id: str }, required: ['id'], run: ({ webhooks }, v) => webhooks.deliveries(String(v.id)) },
  // The stock invariant on DATABASE_URL (see ledger-check.ts); exit 1 on any mismatch.
  'ledger:check': { usage: '', flags: {}, required: [], run: ({ ledger }) => ledger.run(), status: (report) => ((report as { ok: boolean }).ok ? 0 : 1) },
};

const PREFIX = 'npm run --silent cli --';

/** One command's usage line. */
const usageOf = (name: string): string => `${PREFIX} ${name}${COMMANDS[name].usage ? ` ${COMMANDS[name].usage}` : ''}`;

const USAGE = `usage: ${PREFIX} <command> [flags]   (a command's own usage: <command> --help)\n${Object.keys(COMMANDS)
  .map((name) => `  ${name}${COMMANDS[name].usage ? ` ${COMMANDS[name].usage}` : ''}`)
  .join('\n')}`;

/**
 * A refusal of the command line, on stderr, exit 2: `error: …`, then the
 * command's usage line (or, without a command, the commands there are).
 */
function refuse(message: string, name?: string): number {
  const usage = name ? usageOf(name) : `${PREFIX} <command> [flags]; commands: ${Object.keys(COMMANDS).join(', ')}; --help shows their flags`;
  process.stderr.write(`error: ${message}\nusage: ${usage}\n`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = name && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return refuse(name ? `unknown command "${name}"` : 'no command given');
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`usage: ${usageOf(name)}\n`);
    return 0;
  }
  let values: Record<string, string | boolean>;
  try {
    values = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values as Record<string, string | boolean>;
  } catch (error) {
    return refuse((error as Error).message.split('\n')[0], name);
  }
  const missing = command.required.filter((f) => values[f] === undefined);
  if (missing.length) return refuse(`${name} needs ${missing.map((f) => `--${f}`).join(', ')}`, name);
  loadDotEnv();
  const config = loadConfig();
  const driverProblem = runtimeProblem(config.database.type);
  if (driverProblem) {
    process.stderr.write(`error: ${driverProblem}\n`);
    return 1;
  }
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: false, abortOnError: false });
  try {
    const result = await command.run({ admin: app.get(AdminService), items: app.get(ItemsService), webhooks: app.get(WebhookService), ledger: app.get(LedgerCheck) }, values);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return command.status?.(result) ?? 0;
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof AdminInputError || error instanceof WebhookInputError || error instanceof ConfigError || error instanceof DomainError;
    process.stderr.write(`error: ${known ? (error as Error).message : `unexpected failure: ${String(error).split('\n')[0]}`}\n`);
    process.exit(1);
  },
);

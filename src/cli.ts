import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
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
import { checkLedger } from './inventory/ledger-check.js';

/**
 * Admin CLI: `npm run --silent cli -- <command> [flags]`. The same modules as
 * the service, without HTTP. Success: one JSON object on stdout. Bad input: one
 * line on stderr and exit 1, nothing written.
 */
@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(config.database, { migrate: config.migrationsAtStart }), AdminModule, CatalogModule, EventsModule] };
  }
}

type Flags = Record<string, { type: 'string' | 'boolean' }>;
interface Services {
  admin: AdminService;
  items: ItemsService;
  webhooks: WebhookService;
  dataSource: DataSource;
}
const str = { type: 'string' } as const;

interface Command {
  flags: Flags;
  required: string[];
  run: (services: Services, v: Record<string, string | boolean>) => Promise<object>;
  /** The exit status for a result that was printed (default 0). */
  status?: (result: object) => number;
}

const COMMANDS: Record<string, Command> = {
  'warehouse:create': {
    flags: { id: str, name: str },
    required: ['id', 'name'],
    run: ({ admin: a }, v) => a.createWarehouse(/^\d+$/.test(String(v.id)) ? Number(v.id) : Number.NaN, String(v.name)),
  },
  'group:create': {
    flags: { name: str, permissions: str },
    required: ['name', 'permissions'],
    run: ({ admin: a }, v) => a.createGroup(String(v.name), String(v.permissions)),
  },
  'client:create': {
    flags: { name: str, group: str, warehouses: str, 'read-only': { type: 'boolean' } },
    required: ['name', 'group', 'warehouses'],
    run: ({ admin: a }, v) => a.createClient({ name: String(v.name), group: String(v.group), warehouses: String(v.warehouses), readOnly: v['read-only'] === true }),
  },
  'client:list': { flags: {}, required: [], run: ({ admin: a }) => a.listClients() },
  'client:disable': { flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.setDisabled(String(v['client-id']), true) },
  'client:enable': { flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.setDisabled(String(v['client-id']), false) },
  'client:rotate-secret': { flags: { 'client-id': str }, required: ['client-id'], run: ({ admin: a }, v) => a.rotateSecret(String(v['client-id'])) },
  'alias:create': {
    flags: { 'short-id': str, alias: str },
    required: ['short-id', 'alias'],
    run: ({ items }, v) => items.createAlias(String(v['short-id']), String(v.alias)),
  },
  'webhook:create': {
    flags: { 'client-id': str, url: str, types: str },
    required: ['client-id', 'url'],
    run: ({ webhooks }, v) => webhooks.create({ clientId: String(v['client-id']), url: String(v.url), types: v.types === undefined ? undefined : String(v.types) }),
  },
  'webhook:list': { flags: { 'client-id': str }, required: [], run: ({ webhooks }, v) => webhooks.list(v['client-id'] === undefined ? undefined : String(v['client-id'])) },
  'webhook:delete': { flags: { id: str }, required: ['id'], run: ({ webhooks }, v) => webhooks.delete(String(v.id)) },
  'webhook:deliveries': { flags: { id: str }, required: ['id'], run: ({ webhooks }, v) => webhooks.deliveries(String(v.id)) },
  // The stock invariant on DATABASE_URL (see ledger-check.ts); exit 1 on any mismatch.
  'ledger:check': { flags: {}, required: [], run: ({ dataSource }) => checkLedger(dataSource), status: (report) => ((report as { ok: boolean }).ok ? 0 : 1) },
};

const USAGE = `usage: npm run --silent cli -- <command> [flags]
  warehouse:create --id 2 --name "North"
  group:create --name pickers --permissions 11,15,88
  client:create --name erp --group pickers --warehouses 1,2 [--read-only]
  client:list
  client:disable --client-id X
  client:enable --client-id X
  client:rotate-secret --client-id X
  alias:create --short-id ABC-1 --alias CUST-9
  webhook:create --client-id X --url https://erp.example.com/hooks [--types stock.*,item.created]
  webhook:list [--client-id X]
  webhook:delete --id N
  webhook:deliveries --id N
  ledger:check`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    const known = Object.keys(COMMANDS).join(', ');
    process.stderr.write(`error: ${name ? `unknown command "${name}"` : 'no command given'} (commands: ${known}; --help for usage)\n`);
    return 2;
  }
  let values: Record<string, string | boolean>;
  try {
    values = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values as Record<string, string | boolean>;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const missing = command.required.filter((f) => values[f] === undefined);
  if (missing.length) {
    process.stderr.write(`error: ${name} needs ${missing.map((f) => `--${f}`).join(', ')}\n`);
    return 2;
  }
  loadDotEnv();
  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: false, abortOnError: false });
  try {
    const result = await command.run({ admin: app.get(AdminService), items: app.get(ItemsService), webhooks: app.get(WebhookService), dataSource: app.get(DataSource) }, values);
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

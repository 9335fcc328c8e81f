import type { MigrationInterface } from 'typeorm';
/** SQLite migrations, oldest first. */
export const SQLITE_MIGRATIONS: Array<new () => MigrationInterface> = [];

import type { MigrationInterface } from 'typeorm';
import { Auth1763802000000 } from './1763802000000-Auth.js';
/** SQLite migrations, oldest first. */
export const SQLITE_MIGRATIONS: Array<new () => MigrationInterface> = [Auth1763802000000];

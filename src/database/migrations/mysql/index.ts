import type { MigrationInterface } from 'typeorm';
import { Auth1763802000000 } from './1763802000000-Auth.js';
/** MySQL / MariaDB migrations, oldest first. */
export const MYSQL_MIGRATIONS: Array<new () => MigrationInterface> = [Auth1763802000000];

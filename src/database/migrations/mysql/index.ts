import type { MigrationInterface } from 'typeorm';
/** MySQL / MariaDB migrations, oldest first. */
export const MYSQL_MIGRATIONS: Array<new () => MigrationInterface> = [];

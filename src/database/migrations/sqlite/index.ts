import type { MigrationInterface } from 'typeorm';
import { Auth1763802000000 } from './1763802000000-Auth.js';
import { Catalog1763803000000 } from './1763803000000-Catalog.js';
import { Inventory1763804000000 } from './1763804000000-Inventory.js';
import { ListCounts1763805000000 } from './1763805000000-ListCounts.js';
import { NfkcKeys1763806000000 } from './1763806000000-NfkcKeys.js';
import { TokenGeneration1763806500000 } from './1763806500000-TokenGeneration.js';
import { ListCounters1763807000000 } from './1763807000000-ListCounters.js';
import { SortIndexes1763807500000 } from './1763807500000-SortIndexes.js';
import { Events1763808000000 } from './1763808000000-Events.js';
import { Webhooks1763809000000 } from './1763809000000-Webhooks.js';
import { StockDocuments1763810000000 } from './1763810000000-StockDocuments.js';
import { DocumentCounters1763811000000 } from './1763811000000-DocumentCounters.js';
/** SQLite migrations, oldest first. */
export const SQLITE_MIGRATIONS: Array<new () => MigrationInterface> = [
  Auth1763802000000,
  Catalog1763803000000,
  Inventory1763804000000,
  ListCounts1763805000000,
  NfkcKeys1763806000000,
  TokenGeneration1763806500000,
  ListCounters1763807000000,
  SortIndexes1763807500000,
  Events1763808000000,
  Webhooks1763809000000,
  StockDocuments1763810000000,
  DocumentCounters1763811000000,
];

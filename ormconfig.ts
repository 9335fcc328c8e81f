import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, loadDotEnv } from './src/config/config.js';
import { dataSourceOptions } from './src/database/data-source.js';
import { ENTITIES } from './src/entities.js';

// Data source for the TypeORM CLI, from the same DATABASE_URL as the service:
//   npm run build && npx typeorm migration:show -d dist/ormconfig.js
loadDotEnv();
export default new DataSource(dataSourceOptions(loadConfig().database, ENTITIES));

import 'reflect-metadata';
import { createServer } from 'node:http';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import mysql from 'mysql2/promise';

/**
 * The two ceilings every scenario is compared with, on the same machine:
 *   nest <port>        a bare NestJS + Express route answering a constant item-sized JSON body, no guard;
 *   raw <port> <url>   node:http + mysql2 doing GET /Item/<partNo>'s point query.
 */
const ITEM = {
  partNo: 4711,
  shortID: 'BENCH-0004711',
  description: 'Bench part 4711',
  category: 11,
  subCategory: 0,
  uOM: 'EA',
  putUp: '',
  units: 1,
  dfltOwner: 0,
  created: '2026-11-22T09:30:00.000Z',
  modified: '2026-11-22T09:30:00.000Z',
  discontinued: false,
  createdBy: 'bench',
};

@Controller('item')
class ConstantController {
  @Get(':partNo')
  one() {
    return ITEM;
  }
}

@Module({ controllers: [ConstantController] })
class ConstantModule {}

async function main(): Promise<void> {
  const [kind, port, url] = process.argv.slice(2);
  if (kind === 'nest') {
    const app = await NestFactory.create(ConstantModule, { logger: false });
    await app.listen(Number(port), '127.0.0.1');
  } else if (kind === 'raw') {
    const pool = mysql.createPool({ uri: url, connectionLimit: 10, timezone: 'Z' });
    createServer(async (req, res) => {
      const partNo = Number(req.url?.split('/').pop());
      const [rows] = await pool.query(
        'SELECT partNo, shortID, description, category, subCategory, uOM, putUp, units, dfltOwner, created, modified, discontinued, createdBy FROM item WHERE partNo = ?',
        [partNo],
      );
      const row = (rows as Array<Record<string, unknown>>)[0];
      res.writeHead(row ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(row ?? {}));
    }).listen(Number(port), '127.0.0.1');
  } else {
    throw new Error('usage: ceilings.js nest|raw <port> [mysql url]');
  }
  process.stdout.write('ready\n');
}

void main();

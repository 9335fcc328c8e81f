// Each statement below changes an object another package owns: the checker must report every one (line by line).
import { AsyncResource } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';
import mysql from 'mysql2';
import express from 'express';

export function patch(runner: QueryRunner, connection: mysql.Connection): void {
  AsyncResource.bind = ((fn: () => void) => fn) as typeof AsyncResource.bind;
  (runner as unknown as { isTransactionActive: boolean }).isTransactionActive = true;
  (runner as any).transactionDepth++;
  connection.query = (() => undefined) as unknown as typeof connection.query;
  Object.defineProperty(mysql, 'createPool', { value: () => undefined });
  Object.setPrototypeOf(express.request, {});
  (express.application as any)['handle'] = () => undefined;
  delete (runner as any).manager;
  Reflect.set(connection, 'threadId', 1);
  Object.assign(runner, { isReleased: false });
}

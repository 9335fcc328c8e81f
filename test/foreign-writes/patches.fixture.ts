// Writes to objects another package owns, in every form the checker knows: test/foreign-writes.e2e-spec.ts lists the line of each one.
import { AsyncResource } from 'node:async_hooks';
import type { DataSource, EntityMetadata, QueryRunner } from 'typeorm';
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

interface Mirror {
  isTransactionActive: boolean;
}

/** Writes whatever it is given: refused because a call below gives it a package's object. */
function put(target: any, key: string, value: unknown): void {
  target[key] = value;
}

/** Aliases and casts: a package's object stays the package's, whatever it is called or cast to. */
export function throughAliases(runner: QueryRunner): void {
  const loose: any = runner;
  loose.isTransactionActive = true;
  const mirror: Mirror = runner;
  mirror.isTransactionActive = true;
  const proto = express.response as Record<string, any>;
  proto.json = () => undefined;
  (express.response as unknown as Record<string, unknown>).send = () => undefined;
  put(runner, 'isTransactionActive', true);
  const box = { runner };
  (box.runner as any).isReleased = false;
  const made = new Proxy(runner, {});
  (made as any).isReleased = false;
}

/** Destructuring and for-of targets. */
export function throughTargets(runner: QueryRunner): void {
  ({ data: runner.data } = { data: {} });
  [runner.data] = [{}];
  for (runner.data of [{}]) break;
  [(runner as any).marker] = [1];
  for ((runner as any).key in { a: 1 }) break;
}

/** A package's prototypes, and the language's writers reached other ways than `Object.x(…)`. */
export function throughWriters(runner: QueryRunner, connection: mysql.Connection): void {
  Object.getPrototypeOf(connection).query = () => undefined;
  (Array.prototype as unknown as Record<string, unknown>).lastOne = 1;
  const { defineProperty } = Object;
  defineProperty(express.response, 'json', { value: () => undefined });
  globalThis.Object.assign(runner, { isReleased: false });
  Object['assign'](runner, { isReleased: false });
  Reflect.apply(Object.assign, undefined, [runner, { isReleased: false }]);
  Object.assign.call(undefined, runner, { isReleased: false });
  Object.freeze(express.request);
  const writers = [Object.defineProperty];
  void writers;
}

/** A package's arrays, Maps and Sets: their elements and their methods that change them. */
export function throughCollections(dataSource: DataSource, meta: EntityMetadata): void {
  dataSource.entityMetadatas[0] = meta;
  dataSource.entityMetadatas.push(meta);
  dataSource.entityMetadatas.splice(0, 1);
  Array.prototype.push.call(dataSource.entityMetadatas, meta);
  dataSource.entityMetadatasMap.set(meta.target, meta);
  dataSource.entityMetadatasMap.delete(meta.target);
  dataSource.entityMetadatasMap.clear();
  meta.dependsOn?.add('Item');
  const metadatas = dataSource.entityMetadatas;
  metadatas.pop();
  (dataSource.driver as unknown as { pool: unknown }).pool = null;
  const driver = dataSource.driver as unknown as { pool: unknown };
  driver.pool = null;
}

/**
 * A package's connection cast to an interface of the project's, its method
 * replaced and then deleted (as a transaction runner once sent statements
 * ahead of mysql2's next query).
 */
interface CallbackConnection {
  query(sql: string, callback: (error: unknown) => void): unknown;
}

export function sendWithNext(connection: CallbackConnection, prefix: string): void {
  const original = connection.query;
  connection.query = function (this: CallbackConnection, sql, callback) {
    delete (connection as Partial<CallbackConnection>).query;
    return original.call(connection, prefix + sql, callback);
  };
}

export async function start(runner: QueryRunner): Promise<void> {
  const connection = (await runner.connect()) as CallbackConnection;
  sendWithNext(connection, 'START TRANSACTION;');
  connection.query = () => undefined;
  delete (connection as Partial<CallbackConnection>).query;
  void runner.connect().then((later: CallbackConnection) => {
    later.query = () => undefined;
  });
}

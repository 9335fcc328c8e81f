import type { EntityManager } from 'typeorm';
import { type Begun, OpenTransaction } from './transaction-context.js';

/** A begun transaction whose manager and ends write down what they are asked, in order. */
function begun(failAt?: string): { begun: Begun; log: string[] } {
  const log: string[] = [];
  const act = async (what: string) => {
    log.push(what);
    if (what === failAt) throw new Error(`${what} failed`);
  };
  const manager = { connection: { options: { type: 'mysql' } }, query: (sql: string) => act(sql) } as unknown as EntityManager;
  return { log, begun: { manager, commit: () => act('COMMIT'), rollback: () => act('ROLLBACK'), release: () => act('release') } };
}

describe('TransactionContext', () => {
  it('sends the held-back writes, then the counters (stock_count before list_count), then COMMIT; the steps after commit once it committed', async () => {
    const { begun: b, log } = begun();
    const after: string[] = [];
    const tx = new OpenTransaction(b, (steps) => steps.forEach((s) => s()));
    const { ctx } = tx;
    expect(ctx.manager).toBe(b.manager);
    ctx.counts.add([{ list: 'lots', scope: '1', by: 1 }]);
    ctx.later({ sql: 'UPDATE a', params: [] });
    ctx.counts.addStockRow(1, true);
    ctx.afterCommit(() => after.push('first'));
    ctx.later({ sql: 'INSERT b', params: [] });
    ctx.afterCommit(() => after.push('second'));
    expect(log).toEqual([]);
    await tx.commit();
    expect(log.map((s) => s.split(' (')[0])).toEqual(['UPDATE a', 'INSERT b', 'INSERT INTO `stock_count`', 'INSERT INTO list_count', 'COMMIT', 'release']);
    expect(after).toEqual(['first', 'second']);
  });

  it('sends what is held when asked (a further piece of the unit reads it) and keeps what is held after', async () => {
    const { begun: b, log } = begun();
    const tx = new OpenTransaction(b, () => undefined);
    tx.ctx.later({ sql: 'UPDATE a', params: [] });
    await tx.ctx.sendHeld();
    expect(log).toEqual(['UPDATE a']);
    tx.ctx.later({ sql: 'UPDATE b', params: [] });
    await tx.commit();
    expect(log).toEqual(['UPDATE a', 'UPDATE b', 'COMMIT', 'release']);
  });

  it('runs no step after a rollback, nor after a failed commit, which rolls back and releases', async () => {
    const steps: Array<Array<() => void>> = [];
    const rolled = begun();
    const tx = new OpenTransaction(rolled.begun, (s) => steps.push(s));
    tx.ctx.afterCommit(() => undefined);
    tx.ctx.later({ sql: 'UPDATE a', params: [] });
    await tx.rollback();
    await tx.commit(); // ended already: nothing more
    expect(rolled.log).toEqual(['ROLLBACK', 'release']);

    const failing = begun('UPDATE a');
    const tx2 = new OpenTransaction(failing.begun, (s) => steps.push(s));
    tx2.ctx.afterCommit(() => undefined);
    tx2.ctx.later({ sql: 'UPDATE a', params: [] });
    await expect(tx2.commit()).rejects.toThrow('UPDATE a failed');
    expect(failing.log).toEqual(['UPDATE a', 'ROLLBACK', 'release']);
    expect(steps).toEqual([]);
  });

  it('refuses more once its transaction has ended: nothing collected after the end is lost unseen', async () => {
    const { begun: b } = begun();
    const tx = new OpenTransaction(b, () => undefined);
    await tx.commit();
    expect(() => tx.ctx.later({ sql: 'UPDATE a', params: [] })).toThrow('has ended');
    expect(() => tx.ctx.counts).toThrow('has ended');
    expect(() => tx.ctx.afterCommit(() => undefined)).toThrow('has ended');
  });
});

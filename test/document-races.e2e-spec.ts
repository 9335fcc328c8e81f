import request from 'supertest';
import { AllocationExpiry } from '../src/inventory/allocation-expiry.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { allocate, cancelAllocation, DAY_MS, type Doc, documentOf, fromNow, givenAllocation, givenExpectation, pack, shipExpectation, sleep, uniqueReference } from './support/documents.js';
import { eventsAfter, lastSeq, sequenced } from './support/events.js';
import { expectLedgerConsistent, givenStock, hold, issue, move, receive, stockOf } from './support/inventory.js';
import { metricValue, parseMetrics } from './support/metrics.js';

/**
 * Races on the stock documents (EXTENSIONS "Every stock state the spec
 * names"), through HTTP, on two instances of the service sharing one
 * database: requests on one allocation or expectation, and on its item and
 * warehouse, sent at once. Whatever order they run in, the answers add up to
 * the figures: committed + packed is what is left on the open allocations,
 * onOrder and aSN what is left on the open expectations, no operation that
 * takes available units drives it below 0, and an Issue against an
 * allocation never takes another's units. Each case ends with the ledger
 * check.
 */
describe(`races on allocations and expectations (${testDatabaseKind()})`, () => {
  let a: TestApp;
  let b: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    // Both instances look for expired allocations every second (ALLOCATION_EXPIRY_INTERVAL_SECONDS=1).
    a = await startTestApp({ config: { allocationExpirySeconds: 1 } });
    b = await startTestApp({ database: a.database, config: { allocationExpirySeconds: 1 } });
    admin = await givenClient(a, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /** Request i goes to a or b, in turn. */
  const instance = (i: number) => (i % 2 === 0 ? a : b);
  /** A new item with `units` in warehouse 1, in lots of at most 10. */
  const stockedItem = async (units: number) => {
    const { shortID } = await givenItem(a, admin.bearer);
    for (let left = units; left > 0; left -= 10) await givenStock(a, admin.bearer, { itemID: shortID, units: Math.min(10, left) });
    return shortID;
  };
  const levelOf = async (itemID: string, wid = 1) => (await stockOf(a, admin.bearer, itemID, wid))!;
  const allocationOf = (id: Doc['id']) => documentOf(a, admin.bearer, 'Allocation', id);
  /** Each answer as its status, and a 409 with its reason: {"200": 10, "409 allocation_closed": 15}. */
  const tally = (answers: request.Response[]) => {
    const out: Record<string, number> = {};
    for (const r of answers) {
      const k = r.status === 409 ? `409 ${r.body.details?.reason}` : String(r.status);
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  /** Every event since `from`, once both instances have given seqs to what they committed. */
  const eventsSince = async (from: number) => {
    await sequenced(b);
    return eventsAfter(a, admin.bearer, from);
  };
  /** db_transaction_retries_total of deadlocks and lock wait timeouts, over both instances (GET /metrics). */
  const retriesCounted = async () => {
    let n = 0;
    for (const t of [a, b]) {
      const samples = parseMetrics((await request(t.http).get('/metrics')).text);
      for (const cause of ['deadlock', 'lock_wait_timeout']) n += metricValue(samples, 'db_transaction_retries_total', { cause }) ?? 0;
    }
    return n;
  };
  const expiredEventsOf = (events: Awaited<ReturnType<typeof eventsSince>>, id: Doc['id']) => events.filter((e) => e.type === 'allocation.expired' && (e.data.allocation as Doc).id === id);

  describe('Issues against one allocation', () => {
    it('25 concurrent Issues of 1 against an allocation of 10: exactly 10 ship, the other 15 find it done; committed back, inStock down by 10, another allocation untouched', async () => {
      const itemID = await stockedItem(30);
      const target = await givenAllocation(a, admin.bearer, { itemID, units: 10 });
      const other = await givenAllocation(a, admin.bearer, { itemID, units: 5 });
      await pack(a, admin.bearer, other.id, { units: 2 }).expect(200);
      const otherBefore = await allocationOf(other.id);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 30, committed: 13, packed: 2, available: 15 });
      const from = await lastSeq(a);

      const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => issue(instance(i), admin.bearer, { itemID, units: 1, allocationId: target.id })));
      // Once the 10th ships, the allocation is done: what follows is a change of a done allocation (allocation_closed).
      expect(tally(answers)).toEqual({ 200: 10, '409 allocation_closed': 15 });
      for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'allocation_closed', allocationId: target.id, state: 'done' });
      expect(await allocationOf(target.id)).toMatchObject({ units: 10, shipped: 10, packed: 0, state: 'done' });
      expect(await allocationOf(other.id)).toEqual(otherBefore);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 20, onHold: 0, committed: 3, packed: 2, available: 15 });
      const issued = (await eventsSince(from)).filter((e) => e.type === 'stock.issued');
      expect(issued.map((e) => e.data.allocationId)).toEqual(Array(10).fill(target.id));
      await expectLedgerConsistent(a);
    });

    it('12 concurrent Issues of 3 against an allocation of 10: exactly 3 ship, the other 9 are refused for the 1 left (insufficient_stock); it stays open with 1 committed', async () => {
      const itemID = await stockedItem(20);
      const target = await givenAllocation(a, admin.bearer, { itemID, units: 10 });
      const other = await givenAllocation(a, admin.bearer, { itemID, units: 4 });
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => issue(instance(i), admin.bearer, { itemID, units: 3, allocationId: target.id })));
      expect(tally(answers)).toEqual({ 200: 3, '409 insufficient_stock': 9 });
      for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'insufficient_stock', itemID, wid: 1, requested: 3, available: 1 });
      expect(await allocationOf(target.id)).toMatchObject({ units: 10, shipped: 9, packed: 0, state: 'open' });
      expect(await allocationOf(other.id)).toMatchObject({ units: 4, shipped: 0, packed: 0, state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 11, committed: 5, packed: 0, available: 6 });
      await expectLedgerConsistent(a);
    });

    it('Issues against an allocation racing its Pack and its Cancel: shipped or cancelled, never both; the answers and the figures add up', async () => {
      const itemID = await stockedItem(100);
      const rounds = [];
      for (let round = 0; round < 8; round++) {
        const { id } = await givenAllocation(a, admin.bearer, { itemID, units: 6 });
        const requests = [
          () => issue(instance(round), admin.bearer, { itemID, units: 2, allocationId: id }),
          () => pack(instance(round + 1), admin.bearer, id, { units: 3 }),
          () => cancelAllocation(instance(round), admin.bearer, id),
          () => issue(instance(round + 1), admin.bearer, { itemID, units: 2, allocationId: id }),
        ];
        // Each round sends them in another order.
        const order = requests.map((_, i) => (i + round) % requests.length);
        const answers: request.Response[] = [];
        await Promise.all(order.map(async (k) => (answers[k] = await requests[k]())));
        rounds.push({ id, answers, after: await allocationOf(id) });
      }
      let shippedInAll = 0;
      for (const { id, answers, after } of rounds) {
        const [first, packed, cancelled, second] = answers;
        const issues = [first, second];
        expect(answers.filter((r) => ![200, 409].includes(r.status)).map((r) => r.text)).toEqual([]);
        // Nothing else closes it (the Issues ship 4 of its 6 units), so the Cancel always succeeds.
        expect(cancelled.status).toBe(200);
        expect(after.state).toBe('cancelled');
        // Nothing ships once it is cancelled: what the Cancel saw shipped is all that ever shipped, and it is the Issues that succeeded.
        const ok = issues.filter((r) => r.status === 200).length;
        expect(after.shipped).toBe(2 * ok);
        expect(cancelled.body.allocation).toMatchObject({ state: 'cancelled', shipped: after.shipped, packed: after.packed, units: 6 });
        for (const r of issues.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'allocation_closed', allocationId: id, state: 'cancelled' });
        // A Pack after both Issues finds 2 committed, too few for 3; after the Cancel, a closed allocation.
        if (packed.status === 409 && ok === 2 && packed.body.details.reason === 'insufficient_stock') expect(packed.body.details).toEqual({ reason: 'insufficient_stock', itemID, wid: 1, requested: 3, available: 2 });
        else if (packed.status === 409) expect(packed.body.details).toEqual({ reason: 'allocation_closed', allocationId: id, state: 'cancelled' });
        // A successful Pack packed 3, from which the Issues that came after it shipped first.
        if (packed.status === 200) {
          expect(packed.body.allocation.packed).toBe(3);
          expect(after.packed).toBeLessThanOrEqual(3);
        } else {
          expect(after.packed).toBe(0);
        }
        shippedInAll += after.shipped as number;
      }
      // Every allocation is cancelled: nothing is committed or packed, and the stock is down by exactly what shipped.
      expect(await levelOf(itemID)).toMatchObject({ inStock: 100 - shippedInAll, committed: 0, packed: 0, available: 100 - shippedInAll });
      await expectLedgerConsistent(a);
    });
  });

  it('plain Issues, Moves out and Holds racing Allocates never take allocated units: available never below 0, the successes add up to the stock, no deadlock', async () => {
    const itemID = await stockedItem(50);
    const kinds = [
      { name: 'allocate', units: 3, send: (t: TestApp) => allocate(t, admin.bearer, { itemID, units: 3, reference: uniqueReference() }) },
      { name: 'issue', units: 2, send: (t: TestApp) => issue(t, admin.bearer, { itemID, units: 2 }) },
      { name: 'move', units: 2.5, send: (t: TestApp) => move(t, admin.bearer, { itemID, units: 2.5, shipToWid: 2 }) },
      { name: 'hold', units: 1.5, send: (t: TestApp) => hold(t, admin.bearer, { itemID, units: 1.5 }) },
    ];
    // Meanwhile StockLevels is read again and again: available is never seen below 0.
    const seen: number[] = [];
    let racing = true;
    const watcher = (async () => {
      while (racing) seen.push((await levelOf(itemID)).available);
    })();
    const retriesBefore = await retriesCounted();
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => kinds[i % kinds.length].send(instance(i)).then((r) => ({ kind: kinds[i % kinds.length], r }))));
    racing = false;
    await watcher;
    expect(answers.filter(({ r }) => ![200, 201, 409].includes(r.status)).map(({ r }) => `${r.status} ${r.text}`)).toEqual([]);
    for (const { kind, r } of answers.filter((x) => x.r.status === 409)) {
      expect(r.body.details).toMatchObject({ reason: 'insufficient_stock', requested: kind.units });
      expect(r.body.details.available).toBeLessThan(kind.units);
    }
    const done = (name: string) => answers.filter(({ kind, r }) => kind.name === name && r.status < 300).length;
    const [allocated, issued, moved, held] = ['allocate', 'issue', 'move', 'hold'].map(done);
    const one = await levelOf(itemID, 1);
    const two = await levelOf(itemID, 2);
    // What left available: the units allocated, issued, held, and moved out (less held units a Move took: held already).
    const taken = 3 * allocated + 2 * issued + 1.5 * held + 2.5 * moved - two.onHold;
    expect(taken).toBeLessThanOrEqual(50);
    expect(one.available).toBe(50 - taken);
    // Held units a Move took travel with their hold to warehouse 2.
    expect({ inStock: one.inStock, committed: one.committed, packed: one.packed, onHold: one.onHold + two.onHold, moved: two.inStock }).toEqual({
      inStock: 50 - 2 * issued - 2.5 * moved,
      committed: 3 * allocated,
      packed: 0,
      onHold: 1.5 * held,
      moved: 2.5 * moved,
    });
    expect(one.available).toBe(one.inStock - one.onHold - one.committed);
    expect(one.available).toBeGreaterThanOrEqual(0);
    // 20 Allocates of 3 ask more than there is: the last one refused saw less than 3, and available only fell after it.
    expect(one.available).toBeLessThan(3);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((x) => x < 0)).toEqual([]);
    // The Issues, Moves and Holds split lots (an insert with a foreign key to the item) while the Allocates hold the
    // item: each takes the item before its stock_level row, so none waits for the other in a cycle (MariaDB).
    expect(await retriesCounted()).toBe(retriesBefore);
    await expectLedgerConsistent(a);
  });

  it('Ship of an expectation racing Receives against it: onOrder, aSN and inStock exact, stage and state as the answers say', async () => {
    const { shortID: itemID } = await givenItem(a, admin.bearer);
    // One expectation that the Receives leave open (8 of 10), one they pass (12 of 10).
    for (const [sent, units] of [
      [8, 10],
      [12, 10],
    ]) {
      const before = (await stockOf(a, admin.bearer, itemID, 1)) ?? { inStock: 0, aSN: 0 };
      const expectation = await givenExpectation(a, admin.bearer, { itemID, units });
      const receipts = Array.from({ length: sent }, (_, i) => () => receive(instance(i), admin.bearer, { itemID, units: 1, expectationId: expectation.id }));
      const ship = () => shipExpectation(instance(1), admin.bearer, expectation.id);
      // The Ship goes in the middle of the Receives.
      const half = sent / 2;
      const all = await Promise.all([...receipts.slice(0, half), ship, ...receipts.slice(half)].map((send) => send()));
      const shipped = all[half];
      const answers = all.filter((_, i) => i !== half);
      const received = Math.min(sent, units);
      expect(tally(answers)).toEqual(sent > units ? { 201: units, '409 expectation_closed': sent - units } : { 201: sent });
      const after = await documentOf(a, admin.bearer, 'Expectation', expectation.id);
      expect(after).toMatchObject({ units, received, state: received === units ? 'done' : 'open' });
      if (sent > units) {
        // The Ship either came before the last receipt (200) or found the expectation done.
        expect([200, 409]).toContain(shipped.status);
        if (shipped.status === 409) expect(shipped.body.details).toEqual({ reason: 'expectation_closed', expectationId: expectation.id, state: 'done' });
      } else {
        expect(shipped.status).toBe(200);
      }
      expect(after.stage).toBe(shipped.status === 200 ? 'shipped' : 'ordered');
      // Shipped: what was left then moved to aSN, and each receipt after it came off aSN.
      if (shipped.status === 200) expect(shipped.body.expectation).toMatchObject({ stage: 'shipped', state: 'open' });
      const left = units - received;
      expect(await levelOf(itemID)).toMatchObject({ inStock: before.inStock + received, onOrder: 0, aSN: before.aSN + left, committed: 0, packed: 0 });
    }
    await expectLedgerConsistent(a);
  });

  it('Receives against an expectation racing its Cancel: each receipt before the Cancel counts on it, each after is refused (expectation_closed); onOrder back to 0, inStock exact', async () => {
    const { shortID: itemID } = await givenItem(a, admin.bearer);
    const before = (await stockOf(a, admin.bearer, itemID, 1)) ?? { inStock: 0, onOrder: 0 };
    const expectation = await givenExpectation(a, admin.bearer, { itemID, units: 20 });
    const receipts = Array.from({ length: 12 }, (_, i) => () => receive(instance(i), admin.bearer, { itemID, units: 1, expectationId: expectation.id }));
    const cancel = () => request(instance(1).http).post(`/api/v1/Inventory/Expectations/${expectation.id}/Cancel`).set('Authorization', admin.bearer).send({});
    const all = await Promise.all([...receipts.slice(0, 6), cancel, ...receipts.slice(6)].map((send) => send()));
    const cancelled = all[6];
    const answers = all.filter((_, i) => i !== 6);
    expect(cancelled.status).toBe(200);
    const received = answers.filter((r) => r.status === 201).length;
    // Whichever came first: the answers are receipts and refusals, and nothing else (a count of 0 is no key of the tally).
    const expected: Record<string, number> = { 201: received, '409 expectation_closed': 12 - received };
    expect(tally(answers)).toEqual(Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)));
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'expectation_closed', expectationId: expectation.id, state: 'cancelled' });
    // The Cancel answered with what the receipts before it had received.
    expect(cancelled.body.expectation).toMatchObject({ state: 'cancelled', received });
    expect(await documentOf(a, admin.bearer, 'Expectation', expectation.id)).toMatchObject({ units: 20, received, state: 'cancelled' });
    expect(await levelOf(itemID)).toMatchObject({ inStock: before.inStock + received, onOrder: before.onOrder, aSN: 0 });
    await expectLedgerConsistent(a);
  });

  it('concurrent Packs of one allocation asking more than is committed: exactly what was committed is packed, the rest refused (insufficient_stock); committed and packed exact', async () => {
    const itemID = await stockedItem(20);
    const allocation = await givenAllocation(a, admin.bearer, { itemID, units: 10 });
    // 16 Packs of 1 on 10 committed, over both instances.
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => pack(instance(i), admin.bearer, allocation.id, { units: 1 })));
    expect(tally(answers)).toEqual({ 200: 10, '409 insufficient_stock': 6 });
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'insufficient_stock', itemID, wid: 1, requested: 1, available: 0 });
    // Each 200 answered the allocation as its Pack left it: packed 1, 2, ... 10, each once.
    expect(answers.filter((r) => r.status === 200).map((r) => r.body.allocation.packed).sort((x: number, y: number) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(await allocationOf(allocation.id)).toMatchObject({ units: 10, packed: 10, shipped: 0, state: 'open' });
    expect(await levelOf(itemID)).toMatchObject({ inStock: 20, committed: 0, packed: 10, available: 10 });
    await expectLedgerConsistent(a);
  });

  it('Allocates racing Receives of the same item, and Issues splitting its lots, complete without a deadlock to retry (db_transaction_retries_total); the figures are exact', async () => {
    const stocked = await stockedItem(20);
    // And an item with no stock at all yet: its first Receive creates the stock_level row the others wait for.
    const { shortID: fresh } = await givenItem(a, admin.bearer);
    const before = await retriesCounted();
    const send = (itemID: string, i: number) => {
      const t = instance(i >> 1);
      if (i % 4 === 0) return allocate(t, admin.bearer, { itemID, units: 1, reference: uniqueReference() });
      // Half a unit: each Issue splits a lot, inserting the part it takes.
      if (i % 4 === 2) return issue(t, admin.bearer, { itemID, units: 0.5 });
      return receive(t, admin.bearer, { itemID, units: 1 });
    };
    const answers = await Promise.all([stocked, fresh].flatMap((itemID) => Array.from({ length: 40 }, (_, i) => send(itemID, i).then((r) => ({ itemID, r })))));
    expect(answers.filter(({ r }) => ![200, 201, 409].includes(r.status)).map(({ r }) => `${r.status} ${r.text}`)).toEqual([]);
    for (const { r } of answers.filter((x) => x.r.status === 409)) expect(r.body.details).toMatchObject({ reason: 'insufficient_stock' });
    expect(await retriesCounted()).toBe(before);
    for (const [itemID, start] of [
      [stocked, 20],
      [fresh, 0],
    ] as const) {
      const mine = answers.filter((x) => x.itemID === itemID && x.r.status < 300).map(({ r }) => r.body.status);
      const [received, allocated, issued] = ['received', 'allocated', 'issued'].map((status) => mine.filter((s) => s === status).length);
      expect(received).toBe(20);
      const inStock = start + received - issued / 2;
      expect(await levelOf(itemID)).toMatchObject({ inStock, committed: allocated, packed: 0, available: inStock - allocated });
      expect(inStock - allocated).toBeGreaterThanOrEqual(0);
    }
    await expectLedgerConsistent(a);
  });

  describe('the expiry racing Issues against the allocation', () => {
    it('two instances expiring it at once while Issues ship from it: each unit shipped or released once, at most one allocation.expired event', async () => {
      const itemID = await stockedItem(100);
      const from = await lastSeq(a);
      const rounds = [];
      // Half of them partly packed: their packed units never expire, and the Issues ship those first.
      for (let round = 0; round < 6; round++) {
        const { id } = await givenAllocation(a, admin.bearer, { itemID, units: 8, expiresAt: fromNow(DAY_MS) });
        const packed = round % 2 ? 3 : 0;
        if (packed) await pack(a, admin.bearer, id, { units: packed }).expect(200);
        // Two days ahead: this allocation is due for these looks, and for no periodic one.
        const ahead = new Date(Date.now() + 2 * DAY_MS);
        const issues = Array.from({ length: 10 }, (_, i) => () => issue(instance(i), admin.bearer, { itemID, units: 1, allocationId: id }));
        const looks = [() => a.app.get(AllocationExpiry).expireDue(ahead), () => b.app.get(AllocationExpiry).expireDue(ahead)];
        // The looks go in among the Issues, at another place each round.
        const at = round % 5;
        const results = await Promise.all([...issues.slice(0, at), looks[0], ...issues.slice(at, at + 3), looks[1], ...issues.slice(at + 3)].map((send) => send()));
        const answers = results.filter((x): x is request.Response => typeof x !== 'number');
        const expiredByLooks = results.filter((x): x is number => typeof x === 'number').reduce((n, x) => n + x, 0);
        rounds.push({ id, answers, expiredByLooks, after: await allocationOf(id) });
      }
      const events = await eventsSince(from);
      let shippedInAll = 0;
      for (const { id, answers, expiredByLooks, after } of rounds) {
        const ok = answers.filter((r) => r.status === 200).length;
        expect(answers.filter((r) => ![200, 409].includes(r.status)).map((r) => r.text)).toEqual([]);
        // Whole units: an Issue refused finds the allocation closed (cancelled by the expiry, or done), never a part of a unit left.
        for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toMatchObject({ reason: 'allocation_closed', allocationId: id });
        expect(after.shipped).toBe(ok);
        const expired = expiredEventsOf(events, id);
        // The two looks expired it once between them, or not at all when the Issues had shipped every unpacked unit first.
        expect(expired.length).toBe(expiredByLooks);
        expect(expiredByLooks).toBeLessThanOrEqual(1);
        if (expiredByLooks) {
          const at = expired[0].data.allocation as Doc;
          // What the expiry released: what was committed then; with packed units left it stays open with them alone.
          expect(at.units).toBe((at.packed as number) > 0 ? (at.shipped as number) + (at.packed as number) : 8);
          expect(at.state).toBe((at.packed as number) > 0 ? 'open' : 'cancelled');
          // Nothing ships past what was left when it expired.
          expect(after.shipped).toBeLessThanOrEqual(at.units as number);
        } else {
          // The Issues shipped all 8 units (the packed ones first) before either look found any unpacked.
          expect(after).toMatchObject({ shipped: 8, state: 'done' });
        }
        expect(after.shipped).toBeLessThanOrEqual(8);
        shippedInAll += after.shipped as number;
      }
      const open = await Promise.all(rounds.map(({ id }) => allocationOf(id)));
      const left = open.filter((x) => x.state === 'open').reduce((n, x) => n + (x.units as number) - (x.shipped as number), 0);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 100 - shippedInAll, committed: 0, packed: left, available: 100 - shippedInAll - left });
      await expectLedgerConsistent(a);
    });

    it('the periodic expiry of both instances, at a short expiresAt, while Issues keep shipping from it: released once, one allocation.expired event, then nothing ships', async () => {
      const { shortID: itemID } = await givenItem(a, admin.bearer);
      await givenStock(a, admin.bearer, { itemID, units: 1000 });
      const from = await lastSeq(a);
      const expiresAt = fromNow(1500);
      const { id } = await givenAllocation(a, admin.bearer, { itemID, units: 1000, expiresAt });
      // Waves of 4 Issues of 0.5 until the allocation is closed to them (the expiry, within a second or two of expiresAt).
      const answers: request.Response[] = [];
      const deadline = Date.now() + 20_000;
      for (let wave = 0; Date.now() < deadline; wave++) {
        const sent = await Promise.all(Array.from({ length: 4 }, (_, i) => issue(instance(wave + i), admin.bearer, { itemID, units: 0.5, allocationId: id })));
        answers.push(...sent);
        if (sent.some((r) => r.status === 409)) break;
        await sleep(30);
      }
      // One more wave after it: still nothing.
      answers.push(...(await Promise.all(Array.from({ length: 4 }, (_, i) => issue(instance(i), admin.bearer, { itemID, units: 0.5, allocationId: id })))));
      expect(answers.filter((r) => ![200, 409].includes(r.status)).map((r) => r.text)).toEqual([]);
      for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ reason: 'allocation_closed', allocationId: id, state: 'cancelled' });
      const ok = answers.filter((r) => r.status === 200).length;
      expect(ok).toBeGreaterThan(0);
      const after = await allocationOf(id);
      expect(after).toMatchObject({ state: 'cancelled', units: 1000, packed: 0, shipped: ok / 2 });
      // Some more looks of both instances: it expires once.
      await sleep(2500);
      const expired = expiredEventsOf(await eventsSince(from), id);
      expect(expired.length).toBe(1);
      expect(expired[0].data.allocation).toMatchObject({ id, state: 'cancelled', shipped: ok / 2 });
      expect(Date.parse(expired[0].occurred)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
      expect(await levelOf(itemID)).toMatchObject({ inStock: 1000 - ok / 2, committed: 0, packed: 0, available: 1000 - ok / 2 });
      await expectLedgerConsistent(a);
    });
  });
});

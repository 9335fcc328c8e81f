import request from 'supertest';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, lotsOf, move, receive } from './support/inventory.js';

/** DECISIONS "General": body field names are matched case-insensitively, a field sent in two spellings is refused. */
describe(`body field names in any case (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** Three lots of a new item, oldest first: none of the selectors below names the oldest. */
  const givenThreeLots = async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const lots = [];
    for (const n of ['A', 'B', 'C']) {
      lots.push(await givenStock(t, admin.bearer, { itemID: shortID, units: 5, spot: `S-${n}`, serial: `SN-${n}`, serial2: `S2-${n}`, rfidTag: `TAG-${n}` }));
    }
    return { shortID, lots };
  };

  it.each([
    ['rFIDTag', 'TAG-C'],
    ['RFIDTAG', 'TAG-C'],
    ['Serial', 'SN-C'],
    ['SERIAL2', 'S2-C'],
    ['Spot', 'S-C'],
  ])('Issue with %s takes exactly the lot it names', async (field, value) => {
    const { shortID, lots } = await givenThreeLots();
    const res = await issue(t, admin.bearer, { itemID: shortID, units: 5, [field]: value });
    expect(res.status).toBe(200);
    expect(res.body.lots).toEqual([{ recNo: lots[2], fromRecNo: lots[2], units: 5 }]);
  });

  it('Issue with recNo (as a Lot shows it) takes exactly that lot, and 409 when it does not exist', async () => {
    const { shortID, lots } = await givenThreeLots();
    const res = await issue(t, admin.bearer, { itemID: shortID, units: 1, recNo: lots[1] });
    expect(res.status).toBe(200);
    expect(res.body.lots).toEqual([{ recNo: expect.any(Number), fromRecNo: lots[1], units: 1 }]);
    const none = await issue(t, admin.bearer, { itemID: shortID, units: 1, RecNo: 999999 });
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('conflict');
  });

  it('answers 409 for a selector in another spelling that matches no lot, and issues nothing', async () => {
    const { shortID, lots } = await givenThreeLots();
    for (const body of [{ rFIDTag: 'TAG-NEW' }, { Serial: 'SN-NEW2' }, { recNo: 999999 }]) {
      const res = await issue(t, admin.bearer, { itemID: shortID, units: 1, ...body });
      expect(res.status).toBe(409);
    }
    const rest = await lotsOf(t, admin.bearer, shortID);
    expect(rest.map((l) => [l.recNo, l.units])).toEqual(lots.map((recNo) => [recNo, 5]));
  });

  it('Receive stores rFIDTag, Serial and JobID sent in the spelling of a Lot', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const res = await receive(t, admin.bearer, { ItemID: shortID, Units: 3, rFIDTag: 'TAG-R', Serial: 'SN-R', jobID: 7 });
    expect(res.status).toBe(201);
    expect(res.body.lot).toMatchObject({ rFIDTag: 'TAG-R', serial: 'SN-R', jobID: 7, units: 3 });
  });

  it('Move with FromSpot and ToSpot moves the lot named', async () => {
    const { shortID, lots } = await givenThreeLots();
    const res = await move(t, admin.bearer, { itemID: shortID, units: 5, FromSpot: 'S-B', ToSpot: 'S-Z' });
    expect(res.status).toBe(200);
    expect(res.body.lots).toEqual([{ recNo: lots[1], fromRecNo: lots[1], units: 5, wid: 1, spot: 'S-Z' }]);
  });

  it('refuses one field sent twice in different spellings with validation_error on that field', async () => {
    const { shortID } = await givenThreeLots();
    const lotsBefore = await lotsOf(t, admin.bearer, shortID);
    const res = await issue(t, admin.bearer, { itemID: shortID, units: 1, serial: 'SN-A', Serial: 'SN-B' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', details: { serial: [expect.stringMatching(/serial was sent more than once/)] } });
    expect(Object.keys(res.body.details)).toEqual(['serial']);
    expect(await lotsOf(t, admin.bearer, shortID)).toEqual(lotsBefore);
    const item = await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: 'TWICE-1', ShortID: 'TWICE-2' });
    expect(item.status).toBe(400);
    expect(Object.keys(item.body.details)).toEqual(['shortID']);
  });

  it('keeps distinct documented names distinct: category and categoryID are not one field sent twice', async () => {
    const res = await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ ShortID: 'CAT-1', Category: 4, CategoryID: 9, UOM: 'KG' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ shortID: 'CAT-1', category: 4, uOM: 'KG' });
  });
});

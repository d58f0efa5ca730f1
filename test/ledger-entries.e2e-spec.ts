import { randomUUID } from 'node:crypto';
import { billingMonth } from '../src/metering/counter-keys.js';
import { parseCsv } from './support/csv.js';
import {
  BIG_COUNT,
  BIG_MONTH,
  MONTH,
  type ChargeData,
  type LedgerFixture,
  useLedgerFixture,
} from './support/ledger-fixture.js';

/** GET /orgs/{org_id}/ledger on a known history of charges: order, filters, pages, the CSV exports. */
describe('finance and audit: usage, the ledger, its CSV export and `ledger verify`', () => {
  const fixture = useLedgerFixture();
  const { ledger } = fixture;
  let owner: LedgerFixture['owner'];
  let projectB: LedgerFixture['projectB'];
  let opsKey: LedgerFixture['opsKey'];
  let march: LedgerFixture['march'];
  let all: LedgerFixture['all'];
  beforeAll(() => {
    ({ owner, projectB, opsKey, march, all } = fixture);
  });

  describe('GET /orgs/{org_id}/ledger', () => {
    test('newest first by default, with the totals of the whole filter on every page', async () => {
      const response = await ledger(`?month=${MONTH}&limit=2`);
      expect(response.status).toBe(200);
      expect(response.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual(
        march
          .slice(-2)
          .reverse()
          .map((c) => c.charge_id),
      );
      expect(response.body.totals).toEqual({ live: { entries: 5, credits: 8 }, test: { entries: 1, credits: 0.5 } });
      const rest = await ledger(`?month=${MONTH}&limit=10&cursor=${response.body.next_cursor}`);
      expect(rest.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual(
        march
          .slice(0, -2)
          .reverse()
          .map((c) => c.charge_id),
      );
      expect(rest.body.totals).toEqual(response.body.totals);
      const filtered = await ledger(`?month=${MONTH}&environment=test`);
      expect(filtered.body.totals).toEqual({ live: { entries: 0, credits: 0 }, test: { entries: 1, credits: 0.5 } });
      const extract = march[2]!;
      const all = await ledger(`?month=${MONTH}`);
      const explained = (all.body.entries as { charge_id: string; price_explanation: string }[]).find(
        (e) => e.charge_id === extract.charge_id,
      );
      expect(explained?.price_explanation).toBe(
        'basic extraction: 5 successful URLs (1 credit per 5, counted over the month), 1 block of 5 completed by ' +
          'this call: 1 credit; 1 failed URL free',
      );
    });

    test('entries of a month in the order of the event store (order=asc), with every column', async () => {
      const response = await ledger(`?month=${MONTH}&order=asc`);
      expect(response.status).toBe(200);
      expect(response.body.next_cursor).toBeNull();
      const entries = response.body.entries as Record<string, unknown>[];
      expect(entries.map((e) => e.charge_id)).toEqual(march.map((c) => c.charge_id));
      const positions = entries.map((e) => [BigInt(e.commit_position as string), BigInt(e.prepare_position as string)]);
      for (let i = 1; i < positions.length; i++) {
        const [c0, p0] = positions[i - 1]!;
        const [c1, p1] = positions[i]!;
        expect(c1! > c0! || (c1 === c0 && p1! > p0!)).toBe(true);
      }
      const vertical = march[4]!;
      expect(entries[4]).toEqual({
        paid_by: { allowance: 2, grants: [], overage: 0 },
        commit_position: expect.stringMatching(/^\d+$/),
        prepare_position: expect.stringMatching(/^\d+$/),
        occurred_at: '2031-03-02T12:00:00.000Z',
        charge_id: vertical.charge_id,
        billing_month: MONTH,
        corrects_month: null,
        org_id: owner.orgId,
        project_id: owner.projectId,
        project_name: 'Main',
        project_name_now: null,
        key_id: opsKey.id,
        key_name: 'Ops, "primary"',
        key_name_now: null,
        key_prefix: opsKey.prefix,
        key_environment: 'live',
        operation: 'vertical',
        channel: 'mcp',
        depth: 'products',
        credits: 2,
        request_id: vertical.request_id,
        idempotency_key: 'idem-1',
        counts: { results: 10 },
        pricing: { items: [{ item: 'vertical:basic', credits: 2 }], units: null },
        price_explanation: 'basic vertical search: 2 credits',
      });
      expect(entries[3]).toMatchObject({ key_environment: 'test', credits: 0.5, key_name: 'CI' });
    });

    test('filters: project, key, operation, environment, month; another organization never shows', async () => {
      const ids = async (query: string) => {
        const response = await ledger(`${query}${query ? '&' : '?'}order=asc`);
        expect(response.status).toBe(200);
        return (response.body.entries as { charge_id: string }[]).map((e) => e.charge_id);
      };
      const of = (pick: (c: ChargeData) => boolean, from = march) => from.filter(pick).map((c) => c.charge_id);
      expect(await ids(`?month=${MONTH}&project_id=${projectB}`)).toEqual(of((c) => c.project_id === projectB));
      expect(await ids(`?month=${MONTH}&key_id=${opsKey.id}`)).toEqual(of((c) => c.key_id === opsKey.id));
      expect(await ids(`?month=${MONTH}&operation=search`)).toEqual(of((c) => c.operation === 'search'));
      expect(await ids(`?month=${MONTH}&environment=test`)).toEqual(of((c) => c.key_environment === 'test'));
      expect(await ids(`?month=${MONTH}&environment=live&operation=crawl&project_id=${projectB}`)).toEqual(
        of((c) => c.operation === 'crawl'),
      );
      expect(await ids('?month=2031-04')).toEqual(of((c) => c.billing_month === '2031-04', all));
      expect(await ids(`?month=${MONTH}&key_id=${randomUUID()}`)).toEqual([]);
      const everything = await ids('?month=all&limit=500');
      expect(everything).toEqual(all.slice(0, 500).map((c) => c.charge_id));
    });

    test('the current UTC month by default, as GET /usage; month=all for every month', async () => {
      const now = billingMonth(new Date());
      const current = all.filter((c) => c.billing_month === now);
      expect(current).toHaveLength(1);
      const response = await ledger();
      expect(response.status).toBe(200);
      expect(response.body.entries.map((e: { charge_id: string }) => e.charge_id)).toEqual([current[0]!.charge_id]);
      expect(response.body.totals).toEqual({ live: { entries: 1, credits: 1 }, test: { entries: 0, credits: 0 } });
      const explicit = await ledger(`?month=${now}`);
      expect(explicit.body).toEqual(response.body);
      const every = await ledger('?month=all&limit=1');
      expect(every.body.totals).toEqual({
        live: { entries: all.length - 1, credits: 8 + 1 + 1 + BIG_COUNT },
        test: { entries: 1, credits: 0.5 },
      });
      const exported = await ledger('', owner.session, { accept: 'text/csv' });
      expect(exported.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-${owner.orgId}-${now}.csv"`,
      );
      expect(parseCsv(exported.body as string)).toHaveLength(2);
    });

    test('pagination: following next_cursor visits every entry exactly once, in order', async () => {
      const walk = async (filters: string, limit: number, order: 'asc' | 'desc' = 'asc') => {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const response = await ledger(`?${filters}order=${order}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
          expect(response.status).toBe(200);
          const entries = response.body.entries as { charge_id: string }[];
          expect(entries.length).toBeLessThanOrEqual(limit);
          seen.push(...entries.map((e) => e.charge_id));
          cursor = response.body.next_cursor;
          if (cursor !== null) expect(entries).toHaveLength(limit);
          pages++;
        } while (cursor !== null);
        return { seen, pages };
      };
      const march2 = await walk(`month=${MONTH}&`, 2);
      expect(march2).toEqual({ seen: march.map((c) => c.charge_id), pages: 3 });
      const newest = await walk(`month=${MONTH}&`, 4, 'desc');
      expect(newest).toEqual({ seen: march.map((c) => c.charge_id).reverse(), pages: 2 });
      const live = await walk(`month=${MONTH}&environment=live&`, 4);
      expect(live.seen).toEqual(march.filter((c) => c.key_environment === 'live').map((c) => c.charge_id));
      expect(live.pages).toBe(2);
      const everything = await walk('month=all&', 500);
      expect(everything.seen).toEqual(all.map((c) => c.charge_id));
      expect(new Set(everything.seen).size).toBe(all.length);
      expect(everything.pages).toBe(Math.ceil(all.length / 500));
      const first = await ledger(`?month=${MONTH}`);
      expect(first.body.entries).toHaveLength(march.length);
      const defaultLimit = await ledger(`?month=${BIG_MONTH}`);
      expect(defaultLimit.body.entries).toHaveLength(100);
      expect(defaultLimit.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    test('Accept: text/csv exports every matching entry as RFC 4180 CSV', async () => {
      const response = await ledger(`?month=${MONTH}&limit=1&order=asc`, owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-${owner.orgId}-${MONTH}.csv"`,
      );
      const text = response.body as string;
      expect(text).toContain('"Ops, ""primary"""');
      const [header, ...rows] = parseCsv(text);
      expect(header).toEqual([
        'commit_position',
        'prepare_position',
        'occurred_at',
        'charge_id',
        'billing_month',
        'corrects_month',
        'org_id',
        'project_id',
        'project_name',
        'project_name_now',
        'key_id',
        'key_name',
        'key_name_now',
        'key_prefix',
        'key_environment',
        'operation',
        'channel',
        'depth',
        'credits',
        'request_id',
        'idempotency_key',
        'counts',
        'pricing',
        'paid_allowance',
        'paid_grants',
        'paid_overage',
        'paid_grants_detail',
      ]);
      expect(rows).toHaveLength(march.length);
      const column = (name: string) => header!.indexOf(name);
      expect(rows.map((r) => r[column('charge_id')])).toEqual(march.map((c) => c.charge_id));
      expect(rows[4]![column('key_name')]).toBe('Ops, "primary"');
      expect(rows[4]![column('idempotency_key')]).toBe('idem-1');
      expect(rows[0]![column('idempotency_key')]).toBe('');
      expect(rows[3]![column('credits')]).toBe('0.5');
      expect(JSON.parse(rows[2]![column('pricing')]!)).toEqual(march[2]!.pricing);
      // What paid each charge: live ones from the allowance here (1,000 a month); the test key's has no split.
      const paid = (r: string[]) =>
        ['allowance', 'grants', 'overage', 'grants_detail'].map((p) => r[column(`paid_${p}`)]);
      expect(paid(rows[1]!)).toEqual(['2', '0', '0', '[]']);
      expect(paid(rows[3]!)).toEqual(['', '', '', '']);

      const filtered = await ledger(`?month=${MONTH}&environment=test`, owner.session, { accept: 'text/csv' });
      expect(parseCsv(filtered.body as string)).toHaveLength(2);
    });

    test('format=finance: readable columns, billable or not, the price explained, newest first, totals', async () => {
      const response = await ledger(`?month=${MONTH}&format=finance`, owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="ledger-finance-${owner.orgId}-${MONTH}.csv"`,
      );
      const [header, ...rows] = parseCsv(response.body as string);
      expect(header).toEqual([
        'Record',
        'Time (UTC)',
        'Billing month',
        'Project',
        'Project now',
        'Key',
        'Key now',
        'Key prefix',
        'Environment',
        'Billable',
        'Operation',
        'Depth',
        'Via',
        'Credits',
        'Price',
        'Request id',
        'Charge id',
        'Idempotency key',
        'Paid by allowance',
        'Paid by grants',
        'Paid as overage',
      ]);
      const charges = rows.slice(0, march.length);
      expect(charges.map((r) => r[0])).toEqual(march.map(() => 'charge'));
      expect(charges.map((r) => r[16])).toEqual(march.map((c) => c.charge_id).reverse());
      const vertical = charges.find((r) => r[16] === march[4]!.charge_id)!;
      expect(vertical).toEqual([
        'charge',
        '2031-03-02 12:00:00.000',
        MONTH,
        'Main',
        '',
        'Ops, "primary"',
        '',
        opsKey.prefix,
        'live',
        'yes',
        'vertical',
        'products',
        'MCP',
        '2',
        'basic vertical search: 2 credits',
        march[4]!.request_id,
        march[4]!.charge_id,
        'idem-1',
        '2',
        '0',
        '0',
      ]);
      const billable = (row: string[]) => row[9];
      expect(charges.filter((r) => billable(r) === 'no').map((r) => r[8])).toEqual(['test']);
      expect(charges.filter((r) => billable(r) === 'yes').map((r) => r[8])).toEqual(march.slice(1).map(() => 'live'));
      // Closing records: one total per environment, never live and test added together.
      const blank = (values: Record<number, string>) => header!.map((_, i) => values[i] ?? '');
      expect(rows.slice(march.length)).toEqual([
        blank({ 0: 'total', 2: MONTH, 8: 'live', 9: 'yes', 13: '8', 14: '5 live charges', 18: '8', 19: '0', 20: '0' }),
        blank({ 0: 'total', 2: MONTH, 8: 'test', 9: 'no', 13: '0.5', 14: '1 test charge' }),
      ]);
      expect(response.body as string).not.toContain('{"');

      const test = await ledger(`?month=${MONTH}&format=finance&environment=test`, owner.session, {
        accept: 'text/csv',
      });
      const testRows = parseCsv(test.body as string).slice(1);
      expect(testRows.map((r) => [r[0], r[8], r[13]])).toEqual([
        ['charge', 'test', '0.5'],
        ['total', 'test', '0.5'],
      ]);
      const every = await ledger('?month=all&format=finance', owner.session, { accept: 'text/csv' });
      const totals = parseCsv(every.body as string).filter((r) => r[0] === 'total');
      expect(totals.map((r) => [r[2], r[8], r[13], r[14]])).toEqual([
        ['', 'live', String(8 + 1 + 1 + BIG_COUNT), `${5 + 2 + BIG_COUNT} live charges`],
        ['', 'test', '0.5', '1 test charge'],
      ]);
    });

    test('a CSV export is not one page: every entry of every month (month=all), in order', async () => {
      const response = await ledger('?month=all&order=asc', owner.session, { accept: 'text/csv' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="ledger-${owner.orgId}-all.csv"`);
      const [header, ...rows] = parseCsv(response.body as string);
      expect(rows).toHaveLength(all.length);
      expect(all.length).toBeGreaterThan(1000);
      const id = header!.indexOf('charge_id');
      expect(rows.map((r) => r[id])).toEqual(all.map((c) => c.charge_id));
      const big = await ledger(`?month=${BIG_MONTH}`, owner.session, { accept: 'text/csv' });
      expect(parseCsv(big.body as string)).toHaveLength(BIG_COUNT + 1);
    });

    test.each([
      ['month=2031-13', /^month /],
      ['month=', /^month /],
      ['month=ALL', /^month /],
      ['month=every', /^month /],
      ['limit=0', /^limit /],
      ['limit=501', /^limit /],
      ['limit=abc', /^limit /],
      ['limit=1.5', /^limit /],
      ['limit=-1', /^limit /],
      ['cursor=nope', /^cursor /],
      [`cursor=${Buffer.from('1:x').toString('base64url')}`, /^cursor /],
      ['project_id=nope', /^project_id /],
      ['key_id=123', /^key_id /],
      ['operation=mcp', /^operation /],
      ['environment=prod', /^environment /],
      ['order=newest', /^order /],
      ['format=xlsx', /^format /],
    ])('%s is a 400 naming the field', async (query, field) => {
      for (const accept of ['application/json', 'text/csv']) {
        const response = await ledger(`?${query}`, owner.session, { accept });
        expect(response.status).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.body.error).toMatch(field);
        expect(response.body.detail).toEqual({ error: response.body.error });
      }
    });
  });
});

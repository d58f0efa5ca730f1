import { BackendPriority } from '../database/backend-priority.js';
import { Database } from '../database/database.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { readCachedPages } from '../page-cache/read-cached-pages.js';
import { DocumentIndexWriter, contentHash } from './document-index.writer.js';

describe('DocumentIndexWriter', () => {
  let database: TestDatabase;
  let writer: DocumentIndexWriter;

  beforeAll(async () => {
    database = await createTestDatabase(['index']);
    writer = new DocumentIndexWriter(database.db);
  });
  afterAll(() => database.drop());

  const page = (url: string, content: string) => ({
    url,
    title: 'A page',
    content,
    publishedDate: new Date('2024-03-01T00:00:00Z'),
    language: 'en',
    favicon: 'https://e.test/favicon.ico',
    images: ['https://e.test/a.png'],
    structuredData: [{ '@type': 'Article', headline: 'A page' }],
    fetchedAt: new Date(),
  });

  test('upserts by URL: a second write of a page replaces its row', async () => {
    expect(await writer.upsert([page('https://e.test/a', 'first'), page('https://e.test/b', 'other')])).toBe(2);
    expect(await writer.upsert([page('https://e.test/a', 'second')])).toBe(1);
    const { rows } = await database.db.query(
      `SELECT url, domain, content, content_hash, images, structured_data, published_date FROM documents ORDER BY url`,
    );
    expect(rows).toEqual([
      {
        url: 'https://e.test/a',
        domain: 'e.test',
        content: 'second',
        content_hash: contentHash('second'),
        images: ['https://e.test/a.png'],
        structured_data: [{ '@type': 'Article', headline: 'A page' }],
        published_date: new Date('2024-03-01T00:00:00Z'),
      },
      expect.objectContaining({ url: 'https://e.test/b', content: 'other' }),
    ]);
  });

  test('NUL characters (PostgreSQL refuses them) are dropped, and one bad row does not sink its batch', async () => {
    const docs = Array.from({ length: 3 }, (_, i) => page(`https://e.test/nul-${i}`, `text\u0000 ${i}`));
    const broken = { ...page('https://e.test/broken', 'x'), publishedDate: new Date('invalid') };
    expect(await writer.upsert([...docs, broken])).toBe(3);
    const { rows } = await database.db.query(`SELECT content FROM documents WHERE url LIKE '%nul-%' ORDER BY url`);
    expect(rows.map((r) => r.content)).toEqual(['text 0', 'text 1', 'text 2']);
  });

  /** The test database as one backend (embedded mode) with `priority`, and the rows of each INSERT it runs. */
  const singleBackend = (priority = new BackendPriority(true)) => {
    const { pool, schema, connectionString } = database.db;
    const db = new Database(pool, schema, connectionString, priority);
    const statements: number[] = [];
    const query = db.query.bind(db);
    db.query = ((text: string, values?: unknown[][]) => {
      if (text.includes('INSERT INTO documents')) statements.push(values![0]!.length);
      return query(text, values);
    }) as typeof db.query;
    return { db, statements };
  };

  test('on one backend (embedded) a batch is cut into short statements, and every row is written', async () => {
    const { db, statements } = singleBackend();
    const docs = Array.from({ length: 40 }, (_, i) => page(`https://e.test/long-${i}`, `word${i} `.repeat(2_000)));
    expect(await new DocumentIndexWriter(db).upsert(docs)).toBe(40);
    expect(statements.length).toBeGreaterThan(1);
    expect(statements.reduce((sum, rows) => sum + rows, 0)).toBe(40);
    const { rows } = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM documents WHERE url LIKE '%/long-%'`,
    );
    expect(rows[0]?.n).toBe(40);
  });

  test('on one backend, statements hold more rows while no search has run for a while', async () => {
    const rowsPerStatement = async (priority: BackendPriority, prefix: string) => {
      const { db, statements } = singleBackend(priority);
      const docs = Array.from({ length: 60 }, (_, i) => page(`https://e.test/${prefix}-${i}`, `word${i} `.repeat(60)));
      expect(await new DocumentIndexWriter(db).upsert(docs)).toBe(60);
      return statements;
    };
    const searched = new BackendPriority(true);
    await searched.foreground(async () => {});
    const whileSearching = await rowsPerStatement(searched, 'busy');
    const whileQuiet = await rowsPerStatement(new BackendPriority(true), 'quiet');
    expect(whileQuiet.length).toBeLessThan(whileSearching.length);
    expect(Math.max(...whileQuiet)).toBeGreaterThan(Math.max(...whileSearching));
  });

  test('keeps the links of a page that has them, and none (unknown) for a page written without', async () => {
    const links = [
      { url: 'https://e.test/next', text: 'Next | Onwards' },
      { url: 'https://other.test/', text: '' },
    ];
    await writer.upsert([{ ...page('https://e.test/linked', 'x'), links }, page('https://e.test/unlinked', 'y')]);
    const copies = await readCachedPages(database.db, ['https://e.test/linked', 'https://e.test/unlinked'], true);
    expect(copies.get('https://e.test/linked')?.links).toEqual(links);
    expect(copies.get('https://e.test/unlinked')?.links).toBeNull();
    const withoutLinks = await readCachedPages(database.db, ['https://e.test/linked']);
    expect(withoutLinks.get('https://e.test/linked')?.links).toBeNull();
  });

  test('fromPage: the canonical URL, a published date only when it parses, the links normalized', () => {
    const extracted = {
      url: 'https://E.test/docs/?utm_source=x#top',
      title: null,
      rawContent: 'body',
      images: [],
      favicon: null,
      publishedDate: 'not a date',
      language: null,
      structuredData: [],
      links: [
        { url: 'https://E.test/a?utm_medium=y&b=2#part', text: 'A' },
        { url: 'mailto:someone@e.test', text: 'mail' },
      ],
      contentType: 'text/html',
    };
    expect(DocumentIndexWriter.fromPage(extracted)).toMatchObject({
      url: 'https://e.test/docs/',
      publishedDate: null,
      links: [{ url: 'https://e.test/a?b=2', text: 'A' }],
    });
    // A page that says nofollow leaves no links to follow.
    expect(DocumentIndexWriter.fromPage({ ...extracted, noFollow: true })?.links).toEqual([]);
  });
});

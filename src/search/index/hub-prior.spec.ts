import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { textDocument } from '../../../test/support/indexed-document.js';
import { DocumentIndexWriter, type IndexedDocument } from '../../documents/document-index.writer.js';
import { LocalIndex } from './local-index.js';

/**
 * A documentation site's index page lists every term of a question in its entries; the page that answers it should
 * still rank first. Written through the document writer (which measures each page's link and list share) and ranked
 * on the test PostgreSQL.
 */

const SITE = 'https://docs.hub.test';

const page = (path: string, title: string, content: string) => textDocument(`${SITE}${path}`, title, content);

const ENTRIES = [
  'static files',
  'static files, serving in production',
  'static files, web server',
  'static files storage',
  'serving static files',
  'serving files, web server',
  'web server',
  'web server, production',
  'production, static files',
  'production settings',
  'collectstatic command',
  'media files',
  'file uploads',
  'caching static files',
  'deployment checklist',
];

const CORPUS: IndexedDocument[] = [
  page(
    '/howto/static-files/deployment.html',
    'How to deploy static files',
    'In production, the web server serves static files directly rather than the application. Run the collectstatic ' +
      'command to copy every static file into one directory, then point the web server at that directory so that ' +
      'requests for static files never reach the application. Files that users upload are media, not static: they ' +
      'need storage of their own, and the application checks permissions before it hands them out. A content ' +
      'delivery network can stand in front of the server and cache what it sends for as long as the headers allow.',
  ),
  page(
    '/genindex.html',
    'Index',
    ENTRIES.map((entry) => `-   [${entry}](${SITE}/ref/${entry.length}.html)`).join('\n\n'),
  ),
  page('/topics/forms.html', 'Working with forms', 'Forms validate user input and render HTML widgets for each field.'),
  page('/topics/db/queries.html', 'Making queries', 'A query set reads rows from the database lazily, when iterated.'),
  page('/ref/settings.html', 'Settings', 'Settings are module-level constants read once when the process starts.'),
];

const QUERY = 'how should static files be served by the web server in production';

describe('hub-page prior', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(['index']);
    await new DocumentIndexWriter(database.db).upsert(CORPUS);
  });
  afterAll(async () => {
    await database.drop();
  });

  const topUrls = async () => {
    const index = new LocalIndex(database.db);
    const ranked = await index.rank(await index.analyze(QUERY), { limit: 2 });
    return ranked.documents.map((d) => d.url.slice(SITE.length));
  };

  test('the writer measures each page: the index page is all entries, the answer is prose', async () => {
    const { rows } = await database.db.query<{ url: string; share: number }>(
      'SELECT url, link_list_share AS share FROM documents ORDER BY url',
    );
    const share = new Map(rows.map((r) => [r.url.slice(SITE.length), r.share]));
    expect(share.get('/genindex.html')).toBeGreaterThan(0.95);
    expect(share.get('/howto/static-files/deployment.html')).toBe(0);
  });

  test('the index page ranks below the page that answers, and only because of the prior', async () => {
    expect(await topUrls()).toEqual(['/howto/static-files/deployment.html', '/genindex.html']);
    await database.db.query('UPDATE documents SET link_list_share = 0');
    expect(await topUrls()).toEqual(['/genindex.html', '/howto/static-files/deployment.html']);
  });
});

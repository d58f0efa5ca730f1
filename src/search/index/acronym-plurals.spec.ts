import { textDocument } from '../../../test/support/indexed-document.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { DocumentIndexWriter } from '../../documents/document-index.writer.js';
import { LocalIndexProvider } from '../providers/local-index.provider.js';
import { unfilteredSearchRequest as request } from '../search-request.js';

/** Acronym plurals (migration 026): "GPUs" and "GPU" are one term for the index, its queries and its snippets. */
describe('acronym plurals', () => {
  let database: TestDatabase;
  let provider: LocalIndexProvider;
  beforeAll(async () => {
    database = await createTestDatabase(['index']);
    provider = new LocalIndexProvider(database.db, { mode: 'services' });
    await new DocumentIndexWriter(database.db).upsert([
      textDocument(
        'https://hw.test/gpus',
        'Renting cloud machines',
        [
          ...Array.from({ length: 12 }, (_, i) => `Region ${i + 1} has its own prices, quotas and network rules.`),
          'Most providers rent GPUs by the hour, and spot GPUs cost less.',
        ].join(' '),
      ),
      textDocument('https://hw.test/cpu', 'One CPU', 'A CPU with many cores compiles faster.'),
      textDocument('https://docs.test/pdf', 'Exporting', 'Reports can be saved as PDFs from the print menu.'),
      textDocument('https://bio.test/rna', 'Noncoding transcripts', 'Several lncRNAs regulate translation.'),
      textDocument('https://med.test/aids', 'AIDS', 'AIDS is caused by HIV.'),
    ]);
  });
  afterAll(async () => {
    await provider.onModuleDestroy();
    await database.drop();
  });

  test.each([
    ['GPUs and CPUs', 'GPU and CPU'],
    ['lncRNAs, miRNAs and NSAIDs', 'lncRNA, miRNA and NSAID'],
    ['CD4s, MP3s and PDFs.', 'CD4, MP3 and PDF.'],
    // left alone: all capitals, a single capital, ordinary words, a capital S
    ['AIDS, GPUS, Ms, Ts, DNases, buses, iOS, SaaS', 'AIDS, GPUS, Ms, Ts, DNases, buses, iOS, SaaS'],
    // the sentence rule of migration 020 still applies
    ['found in GPUs.We then', 'found in GPU. We then'],
  ])('search_text(%j) is %j', async (input, expected) => {
    const { rows } = await database.db.query<{ text: string }>('SELECT search_text($1) AS text', [input]);
    expect(rows[0]!.text).toBe(expected);
  });

  test('a singular query finds the page in the plural, and a plural query the page in the singular', async () => {
    const urls = async (query: string) =>
      (await provider.search(request(query, 'basic', 5))).map((hit) => new URL(hit.url).pathname);
    expect(await urls('GPU rental')).toEqual(['/gpus']);
    expect(await urls('CPUs')).toEqual(['/cpu']);
    expect(await urls('export a PDF')).toEqual(['/pdf']);
    expect(await urls('lncRNA')).toEqual(['/rna']);
    expect(await urls('AIDS')).toEqual(['/aids']);
  });

  test('the snippet and the advanced passage are the sentence with the plural, not the opening', async () => {
    for (const depth of ['basic', 'advanced'] as const) {
      const [hit] = await provider.search(request('GPU', depth, 1));
      expect(hit!.content).toContain('spot GPUs cost less');
      expect(hit!.content).not.toContain('Region 1 ');
    }
  });
});

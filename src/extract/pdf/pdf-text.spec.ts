import { readFileSync } from 'node:fs';
import { isPdf, pdfToText } from './pdf-text.js';

const report = readFileSync('test/fixtures/site/pdf/report.pdf');

describe('pdfToText', () => {
  test('reads every page in order, with the title from the metadata', async () => {
    const pdf = await pdfToText(report);
    expect(pdf.title).toBe('Annual Report on Tidal Energy');
    expect(pdf.pages).toBe(2);
    expect(pdf.text).toContain('Tidal turbines produced 42 gigawatt hours in the northern estuary.');
    expect(pdf.text.indexOf('Maintenance costs fell')).toBeLessThan(pdf.text.indexOf('Outlook'));
    expect(pdf.text).toContain('Grid operators expect tidal power to smooth the evening peak.');
    expect(pdf.text).toMatch(/previous year\.\n\nOutlook/);
  });

  test('a PDF without a title in its metadata is titled by its first line', async () => {
    const untitled = Buffer.from(
      report.toString('latin1').replace('/Title (Annual Report on Tidal Energy)', '/Title (report.docx)'),
      'latin1',
    );
    expect((await pdfToText(untitled)).title).toBe('Annual Report on Tidal Energy');
  });

  test('garbage is an error, not an empty text', async () => {
    await expect(pdfToText(Buffer.from('%PDF-1.4\nnot really a pdf'))).rejects.toThrow();
  });

  test('isPdf trusts the type or the magic bytes', () => {
    expect(isPdf(report, 'application/octet-stream')).toBe(true);
    expect(isPdf(Buffer.from('<html>'), 'application/pdf')).toBe(true);
    expect(isPdf(Buffer.from('<html>'), 'text/html')).toBe(false);
  });
});

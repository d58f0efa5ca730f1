import { extractText, getDocumentProxy, getMeta } from 'unpdf';

export interface PdfText {
  readonly title: string | null;
  /** The text, one paragraph per page block, pages separated by a blank line. */
  readonly text: string;
  readonly pages: number;
  readonly language: string | null;
}

export function isPdf(body: Buffer, contentType: string): boolean {
  return contentType === 'application/pdf' || body.subarray(0, 5).toString('latin1') === '%PDF-';
}

/** Titles that PDF writers put in by themselves, which name the file rather than the document. */
const GENERATED_TITLE = /^(untitled|microsoft (word|powerpoint|excel) - .*|.*\.(docx?|pptx?|xlsx?|pdf|tex|dvi))$/i;

/** The text of a PDF (PDF.js through unpdf, without script evaluation), and its title from the metadata. */
export async function pdfToText(body: Buffer): Promise<PdfText> {
  const pdf = await getDocumentProxy(new Uint8Array(body), {
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    // Errors only: PDF.js warns on stdout about fonts it does not need for text.
    verbosity: 0,
  });
  try {
    const [{ info }, { text, totalPages }] = await Promise.all([
      getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> })),
      extractText(pdf, { mergePages: false }),
    ]);
    const pages = (text as string[]).map(tidyPage).filter(Boolean);
    const metaTitle = typeof info.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
    const firstLine = pages[0]?.split('\n')[0]?.trim() ?? '';
    const title = metaTitle && !GENERATED_TITLE.test(metaTitle) ? metaTitle : firstLine.slice(0, 200) || null;
    const language = typeof info.Language === 'string' && info.Language ? info.Language : null;
    return { title, text: pages.join('\n\n'), pages: totalPages, language };
  } finally {
    await pdf.destroy().catch(() => {});
  }
}

function tidyPage(page: string): string {
  return page
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A Content-Type header split into its media type (lower-case) and charset parameter. */
export interface ParsedContentType {
  readonly mediaType: string;
  readonly charset: string | null;
}

export function parseContentType(header: string | undefined): ParsedContentType | null {
  if (!header) return null;
  const [type, ...params] = header.split(';');
  const mediaType = (type ?? '').trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return null;
  let charset: string | null = null;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (match?.[1]) charset = match[1].toLowerCase();
  }
  return { mediaType, charset };
}

const ACCEPTED = new Set([
  'text/html',
  'application/xhtml+xml',
  'application/pdf',
  'text/plain',
  'application/json',
  'application/ld+json',
  'application/xml',
  'text/xml',
  'application/rss+xml',
  'application/atom+xml',
]);

/**
 * The media types the fetcher returns: HTML, XHTML, PDF, plain text, JSON and XML (sitemaps, feeds). Any other
 * `+json` / `+xml` type counts as JSON / XML.
 */
export function isAcceptedMediaType(mediaType: string): boolean {
  return ACCEPTED.has(mediaType) || /^application\/[a-z0-9.-]+\+(json|xml)$/.test(mediaType);
}

/** A gzip file (typically a `.xml.gz` sitemap): the fetcher unpacks it, and its content decides what it is. */
export function isGzipFileMediaType(mediaType: string): boolean {
  return mediaType === 'application/gzip' || mediaType === 'application/x-gzip';
}

/** Types a server sends when it does not know better; the body decides what they are. */
export function isUntypedMediaType(mediaType: string): boolean {
  return mediaType === 'application/octet-stream' || mediaType === 'binary/octet-stream';
}

/** Whether the body of this media type is text (so it has a charset). PDF is the one binary type accepted. */
export function isTextMediaType(mediaType: string): boolean {
  return mediaType !== 'application/pdf';
}

export function isHtmlMediaType(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

export function isXmlMediaType(mediaType: string): boolean {
  return mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml');
}

/**
 * What an untyped body is, from its first bytes: a PDF, HTML, XML, or (only when the server sent no type at all)
 * plain text if it has no NUL bytes. Null when it is none of those.
 */
export function sniffMediaType(body: Buffer, noTypeAtAll: boolean): string | null {
  if (body.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  const head = body
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart();
  const lower = head.toLowerCase();
  if (/^<!doctype html|^<html|^<head|^<body|^<!--/.test(lower)) return 'text/html';
  if (lower.startsWith('<?xml')) return 'application/xml';
  if (noTypeAtAll && !body.subarray(0, 4096).includes(0)) return 'text/plain';
  return null;
}

import chardet from 'chardet';
import iconv from 'iconv-lite';
import { isHtmlMediaType, isTextMediaType, isXmlMediaType } from './content-type.js';

/** How far into an HTML or XML document a `<meta charset>` or XML declaration is looked for. */
const PRESCAN_BYTES = 4096;
const SNIFF_BYTES = 64 * 1024;

/** Labels that browsers (the WHATWG Encoding Standard) read as another encoding, for the ones seen in practice. */
const ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  iso8859_1: 'windows-1252',
  'iso8859-1': 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  l1: 'windows-1252',
  'us-ascii': 'windows-1252',
  ascii: 'windows-1252',
  cp1252: 'windows-1252',
  'x-cp1252': 'windows-1252',
  cp819: 'windows-1252',
  ibm819: 'windows-1252',
  'iso-ir-100': 'windows-1252',
  'iso-8859-9': 'windows-1254',
  latin5: 'windows-1254',
  'iso-8859-11': 'windows-874',
  'tis-620': 'windows-874',
  utf8: 'utf-8',
  'unicode-1-1-utf-8': 'utf-8',
  'utf-16': 'utf-16le',
  unicode: 'utf-16le',
  gb2312: 'gbk',
  'x-gbk': 'gbk',
  chinese: 'gbk',
  'shift-jis': 'shift_jis',
  sjis: 'shift_jis',
  'x-sjis': 'shift_jis',
  ms_kanji: 'shift_jis',
  'windows-31j': 'shift_jis',
  'ks_c_5601-1987': 'euc-kr',
  'x-euc-jp': 'euc-jp',
};

/** A charset label as the name we decode with (lower-case), or null when the label names no encoding we know. */
export function normalizeCharset(label: string | null | undefined): string | null {
  if (!label) return null;
  const name = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, '');
  const resolved = ALIASES[name] ?? name;
  return iconv.encodingExists(resolved) ? resolved : null;
}

export function charsetFromBom(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/** `<meta charset>`, `<meta http-equiv="Content-Type" content="…; charset=…">` or an XML declaration's encoding. */
export function charsetFromMarkup(body: Buffer): string | null {
  const head = body.subarray(0, PRESCAN_BYTES).toString('latin1');
  const xml = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1]) return asciiCompatible(normalizeCharset(xml[1]));
  for (const tag of head.matchAll(/<meta\b[^>]*>/gi)) {
    const attributes = attributesOf(tag[0]);
    const charset = attributes.get('charset');
    if (charset) return asciiCompatible(normalizeCharset(charset));
    if (attributes.get('http-equiv')?.toLowerCase() === 'content-type') {
      const inContent = /charset\s*=\s*["']?([^"';\s]+)/i.exec(attributes.get('content') ?? '');
      if (inContent?.[1]) return asciiCompatible(normalizeCharset(inContent[1]));
    }
  }
  return null;
}

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(/(?<![a-z-])([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))/gi)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

/** A document that could be read as ASCII to find its declaration is not UTF-16: browsers take UTF-8 then. */
function asciiCompatible(charset: string | null): string | null {
  return charset?.startsWith('utf-16') ? 'utf-8' : charset;
}

function isValidUtf8(body: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}

/** A guess from the bytes: UTF-8 when they are valid UTF-8, else chardet's best guess, else windows-1252. */
export function sniffCharset(body: Buffer): string {
  if (isValidUtf8(body)) return 'utf-8';
  const guess = normalizeCharset(chardet.detect(body.subarray(0, SNIFF_BYTES)));
  return guess && guess !== 'utf-8' ? guess : 'windows-1252';
}

/**
 * The charset of a text body: a byte-order mark first (it wins, as in browsers), then the Content-Type charset,
 * then for HTML and XML a declaration in the document's first 4 KiB, else a guess from the bytes. Null for binary
 * content (PDF).
 */
export function detectCharset(body: Buffer, mediaType: string, headerCharset: string | null): string | null {
  if (!isTextMediaType(mediaType)) return null;
  return (
    charsetFromBom(body) ??
    normalizeCharset(headerCharset) ??
    (isHtmlMediaType(mediaType) || isXmlMediaType(mediaType) ? charsetFromMarkup(body) : null) ??
    sniffCharset(body)
  );
}

/** The body as a string, decoded with `charset` (UTF-8 when null); a leading byte-order mark is dropped. */
export function decodeBody(body: Buffer, charset: string | null): string {
  return iconv.decode(body, charset ?? 'utf-8');
}

import iconv from 'iconv-lite';
import { charsetFromMarkup, decodeBody, detectCharset, normalizeCharset } from './decode-body.js';

describe('charset detection', () => {
  it('normalizes labels the way browsers read them', () => {
    expect(normalizeCharset('ISO-8859-1')).toBe('windows-1252');
    expect(normalizeCharset('"latin1"')).toBe('windows-1252');
    expect(normalizeCharset('UTF8')).toBe('utf-8');
    expect(normalizeCharset('Shift-JIS')).toBe('shift_jis');
    expect(normalizeCharset('koi8-r')).toBe('koi8-r');
    expect(normalizeCharset('no-such-charset')).toBeNull();
  });

  it('finds <meta charset>, http-equiv and XML declarations in the first 4 KiB only', () => {
    expect(charsetFromMarkup(Buffer.from('<html><head><META CHARSET=koi8-r>'))).toBe('koi8-r');
    expect(charsetFromMarkup(Buffer.from(`<meta content='text/html; charset=euc-jp' http-equiv='Content-Type'>`))).toBe(
      'euc-jp',
    );
    expect(charsetFromMarkup(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
    expect(charsetFromMarkup(Buffer.from(`<?xml version="1.0" encoding='Shift_JIS'?><r/>`))).toBe('shift_jis');
    expect(charsetFromMarkup(Buffer.from(`${' '.repeat(5000)}<meta charset="koi8-r">`))).toBeNull();
  });

  it('orders BOM, header, markup and sniffing', () => {
    const html = (s: string) => Buffer.from(`<!doctype html><meta charset="koi8-r"><p>${s}</p>`);
    expect(detectCharset(html('x'), 'text/html', 'iso-8859-2')).toBe('iso-8859-2');
    expect(detectCharset(html('x'), 'text/html', null)).toBe('koi8-r');
    expect(detectCharset(html('x'), 'text/plain', null)).toBe('utf-8'); // markup only counts in HTML and XML
    expect(detectCharset(Buffer.from([0xff, 0xfe, 0x41, 0x00]), 'text/plain', 'utf-8')).toBe('utf-16le');
    expect(detectCharset(Buffer.from('%PDF-1.4'), 'application/pdf', 'utf-8')).toBeNull();
  });

  it('sniffs a legacy single-byte page and decodes it', () => {
    const text = 'Ça coûte très cher, dit-il à sa sœur : « déjà ? » '.repeat(30);
    const body = iconv.encode(text, 'windows-1252');
    const charset = detectCharset(body, 'text/html', null);
    expect(charset).toBe('windows-1252');
    expect(decodeBody(body, charset)).toBe(text);
  });
});

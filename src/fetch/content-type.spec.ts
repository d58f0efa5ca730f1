import { isAcceptedMediaType, parseContentType, sniffMediaType } from './content-type.js';
import { contentCodings } from './read-body.js';

describe('content types and codings', () => {
  it('parses Content-Type', () => {
    expect(parseContentType('Text/HTML; Charset="UTF-8"')).toEqual({ mediaType: 'text/html', charset: 'utf-8' });
    expect(parseContentType('application/pdf')).toEqual({ mediaType: 'application/pdf', charset: null });
    expect(parseContentType('garbage')).toBeNull();
    expect(parseContentType(undefined)).toBeNull();
  });

  it.each([
    ['text/html', true],
    ['application/xhtml+xml', true],
    ['application/pdf', true],
    ['text/plain', true],
    ['application/json', true],
    ['application/vnd.api+json', true],
    ['application/xml', true],
    ['text/xml', true],
    ['application/rss+xml', true],
    ['application/atom+xml', true],
    ['image/png', false],
    ['text/css', false],
    ['application/zip', false],
    ['video/mp4', false],
  ])('accepts %s: %s', (type, accepted) => {
    expect(isAcceptedMediaType(type)).toBe(accepted);
  });

  it('sniffs untyped bodies', () => {
    expect(sniffMediaType(Buffer.from('%PDF-1.7 ...'), false)).toBe('application/pdf');
    expect(sniffMediaType(Buffer.from('\n  <!DOCTYPE html><p>'), false)).toBe('text/html');
    expect(sniffMediaType(Buffer.from('<?xml version="1.0"?><urlset>'), false)).toBe('application/xml');
    expect(sniffMediaType(Buffer.from('just words'), true)).toBe('text/plain');
    expect(sniffMediaType(Buffer.from('just words'), false)).toBeNull();
    expect(sniffMediaType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), true)).toBeNull();
  });

  it('undoes codings in reverse order of application', () => {
    expect(contentCodings('gzip, br')).toEqual(['br', 'gzip']);
    expect(contentCodings('identity')).toEqual([]);
    expect(contentCodings(undefined)).toEqual([]);
  });
});

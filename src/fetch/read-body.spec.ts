import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { BodyTooLargeError, CorruptBodyError, readBody } from './read-body.js';

/** A body that arrives in small chunks, as from a socket. */
const streamOf = (data: Buffer, chunk = 16 * 1024) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += chunk) yield data.subarray(i, i + chunk);
    })(),
  );

describe('readBody', () => {
  const text = Buffer.from(Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`).join(''));

  it.each([
    ['gzip', 'gzip', zlib.gzipSync(text)],
    ['br', 'br', zlib.brotliCompressSync(text)],
    ['zlib deflate', 'deflate', zlib.deflateSync(text)],
    ['raw deflate', 'deflate', zlib.deflateRawSync(text)],
    ['gzip then br', 'gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))],
    ['identity', '', text],
  ])('decodes a large body (%s)', async (_name, coding, encoded) => {
    const body = await readBody(streamOf(encoded), coding || undefined, 64 * 1024 * 1024);
    expect(body.equals(text)).toBe(true);
  });

  it.each([
    ['gzip', 'gzip', zlib.gzipSync],
    ['zlib deflate', 'deflate', zlib.deflateSync],
    ['raw deflate', 'deflate', zlib.deflateRawSync],
    ['br', 'br', zlib.brotliCompressSync],
  ] as const)('stops a bomb at the cap and destroys the source (%s)', async (_name, coding, compress) => {
    const source = streamOf(compress(Buffer.alloc(16 * 1024 * 1024)));
    await expect(readBody(source, coding, 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(source.destroyed).toBe(true);
  });

  it('reports a corrupt or truncated body', async () => {
    await expect(readBody(streamOf(Buffer.from('not gzip at all')), 'gzip', 1024)).rejects.toBeInstanceOf(
      CorruptBodyError,
    );
    const truncated = zlib.deflateSync(text).subarray(0, 1000);
    await expect(readBody(streamOf(truncated), 'deflate', 64 * 1024 * 1024)).rejects.toBeInstanceOf(CorruptBodyError);
  });
});

import { pipeline as chain, type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/** The decompressed body grew past the cap. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`body larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** A Content-Encoding we cannot undo. */
export class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content encoding ${encoding}`);
    this.name = 'UnsupportedEncodingError';
  }
}

/** The body could not be decompressed (corrupt or truncated). */
export class CorruptBodyError extends Error {
  constructor(cause: unknown) {
    super('the compressed body is corrupt', { cause });
    this.name = 'CorruptBodyError';
  }
}

/** The codings of a Content-Encoding header, in the order they must be undone (the last applied first). */
export function contentCodings(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
}

/**
 * `deflate` is meant to be zlib-wrapped (RFC 9110) but some servers send raw DEFLATE: look at the first byte (a zlib
 * stream starts with a CMF byte whose low nibble is 8) and pick the decoder.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      const inner = (chunk[0]! & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw();
      inner.on('data', (data: Buffer) => {
        if (!this.push(data)) inner.pause();
      });
      inner.on('error', (error) => this.destroy(error));
      this.inner = inner;
    }
    this.inner.write(chunk, () => callback());
  }

  override _read(size: number): void {
    this.inner?.resume();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) return callback();
    this.inner.once('end', () => callback());
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

function decoderFor(coding: string): Transform {
  // Flush on truncation instead of failing outright would hide cut-off bodies; decoders fail on corrupt input.
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return new DeflateDecoder();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new UnsupportedEncodingError(coding);
  }
}

/**
 * Reads a response body into memory, undoing its Content-Encoding and counting the DECOMPRESSED bytes: past
 * `maxBytes` the read stops at once (the streams are destroyed, which aborts the download) with BodyTooLargeError.
 */
export async function readBody(
  body: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Buffer> {
  let decoders: Transform[];
  try {
    decoders = contentCodings(contentEncoding).map(decoderFor);
  } catch (error) {
    body.on('error', () => {});
    body.destroy();
    throw error;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const collect = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
      chunks.push(chunk);
    }
  };
  try {
    // Each link destroys the others when it fails or closes early, so stopping `collect` aborts the download.
    const decoded = decoders.reduce<Readable>((source, decoder) => chain(source, decoder, () => {}), body);
    await pipeline(decoded, collect, signal ? { signal } : {});
  } catch (error) {
    if (decoders.length > 0 && isZlibError(error)) throw new CorruptBodyError(error);
    throw error;
  }
  return Buffer.concat(chunks, total);
}

function isZlibError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR');
}

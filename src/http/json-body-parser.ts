import { HttpException, HttpStatus } from '@nestjs/common';
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { errorBody } from './error-body.js';

/** JSON is UTF-8 (RFC 8259 §8.1): `charset=utf-8`, or no charset at all. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8']);

/**
 * Why the headers of a JSON body rule it out (415), or null. The server decodes no content coding and no charset
 * but UTF-8: a body it would read as something else than what was sent (a gzip-coded body parsed as plain text,
 * UTF-16 read as UTF-8) is refused instead of served on a guess.
 */
export function jsonHeadersProblem(headers: IncomingHttpHeaders): { message: string; acceptEncoding?: true } | null {
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    return {
      message:
        'Unsupported Media Type: request bodies are not decoded; send the JSON uncompressed (no Content-Encoding)',
      acceptEncoding: true,
    };
  }
  const charset = mediaTypeParameter(headers['content-type'] ?? '', 'charset');
  if (charset !== undefined && !UTF8_CHARSETS.has(charset.toLowerCase())) {
    return { message: 'Unsupported Media Type: JSON bodies must be UTF-8 (charset=utf-8, or no charset)' };
  }
  return null;
}

/** The value of a media type's parameter (`charset` of `application/json; charset="UTF-8"`), unquoted. */
export function mediaTypeParameter(contentType: string, name: string): string | undefined {
  for (const part of contentType.split(';').slice(1)) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim().toLowerCase() !== name) continue;
    const value = part.slice(at + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** `fatal`: bytes that are not UTF-8 throw instead of becoming U+FFFD; a leading byte order mark is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The application/json parser: refuses (415) the charsets and content codings `jsonHeadersProblem` names and (400) a
 * body that is not UTF-8, then parses as Fastify's own parser does (prototype poisoning refused).
 */
export function strictJsonParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const problem = jsonHeadersProblem(request.headers);
    if (problem) {
      const refusal = new HttpException(errorBody(problem.message), HttpStatus.UNSUPPORTED_MEDIA_TYPE);
      // The exception filter sends an exception's `headers` (RFC 9110 §15.5.16: say which codings are accepted).
      if (problem.acceptEncoding) Object.assign(refusal, { headers: { 'Accept-Encoding': 'identity' } });
      return done(refusal, undefined);
    }
    let text: string;
    try {
      text = UTF8.decode(body);
    } catch {
      return done(new HttpException(errorBody('the JSON body is not valid UTF-8'), HttpStatus.BAD_REQUEST), undefined);
    }
    parse(request, text, done);
  };
}

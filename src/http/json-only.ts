import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiUnsupportedMediaTypeResponse } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorResponseDto } from './dto/error-response.dto.js';
import { errorBody } from './error-body.js';

/** The Fastify route config flag `JsonOnly()` sets. */
const JSON_ONLY = 'jsonOnly';

/**
 * A route whose body can only be JSON (the data plane): a request whose Content-Type is another media type (a form,
 * text, multipart) is refused with 415 before anything else runs (no key lookup, no rate limit, no charge). The JSON
 * parser (`strictJsonParser`) refuses other charsets and content codings, for every route.
 */
export function JsonOnly(options: { documented?: boolean } = {}): MethodDecorator {
  const flag = RouteConfig({ [JSON_ONLY]: true });
  // A route that documents its own 415 (POST /mcp: a JSON-RPC error body) says `documented: false`.
  if (options.documented === false) return flag;
  return applyDecorators(
    flag,
    ApiUnsupportedMediaTypeResponse({
      description: 'The body is not JSON: Content-Type must be application/json (UTF-8), without Content-Encoding.',
      type: ErrorResponseDto,
    }),
  );
}

export function installJsonOnlyRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if ((request.routeOptions.config as { [JSON_ONLY]?: unknown } | undefined)?.[JSON_ONLY] !== true) return;
    const type = request.headers['content-type'];
    // Without a Content-Type, Fastify refuses a body (415) and lets a body-less request through to validation.
    if (type === undefined || type.split(';')[0]!.trim().toLowerCase() === 'application/json') return;
    return reply
      .status(415)
      .send(errorBody('Unsupported Media Type: the body must be JSON (Content-Type: application/json)'));
  });
}

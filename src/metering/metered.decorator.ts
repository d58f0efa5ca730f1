import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ApiResponseOptions } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, from, lastValueFrom } from 'rxjs';
import { ApiMeteredResponses, type ResponseBody } from '../http/openapi/api-route.decorators.js';
import type { MeteredOperationSpec } from './metered-operation.js';
import { type Caller, MeteringPipeline, type WorkOutcome } from './pipeline/metering-pipeline.js';
import { takeApiKey } from './take-api-key.js';

const METERED_OPERATION = Symbol('METERED_OPERATION');
type SpecOf = MeteredOperationSpec | ((request: FastifyRequest) => MeteredOperationSpec);
type MeteredRequest = FastifyRequest & { caller?: Caller };

/**
 * Puts a REST route behind the metering pipeline. The handler returns a WorkOutcome (its response body and the
 * counts that price it); the pipeline turns it into the response, with usage headers and the charge recorded.
 * `response` is the class of that body (or a schema over classes): the route's OpenAPI answers are the pipeline's.
 */
export function Metered(
  spec: SpecOf,
  response: ResponseBody,
  otherAnswers: ApiResponseOptions[] = [],
): MethodDecorator {
  return applyDecorators(
    SetMetadata(METERED_OPERATION, spec),
    UseInterceptors(MeteredInterceptor),
    ApiMeteredResponses(response, otherAnswers),
  );
}

/** The authenticated caller of a metered route (its key, organization and plan). */
export const MeteredCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<MeteredRequest>().caller;
  if (!caller) throw new Error('@MeteredCaller() is only available on @Metered() routes');
  return caller;
});

@Injectable()
export class MeteredInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly pipeline: MeteringPipeline,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(this.run(context, next));
  }

  private async run(context: ExecutionContext, next: CallHandler): Promise<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<MeteredRequest>();
    const reply = http.getResponse<FastifyReply>();
    const declared = this.reflector.get<SpecOf>(METERED_OPERATION, context.getHandler());
    const spec = typeof declared === 'function' ? declared(request) : declared;
    const { apiKey, body } = takeApiKey(request);
    const idempotencyKey = request.headers['idempotency-key'];
    const response = await this.pipeline.execute(
      {
        spec,
        channel: 'rest',
        apiKey,
        body,
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
        // The concrete path (not the route pattern): one key on two verticals is two different requests.
        route: `${request.method} ${normalizedPath(request.url)}`,
        requestId: request.id,
      },
      async (caller) => {
        request.caller = caller;
        return (await lastValueFrom(next.handle())) as WorkOutcome;
      },
    );
    void reply.status(response.status).headers(response.headers);
    return response.body;
  }
}

/** The path as routing sees it: no query, no duplicate or trailing slashes (clients that join base URLs add them). */
function normalizedPath(url: string): string {
  return (url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
}

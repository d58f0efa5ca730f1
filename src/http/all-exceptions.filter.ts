import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { errorBody } from './error-body.js';
import { isUnavailableDependency } from './unavailable-dependency.js';

/** Maps every failure to the spec's JSON error body; anything unexpected is a logged 500 that reveals nothing. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const headers = (exception as { headers?: unknown }).headers;
      if (headers && typeof headers === 'object') void reply.headers(headers as Record<string, string>);
      void reply.status(status).send(toBody(exception.getResponse(), exception.message));
      return;
    }
    const fastifyStatus = (exception as { statusCode?: number }).statusCode;
    if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      void reply.status(fastifyStatus).send(errorBody((exception as Error).message));
      return;
    }
    if (isUnavailableDependency(exception)) {
      this.logger.error({ err: exception }, 'a dependency is unavailable');
      void reply
        .status(HttpStatus.SERVICE_UNAVAILABLE)
        .header('Retry-After', '5')
        .send(errorBody('The service is temporarily unavailable; retry shortly.'));
      return;
    }
    this.logger.error({ err: exception }, 'unhandled error');
    void reply.status(HttpStatus.INTERNAL_SERVER_ERROR).send(errorBody('Internal server error'));
  }
}

function toBody(response: string | object, fallback: string): Record<string, unknown> {
  if (typeof response === 'string') return errorBody(response);
  const r = response as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof r.error === 'string' && r.detail) return r as Record<string, unknown>;
  const message = Array.isArray(r.message)
    ? String(r.message[0])
    : typeof r.message === 'string'
      ? r.message
      : fallback;
  return errorBody(message);
}

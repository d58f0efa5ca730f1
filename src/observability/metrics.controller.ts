import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { METRICS_UNAUTHORIZED, metricsAccessAllowed } from './metrics-access.js';
import { METRICS_REGISTRY } from './metrics.js';

/**
 * Prometheus text exposition on the public listener (unless METRICS_PORT moves it to a listener of its own).
 * Unauthenticated like the health probes unless METRICS_TOKEN is set.
 */
@Controller()
@ApiTags('Operations')
export class MetricsController {
  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Prometheus metrics (text exposition format) */
  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Metrics.', schema: { type: 'string' } })
  @ApiUnauthorizedResponse({ description: 'METRICS_TOKEN is set and the request does not carry it.' })
  async metrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | object> {
    if (!metricsAccessAllowed(this.config.metricsToken, authorization)) {
      void reply.status(401).header('www-authenticate', 'Bearer');
      return errorBody(METRICS_UNAUTHORIZED);
    }
    const body = await this.registry.metrics();
    void reply.header('content-type', this.registry.contentType);
    return body;
  }
}

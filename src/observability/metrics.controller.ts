import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { refuseMetricsScrape } from './metrics-access.js';
import { METRICS_REGISTRY } from './metrics.js';

/**
 * Prometheus text exposition on the public listener (unless METRICS_PORT moves it to a listener of its own): for the
 * METRICS_TOKEN bearer token when one is set; else for this machine only (loopback peers whose request no proxy
 * forwarded), or for anyone with METRICS_PUBLIC=true.
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
  @ApiForbiddenResponse({
    description: 'No METRICS_TOKEN and no METRICS_PUBLIC=true, and the request does not come from this machine.',
  })
  async metrics(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | object> {
    const refusal = refuseMetricsScrape(this.config, {
      authorization: request.headers.authorization,
      peer: request.socket.remoteAddress,
      headers: request.headers,
    });
    if (refusal) {
      void reply.status(refusal.status).headers(refusal.headers);
      return refusal.body;
    }
    const body = await this.registry.metrics();
    void reply.header('content-type', this.registry.contentType);
    return body;
  }
}

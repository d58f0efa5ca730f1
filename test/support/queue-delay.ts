import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/** The request header that says how long the request waits in the stand-in queue, in milliseconds. */
export const QUEUE_DELAY_HEADER = 'x-test-queue-ms';
/** The request header that says how long its response waits once the work is done (a CPU short after the reading). */
export const SEND_DELAY_HEADER = 'x-test-send-ms';

@Injectable()
class QueueDelayHook implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // preHandler: after every onRequest hook (the arrival is noted), before the guards, the metering and the work.
    fastify.addHook('preHandler', (request, _reply, done) => {
      const ms = Number(request.headers[QUEUE_DELAY_HEADER] ?? 0);
      if (ms > 0) setTimeout(done, ms);
      else done();
    });
    fastify.addHook('onSend', (request, _reply, payload, done) => {
      const ms = Number(request.headers[SEND_DELAY_HEADER] ?? 0);
      if (ms > 0) setTimeout(() => done(null, payload), ms);
      else done(null, payload);
    });
  }
}

/**
 * A stand-in for time spent queued before a request's work (a busy event loop, a database pool, a metering step):
 * a request with the QUEUE_DELAY_HEADER waits that long after its arrival before anything else happens to it; one with
 * the SEND_DELAY_HEADER waits that long between its work and its response (the analysis, ranking and charge of a
 * search waiting for the CPU). Added to
 * a test app with `modules: [QueueDelayModule]`.
 */
@Module({ providers: [QueueDelayHook] })
export class QueueDelayModule {}

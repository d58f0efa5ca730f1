// The built server (dist/), started exactly as main.ts starts it (startServer: event-loop watchdog, then the app),
// plus two routes that exist only in tests: `POST /test/wedge?ms=N` blocks the event loop for N ms (as a regular
// expression backtracking would); `GET /test/wait?ms=N` sends its status line and headers at once (so the client
// knows the request is in flight) and ends its body N ms later, without blocking the loop. Plain JavaScript
// (Nest's decorators applied as functions), because the tests run the build, not the TypeScript sources.
import 'reflect-metadata';
import { Controller, Get, HttpCode, Module, Post, Query, Res } from '@nestjs/common';
import { startServer } from '../../dist/src/app/start-server.js';
import { ConfigError, loadConfig } from '../../dist/src/config/app-config.js';

class WedgeController {
  wedge(ms) {
    const until = Date.now() + Number(ms);
    while (Date.now() < until) {
      // the event loop is blocked
    }
    return { wedged_ms: Number(ms) };
  }

  wait(ms, reply) {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/plain' });
    reply.raw.write('waiting\n');
    setTimeout(() => reply.raw.end('done\n'), Number(ms));
  }
}

// What a compiler emitting decorator metadata would record (the validation pipe asks for it).
Reflect.defineMetadata('design:paramtypes', [String], WedgeController.prototype, 'wedge');
Reflect.defineMetadata('design:paramtypes', [String, Object], WedgeController.prototype, 'wait');

const decorate = (method, ...decorators) => {
  const descriptor = Object.getOwnPropertyDescriptor(WedgeController.prototype, method);
  for (const decorator of decorators) decorator(WedgeController.prototype, method, descriptor);
};
Query('ms')(WedgeController.prototype, 'wedge', 0);
Query('ms')(WedgeController.prototype, 'wait', 0);
Res()(WedgeController.prototype, 'wait', 1);
decorate('wedge', Post('test/wedge'), HttpCode(200));
decorate('wait', Get('test/wait'));
Controller()(WedgeController);

class WedgeModule {}
Module({ controllers: [WedgeController] })(WedgeModule);

try {
  await startServer(loadConfig(), { modules: [WedgeModule] });
} catch (error) {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error.stack}\n`);
  process.exit(1);
}

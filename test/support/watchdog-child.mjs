// A child process running the built event-loop watchdog alone:
// `node watchdog-child.mjs <limitMs> <blockMs> <action> [idleMs]` starts it, puts one request on its board
// (POST /extract, request id child-req-1), blocks its event loop for blockMs, then prints `block over`, lets the loop
// turn for idleMs (default 2000: time for the watchdog to see it unblocked) and has nothing left to do: it ends,
// unless the watchdog keeps it alive.
import { EventLoopWatchdog } from '../../dist/src/observability/watchdog/event-loop-watchdog.js';

const [limitMs, blockMs, action, idleMs = '2000'] = process.argv.slice(2);
const watchdog = EventLoopWatchdog.start({
  limitMs: Number(limitMs),
  action,
  logLevel: 'info',
  onError: (error) => process.stderr.write(`watchdog failed: ${error.stack}\n`),
});
watchdog.enter({ method: 'POST', route: '/extract', requestId: 'child-req-1' });
setTimeout(() => {
  const until = Date.now() + Number(blockMs);
  while (Date.now() < until) {
    // the event loop is blocked
  }
  process.stdout.write('block over\n');
  setTimeout(() => {}, Number(idleMs));
}, 100);

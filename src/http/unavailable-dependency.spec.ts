import { ClientOfflineError, SocketClosedUnexpectedlyError, TimeoutError } from 'redis';
import { RedisNotAnsweringError } from '../redis/redis-stall-watch.js';
import { isUnavailableDependency } from './unavailable-dependency.js';

describe('isUnavailableDependency', () => {
  test.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    [Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    [Object.assign(new Error('The client is closed'), { name: 'ClientClosedError' })],
    [new Error('Connection terminated unexpectedly')],
    // node-redis's own classes, whose `name` stays 'Error': Redis killed mid-command, offline, a queued command timed out.
    [new SocketClosedUnexpectedlyError()],
    [new ClientOfflineError()],
    [new TimeoutError()],
    // A Redis that stopped answering on an open connection: the call is refused before it sends anything.
    [new RedisNotAnsweringError(3000)],
    [new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })],
  ])('%s is a dependency outage', (error) => {
    expect(isUnavailableDependency(error)).toBe(true);
  });

  test.each([[new Error('boom')], [Object.assign(new Error('duplicate key'), { code: '23505' })], [null], ['text']])(
    '%s is not',
    (error) => {
      expect(isUnavailableDependency(error)).toBe(false);
    },
  );
});

import {
  ANY,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  StreamDeletedError,
  convertToCommandError,
} from '@eventstore/db-client';
import { WrongExpectedVersionError } from '../event-store.port.js';
import { translateAppendError } from './append-error.js';

/** The shape of a gRPC ServiceError as the server sends a wrong-expected-version (unary append path). */
function serverWrongExpectedVersion(metadata: Record<string, string>): Error {
  return Object.assign(new Error('9 FAILED_PRECONDITION: wrong expected version'), {
    code: 9,
    details: 'wrong expected version',
    metadata: { getMap: () => ({ exception: 'wrong-expected-version', ...metadata }) },
  });
}

describe('translateAppendError', () => {
  test("the client's batch-append conflict becomes the port's error with the actual revision", () => {
    const clientError = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 'order-1',
      expected: 0n,
      current: 3n,
    });
    const translated = translateAppendError(clientError, 'order-1', 0n);
    expect(translated).toBeInstanceOf(WrongExpectedVersionError);
    expect(translated).toMatchObject({ streamId: 'order-1', expected: 0n, actual: 3n });
  });

  test('a conflict on a missing stream reports no_stream', () => {
    const clientError = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 'order-2',
      expected: 'stream_exists',
      current: 'no_stream',
    });
    expect(translateAppendError(clientError, 'order-2', 'stream_exists')).toMatchObject({
      expected: 'stream_exists',
      actual: 'no_stream',
    });
  });

  test('the unary append path (a converted gRPC error) is translated too', () => {
    const converted = convertToCommandError(
      serverWrongExpectedVersion({ 'stream-name': 'order-3', 'expected-version': '1', 'actual-version': '4' }),
    );
    expect(converted).toBeInstanceOf(EsdbWrongExpectedVersionError);
    expect(translateAppendError(converted, 'order-3', 1n)).toMatchObject({
      streamId: 'order-3',
      expected: 1n,
      actual: 4n,
    });
  });

  test('the unary path without an actual version means the stream does not exist', () => {
    const converted = convertToCommandError(
      serverWrongExpectedVersion({ 'stream-name': 'order-4', 'expected-version': '0' }),
    );
    expect(translateAppendError(converted, 'order-4', 0n)).toMatchObject({ actual: 'no_stream' });
  });

  test('our stream name and expectation are kept, whatever the client reports for them', () => {
    const clientError = new EsdbWrongExpectedVersionError(undefined, { streamName: 'x', expected: ANY, current: 1n });
    expect(translateAppendError(clientError, 'order-5', 'no_stream')).toMatchObject({
      streamId: 'order-5',
      expected: 'no_stream',
      actual: 1n,
    });
  });

  test('other errors pass through unchanged', () => {
    const deleted = StreamDeletedError.fromStreamName('order-6');
    const plain = new Error('boom');
    expect(translateAppendError(deleted, 'order-6', 'any')).toBe(deleted);
    expect(translateAppendError(plain, 'order-6', 'any')).toBe(plain);
    expect(translateAppendError('not an error', 'order-6', 'any')).toBe('not an error');
  });
});

import {
  ErrorType,
  type WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  isCommandError,
} from '@eventstore/db-client';
import { type ExpectedRevision, WrongExpectedVersionError } from '../event-store.port.js';
import { toActualRevision } from './expected-revision.js';

/** The port's conflict error for the client's, any other error unchanged. */
export function translateAppendError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!isWrongExpectedVersion(error)) return error;
  return new WrongExpectedVersionError(streamId, expected, toActualRevision(error.actualVersion));
}

function isWrongExpectedVersion(error: unknown): error is EsdbWrongExpectedVersionError {
  return error instanceof Error && isCommandError(error) && error.type === ErrorType.WRONG_EXPECTED_VERSION;
}

import { HttpException, HttpStatus } from '@nestjs/common';
import { errorBody } from '../../http/error-body.js';
import type { VerticalRequest } from '../vertical-request.js';

/** One provider's part of a vertical search: its records, best first. */
export type Task<T> = (signal: AbortSignal) => Promise<T[]>;

/** Runs the providers together; the first failure cancels the others and fails the search. */
export async function gather<T>(tasks: readonly Task<T>[]): Promise<T[][]> {
  const controller = new AbortController();
  try {
    return await Promise.all(
      tasks.map((task) =>
        task(controller.signal).catch((error: unknown) => {
          controller.abort(error);
          throw error;
        }),
      ),
    );
  } finally {
    controller.abort();
  }
}

/** A vertical served by upstreams only, with none configured: 501, not billed. `needs` names the settings. */
export function required<T>(request: VerticalRequest, tasks: Task<T>[], needs: string): Task<T>[] {
  if (tasks.length > 0) return tasks;
  throw new HttpException(
    errorBody(`The ${request.vertical} vertical is not available on this server: it needs an upstream (${needs}).`),
    HttpStatus.NOT_IMPLEMENTED,
  );
}

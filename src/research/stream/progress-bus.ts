import { Injectable } from '@nestjs/common';
import type { ProgressListener, ResearchProgress } from './research-progress.js';

/** This node's running tasks' progress, for the streams that follow them. */
@Injectable()
export class ProgressBus {
  private readonly listeners = new Map<string, Set<ProgressListener>>();

  subscribe(requestId: string, listener: ProgressListener): () => void {
    const set = this.listeners.get(requestId) ?? new Set<ProgressListener>();
    set.add(listener);
    this.listeners.set(requestId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(requestId);
    };
  }

  publish(requestId: string, progress: ResearchProgress): void {
    for (const listener of this.listeners.get(requestId) ?? []) listener(progress);
  }
}

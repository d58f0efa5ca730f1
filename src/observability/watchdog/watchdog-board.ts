/** One HTTP request being served, as the watchdog reports it: never a URL, a header or a body. */
export interface InflightRequest {
  readonly method: string;
  /** The matched route pattern (`/orgs/:org_id/api-keys`), or `unmatched`. */
  readonly route: string;
  readonly requestId: string;
}

export interface InflightRequestSeen extends InflightRequest {
  /** How long it has been in flight, in milliseconds. */
  readonly runningMs: number;
}

export interface InflightSnapshot {
  /** The requests in the board's slots, longest-running first. */
  readonly requests: readonly InflightRequestSeen[];
  /** Requests in flight that found no free slot (counted, not described). */
  readonly untracked: number;
}

const DEFAULT_SLOTS = 256;
/** Bytes of `method\troute\trequestId` kept per slot (a request id is at most 128 characters). */
const TEXT_BYTES = 256;
const SEPARATOR = '\t';

const nowNs = (): bigint => process.hrtime.bigint();
const nsToMs = (ns: bigint): number => Number(ns / 1_000_000n);

/**
 * What the main thread is doing, in shared memory (a SharedArrayBuffer) that the watchdog thread reads while the main
 * thread is blocked: the time of its last heartbeat and the requests it is serving, one slot each.
 *
 * The main thread is the only writer. Each slot has a sequence number that is odd while the slot is being written
 * (a seqlock): a reader that sees it odd, or changed during its copy, skips the slot. Times are the process's
 * monotonic clock (`process.hrtime`, the same in every thread), so a wall-clock step never looks like a block.
 *
 * Layout: BigInt64 [beat, start of each slot]; Int32 [untracked, seq and text length of each slot]; the slots' text.
 */
export class WatchdogBoard {
  readonly slots: number;
  private readonly times: BigInt64Array;
  private readonly ints: Int32Array;
  private readonly text: Uint8Array;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  /** Free slots; only the main thread's board uses it. */
  private free: number[] | null = null;

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.slots = WatchdogBoard.slotsOf(buffer.byteLength);
    this.times = new BigInt64Array(buffer, 0, 1 + this.slots);
    this.ints = new Int32Array(buffer, this.times.byteLength, 2 + 2 * this.slots);
    this.text = new Uint8Array(buffer, this.times.byteLength + this.ints.byteLength, this.slots * TEXT_BYTES);
  }

  /** A new board (for the main thread), its heartbeat set to now. */
  static create(slots = DEFAULT_SLOTS): WatchdogBoard {
    const board = new WatchdogBoard(new SharedArrayBuffer(WatchdogBoard.byteLengthOf(slots)));
    board.beat();
    return board;
  }

  /** The board of `buffer`, created by another thread (for the watchdog thread). */
  static attach(buffer: SharedArrayBuffer): WatchdogBoard {
    return new WatchdogBoard(buffer);
  }

  private static byteLengthOf(slots: number): number {
    return 8 * (1 + slots) + 4 * (2 + 2 * slots) + slots * TEXT_BYTES;
  }

  private static slotsOf(byteLength: number): number {
    const slots = (byteLength - 8 - 8) / (8 + 8 + TEXT_BYTES);
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`not a watchdog board (${byteLength} bytes)`);
    return slots;
  }

  /** Main thread: the event loop turned. */
  beat(): void {
    Atomics.store(this.times, 0, nowNs());
  }

  /** How long ago the main thread last beat, in milliseconds. */
  sinceLastBeatMs(): number {
    return nsToMs(nowNs() - Atomics.load(this.times, 0));
  }

  /** Main thread: a request starts; returns its slot (-1: none was free, the request is only counted). */
  enter(request: InflightRequest): number {
    this.free ??= Array.from({ length: this.slots }, (_, i) => this.slots - 1 - i);
    const slot = this.free.pop();
    if (slot === undefined) {
      Atomics.add(this.ints, 0, 1);
      return -1;
    }
    const seq = 2 + 2 * slot;
    Atomics.add(this.ints, seq, 1);
    const bytes = this.text.subarray(slot * TEXT_BYTES, (slot + 1) * TEXT_BYTES);
    const line = [request.method, request.route, request.requestId].join(SEPARATOR);
    const { written } = this.encoder.encodeInto(line, bytes);
    Atomics.store(this.ints, seq + 1, written);
    Atomics.store(this.times, 1 + slot, nowNs());
    Atomics.add(this.ints, seq, 1);
    return slot;
  }

  /** Main thread: the request of `slot` (from `enter`) is over. */
  leave(slot: number): void {
    if (slot < 0) {
      Atomics.sub(this.ints, 0, 1);
      return;
    }
    const seq = 2 + 2 * slot;
    Atomics.add(this.ints, seq, 1);
    Atomics.store(this.ints, seq + 1, 0);
    Atomics.add(this.ints, seq, 1);
    this.free?.push(slot);
  }

  /** Any thread: the requests in flight now. */
  inflight(): InflightSnapshot {
    const now = nowNs();
    const requests: InflightRequestSeen[] = [];
    for (let slot = 0; slot < this.slots; slot++) {
      const seen = this.read(slot, now);
      if (seen) requests.push(seen);
    }
    requests.sort((a, b) => b.runningMs - a.runningMs);
    return { requests, untracked: Atomics.load(this.ints, 0) };
  }

  private read(slot: number, now: bigint): InflightRequestSeen | null {
    const seq = 2 + 2 * slot;
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = Atomics.load(this.ints, seq);
      if (before % 2 === 1) continue;
      const length = Atomics.load(this.ints, seq + 1);
      if (length === 0) return null;
      const copy = this.text.slice(slot * TEXT_BYTES, slot * TEXT_BYTES + length);
      const started = Atomics.load(this.times, 1 + slot);
      if (Atomics.load(this.ints, seq) !== before) continue;
      const [method = '', route = '', requestId = ''] = this.decoder.decode(copy).split(SEPARATOR);
      return { method, route, requestId, runningMs: nsToMs(now - started) };
    }
    return null;
  }
}

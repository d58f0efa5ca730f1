import cliProgress from 'cli-progress';

export interface Progress {
  update(events: number): void;
  stop(): void;
}

const SILENT: Progress = { update: () => {}, stop: () => {} };

/**
 * A progress bar on `stream` (a terminal only: piped output gets the final summary line alone). With a known
 * total it shows a bar and a percentage, otherwise an indeterminate counter.
 */
export function startProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  label: string,
  total: number | undefined,
  unit = 'events',
): Progress {
  if (!stream.isTTY) return SILENT;
  const known = total !== undefined && total > 0;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: known
        ? `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {duration_formatted}`
        : `${label} {value} ${unit} | {duration_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let limit = known ? total : 0;
  bar.start(limit, 0);
  return {
    update(events) {
      // Events appended while the command runs can take the count past the total read at the start.
      if (known && events > limit) bar.setTotal((limit = events));
      bar.update(events);
    },
    stop() {
      bar.stop();
    },
  };
}

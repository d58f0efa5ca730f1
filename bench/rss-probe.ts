/**
 * Preloaded by bench/run-all.ts (`node --import ./dist/bench/rss-probe.js …`): when the benchmark process exits, its
 * peak resident set size (bytes) is written to BENCH_RSS_FILE, so every benchmark's peak memory is known without the
 * benchmark measuring it itself.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
  });
}

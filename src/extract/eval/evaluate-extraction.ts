/**
 * Extraction quality against hand-written expected text: token-level precision, recall and F1 of our extractor
 * (text and markdown) and of plain Readability, per page. Not part of `npm test` (extraction-quality.spec.ts holds
 * the floor); run it on any directory of pages with an `expected/` folder of `<page>.txt` files:
 *
 *   npm run build && node dist/src/extract/eval/evaluate-extraction.js [dir]   (default: test/fixtures/site/articles)
 */
import { formatScores, scoreDirectory } from './extraction-quality.js';

const dir = process.argv[2] ?? 'test/fixtures/site/articles';
console.log(formatScores(scoreDirectory(dir)));

import { performance } from 'node:perf_hooks';
import { TRANSLATION } from '../search/index/bm25.js';
import { LEARN_BATCH, UNLEARNED_TERMS_SQL, learnTranslations } from '../search/index/term-translations.js';
import { JSON_FLAG, optionalInteger, parseCommandArgs } from './args.js';
import type { CliCommand, CommandGroup } from './command.js';
import { startProgress } from './progress.js';

const LEARN = 'translations learn [--limit <terms>] [--json]';
const learn: CliCommand = {
  usage: LEARN,
  summary:
    'learn the translations of the index terms that have none (or stale ones), most widespread first, so that ' +
    'first queries rank with them too (queries otherwise learn their own terms in the background)',
  parse(args) {
    const { values } = parseCommandArgs(args, LEARN, { limit: { type: 'string' }, ...JSON_FLAG });
    const limit = optionalInteger(values, 'limit', 1);
    return async (ctx) => {
      const started = performance.now();
      const { rows: stats } = await ctx.indexDb.query<{ doc_count: string }>(
        'SELECT doc_count FROM search_corpus_stats',
      );
      const documents = Number(stats[0]?.doc_count ?? 0);
      let learned = 0;
      if (documents >= TRANSLATION.minDocuments) {
        const { rows } = await ctx.indexDb.query<{ lexeme: string }>(UNLEARNED_TERMS_SQL, [
          TRANSLATION.refreshFactor,
          limit ?? null,
        ]);
        const progress = startProgress(ctx.io.stderr, 'learning', rows.length, 'terms');
        try {
          for (let i = 0; i < rows.length; i += LEARN_BATCH) {
            await learnTranslations(
              ctx.indexDb,
              rows.slice(i, i + LEARN_BATCH).map((r) => r.lexeme),
            );
            learned = Math.min(rows.length, i + LEARN_BATCH);
            progress.update(learned);
          }
        } finally {
          progress.stop();
        }
      }
      const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
      if (values.json) ctx.json({ documents, learned, seconds });
      else if (documents < TRANSLATION.minDocuments) {
        ctx.out(
          `the index has ${documents.toLocaleString('en')} documents: translations start at ` +
            `${TRANSLATION.minDocuments.toLocaleString('en')}`,
        );
      } else ctx.out(`learned the translations of ${learned.toLocaleString('en')} terms in ${seconds} s`);
      return 0;
    };
  },
};

export const translationCommands: CommandGroup = {
  name: 'translations',
  scope: 'application',
  summary: "the index's learned translations (words for the same thing; see docs/search.md)",
  commands: { learn },
};

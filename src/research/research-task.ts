import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CONTENT_EXTRACTOR, type ContentExtractor } from '../extract/content-extractor.port.js';
import type { LlmSettings } from '../llm/chat-completion.js';
import type { SearchHit } from '../search/providers/search-provider.port.js';
import { SearchService } from '../search/search.service.js';
import type { ResearchJob, ResearchSource } from './jobs/research-job.js';
import { llmPlan, llmReport, llmStructured } from './llm/llm-research.js';
import { type CitationFormat, inTextCitation, sourcesSection } from './report/citations.js';
import { extractiveReport } from './report/extractive-report.js';
import type { ReadSource } from './report/read-source.js';
import { planSubQuestions } from './research-plan.js';
import { RESEARCH_LIMITS, type ResearchCounts, type ResearchModel } from './research-pricing.js';
import type { ProgressListener } from './stream/research-progress.js';
import { unfilteredSearchRequest } from '../search/search-request.js';

/** Per-source extraction time when a search hit has no text of its own. */
const EXTRACT_TIMEOUT_MS = 15_000;
const EXTRACT_CONCURRENCY = 4;

export interface TaskOutcome {
  readonly content: string | Record<string, unknown>;
  readonly sources: ResearchSource[];
  readonly counts: ResearchCounts;
}

/** A failure that fails the task (the caller sees `error`); it is not billed. */
export class ResearchFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResearchFailure';
  }
}

/**
 * One research task: plan sub-questions, search each (every configured provider, as POST /search does), read the
 * best sources (the index's copy of a page, else a fresh extraction through the fetcher and its SSRF rules), and
 * write the report from what was read. With LLM_BASE_URL the model plans and writes (and fills output_schema);
 * without it, or when the model fails to plan or write a plain report, the plan is the input's own clauses and the
 * report is extractive.
 */
@Injectable()
export class ResearchTask {
  private readonly logger = new Logger('ResearchTask');
  private readonly llm: LlmSettings | null;

  constructor(
    private readonly searches: SearchService,
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.llm = config.llmBaseUrl
      ? { baseUrl: config.llmBaseUrl, model: config.llmModel, apiKey: config.llmApiKey, timeoutMs: config.llmTimeoutMs }
      : null;
  }

  /** Whether a model writes reports (output_schema needs one). */
  get writesWithModel(): boolean {
    return this.llm !== null;
  }

  async run(job: ResearchJob, emit: ProgressListener, signal: AbortSignal): Promise<TaskOutcome> {
    const model = job.planModel;
    emit({ kind: 'planning', model });
    const subQuestions = await this.plan(job.input, model, signal);
    emit({ kind: 'planned', subQuestions });
    const found = await this.search(job, subQuestions, emit, signal);
    const sources = await this.read(found, model, signal);
    emit({ kind: 'generating' });
    const { content, cited } = await this.write(job, subQuestions, sources, emit, signal);
    const listed = cited.map(({ title, url, favicon }) => ({ title, url, favicon }));
    emit({ kind: 'sources', sources: listed });
    return { content, sources: listed, counts: { searches: subQuestions.length, sources: sources.length } };
  }

  private async plan(input: string, model: ResearchModel, signal: AbortSignal): Promise<string[]> {
    const max = RESEARCH_LIMITS[model].subQuestions;
    if (this.llm) {
      try {
        return await llmPlan(this.llm, input, max, signal);
      } catch (error) {
        signal.throwIfAborted();
        this.logger.warn(`LLM planning failed, planning from the input's clauses: ${(error as Error).message}`);
      }
    }
    return planSubQuestions(input, model);
  }

  /**
   * Each sub-question's hits, from the sites the job allows (its include_domains and exclude_domains, applied by
   * every provider as POST /search applies them); a provider's failure (502) fails the task.
   */
  private async search(
    job: ResearchJob,
    subQuestions: readonly string[],
    emit: ProgressListener,
    signal: AbortSignal,
  ): Promise<SearchHit[][]> {
    const limits = RESEARCH_LIMITS[job.planModel];
    const found: SearchHit[][] = [];
    for (const [index, query] of subQuestions.entries()) {
      signal.throwIfAborted();
      emit({ kind: 'search', index, query });
      let hits: SearchHit[];
      try {
        hits = await this.searches.hits({
          ...unfilteredSearchRequest(query, limits.searchDepth, limits.hitsPerSearch),
          includeDomains: job.includeDomains,
          excludeDomains: job.excludeDomains,
          signal,
        });
      } catch (error) {
        signal.throwIfAborted();
        throw new ResearchFailure(`searching for "${query}" failed: ${(error as Error).message}`);
      }
      const top = hits.slice(0, limits.hitsPerSearch);
      found.push(top);
      emit({
        kind: 'found',
        index,
        query,
        sources: top.map((h) => ({ title: h.title, url: h.url, favicon: h.favicon })),
      });
    }
    return found;
  }

  /**
   * The best sources, taken in turns from each sub-question's hits (its best first) up to the model's limit: the
   * index's text when the hit has it, else an extraction; a source that cannot be read is skipped (and not billed).
   */
  private async read(found: SearchHit[][], model: ResearchModel, signal: AbortSignal): Promise<ReadSource[]> {
    const limit = RESEARCH_LIMITS[model].sources;
    const byUrl = new Map<string, { hit: SearchHit; foundFor: number[] }>();
    const order: string[] = [];
    const depth = Math.max(0, ...found.map((hits) => hits.length));
    for (let rank = 0; rank < depth; rank++) {
      found.forEach((hits, index) => {
        const hit = hits[rank];
        if (!hit) return;
        const seen = byUrl.get(hit.url);
        if (seen) {
          if (!seen.foundFor.includes(index)) seen.foundFor.push(index);
          return;
        }
        byUrl.set(hit.url, { hit, foundFor: [index] });
        order.push(hit.url);
      });
    }
    // A few more candidates than the limit, so that unreadable pages can be replaced.
    const candidates = order.slice(0, limit * 2).map((url) => byUrl.get(url)!);
    const read: ReadSource[] = [];
    for (let i = 0; i < candidates.length && read.length < limit;) {
      signal.throwIfAborted();
      const batch = candidates.slice(i, i + Math.min(EXTRACT_CONCURRENCY, limit - read.length));
      i += batch.length;
      const texts = await Promise.all(batch.map((c) => this.textOf(c.hit, model, signal)));
      batch.forEach((candidate, j) => {
        const text = texts[j];
        if (!text || read.length >= limit) return;
        const { hit, foundFor } = candidate;
        read.push({
          n: read.length + 1,
          title: text.title || hit.title || hit.url,
          url: hit.url,
          favicon: hit.favicon,
          content: text.content,
          foundFor,
        });
      });
    }
    return read;
  }

  private async textOf(hit: SearchHit, model: ResearchModel, signal: AbortSignal) {
    if (hit.rawContent && hit.rawContent.trim()) return { title: hit.title, content: hit.rawContent };
    try {
      const page = await this.extractor.extract(hit.url, {
        depth: RESEARCH_LIMITS[model].searchDepth,
        format: 'markdown',
        includeImages: false,
        includeFavicon: false,
        timeoutMs: EXTRACT_TIMEOUT_MS,
        signal,
      });
      return page.rawContent.trim() ? { title: page.title ?? hit.title, content: page.rawContent } : null;
    } catch (error) {
      this.logger.debug(`source ${hit.url} could not be read: ${(error as Error).message}`);
      return null;
    }
  }

  private async write(
    job: ResearchJob,
    subQuestions: readonly string[],
    sources: readonly ReadSource[],
    emit: ProgressListener,
    signal: AbortSignal,
  ): Promise<{ content: string | Record<string, unknown>; cited: readonly ReadSource[] }> {
    const model = job.planModel;
    if (job.outputSchema) {
      if (!this.llm) throw new ResearchFailure('output_schema needs a language model (LLM_BASE_URL) on this server.');
      if (sources.length === 0) throw new ResearchFailure('No source could be found or read for this task.');
      try {
        const structured = await llmStructured(this.llm, job.input, sources, job.outputSchema, model, signal);
        emit({ kind: 'content', text: structured });
        return { content: structured, cited: sources };
      } catch (error) {
        signal.throwIfAborted();
        throw new ResearchFailure(`the structured output could not be written: ${(error as Error).message}`);
      }
    }
    if (this.llm && sources.length > 0) {
      try {
        const markdown = await llmReport(this.llm, job, subQuestions, sources, signal);
        const { text, cited } = withCitations(markdown, sources, job.citationFormat);
        const report = cited.length > 0 ? `${text}\n\n${sourcesSection(job.citationFormat, cited)}` : text;
        emit({ kind: 'content', text: report });
        return { content: report, cited };
      } catch (error) {
        signal.throwIfAborted();
        this.logger.warn(`LLM report failed, writing an extractive report: ${(error as Error).message}`);
      }
    }
    const { sections, cited } = extractiveReport(job, subQuestions, sources);
    const parts: string[] = [];
    for (const section of sections) {
      const text = (parts.length > 0 ? '\n\n' : '') + section.markdown;
      parts.push(text);
      emit({ kind: 'content', text });
    }
    return { content: parts.join(''), cited };
  }
}

/**
 * The model's [n] markers (n: the source's number as the model was given it) renumbered in the order the report
 * first cites them and written in the requested format; markers that name no source are left as they are. The
 * sources cited, in that order.
 */
export function withCitations(
  markdown: string,
  sources: readonly ReadSource[],
  format: CitationFormat,
): { text: string; cited: ReadSource[] } {
  const numbers = new Map<number, number>();
  const cited: ReadSource[] = [];
  const text = markdown.replace(/\[(\d+)\](?!\()/g, (marker, given: string) => {
    const source = sources[Number(given) - 1];
    if (!source) return marker;
    let n = numbers.get(source.n);
    if (n === undefined) {
      n = cited.length + 1;
      numbers.set(source.n, n);
      cited.push({ ...source, n });
    }
    return inTextCitation(format, n, cited[n - 1]!);
  });
  return { text, cited };
}

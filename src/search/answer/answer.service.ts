import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { LocalIndexProvider } from '../providers/local-index.provider.js';
import type { SearchHit } from '../providers/search-provider.port.js';
import { markdownToText } from '../text/markdown-text.js';
import { mayContainTerms } from '../text/passages.js';
import { type Sentence, splitSentences } from '../text/sentences.js';
import { trimEndChars } from '../../common/linear-text.js';
import {
  ANSWER_LIMITS,
  type AnswerCandidate,
  type AnswerLevel,
  CONTINUATION,
  extractiveAnswer,
} from './extractive-answer.js';
import type { LlmSettings } from '../../llm/chat-completion.js';
import { llmAnswer } from './llm-answer.js';

/** Reference pages run long (a settings reference: 350 KB); a term's entry far down one must be reachable. */
const MAX_TEXT_PER_SOURCE = 120_000;

/**
 * `include_answer`: an answer grounded in the results. With LLM_BASE_URL configured, an OpenAI-compatible chat model
 * writes it from the numbered results; otherwise (and whenever that call fails) it is extractive: result sentences
 * quoted verbatim. An answer never fails the search.
 */
@Injectable()
export class AnswerService {
  private readonly logger = new Logger('SearchAnswer');
  private readonly llm: LlmSettings | null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly local: LocalIndexProvider,
  ) {
    this.llm = config.llmBaseUrl
      ? { baseUrl: config.llmBaseUrl, model: config.llmModel, apiKey: config.llmApiKey, timeoutMs: config.llmTimeoutMs }
      : null;
  }

  async answer(query: string, hits: readonly SearchHit[], level: AnswerLevel): Promise<string | null> {
    const sources = hits.slice(0, ANSWER_LIMITS[level].sources);
    if (sources.length === 0) return null;
    if (this.llm) {
      try {
        return await llmAnswer(this.llm, query, sources, level);
      } catch (error) {
        this.logger.warn(`LLM answer failed, answering extractively: ${(error as Error).message}`);
      }
    }
    try {
      return await this.extractive(query, sources, level);
    } catch (error) {
      this.logger.warn(`extractive answer failed: ${(error as Error).message}`);
      return null;
    }
  }

  /** The best sentences of the results (see extractiveAnswer), stemmed by the index's analyser. */
  async extractive(query: string, hits: readonly SearchHit[], level: AnswerLevel): Promise<string | null> {
    const analysis = await this.local.index.analyze(query);
    const lexemes = analysis.terms.map((t) => t.lexeme);
    const mayMatch = mayContainTerms(lexemes);
    const top = Math.max(...hits.map((hit) => hit.score), Number.MIN_VALUE);
    const pending: (Omit<AnswerCandidate, 'hits' | 'headingHits'> & { heading: string | null })[] = [];
    hits.forEach((hit, source) => {
      const relevance = Math.min(1, hit.score / top);
      const text = markdownToText((hit.rawContent ?? hit.content).slice(0, MAX_TEXT_PER_SOURCE));
      const sentences = splitSentences(text);
      sentences.forEach((sentence, i) => {
        // A sentence that continues the one before ("It is ...") brings that one along as a candidate.
        const next = sentences[i + 1];
        const continued = next !== undefined && next.block === sentence.block && CONTINUATION.test(next.text);
        const heading = headingOver(sentences, i);
        if (mayMatch(sentence.text) || (continued && mayMatch(next.text)) || (heading && mayMatch(heading))) {
          pending.push({ source, relevance, sentence, heading });
        }
      });
    });
    const found = await this.local.index.analyzeTexts(
      pending.flatMap((p) => [p.sentence.text, p.heading ?? '']),
      lexemes,
    );
    const candidates: AnswerCandidate[] = pending.map((p, i) => ({
      ...p,
      hits: found[2 * i]!,
      headingHits: found[2 * i + 1]!,
    }));
    return extractiveAnswer(query, candidates, analysis.weights, level);
  }
}

/** Longest line read as a heading (a term's entry, a section title). */
const MAX_HEADING_CHARS = 100;

/**
 * The heading a sentence opens a passage under: the line before the sentence's, when the sentence starts its line
 * and that line is short and unpunctuated (a term's entry in reference documentation or a glossary, a section
 * title), passing over a value line ("Default: …") between them; null otherwise. Sphinx's pilcrow (¶) is dropped.
 */
export function headingOver(sentences: readonly Sentence[], index: number): string | null {
  const sentence = sentences[index];
  let before = sentences[index - 1];
  if (!sentence || !before || before.block === sentence.block) return null;
  // A reference entry's value line ("Default: 300") may stand between its heading and its description.
  if (/^default:\s/i.test(before.text) && sentences[index - 2] && sentences[index - 2]!.block !== before.block) {
    before = sentences[index - 2]!;
    index -= 1;
  }
  if (sentences[index - 2]?.block === before.block) return null;
  const heading = trimEndChars(before.text, '¶').trim();
  if (!heading || heading.length > MAX_HEADING_CHARS || /[.!?;,]$/.test(heading)) return null;
  return heading;
}

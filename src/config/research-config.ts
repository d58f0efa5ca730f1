import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { trimEndChars } from '../common/linear-text.js';
import { emptyToUndefined, toInt } from './env-variables.js';

/** Research tasks and the operator's LLM service: docs/configuration.md, "Research and the LLM". */
export class ResearchVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'LLM_BASE_URL must be an absolute http(s) URL' })
  LLM_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_MODEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(300000)
  LLM_TIMEOUT_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(64)
  RESEARCH_CONCURRENCY?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  RESEARCH_LEASE_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(50)
  @Max(600000)
  RESEARCH_POLL_MS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  RESEARCH_MAX_ATTEMPTS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8760)
  RESEARCH_RETENTION_HOURS?: number;
}

export interface ResearchConfig {
  /** An OpenAI-compatible API (`{llmBaseUrl}/chat/completions`) that writes search answers; null: extractive answers. */
  readonly llmBaseUrl: string | null;
  readonly llmModel: string;
  readonly llmApiKey: string | null;
  readonly llmTimeoutMs: number;
  /** Research tasks this node runs at once; 0: this node runs none (it still accepts and serves them). */
  readonly researchConcurrency: number;
  /** A running task's lease: a node that stops renewing it for this long loses the task to another node. */
  readonly researchLeaseMs: number;
  /** How often an idle node looks for tasks to run. */
  readonly researchPollMs: number;
  /** Runs a task may start (crashes, lost leases) before it is failed for good. */
  readonly researchMaxAttempts: number;
  /** How long a research task (its report, sources and status) is kept after it was submitted. */
  readonly researchRetentionHours: number;
}

export function loadResearchConfig(vars: ResearchVariables): ResearchConfig {
  return {
    llmBaseUrl: vars.LLM_BASE_URL ? trimEndChars(vars.LLM_BASE_URL, '/') : null,
    llmModel: vars.LLM_MODEL ?? 'gpt-4o-mini',
    llmApiKey: vars.LLM_API_KEY ?? null,
    llmTimeoutMs: vars.LLM_TIMEOUT_MS ?? 20000,
    researchConcurrency: vars.RESEARCH_CONCURRENCY ?? 2,
    researchLeaseMs: vars.RESEARCH_LEASE_MS ?? 30000,
    researchPollMs: vars.RESEARCH_POLL_MS ?? 1000,
    researchMaxAttempts: vars.RESEARCH_MAX_ATTEMPTS ?? 3,
    researchRetentionHours: vars.RESEARCH_RETENTION_HOURS ?? 168,
  };
}

import type { ResearchJob } from '../research/jobs/research-job.js';
import type { ResearchJobsRepository } from '../research/jobs/research-jobs.repository.js';
import type { ResearchService } from '../research/research.service.js';
import { ResearchTool } from './research-tool.js';

const submitted = {
  status: 200,
  body: { request_id: 'r-1', status: 'pending' },
  headers: { 'X-Credits-Used': '4' },
};

function toolWith(rows: (Partial<ResearchJob> | null)[]): { tool: ResearchTool; looks: () => number } {
  let looks = 0;
  const jobs = {
    findForOrg: async () => {
      const row = rows[Math.min(looks++, rows.length - 1)];
      return row === null ? null : ({ createdAt: new Date(), finishedAt: null, ...row } as ResearchJob);
    },
  } as unknown as ResearchJobsRepository;
  return { tool: new ResearchTool({} as ResearchService, jobs), looks: () => looks };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('ResearchTool.outcome', () => {
  test('looks until the task completed: its report', async () => {
    const { tool, looks } = toolWith([
      { status: 'pending' },
      { status: 'in_progress' },
      { status: 'completed', content: '# Report', sources: [], credits: 3 },
    ]);
    const result = await tool.outcome('org', submitted, true, new AbortController().signal);
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('# Report\n\nCredits charged: 3');
    expect(result._meta).toEqual({ 'searchledger/usage': submitted.headers });
    expect(looks()).toBe(3);
  });

  test('a failed task is a tool error that says nothing was charged', async () => {
    const { tool } = toolWith([{ status: 'failed', error: 'no sources could be read' }]);
    const result = await tool.outcome('org', submitted, false, new AbortController().signal);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The research task failed: no sources could be read. Nothing was charged.');
  });

  test('past the bound: a tool error naming the task, which goes on and is charged once it completes', async () => {
    const { tool, looks } = toolWith([{ status: 'in_progress' }]);
    const result = await tool.outcome('org', submitted, false, new AbortController().signal, 1200);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^The research task r-1 is still running after 1 seconds\. .*GET \/research\/r-1/);
    expect(looks()).toBeGreaterThanOrEqual(2);
  });

  test('a task gone (retention over) is a tool error', async () => {
    const { tool } = toolWith([null]);
    const result = await tool.outcome('org', submitted, false, new AbortController().signal);
    expect(text(result)).toMatch(/r-1 is gone/);
  });
});

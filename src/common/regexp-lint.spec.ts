/**
 * `npm run lint` (which CI runs) refuses a regular expression that backtracks super-linearly, anywhere under src/:
 * the project's own ESLint configuration, run on a file added to src/.
 */
import { ESLint } from 'eslint';

const lint = async (code: string) => {
  const eslint = new ESLint({ overrideConfigFile: 'eslint.config.js' });
  const [result] = await eslint.lintText(code, { filePath: 'src/search/text/added-pattern.ts' });
  return result!.messages.map((message) => message.ruleId);
};

describe('lint on regular expressions', () => {
  it('fails on the pattern that froze a node, and on quadratic ones', async () => {
    expect(
      await lint(
        "export const link = (s: string) => s.replace(/\\[([^\\]]+)\\]\\((?:[^()\\s]+|\\([^()]*\\))*\\)/g, '$1');\n",
      ),
    ).toContain('regexp/no-super-linear-backtracking');
    expect(await lint('export const nested = (s: string) => /^(a+)+$/.test(s);\n')).toContain(
      'regexp/no-super-linear-backtracking',
    );
    expect(await lint("export const trim = (s: string) => s.replace(/\\/+$/, '');\n")).toContain(
      'regexp/no-super-linear-move',
    );
  });

  it('passes the linear forms the code uses instead', async () => {
    expect(await lint("export const tags = (s: string) => s.replace(/<[^<>]*>/g, '');\n")).toEqual([]);
  });
});

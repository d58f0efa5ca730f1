import { h, uid } from './dom.js';

/** Where clients reach the API: this page's origin (the dashboard is served by the API it manages). */
const apiBase = () => location.origin;

interface Snippet {
  readonly id: string;
  readonly label: string;
  readonly code: string;
}

function snippets(key: string): Snippet[] {
  const base = apiBase();
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl -s ${base}/search \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '{"query": "how long is the danube", "include_answer": true}'`,
    },
    {
      id: 'js',
      label: 'JavaScript (@tavily/core)',
      code: `import { tavily } from '@tavily/core';

const client = tavily({ apiKey: '${key}', apiBaseURL: '${base}' });
console.log(await client.search('how long is the danube', { includeAnswer: true }));`,
    },
    {
      id: 'python',
      label: 'Python (tavily-python)',
      code: `from tavily import TavilyClient

client = TavilyClient(api_key="${key}", api_base_url="${base}")
print(client.search("how long is the danube", include_answer=True))`,
    },
    {
      id: 'mcp',
      label: 'MCP host (Cursor, mcp.json)',
      code: JSON.stringify(
        { mcpServers: { search: { url: `${base}/mcp`, headers: { Authorization: `Bearer ${key}` } } } },
        null,
        2,
      ),
    },
  ];
}

/**
 * First calls with the key just created: curl, @tavily/core, Python and an MCP host's configuration, each with the
 * key and this server's address filled in, and a link to the API reference. Shown only with the key itself.
 */
export function quickstart(key: string): Node {
  const status = h('span', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });
  const blocks = snippets(key).map((snippet) => {
    const codeId = uid('snippet');
    return h(
      'div',
      { class: 'snippet', 'data-snippet': snippet.id },
      h(
        'div',
        { class: 'snippet-head' },
        h('h3', { id: `${codeId}-label` }, snippet.label),
        h(
          'button',
          {
            type: 'button',
            class: 'button secondary small',
            'aria-describedby': `${codeId}-label`,
            onclick: async () => {
              try {
                await navigator.clipboard.writeText(snippet.code);
                status.textContent = `${snippet.label}: copied.`;
              } catch {
                status.textContent = 'Copying is blocked here: select the text and copy it.';
              }
            },
          },
          'Copy',
        ),
      ),
      h('pre', { class: 'code', tabindex: '0', 'aria-labelledby': `${codeId}-label` }, h('code', {}, snippet.code)),
    );
  });
  return h(
    'section',
    { class: 'quickstart', 'aria-labelledby': 'quickstart-title' },
    h('h2', { id: 'quickstart-title' }, 'Quickstart'),
    h(
      'p',
      {},
      'Your first call with this key. Every route, field and error is in the ',
      h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API reference (/docs)'),
      '.',
    ),
    blocks,
    status,
  );
}

declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  type Plugin = (service: TurndownService) => void;
  const plugins: {
    gfm: Plugin;
    highlightedCodeBlock: Plugin;
    strikethrough: Plugin;
    tables: Plugin;
    taskListItems: Plugin;
  };
  export default plugins;
}

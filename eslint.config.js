// ESLint 9 flat config. Deliberately not type-aware (no parserOptions.project): lint stays fast, and `npm run
// typecheck` is what checks types.
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier/flat';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

// Node.js globals for the plain JavaScript files (config files, scripts). TypeScript files need none: the
// compiler checks undefined names there, so typescript-eslint turns `no-undef` off for them.
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Blob',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextDecoder',
    'TextEncoder',
    'clearImmediate',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'globalThis',
    'performance',
    'process',
    'queueMicrotask',
    'setImmediate',
    'setInterval',
    'setTimeout',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);
const commonJsGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
};

export default defineConfig(
  globalIgnores([
    'dist/',
    'node_modules/',
    'coverage/',
    'bench/results/',
    'data/',
    'test-artifacts/',
    // Written by tools/openapi-metadata.mjs from the DTOs (committed; CI checks that it is current).
    'src/metadata.ts',
    // Pages and scripts of fixture sites are test data served to the crawler, not project code.
    '**/fixtures/',
    '**/__fixtures__/',
  ]),

  eslint.configs.recommended,
  tseslint.configs.recommended,

  {
    name: 'project/typescript',
    files: ['**/*.{ts,mts,cts}'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
    },
  },

  {
    name: 'project/javascript',
    files: ['**/*.{js,mjs}'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
  },
  {
    name: 'project/commonjs',
    files: ['**/*.cjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'commonjs', globals: { ...nodeGlobals, ...commonJsGlobals } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  {
    name: 'project/rules',
    rules: {
      // `_`-prefixed arguments, variables and caught errors are deliberately unused (interface conformance,
      // NestJS handler signatures). Parameter properties (`constructor(private readonly x: X) {}`) count as used.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Do NOT enable `@typescript-eslint/consistent-type-imports`: with emitDecoratorMetadata, NestJS injection
      // needs constructor-parameter classes imported as values, and an `import type` would silently break DI.
    },
  },

  {
    // Regular expressions run on text we do not control (pages, headers, URLs, engine results): one that backtracks
    // super-linearly blocks the event loop, and with it every request, for as long as its input makes it. A pattern
    // these rules flag is rewritten to be linear (a class that excludes the next opener, a lookbehind that starts a
    // run once, a helper of src/common/linear-text.ts), or bounded, or disabled on its line with the reason it is safe.
    name: 'project/regexp',
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },

  // Last: turns off every stylistic rule that Prettier owns.
  prettier,
);

/** Jest runs the TypeScript sources as native ES modules (NestJS 12 is ESM-only), compiled by SWC. */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2023',
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/projections/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker that has run many suites holds their leftovers (PGlite's WebAssembly memory, servers' buffers); near the
  // heap limit every allocation waits on the collector, and one CI run saw a 7 s suite take 361 s. A worker past
  // this much memory after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
};

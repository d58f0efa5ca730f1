import path from 'node:path';
import { PROJECT_ROOT } from './app-process.js';

/**
 * The development copy of a real documentation site (Django's docs, 499 pages, no sitemap): `REAL_SITE_DIR`, or
 * `shared/data/real-site/site` in the shared data folder beside the repository (`../shared`, whatever the working
 * directory). The tests that need it skip when it is not there.
 */
export const REAL_SITE_DIR = process.env.REAL_SITE_DIR ?? path.resolve(PROJECT_ROOT, '../shared/data/real-site/site');

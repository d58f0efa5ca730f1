/**
 * The simulated web of issue 25, for benchmarks and end-to-end tests: page hosts on loopback addresses with a seeded
 * latency and failure model, SciFact's abstracts as their article pages, and a SearXNG-format engine over them.
 */
export { type Article, type SiteStyle, articlePage, siteStyle, visibleText } from './article-page.js';
export { EngineRanker } from './engine-ranker.js';
export { containsSentence, holdsEvidence, words } from './evidence-match.js';
export { ISSUE_25_WEB, type PageBehaviour, type PageOutcome, type WebModel, pageBehaviour } from './page-behaviour.js';
export { type PageHostsOptions, PageHosts, loopbackHosts } from './page-hosts.js';
export { type Claim, type SciFactData, SciFactWeb, abstractIdOf, findSciFact, readSciFact } from './scifact-web.js';
export { type EngineResult, SearxngServer, searxngJson } from './searxng-server.js';

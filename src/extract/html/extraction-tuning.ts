/**
 * The thresholds and the class/id word list of main-content extraction, in one place, so that the extraction
 * evaluation can vary them (an ablation, a threshold tuned on one half of a benchmark and scored on the other).
 * The service always runs DEFAULT_TUNING.
 */
export interface ExtractionTuning {
  /** Words of class and id (split on space, `-`, `_` and camelCase) that mark a block as not the article. */
  readonly boilerplateWords: ReadonlySet<string>;
  /** A block so marked stays when it holds at least this share of the page's text. */
  readonly boilerplateMaxShare: number;
  /** Share of a block's text in links above which it is a list of links (related stories, "read more"). */
  readonly linkBlockDensity: number;
  /** The same for a single paragraph or list item: a whole linked headline ("READ MORE: ..."). */
  readonly linkParagraphDensity: number;
  /** At `basic` depth, an image's container goes with it when its text is this short (0: captions stay). */
  readonly imageCaptionMaxLength: number;
  /** Whether the "follow us" lines (links to social network accounts) that end the content go. */
  readonly trailingFollowLines: boolean;
}

/**
 * Advertising, consent banners, sharing tools, newsletter boxes, related-story lists, comments, breadcrumbs,
 * screen-reader-only labels, and what surrounds a story rather than being in it (who wrote it and when, picture
 * captions and credits, tags, page widgets). `npm run eval:extraction -- --audit` measures each word on both
 * parity halves of the development split: a word that hurts a half goes (`promo` did); the words of what surrounds
 * a story help both halves together.
 */
export const BOILERPLATE_WORDS: ReadonlySet<string> = new Set([
  'ad',
  'ads',
  'adsbygoogle',
  'advert',
  'advertisement',
  'advertising',
  'adslot',
  'dfp',
  'sponsored',
  'sponsor',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'newsletter',
  'subscribe',
  'subscription',
  'paywall',
  'share',
  'sharing',
  'social',
  'sharebar',
  'related',
  'recommended',
  'popular',
  'trending',
  'mostread',
  'outbrain',
  'taboola',
  'breadcrumb',
  'breadcrumbs',
  'comments',
  'comment',
  'disqus',
  'sronly',
  'visuallyhidden',
  'skiplink',
  'toolbar',
  'byline',
  'author',
  'authors',
  'dateline',
  'timestamp',
  'caption',
  'credit',
  'credits',
  'copyright',
  'tags',
  'widget',
  'sidebar',
  'menu',
  'banner',
  'date',
  'meta',
  'footer',
]);

export const DEFAULT_TUNING: ExtractionTuning = {
  boilerplateWords: BOILERPLATE_WORDS,
  boilerplateMaxShare: 0.4,
  linkBlockDensity: 0.7,
  linkParagraphDensity: 0.8,
  imageCaptionMaxLength: 500,
  trailingFollowLines: true,
};

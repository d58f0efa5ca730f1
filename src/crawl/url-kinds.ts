/** What a URL most likely points at, from its extension: map and crawl skip assets and do not parse documents. */
const ASSETS =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|map|woff2?|ttf|otf|eot|mp3|wav|ogg|flac|m4a|mp4|m4v|webm|mov|avi|mkv|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|deb|rpm|apk|iso|bin|jar|wasm)$/i;
const DOCUMENTS = /\.(pdf|docx?|xlsx?|pptx?|odt|ods|odp|rtf|csv|txt|json|xml|rss|atom)$/i;

/** Images, scripts, styles, fonts, media and archives: never listed as pages. */
export function isAssetUrl(url: URL): boolean {
  return ASSETS.test(url.pathname);
}

/** Pages that are not HTML (PDF, office files, feeds): listed and extracted, but not parsed for links by map. */
export function isDocumentUrl(url: URL): boolean {
  return DOCUMENTS.test(url.pathname);
}

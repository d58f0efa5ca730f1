/**
 * `country` (topic=general): results from the country's own top-level domain are preferred (a mild boost, not a
 * filter: the index records no location otherwise). Country names as Tavily spells them, lower case.
 */
const COUNTRY_TLDS: Readonly<Record<string, string>> = {
  argentina: 'ar',
  australia: 'au',
  austria: 'at',
  bangladesh: 'bd',
  belgium: 'be',
  brazil: 'br',
  bulgaria: 'bg',
  canada: 'ca',
  chile: 'cl',
  china: 'cn',
  colombia: 'co',
  croatia: 'hr',
  'czech republic': 'cz',
  denmark: 'dk',
  egypt: 'eg',
  estonia: 'ee',
  finland: 'fi',
  france: 'fr',
  germany: 'de',
  greece: 'gr',
  hungary: 'hu',
  iceland: 'is',
  india: 'in',
  indonesia: 'id',
  ireland: 'ie',
  israel: 'il',
  italy: 'it',
  japan: 'jp',
  kenya: 'ke',
  latvia: 'lv',
  lithuania: 'lt',
  malaysia: 'my',
  mexico: 'mx',
  morocco: 'ma',
  netherlands: 'nl',
  'new zealand': 'nz',
  nigeria: 'ng',
  norway: 'no',
  pakistan: 'pk',
  peru: 'pe',
  philippines: 'ph',
  poland: 'pl',
  portugal: 'pt',
  romania: 'ro',
  russia: 'ru',
  'saudi arabia': 'sa',
  singapore: 'sg',
  slovakia: 'sk',
  slovenia: 'si',
  'south africa': 'za',
  'south korea': 'kr',
  spain: 'es',
  sweden: 'se',
  switzerland: 'ch',
  taiwan: 'tw',
  thailand: 'th',
  turkey: 'tr',
  ukraine: 'ua',
  'united arab emirates': 'ae',
  'united kingdom': 'uk',
  'united states': 'us',
  vietnam: 'vn',
};

export const COUNTRY_BOOST = 1.1;

/** Whether the URL's host ends with the country's top-level domain. */
export function isFromCountry(url: string, country: string): boolean {
  const tld = COUNTRY_TLDS[country.toLowerCase()];
  if (!tld) return false;
  try {
    return new URL(url).hostname.endsWith(`.${tld}`);
  } catch {
    return false;
  }
}

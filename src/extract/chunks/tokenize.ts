const STOPWORDS = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its of on or our she so than that ' +
    'the their them then there these they this to was we were what when where which who will with you your'
  ).split(' '),
);

/** A light English stemmer: plural and common verb endings and a final e, so "storms" ~ "storm", "rising" ~ "rise". */
export function stem(word: string): string {
  const stemmed = stripSuffix(word);
  return stemmed.length > 3 && stemmed.endsWith('e') && !/\d/.test(stemmed) ? stemmed.slice(0, -1) : stemmed;
}

function stripSuffix(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3).replace(/(.)\1$/, '$1');
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2).replace(/(.)\1$/, '$1');
  if (word.endsWith('es') && /(ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is'))
    return word.slice(0, -1);
  return word;
}

/** Lower-case words and numbers, accents folded, stop words dropped, lightly stemmed. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .filter((word) => !STOPWORDS.has(word))
    .map(stem);
}

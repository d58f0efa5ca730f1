/**
 * Text helpers that take time linear in their input, for the places where a regular expression would backtrack
 * super-linearly on text we do not control (pages, headers, URLs, engine results): `/\/+$/` alone is quadratic on a
 * long run of slashes followed by anything else, since every start position scans the whole run again.
 */

/** `text` without the characters of `chars` at its end. */
export function trimEndChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the characters of `chars` at its start. */
export function trimStartChars(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start]!)) start++;
  return start === 0 ? text : text.slice(start);
}

/** `text` without the characters of `chars` at either end. */
export function trimChars(text: string, chars: string): string {
  return trimStartChars(trimEndChars(text, chars), chars);
}

/** Every line of `text` without the spaces and tabs at its end. */
export function trimLineEnds(text: string): string {
  return text
    .split('\n')
    .map((line) => trimEndChars(line, ' \t'))
    .join('\n');
}

/**
 * Markup tags (`<…>`) replaced by `replacement`. A tag holds no `<`, so every scan stops at the next one: `<<<<`
 * without a `>` costs one pass, not one pass per `<`.
 */
export function stripTags(text: string, replacement = ''): string {
  return text.replace(/<[^<>]*>/g, replacement);
}

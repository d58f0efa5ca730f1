import { type AnswerCandidate, extractiveAnswer } from './extractive-answer.js';
import { headingOver } from './answer.service.js';
import { definesSubject, namedIdentifiers, quantityFocus, questionForm } from './question-form.js';
import { splitSentences } from '../text/sentences.js';

/** A candidate sentence: the query lexemes it holds, at word positions (1-based, as the index counts them). */
function candidate(
  text: string,
  hits: Record<string, number[]>,
  options: { source?: number; index?: number; block?: number; heading?: string; headingHits?: string[] } = {},
): AnswerCandidate {
  const index = options.index ?? 5;
  return {
    sentence: { text, start: 0, end: text.length, block: options.block ?? index, index },
    source: options.source ?? 0,
    relevance: 1,
    hits: new Map(Object.entries(hits)),
    heading: options.heading ?? null,
    headingHits: new Map((options.headingHits ?? []).map((lexeme) => [lexeme, [1]])),
  };
}

describe('question forms', () => {
  test.each([
    ['what does select_related do', 'definition'],
    ['What is a QuerySet?', 'definition'],
    ['who was Ada Lovelace', 'definition'],
    ['how many iterations does the hasher use', 'quantity'],
    ['what is the default SESSION_COOKIE_AGE', 'quantity'],
    ['which port does runserver use', 'quantity'],
    ['when was Django 3.0 released', 'date'],
    ['in what year did the wall fall', 'date'],
    ['why does low water raise freight prices', 'reason'],
    ['how do I deploy with gunicorn', 'other'],
    ['postgres full text search', 'other'],
  ])('%j → %s', (query, form) => {
    expect(questionForm(query)).toBe(form);
  });

  test('identifiers named by the question', () => {
    expect(namedIdentifiers('what does select_related() do?')).toEqual(['select_related']);
    expect(namedIdentifiers('what is the default SESSION_COOKIE_AGE')).toEqual(['session_cookie_age']);
    expect(namedIdentifiers('what is a QuerySet and what does filter() return')).toEqual(['queryset', 'filter']);
    expect(namedIdentifiers('what is a black hole')).toEqual([]);
  });

  test('what a quantity question counts', () => {
    expect(quantityFocus('how many iterations does PBKDF2 use')).toBe('iterati');
    expect(quantityFocus('what is the population of France')).toBe('populat');
    expect(quantityFocus('how much sleep do adults need')).toBe('sleep');
    expect(quantityFocus('how long is the danube')).toBeNull();
  });

  test('a definition: the subject first, then a defining verb; or a passage opening under its heading', () => {
    expect(definesSubject('Middleware is a framework of hooks into request processing.', 1, false)).toBe(true);
    expect(definesSubject('Fixed a crash when using select_related() with only().', 6, false)).toBe(false);
    expect(definesSubject('Returns a QuerySet that will follow foreign-key relationships.', null, true)).toBe(true);
    expect(definesSubject('Returns a QuerySet that will follow foreign-key relationships.', null, false)).toBe(false);
  });

  test('a heading: the short unpunctuated line before a passage, passing over a "Default:" line', () => {
    const sentences = splitSentences(
      'select_related()¶\n\nReturns a QuerySet that follows relationships. It is fast.\n\nALLOWED_HOSTS¶\n\nDefault: [] (Empty list)\n\nA list of strings naming hosts.',
    );
    const at = (text: string) => sentences.findIndex((s) => s.text === text);
    expect(headingOver(sentences, at('Returns a QuerySet that follows relationships.'))).toBe('select_related()');
    expect(headingOver(sentences, at('It is fast.'))).toBeNull();
    expect(headingOver(sentences, at('A list of strings naming hosts.'))).toBe('ALLOWED_HOSTS');
  });
});

describe('extractive answers by question form', () => {
  const weights = new Map([
    ['select', 1],
    ['relat', 1],
  ]);

  test('"what does X do": the sentence that defines X, not the ones that mention it', () => {
    const answer = extractiveAnswer(
      'what does select_related do',
      [
        candidate('Fixed crashes when using combinations of annotate(), select_related(), and only().', {
          select: [6],
          relat: [6],
        }),
        candidate(
          'Returns a QuerySet that will follow foreign-key relationships, selecting related data.',
          { relat: [8] },
          { index: 20, heading: 'select_related()', headingHits: ['select', 'relat'] },
        ),
        candidate(
          'You can refer to any ForeignKey in select_related calls for speed.',
          { select: [8], relat: [8] },
          {
            index: 30,
          },
        ),
      ],
      weights,
      'basic',
    );
    expect(answer).toBe('Returns a QuerySet that will follow foreign-key relationships, selecting related data.');
  });

  test('no answer rather than a wrong one: only mentions of X, no definition', () => {
    const answer = extractiveAnswer(
      'what does select_related do',
      [
        candidate('Fixed a crash when using QuerySet.defer() with select_related() in a loop.', {
          select: [8],
          relat: [8],
        }),
        candidate('You can refer to any ForeignKey in select_related calls for speed.', { select: [8], relat: [8] }),
      ],
      weights,
      'basic',
    );
    expect(answer).toBeNull();
  });

  test('an identifier the question names must be named: a sibling setting does not answer', () => {
    const settings = new Map([
      ['session', 1],
      ['cooki', 1],
      ['age', 1],
      ['default', 0.5],
    ]);
    const domain = candidate(
      'Default: None',
      {},
      { heading: 'SESSION_COOKIE_DOMAIN', headingHits: ['session', 'cooki'], index: 9 },
    );
    const age = candidate(
      'Default: 1209600 (2 weeks, in seconds)',
      {},
      { heading: 'SESSION_COOKIE_AGE', headingHits: ['session', 'cooki', 'age'], index: 3 },
    );
    expect(extractiveAnswer('what is the default SESSION_COOKIE_AGE', [domain, age], settings, 'basic')).toBe(
      'Default: 1209600 (2 weeks, in seconds)',
    );
    expect(extractiveAnswer('what is the default SESSION_COOKIE_AGE', [domain], settings, 'basic')).toBeNull();
  });

  test('"how many X": a number next to X; a number about something else is no answer', () => {
    const population = new Map([
      ['popul', 1],
      ['franc', 2],
    ]);
    const storm = candidate('The storm of 1999 brought winds of 170 kilometres per hour to France and Germany.', {
      franc: [12],
    });
    expect(extractiveAnswer('what is the population of France', [storm], population, 'basic')).toBeNull();
    const census = candidate('The population of France was 68 million people in 2024, the census says.', {
      popul: [2],
      franc: [4],
    });
    expect(extractiveAnswer('what is the population of France', [storm, census], population, 'basic')).toBe(
      'The population of France was 68 million people in 2024, the census says.',
    );
  });

  test('"when": a date line under the heading that names the subject', () => {
    const release = new Map([
      ['django', 1],
      ['3.0', 2],
      ['releas', 1],
    ]);
    const dated = candidate(
      'December 2, 2019',
      {},
      { heading: 'Django 3.0 release notes', headingHits: ['django', '3.0', 'releas'] },
    );
    const undated = candidate('Following the release of Django 3.0, apps should drop old versions.', {
      releas: [4],
      django: [6],
      '3.0': [7],
    });
    expect(extractiveAnswer('when was Django 3.0 released', [undated, dated], release, 'basic')).toBe(
      'December 2, 2019',
    );
  });
});

import { planSubQuestions, resolveModel } from './research-plan.js';

describe('research plan without a model', () => {
  test('the whole input first, then each clause, de-duplicated, up to the model limit', () => {
    expect(planSubQuestions('How does tidal power work and how much does marine energy cost?', 'mini')).toEqual([
      'How does tidal power work and how much does marine energy cost?',
      'How does tidal power work',
      'how much does marine energy cost',
    ]);
    expect(planSubQuestions('How does tidal power work?', 'pro')).toEqual(['How does tidal power work?']);
    const broad = 'solar panels vs wind turbines, hydro dams and nuclear plants; geothermal wells or tidal barrages';
    expect(planSubQuestions(broad, 'mini')).toHaveLength(3);
    expect(planSubQuestions(broad, 'pro').length).toBeGreaterThan(3);
    expect(planSubQuestions(broad, 'pro')).toHaveLength(6);
    expect(planSubQuestions(broad, 'pro')[1]).toBe('solar panels');
  });

  test('one-word clauses are not sub-questions', () => {
    expect(planSubQuestions('tides, waves', 'pro')).toEqual(['tides, waves']);
  });

  test('auto: pro for several parts or a long input, mini otherwise; explicit models stay', () => {
    expect(resolveModel('auto', 'tidal power')).toBe('mini');
    expect(resolveModel(undefined, 'how tidal power works')).toBe('mini');
    expect(resolveModel('auto', 'tidal barrages, tidal stream turbines and wave energy converters')).toBe('pro');
    expect(resolveModel('auto', Array.from({ length: 25 }, (_, i) => `word${i}`).join(' '))).toBe('pro');
    expect(resolveModel('mini', 'tidal barrages, tidal stream turbines and wave energy converters')).toBe('mini');
    expect(resolveModel('pro', 'tides')).toBe('pro');
  });
});

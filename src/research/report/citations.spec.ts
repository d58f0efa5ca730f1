import { inTextCitation, referenceEntry, siteOf, sourcesSection } from './citations.js';

const source = { title: 'Tidal power explained', url: 'https://www.energy.example/tides' };

describe('citations', () => {
  test('in-text markers per format', () => {
    expect(inTextCitation('numbered', 3, source)).toBe('[3]');
    expect(inTextCitation('apa', 3, source)).toBe('([energy.example, n.d.](https://www.energy.example/tides))');
    expect(inTextCitation('mla', 3, source)).toBe('([“Tidal power explained”](https://www.energy.example/tides))');
    expect(inTextCitation('chicago', 3, source)).toBe(
      '([energy.example, “Tidal power explained”](https://www.energy.example/tides))',
    );
  });

  test('reference entries and the closing section', () => {
    expect(referenceEntry('numbered', 2, source)).toBe('2. [Tidal power explained](https://www.energy.example/tides)');
    expect(referenceEntry('apa', 2, source)).toBe(
      '- Tidal power explained. (n.d.). *energy.example*. https://www.energy.example/tides',
    );
    expect(sourcesSection('numbered', [source])).toBe(
      '## Sources\n\n1. [Tidal power explained](https://www.energy.example/tides)',
    );
    expect(sourcesSection('apa', [source]).startsWith('## References\n')).toBe(true);
    expect(sourcesSection('mla', [source]).startsWith('## Works Cited\n')).toBe(true);
  });

  test('a source without a title is named by its site', () => {
    expect(referenceEntry('numbered', 1, { title: ' ', url: 'http://127.0.0.1:8080/a' })).toBe(
      '1. [127.0.0.1](http://127.0.0.1:8080/a)',
    );
    expect(siteOf('not a url')).toBe('not a url');
  });
});

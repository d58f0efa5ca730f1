import { readFileSync } from 'node:fs';
import { decodeEntities, parseCaptionTrack, transcriptText } from './caption-track.js';
import { chooseCaptionTrack, parsePlayerResponse } from './player-response.js';
import { youTubeVideoId } from './youtube-url.js';

const fixture = (name: string) => readFileSync(`test/fixtures/site/youtube/${name}`, 'utf8');

describe('youTubeVideoId', () => {
  test.each([
    'https://www.youtube.com/watch?v=tIdEpOwEr01',
    'https://youtube.com/watch?feature=share&v=tIdEpOwEr01&t=42s',
    'https://m.youtube.com/watch?v=tIdEpOwEr01',
    'https://youtu.be/tIdEpOwEr01?si=abc',
    'https://www.youtube.com/shorts/tIdEpOwEr01',
    'https://youtube.com/embed/tIdEpOwEr01?start=3',
    'http://www.youtube.com/live/tIdEpOwEr01',
  ])('%s', (url) => expect(youTubeVideoId(url)).toBe('tIdEpOwEr01'));

  test.each([
    'https://www.youtube.com/@somechannel',
    'https://www.youtube.com/playlist?list=PL123',
    'https://www.youtube.com/watch?v=short',
    'https://notyoutube.com/watch?v=tIdEpOwEr01',
    'https://example.com/youtu.be/tIdEpOwEr01',
    'ftp://youtu.be/tIdEpOwEr01',
    'not a url',
  ])('not a video: %s', (url) => expect(youTubeVideoId(url)).toBeNull());
});

describe('parsePlayerResponse', () => {
  test('reads title, thumbnail and caption tracks from a real-format watch page', () => {
    const player = parsePlayerResponse(fixture('watch-tIdEpOwEr01.html'));
    expect(player).not.toBeNull();
    expect(player!.videoId).toBe('tIdEpOwEr01');
    expect(player!.title).toBe('How tidal power works');
    expect(player!.author).toBe('Fixture Channel');
    expect(player!.thumbnail).toBe('https://i.ytimg.com/vi/tIdEpOwEr01/maxresdefault.jpg');
    expect(player!.captionTracks.map((t) => [t.languageCode, t.kind ?? null, t.name])).toEqual([
      ['en', 'asr', 'English (auto-generated)'],
      ['fr', null, 'French'],
      ['en', null, 'English'],
    ]);
    // `\u0026` escapes in the page are decoded by JSON.parse.
    expect(player!.captionTracks[2]!.baseUrl).toMatch(/tIdEpOwEr01\.en\.xml\?v=tIdEpOwEr01&ei=.*&lang=en$/);
  });

  test('a video without captions has no tracks; a page without the player response is null', () => {
    expect(parsePlayerResponse(fixture('watch-nOcApTi0n03.html'))!.captionTracks).toEqual([]);
    expect(parsePlayerResponse('<html><script>var ytInitialData = {};</script></html>')).toBeNull();
    expect(parsePlayerResponse('var ytInitialPlayerResponse = {"unterminated": "{"')).toBeNull();
  });

  test('the window["ytInitialPlayerResponse"] form', () => {
    const html =
      '<script>window["ytInitialPlayerResponse"] = {"videoDetails":{"title":"A \\"quoted\\" } title"}};</script>';
    expect(parsePlayerResponse(html)!.title).toBe('A "quoted" } title');
  });
});

describe('chooseCaptionTrack', () => {
  const t = (languageCode: string, kind?: string) => ({ baseUrl: `${languageCode}${kind ?? ''}`, languageCode, kind });
  test('manual English, then automatic English, then any manual track, then anything', () => {
    expect(chooseCaptionTrack([t('en', 'asr'), t('fr'), t('en-GB')])?.baseUrl).toBe('en-GB');
    expect(chooseCaptionTrack([t('fr'), t('en', 'asr')])?.baseUrl).toBe('enasr');
    expect(chooseCaptionTrack([t('de', 'asr'), t('fr')])?.baseUrl).toBe('fr');
    expect(chooseCaptionTrack([t('de', 'asr')])?.baseUrl).toBe('deasr');
    expect(chooseCaptionTrack([])).toBeNull();
  });
});

describe('caption tracks', () => {
  test('timedtext XML: doubly escaped entities decoded, cues in order', () => {
    const cues = parseCaptionTrack(fixture('captions/tIdEpOwEr01.en.xml'));
    expect(cues).toHaveLength(9);
    expect(cues[1]).toEqual({
      start: 3.6,
      duration: 3.9,
      text: "That movement carries an enormous amount of energy, and it's completely predictable.",
    });
    expect(cues[2]!.text).toContain('wind turbine & it turns');
    expect(cues[7]!.text).toContain('the "tidal range".');
  });

  test('json3: segments joined per event, newline-only events dropped', () => {
    const cues = parseCaptionTrack(fixture('captions/aSrOnLy0002.es.json'));
    expect(cues.map((c) => c.text)).toEqual([
      'las mareas suben',
      'y bajan dos veces al día',
      'por la atracción de la luna',
    ]);
    expect(cues[2]!.start).toBe(9.5);
  });

  test('srv3 (<p t d> in milliseconds) with inline <s> segments', () => {
    const srv3 =
      '<timedtext format="3"><body><p t="1200" d="2000"><s>hello</s><s t="300"> there</s></p><p t="3500" d="900">&amp;gt; next</p></body></timedtext>';
    expect(parseCaptionTrack(srv3)).toEqual([
      { start: 1.2, duration: 2, text: 'hello there' },
      { start: 3.5, duration: 0.9, text: '> next' },
    ]);
  });

  test('a pause of 2.5 s or more starts a new paragraph', () => {
    const text = transcriptText(parseCaptionTrack(fixture('captions/tIdEpOwEr01.en.xml')));
    const paragraphs = text.split('\n\n');
    expect(paragraphs).toHaveLength(2);
    expect(paragraphs[0]).toMatch(/^Twice a day the sea rises.*great force\.$/);
    expect(paragraphs[1]).toMatch(/^The second design is the tidal lagoon.*can hold\.$/);
  });

  test('decodeEntities', () => {
    expect(decodeEntities('a &amp; b &lt;c&gt; &#39;d&#x27; &quot;e&quot; &nbsp;&unknown;')).toBe(
      'a & b <c> \'d\' "e"  &unknown;',
    );
  });
});

import { MAX_REASON, refusalReason } from './refusal-reason.js';

describe('refusalReason', () => {
  it("takes Tavily's detail.error first, then error, then message", () => {
    const both = JSON.stringify({ error: 'Forbidden', detail: { error: 'The key lacks the scope search.' } });
    expect(refusalReason(both)).toBe('The key lacks the scope search.');
    expect(refusalReason(JSON.stringify({ error: 'Too many requests' }))).toBe('Too many requests');
    expect(refusalReason(Buffer.from(JSON.stringify({ message: 'Bad\n  gateway' })))).toBe('Bad gateway');
  });

  it('says nothing for a body without a reason, or one that is not JSON', () => {
    expect(refusalReason('<html>502</html>')).toBeNull();
    expect(refusalReason(JSON.stringify({ detail: {} }))).toBeNull();
    expect(refusalReason(JSON.stringify(['error']))).toBeNull();
    expect(refusalReason(null)).toBeNull();
  });

  it('never keeps a secret: URLs lose their userinfo and query, keys all but their prefix', () => {
    const text = 'Refused: http://user:pw@10.0.0.1/admin?token=abc and sk_live_Ab3dE9xxxxxxxxxxxxxxxxxxxxxxxxxx';
    expect(refusalReason(JSON.stringify({ error: text }))).toBe('Refused: http://10.0.0.1/admin and sk_live_Ab3dE9…');
  });

  it('clips a long reason', () => {
    const reason = refusalReason(JSON.stringify({ error: 'x'.repeat(1000) }));
    expect(reason).toHaveLength(MAX_REASON);
    expect(reason?.endsWith('…')).toBe(true);
  });
});

import { VERTICALS } from '../verticals.js';
import { VERTICAL_FAMILIES, verticalSearch } from './index.js';

describe('the vertical families', () => {
  test('every vertical is answered by exactly one family', () => {
    for (const vertical of VERTICALS) {
      const families = VERTICAL_FAMILIES.filter((family) => family.verticals[vertical] !== undefined);
      expect({ vertical, families: families.length }).toEqual({ vertical, families: 1 });
      expect(verticalSearch(vertical)).toBe(families[0]!.verticals[vertical]);
    }
  });

  test('no family answers a name that is not a vertical', () => {
    const answered = VERTICAL_FAMILIES.flatMap((family) => Object.keys(family.verticals));
    expect(answered.filter((name) => !(VERTICALS as readonly string[]).includes(name))).toEqual([]);
    expect(answered).toHaveLength(VERTICALS.length);
  });
});

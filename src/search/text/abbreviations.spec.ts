import { abbreviationPositions, definedAbbreviations } from './abbreviations.js';

describe('definedAbbreviations', () => {
  test('finds "long form (SHORT)" definitions by their letters', () => {
    const text =
      'Participants underwent measurement of C reactive protein (CRP) and procalcitonin. An association between ' +
      'B-type natriuretic peptide (BNP) levels and risk of type 2 diabetes (T2D). Early patent ductus arteriosus ' +
      '(PDA) screening. Cognitive behavioral therapy (CBT) was compared.';
    expect(Object.fromEntries(definedAbbreviations(text))).toEqual({
      CRP: 'C reactive protein',
      BNP: 'B-type natriuretic peptide',
      T2D: 'type 2 diabetes',
      PDA: 'patent ductus arteriosus',
      CBT: 'Cognitive behavioral therapy',
    });
  });

  test('a parenthesis whose letters the words before it do not spell is no definition', () => {
    expect(definedAbbreviations('The results were clear (NOT significant).').size).toBe(0);
    expect(definedAbbreviations('Levels rose in the treated group (XYZ).').size).toBe(0);
  });
});

describe('abbreviationPositions', () => {
  test('whole words only, 1-based word positions', () => {
    expect(abbreviationPositions('Addition of CRP improved CRP-based scores, not CRPs.', 'CRP')).toEqual([3, 5]);
    expect(abbreviationPositions('Fewer CR-CSCs survived.', 'CR-CSCs')).toEqual([2]);
  });
});

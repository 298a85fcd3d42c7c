import { expect, it } from 'vitest';
import { isReturnId, kindOfId, newId, newReturnId } from '../../src/domain/ids.ts';

it('makes distinct, well-formed ids across many refills of the random pool', () => {
  // 20 bytes an id from a 4 KiB pool: 2,000 ids refill it about ten times, with ids straddling each refill.
  const ids = Array.from({ length: 2_000 }, (_, i) => (i % 3 === 0 ? newReturnId() : newId('customer')));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) {
    if (isReturnId(id)) continue;
    expect(id).toMatch(/^cus_[0-9a-z]{20}$/);
    expect(kindOfId(id)).toBe('customer');
  }
  expect(ids.filter(isReturnId)).toHaveLength(667);
});

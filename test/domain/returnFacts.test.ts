import { describe, expect, it } from 'vitest';
import { editedAtOf, originCountryOf } from '../../src/domain/returns/facts.ts';

describe('a return\'s facts', () => {
  it('is edited when it changed after its creation, whichever way its times are written', () => {
    const created = '2026-11-30T00:13:34.663Z';
    expect(editedAtOf({ createdAt: created, updatedAt: created })).toBeNull();
    expect(editedAtOf({ createdAt: created, updatedAt: '2026-11-30T00:13:34.664Z' })).toBe('2026-11-30T00:13:34.664Z');
    expect(editedAtOf({ createdAt: '2026-11-30T00:13:34.664Z', updatedAt: created })).toBeNull();
    // Written differently (no milliseconds, an offset): compared as instants, not as text.
    expect(editedAtOf({ createdAt: '2026-11-30T00:13:34.663Z', updatedAt: '2026-11-30T00:13:35Z' })).toBe('2026-11-30T00:13:35Z');
    expect(editedAtOf({ createdAt: '2026-11-30T00:13:34.663Z', updatedAt: '2026-11-30T01:13:34.000+02:00' })).toBeNull();
    expect(editedAtOf({ createdAt: new Date(created), updatedAt: new Date(Date.parse(created) + 1) })).toEqual(new Date(Date.parse(created) + 1));
  });

  it('names the origin country by its code, from the origin address or else the order\'s', () => {
    expect(originCountryOf({ originAddress: { country: ' de ' }, order: null })).toEqual({ code: 'DE', name: 'Germany' });
    expect(originCountryOf({ originAddress: null, order: { shippingAddress: { country: 'US' } } })).toEqual({ code: 'US', name: 'United States' });
    expect(originCountryOf({ originAddress: { country: 'Atlantis' }, order: null })).toEqual({ code: null, name: 'Atlantis' });
    expect(originCountryOf({ originAddress: {}, order: null })).toEqual({ code: null, name: null });
    // Asked twice: the kept name is the same.
    expect(originCountryOf({ originAddress: { country: 'DE' }, order: null }).name).toBe('Germany');
  });
});

import { describe, expect, it } from 'vitest';
import { FhError, resolveMessageReference } from '../src/index.js';

const candidates = {
  sessionId: 's1',
  checkpointIds: ['6e3bedf9-aaaa-4000-8000-000000000001', '6e3bedf9-bbbb-4000-8000-000000000002', '91c0ffee-cccc-4000-8000-000000000003'],
  otherIds: ['77aa1234-dddd-4000-8000-000000000004'],
};

function failure(reference: string): { code: string; message: string } {
  try {
    resolveMessageReference(reference, candidates);
  } catch (error) {
    if (!FhError.isInstance(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error(`"${reference}" resolved`);
}

describe('resolveMessageReference', () => {
  it('takes an exact id, a unique prefix of 4+ characters, and turn numbers from both ends', () => {
    expect(resolveMessageReference('91c0ffee-cccc-4000-8000-000000000003', candidates)).toBe('91c0ffee-cccc-4000-8000-000000000003');
    expect(resolveMessageReference('91c0', candidates)).toBe('91c0ffee-cccc-4000-8000-000000000003');
    expect(resolveMessageReference('6e3bedf9-b', candidates)).toBe('6e3bedf9-bbbb-4000-8000-000000000002');
    expect(resolveMessageReference('77aa', candidates)).toBe('77aa1234-dddd-4000-8000-000000000004');
    expect(resolveMessageReference('1', candidates)).toBe('6e3bedf9-aaaa-4000-8000-000000000001');
    expect(resolveMessageReference('3', candidates)).toBe('91c0ffee-cccc-4000-8000-000000000003');
    expect(resolveMessageReference('-1', candidates)).toBe('91c0ffee-cccc-4000-8000-000000000003');
    expect(resolveMessageReference('-3', candidates)).toBe('6e3bedf9-aaaa-4000-8000-000000000001');
  });

  it('lists the candidates of an ambiguous prefix', () => {
    expect(failure('6e3bedf9')).toEqual({
      code: 'FH_INVALID_ARGUMENT',
      message: 'message id prefix "6e3bedf9" fits 2 ids of session "s1": 6e3bedf9-aaaa-4000-8000-000000000001, 6e3bedf9-bbbb-4000-8000-000000000002; give more characters',
    });
  });

  it('gives one message naming the session for an empty, unknown, too short or out-of-range reference', () => {
    expect(failure('')).toEqual({
      code: 'FH_INVALID_ARGUMENT',
      message: 'an empty message id names no checkpoint or prompt of session "s1": give a message id, a unique prefix of 4 or more characters, or a turn number (fh list shows them)',
    });
    expect(failure('zzzz9')).toEqual({ code: 'FH_NOT_FOUND', message: 'no checkpoint or prompt "zzzz9" in session "s1"; fh list shows them' });
    expect(failure('6e3')).toEqual({ code: 'FH_NOT_FOUND', message: 'no checkpoint or prompt "6e3" in session "s1" (a prefix needs at least 4 characters); fh list shows them' });
    expect(failure('4')).toEqual({
      code: 'FH_NOT_FOUND',
      message: 'turn 4 does not exist: session "s1" has turns 1 to 3 (or -1 to -3, counting back from the newest; fh list shows them)',
    });
    expect(failure('-4').code).toBe('FH_NOT_FOUND');
    expect(failure('0').code).toBe('FH_NOT_FOUND');
  });
});

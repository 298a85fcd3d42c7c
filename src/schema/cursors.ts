// Cursors as clients hold them: a sort value and a tie-breaker, signed so an altered one is refused.
import crypto from 'node:crypto';
import { GraphQLError } from 'graphql';

export type CursorValue = string | number | null;
export type TieValue = string | number;

function invalidCursor(): GraphQLError {
  return new GraphQLError('invalid cursor: pass back a cursor exactly as it was returned', {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

/**
 * Signs cursors and checks the ones clients pass back, with a key from CURSOR_SECRET, so every
 * instance accepts every instance's cursors. Made once per process (process/contextServices.ts).
 */
export class CursorSigner {
  readonly #key: string;

  constructor(secret: string) {
    this.#key = secret;
  }

  #sign(payload: string): string {
    return crypto.createHmac('sha256', this.#key).update(payload).digest('base64url').slice(0, 22);
  }

  encode(scope: string, value: CursorValue, tie: TieValue): string {
    const payload = Buffer.from(JSON.stringify([scope, value, tie])).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  decode(scope: string, cursor: string): { value: CursorValue; tie: TieValue } {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor();
    const expected = this.#sign(payload);
    if (signature.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      throw invalidCursor();
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== scope || !['string', 'number'].includes(typeof parsed[2])) {
      throw new GraphQLError('this cursor belongs to another list or ordering', { extensions: { code: 'BAD_USER_INPUT' } });
    }
    return { value: parsed[1] as CursorValue, tie: parsed[2] as TieValue };
  }
}

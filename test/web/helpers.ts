// A signed-in dashboard (or a portal visitor) over plain HTTP: cookies kept by hand,
// forms posted with the page's CSRF token.
import { createMerchantUser } from '../../src/domain/merchantUsers.ts';
import type { TestServer } from '../support/server.ts';

export const PASSWORD = 'correct horse battery';

export class WebClient {
  readonly jar = new Map<string, string>();
  constructor(readonly server: Pick<TestServer, 'url'>) {}

  get cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, form?: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const value of [v].flat()) params.append(k, value);
      body = params.toString();
    }
    const response = await fetch(this.server.url + path, {
      method,
      redirect: 'manual',
      headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(this.jar.size ? { cookie: this.cookieHeader } : {}), ...headers },
      body,
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value) this.jar.set(pair.slice(0, eq), value);
      else this.jar.delete(pair.slice(0, eq));
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string | string[]>) {
    return this.request('POST', path, form);
  }

  /** The CSRF token of the first form on the page. */
  static csrfOf(html: string): string {
    const match = /name="csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error('no csrf field on the page');
    return match[1];
  }

  async login(storeId: string, email: string, password = PASSWORD) {
    const form = await this.get(`/admin/login?store=${storeId}`);
    return this.post('/admin/login', { csrf: WebClient.csrfOf(form.text), store: storeId, email, password });
  }
}

export async function createUser(server: TestServer, storeId: string, email = 'owner@example.com') {
  return createMerchantUser(server.db.prisma, { storeId, email, password: PASSWORD });
}

export async function signedIn(server: TestServer, storeId: string, email = 'owner@example.com'): Promise<WebClient> {
  await createUser(server, storeId, email);
  const client = new WebClient(server);
  const response = await client.login(storeId, email);
  if (response.status !== 303) throw new Error(`login failed: ${response.status}`);
  return client;
}

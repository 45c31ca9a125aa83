// Issue 3, points 14 and 15: the MSW handlers in-process (setupServer answering a plain fetch, any origin,
// any mount prefix, streaming), and the CLI (prints its line, serves, stops cleanly on SIGTERM/SIGINT).
import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { setupServer } from 'msw/node';
import { assertValid } from '../../spec/validator.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';
import { createHandlers, handlers } from '../../mock/index.ts';
import { startMockServer } from '../../mock/server.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { CliProcesses, startProcess } from './support/cli-process.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

test.describe.serial('point 14: MSW handlers in-process', () => {
  const msw = setupServer(...handlers);
  test.beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
  test.afterAll(() => msw.close());

  test('setupServer(...handlers) answers a plain fetch to any origin', async () => {
    const res = await fetch('https://api.example.test/v1/models');
    expect(res.status).toBe(200);
    const body = await res.json();
    assertValid('model-list', body);
    const one = await fetch('https://other.example/v1/models/acme%2Fchat-large');
    assertValid('model', await one.json());
  });

  test('a mount prefix before /v1/ is fine; chat and errors behave as over HTTP', async () => {
    const res = await fetch('https://gateway.example/some/prefix/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    assertValid('chat-response', body);
    expect(body.choices[0].finish_reason).toBe('length');
    const err = await fetch('https://gateway.example/v1/chat/completions', { method: 'POST', body: '{}' });
    expect(err.status).toBe(401);
    assertValid('error', await err.json());
    const nf = await fetch('https://gateway.example/v1/unknown');
    expect(nf.status).toBe(404);
  });

  test('streams through MSW decode like over HTTP', async () => {
    const res = await fetch('https://api.example.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json', 'x-mock-framing': 'crlf' },
      body: JSON.stringify({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
    });
    const events = decodeSse([new Uint8Array(await res.arrayBuffer())]);
    expect(events.at(-1)!.data).toBe('[DONE]');
    for (const e of events.slice(0, -1)) assertValid('chat-chunk', JSON.parse(e.data));
  });

  test('createHandlers() instances keep their own prompt cache', async () => {
    const req = {
      method: 'POST',
      headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MOCK_MODELS.caching, max_tokens: 2, messages: [{ role: 'user', content: [{ type: 'text', text: 'cache me please', cache_control: { type: 'ephemeral' } }] }] }),
    };
    msw.use(...createHandlers());
    const a = await (await fetch('https://x.example/v1/chat/completions', req)).json();
    expect(a.usage.prompt_tokens_details.cache_write_tokens).toBeGreaterThan(0);
    msw.resetHandlers(...createHandlers());
    const b = await (await fetch('https://x.example/v1/chat/completions', req)).json();
    expect(b.usage.prompt_tokens_details.cache_write_tokens).toBeGreaterThan(0);
    const c = await (await fetch('https://x.example/v1/chat/completions', req)).json();
    expect(c.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    msw.resetHandlers();
  });
});

test.describe('the node:http server', () => {
  test('127.0.0.1 by default, an IP address when asked (never a name); port 0 picks a free port; two servers side by side', async () => {
    await expect(startMockServer({ host: 'example.com' })).rejects.toThrow('host must be an IP address or localhost (got "example.com")');
    const a = await startMockServer({ port: 0 });
    const b = await startMockServer({ port: 0 });
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.url).toBe(`http://127.0.0.1:${a.port}`);
      expect((await fetch(`${b.url}/prefix/v1/models`)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

test.describe('point 15: CLI', () => {
  const cli = new CliProcesses();
  test.afterAll(() => cli.stopAll());

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`--port 0 prints "mock listening on http://127.0.0.1:N", serves, and exits 0 on ${signal}`, async () => {
      const mock = await cli.start(['mock', '--port', '0']);
      try {
        const url = mock.url;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        // The first line is what scripts read; the banner after it names a key, models and the command to run.
        const [first, ...banner] = mock.output().trim().split('\n');
        expect(first).toBe(`mock listening on ${url}`);
        expect(banner.join('\n')).toContain(MOCK_KEYS.full);
        expect(banner.join('\n')).toContain(`chatconform run --base-url ${url} --profile mock`);
        const res = await fetch(`${url}/v1/models`);
        assertValid('model-list', await res.json());
        // To the process itself, as a terminal's Ctrl-C or a service manager would send it.
        mock.child.kill(signal);
        expect(await mock.ended).toEqual({ code: 0, signal: null });
      } finally {
        mock.stop('SIGKILL');
      }
    });
  }

  test('the tsx binary (what npm run mock uses) also stops on SIGTERM and frees the port', async () => {
    // tsx relays signals to the script; `npx` does not forward SIGTERM to its child, so the test runs tsx itself.
    const tsx = await startProcess(`${repoRoot}node_modules/.bin/tsx`, ['cli/main.ts', 'mock', '--port', '0']);
    try {
      expect(tsx.stdout()).toMatch(/^mock listening on http:\/\/127\.0\.0\.1:\d+\n/);
      const url = tsx.url;
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);
      // tsx relays the signal to the script once its IPC channel is up; give it a moment under load.
      await new Promise((r) => setTimeout(r, 300));
      // To tsx alone (not its group): what is tested is that tsx passes it on.
      tsx.child.kill('SIGTERM');
      const result = await tsx.ended;
      expect(result.code === 0 || result.signal === 'SIGTERM', JSON.stringify(result)).toBe(true);
      await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
    } finally {
      tsx.stop('SIGKILL');
    }
  });

  test('a bad --port is refused with exit code 2', async () => {
    const refused = await cli.run(['mock', '--port', 'abc']);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('--port');
  });
});

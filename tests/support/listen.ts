// A server the tests start: on a free port of 127.0.0.1 only, and closed by the test with every connection it
// still holds (a kept-alive socket would keep server.close() waiting). A socket error never crashes the test.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Listens on a free 127.0.0.1 port; `close()` destroys every connection, closes the server, then runs `after`. */
export async function listen(server: Server, after?: () => Promise<void>): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await after?.();
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on: one the system just gave, taken back. */
export async function closedPort(): Promise<number> {
  const s = await listen(createServer());
  await s.close();
  return Number(new URL(s.url).port);
}

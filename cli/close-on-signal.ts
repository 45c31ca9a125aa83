// A server the CLI started (`mock`, `ui`) is closed once on Ctrl-C or SIGTERM: its connections end, then the process
// exits 0 (1 if closing failed). A second signal while it closes does nothing more.
export function closeOnSignal(server: { close(): Promise<unknown> }): void {
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Counts the turns of the event loop (one setImmediate each) while a test runs work that must yield between its
// parts: `now()` is the turn, `stop()` ends the count.
export function countTurns(): { now(): number; stop(): void } {
  let turn = 0;
  let ticking = true;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => turn,
    stop: () => {
      ticking = false;
    },
  };
}

// How long a test waits for an answer before it calls the wait a hang. Generous on purpose: a test proves the
// answer comes at all (the mock does not hang, its loop is not blocked), never how fast it comes, because on a
// loaded machine (two cores shared by test workers and child suite runs) any figure of speed is noise. Speed
// targets live in bench/ (npm run bench), which prints figures instead of failing on them.
export const HANG_BOUND_MS = 30_000;

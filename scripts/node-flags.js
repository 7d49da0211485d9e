// How every app process is started, here and in the benchmarks (the Dockerfile, docker-compose.yml and
// deploy/kubernetes repeat these flags; keep them in step).
// --max-semi-space-size=64: a 64 MiB young generation per semi-space instead of V8's 16 MiB default. The apps
// allocate many short-lived objects per request and per delivery; with the default, scavenges run so often
// that objects still in use get promoted and collected again by the slower old-generation GC. Measured with
// `npm run bench:dispatch`: fan-out 3,700–3,950 → 5,100–5,800 deliveries/s. Costs up to ~128 MiB per process.
// No --enable-source-maps: it made every stack trace (a timed-out delivery builds one) cost milliseconds and
// doubled start-up work; the compiled dist/ files keep the source's names and structure. Add it through
// NODE_OPTIONS when debugging.
export const APP_NODE_FLAGS = ['--max-semi-space-size=64'];

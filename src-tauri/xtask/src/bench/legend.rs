//! What each figure of the table measures, written under it in docs/benchmarks.md.

/// What each figure measures, under the table in the docs.
pub const LEGEND: &str = "What the figures measure (`cargo xtask bench -- --help` for the options):

- **Receipt parse**: `cargo bench -p smsdesk-engine --bench parse`, one core.
- **Ingest**: `cargo bench -p smsdesk-engine --bench ingest -- N 2048`: N SMPP receipts parsed, stored,
  correlated, projected and committed against N accepted messages; the writer thread's CPU time per
  receipt hardly moves when other work shares the machine. The peak private memory is that of the
  ingestion, from after the seeding of the N messages (which the writer's pages of are let go first,
  as an idle engine does). Its baseline is the raw SQLite inserts
  (500 a transaction), a yardstick of the disk and the CPU rather than the same work.
- **End to end**: `smsdesk serve` (release build) sending to `smsdesk sandbox-smsc` in its own process
  over TCP (SMPP window 64, TPS 100,000, a final receipt requested, the sandbox reporting 5 ms after
  acceptance). N distinct messages (each its own destination and text) handed in by 16 keep-alive
  clients, in batches of 500 (`POST /api/v1/messages/batch`) or one per request
  (`POST /api/v1/messages`), each request with its own Idempotency-Key. A message is done when the
  dashboard counts it delivered (its receipt applied); messages/s runs from the first request to the
  last one done, *intake alone* to the last 201. write() calls and bytes are the smsdesk process's
  `syscw`, `wchar` and `write_bytes` (`/proc/PID/io`) over the same span, per message: the database,
  its WAL and the log files (at the default level, `info`); a socket send is not a write() call. CPU
  is the process's user and system time. Each run is checked: `smsdesk export` finds exactly the
  messages answered 201, each with one accepted submit and delivered, and the SMSC counted each
  message submitted and accepted once.
  The *latency while sending* is that of each one-per-request request of the same run: the engine
  sends and applies receipts at full rate meanwhile.
- **HTTP intake alone**: one message per request, 16 clients, sending held off (the SMSC is a closed
  port); latency from a request's first byte written to its answer read. Twice, each on a new data
  directory: each request with an Idempotency-Key of its own, then without any.
- **Kannel**, the gateway of the field, in the same run: Debian's `kannel` package (bearerbox and
  smsbox, installed by `cargo xtask bench`) against the same sandbox SMSC process, loaded by the same
  client, one message a request through its `sendsms` interface, each with a `dlr-url` to a local
  receiver (`dlr-mask` 3). Configured as its user guide advises for throughput: no message store
  (its queue is in memory: not durable, where smsdesk commits every message before it answers),
  delivery reports kept in memory, warnings-only logs and no access log, unlimited queues, the same
  SMPP window and no throughput cap. End to end runs from the first request to the last delivered
  report at the `dlr-url`; CPU is bearerbox's and smsbox's; each run is checked (every report
  delivered, the SMSC accepted each message once). *Intake alone* has the SMSC a closed port, so
  Kannel queues what it takes. Ratios against Kannel are smsdesk / Kannel: above 1, smsdesk is faster.
- **Baselines**, measured in the same run: a bare rusmpp client sending the same messages to the same
  sandbox process with the same window and awaiting every receipt (ratio: smsdesk / bare client);
  raw SQLite inserts on the same disk (WAL, `synchronous=FULL`, one table of message-sized rows with
  one index), 500 rows a transaction for the batch intake and 16 for one per request (16 clients give
  at most 16 messages a commit).
- **Reads**: the dashboard, prefix-search, delivery-report and text-search rows of
  `cargo bench -p smsdesk-engine --bench views` (median and 99th percentile of 200 reads) on its
  fixture, a month of traffic; a common word is one of its templates' words.
- **Start**: `smsdesk serve` on a copy of that fixture, sending held off: from the process's start to
  the first 200 of `GET /api/v1/health` (the first start on the copy apart), its private memory
  (`RssAnon`) after 5 s idle, SIGTERM to exit, and the size of the `-wal` file left behind (0: none).

The sections below are the history, written by hand before this command existed: each figure there
describes the build it names.
";

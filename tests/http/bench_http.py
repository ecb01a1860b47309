#!/usr/bin/env python3
"""HTTP intake benchmark: messages posted to POST /api/v1/messages over keep-alive connections by a
few concurrent clients (ApacheBench), against a release build on a fresh data directory.

    python3 tests/http/bench_http.py [--bin target/release/smsdesk] [--requests 100000]
                                  [--concurrency 4,8,16] [--modes intake,sandbox,sandbox-full]

(`cargo xtask bench-http -- ARGS` builds the release binary and runs this.) Modes:

- intake:       sending held off (SMPP to a closed port on 127.0.0.1, so the dispatcher never
                claims anything): only intake is measured.
- sandbox:      the default configuration: the embedded sandbox SMSC, the dispatcher sending at
                smpp.tps = 10 while the requests come in.
- sandbox-full: the sandbox with sending unthrottled (smpp.tps 100000, window 64): intake competes
                with the dispatcher and receipt ingestion for the writer and the cores.

Each run: fresh data directory, an API key, `smsdesk serve --http-port 0`, `ab -k`; then the
server is stopped with SIGTERM and the rows are counted in the database: they must equal the 201
answers (no message lost, none extra). Prints one line per run and a Markdown table.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
from smsdesk_process import Server, create_api_key, find_binary, log, stop_on_sigterm

BODY = {"destination": "+33612345678", "text": "Your order 1042 has shipped"}


def main() -> int:
    stop_on_sigterm()
    args = parse_args()
    binary = find_binary(args.bin, "release")
    ensure_ab()
    log(f"binary {binary}; {machine()}")
    results = []
    for mode in args.modes.split(","):
        for concurrency in [int(c) for c in args.concurrency.split(",")]:
            results.append(bench(binary, mode, args.requests, concurrency, args.keep))
            r = results[-1]
            log(f"{mode} c={concurrency}: {r['committed_per_s']:,.0f} committed/s, p50 {r['p50_ms']:.2f} ms, "
                f"p99 {r['p99_ms']:.2f} ms, non-201 {r['non_201']}, rows {r['rows']}, peak RSS {r['peak_rss_mib']:.0f} MiB")
    print_table(results, args.requests)
    lost = [r for r in results if not r["rows_match"]]
    for r in lost:
        print(f"FAIL {r['mode']} c={r['concurrency']}: {r['rows']} rows stored, {r['created']} answered 201")
    return 1 if lost else 0


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", help="the smsdesk binary (default: SMSDESK_BIN, else $CARGO_TARGET_DIR/release/smsdesk)")
    p.add_argument("--requests", type=int, default=100_000, help="messages per run (default 100000)")
    p.add_argument("--concurrency", default="4,8,16", help="concurrent keep-alive clients, comma-separated")
    p.add_argument("--modes", default="intake,sandbox,sandbox-full", help="see above; comma-separated")
    p.add_argument("--keep", action="store_true", help="keep each run's data directory")
    return p.parse_args()


def ensure_ab() -> None:
    """ApacheBench (Debian's apache2-utils), installed when missing."""
    if shutil.which("ab"):
        return
    log("installing apache2-utils (for ab)")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(sudo + ["apt-get", "update"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "--no-install-recommends", "apache2-utils"], check=True, env=env)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mode_env(mode: str) -> dict[str, str]:
    if mode == "intake":
        return {"SMSDESK_SMPP_SANDBOX": "false", "SMSDESK_SMPP_HOST": "127.0.0.1", "SMSDESK_SMPP_PORT": str(closed_port())}
    if mode == "sandbox":
        return {}
    if mode == "sandbox-full":
        return {"SMSDESK_SMPP_TPS": "100000", "SMSDESK_SMPP_WINDOW": "64"}
    raise SystemExit(f"unknown mode {mode!r}: intake, sandbox or sandbox-full")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench(binary: Path, mode: str, requests: int, concurrency: int, keep: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"smsdesk-bench-{mode}-c{concurrency}-"))
    data_dir = work / "data"
    key = create_api_key(binary, data_dir, "bench")
    body = work / "body.json"
    body.write_text(json.dumps(BODY))
    server = Server(binary, data_dir, env={**mode_env(mode), "RUST_LOG": "warn"}, log_path=work / "server.log")
    try:
        cpu_before = cpu_seconds(server.pid)
        percentiles = work / "percentiles.csv"
        cmd = ["ab", "-k", "-q", "-r", "-l", "-s", "60", "-n", str(requests), "-c", str(concurrency),
               "-p", str(body), "-T", "application/json", "-H", f"Authorization: Bearer {key}",
               "-e", str(percentiles), f"{server.url}/api/v1/messages"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        cpu = cpu_seconds(server.pid) - cpu_before
        peak = server.peak_rss_kib() or 0
    finally:
        code = server.stop()
    ab = parse_ab(out)
    db = sqlite3.connect(f"file:{data_dir / 'smsdesk.db'}?mode=ro", uri=True)
    rows = db.execute("SELECT count(*) FROM message").fetchone()[0]
    queued = db.execute("SELECT count(*) FROM queue").fetchone()[0]
    sent = db.execute("SELECT count(*) FROM queue WHERE status <> 'queued'").fetchone()[0]
    db.close()
    p = read_percentiles(percentiles)
    created = ab["complete"] - ab["non_2xx"]
    result = {
        "mode": mode,
        "concurrency": concurrency,
        "requests": requests,
        "complete": ab["complete"],
        "created": created,
        "non_201": requests - created,
        "failed": ab["failed"],
        "keep_alive": ab["keep_alive"],
        "wall_s": ab["seconds"],
        "rows": rows,
        "sent": sent,
        "rows_match": rows == created and queued == rows and code == 0,
        "committed_per_s": rows / ab["seconds"],
        "p50_ms": p[50],
        "p99_ms": p[99],
        "max_ms": p[100],
        "server_cpu_s": cpu,
        "peak_rss_mib": peak / 1024,
        "exit_code": code,
    }
    print(json.dumps(result), flush=True)
    if not keep and result["rows_match"]:
        shutil.rmtree(work, ignore_errors=True)
    else:
        log(f"kept {work}")
    return result


def parse_ab(out: str) -> dict:
    def number(label: str, default: float | None = None) -> float:
        m = re.search(rf"^{re.escape(label)}:\s+([\d.]+)", out, re.M)
        if m:
            return float(m.group(1))
        if default is None:
            raise SystemExit(f"ab printed no `{label}`:\n{out}")
        return default

    return {
        "complete": int(number("Complete requests")),
        "failed": int(number("Failed requests")),
        "non_2xx": int(number("Non-2xx responses", 0)),
        "keep_alive": int(number("Keep-Alive requests", 0)),
        "seconds": number("Time taken for tests"),
    }


def read_percentiles(path: Path) -> dict[int, float]:
    """ab -e: the time (ms) within which each percentage of the requests was served."""
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return {int(float(pct)): float(ms) for pct, ms in rows}


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU")
    mem = int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024
    return f"{os.cpu_count()} cores ({model}), {mem:.0f} GiB"


def print_table(results: list[dict], requests: int) -> None:
    print(f"\n{requests:,} messages per run; {machine()}\n")
    print("| sending | clients | committed/s | wall time | p50 | p99 | non-201 | rows = 201s | sent meanwhile | smsdesk CPU | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['mode']} | {r['concurrency']} | {r['committed_per_s']:,.0f} | {r['wall_s']:.1f} s | "
              f"{r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | {r['non_201']} | "
              f"{'yes' if r['rows_match'] else 'NO'} ({r['rows']:,}) | {r['sent']:,} | {r['server_cpu_s'] / r['wall_s'] * 100:.0f} % | "
              f"{r['peak_rss_mib']:.0f} MiB |")


if __name__ == "__main__":
    sys.exit(main())

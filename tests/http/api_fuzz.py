#!/usr/bin/env python3
"""Malformed and valid requests against the API, generated from its OpenAPI description, then a
look at the database for anything half-written.

    python3 tests/http/api_fuzz.py [--bin target/debug/smsdesk] [--max-examples 200] [--seed N] [--keep]

(`cargo xtask api-fuzz` builds the binary and runs this; `cargo xtask test` runs it after the
Rust tests.) What it does:

1. Installs Schemathesis (versions pinned in api_fuzz_requirements.txt) into a virtualenv in
   $HOME/.cache/smsdesk/venv, unless that one is already there.
2. Starts `smsdesk serve --http-port 0` on a new data directory, with an API key, the embedded
   sandbox SMSC and a `vonage` callback provider, and hands in a few valid messages and receipts
   so that ids and exceptions exist. Then a few requests Schemathesis would make only by chance:
   one Idempotency-Key repeated by 12 clients at once (single and batch), and NUL characters in
   text that SQLite checks or searches.
3. Runs Schemathesis against GET /api/v1/openapi.json, valid and invalid data, every check (see
   api_fuzz.toml): once with the API key on every route but key management, once with the
   operator's token on key management (an API key gets 403 there, and revoking the fuzzing key
   mid-run would turn the rest into 401s).
4. Stops the server with SIGTERM (it must exit 0; its log must hold no ERROR and no panic) and
   checks the SQLite file: integrity, foreign keys, one queue row per message, idempotency
   records pointing at real messages, an outcome for every receipt, exactly the messages
   answered 201 and no other, and `smsdesk rebuild --check`.

Fails on any 5xx, any Schemathesis finding not listed in api_fuzz_baseline.json (each entry
there says why it is known and what would fix it), and any failed database check.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
from smsdesk_process import Server, create_api_key, find_binary, log, request, stop_on_sigterm

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "api_fuzz_requirements.txt"
CONFIG = HERE / "api_fuzz.toml"
BASELINE = HERE / "api_fuzz_baseline.json"
VENV = Path(os.environ.get("SMSDESK_FUZZ_VENV", Path.home() / ".cache" / "smsdesk" / "venv"))
CALLBACK_SECRET = "fuzz-secret-0123456789"  # also in api_fuzz.toml
CALLBACK_PROVIDERS = json.dumps({"vonage": {"secret": CALLBACK_SECRET}})
INTAKE_ROUTES = {"/api/v1/messages", "/api/v1/messages/batch"}


def main() -> int:
    stop_on_sigterm()
    args = parse_args()
    started = time.monotonic()
    check_baseline(args.baseline_update)
    schemathesis = ensure_schemathesis()
    binary = find_binary(args.bin, "debug")
    seed = args.seed if args.seed is not None else random.randrange(1, 2**31)
    work = Path(tempfile.mkdtemp(prefix="smsdesk-api-fuzz-"))
    data_dir = work / "data"
    log(f"binary {binary}; work directory {work}; seed {seed}")

    key = create_api_key(binary, data_dir, "api-fuzz")
    server = Server(
        binary,
        data_dir,
        env={"SMSDESK_CALLBACKS_PROVIDERS": CALLBACK_PROVIDERS, "RUST_LOG": "info"},
        log_path=work / "server.log",
    )
    results: list[tuple[str, bool, str]] = []
    runs: list[Run] = []
    try:
        log(f"smsdesk serve is up at {server.url} (pid {server.pid})")
        seeded_ids = seed_data(server.url, key)
        race_ok, race_ids, race_detail = race_idempotency(server.url, key)
        seeded_ids |= race_ids
        results.append(("24 concurrent repeats of one Idempotency-Key: one message, answers 201 or 409", race_ok, race_detail))
        nul_errors = probe_nul(server.url, key, server.operator_token())
        results.append(("a NUL character in free text gets a 4xx, not a 5xx", not nul_errors, "\n      ".join(nul_errors)))
        status, body, _ = request(server.url, "GET", "/api/v1/openapi.json", headers=bearer(key))
        if status != 200:
            raise SystemExit(f"GET /api/v1/openapi.json answered {status}: {body[:300]!r}")
        openapi = work / "openapi.json"
        openapi.write_bytes(body)

        common = ["--seed", str(seed), "--max-examples", str(args.max_examples), "--workers", str(args.workers)]
        if args.baseline_update:
            common += ["--baseline-update", "--continue-on-failure"]
        runs.append(run_schemathesis(schemathesis, "API key", server.url, key, openapi, work,
                                     common + ["--exclude-tag", "keys", "--exclude-tag", "accounts"]))
        runs.append(run_schemathesis(schemathesis, "operator", server.url, server.operator_token(), openapi, work,
                                     common + ["--include-tag", "keys", "--include-tag", "accounts"]))
    finally:
        code = server.stop()
    results.append(("server stopped on SIGTERM with exit code 0", code == 0, f"exit code {code}"))

    for run in runs:
        results.append((f"schemathesis ({run.name}): no finding outside the baseline", run.exit_code == 0,
                        f"exit code {run.exit_code}; see its FAILURES above. Fix the server or its description; "
                        f"only a description that can not say more may go in {BASELINE.name} "
                        "(--baseline-update, then write its `reason`)"))
    server_errors = [i for run in runs for i in run.interactions if i.status >= 500]
    results.append(("no 5xx answer to Schemathesis", not server_errors,
                    "\n".join(f"{i.status} {i.method} {i.uri}\n      {i.body[:300]!r}" for i in server_errors[:20])))

    # A panic in a background task, or an error that reached no client, shows only in the log.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", server.log_text(last=10**9)).splitlines()
    bad = [line for line in plain if " ERROR " in line or "panicked" in line]
    results.append(("the server logged no ERROR and no panic", not bad, "\n      ".join(bad[:10])))

    answered = set(seeded_ids)
    for run in runs:
        answered |= run.created_ids()
    results += check_database(data_dir / "smsdesk.db", answered)
    rebuild = subprocess.run([str(binary), "rebuild", "--check", "--data-dir", str(data_dir)],
                             capture_output=True, text=True)
    results.append(("`smsdesk rebuild --check`: every stored state equals the recomputed one",
                    rebuild.returncode == 0, f"exit code {rebuild.returncode}\n{rebuild.stdout[-1500:]}{rebuild.stderr[-1500:]}"))

    failed = print_summary(runs, results, seed, args, time.monotonic() - started)
    if failed or args.keep:
        log(f"kept for inspection: {work} (server.log, data/, schemathesis reports)")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", help="the smsdesk binary (default: SMSDESK_BIN, else $CARGO_TARGET_DIR/debug/smsdesk)")
    p.add_argument("--max-examples", type=int, default=int(os.environ.get("SMSDESK_FUZZ_MAX_EXAMPLES", "200")),
                   help="test cases per operation and phase (default 200, or SMSDESK_FUZZ_MAX_EXAMPLES)")
    p.add_argument("--seed", type=int, help="repeat an earlier run (its seed is printed)")
    # One worker: on Debian 12's Python 3.11, Hypothesis describing its strategies from two threads
    # at once trips CPython's AST recursion-depth check ("AST constructor recursion depth
    # mismatch"): a Runtime Error of the fuzzer, not of the server.
    p.add_argument("--workers", type=int, default=1, help="concurrent Schemathesis workers (default 1)")
    p.add_argument("--keep", action="store_true", help="keep the work directory even when everything passed")
    p.add_argument("--baseline-update", action="store_true",
                   help="add this run's new findings to api_fuzz_baseline.json (then give each a reason)")
    return p.parse_args()


def check_baseline(updating: bool) -> None:
    """The accepted findings: each must say why, and a 5xx is never acceptable."""
    if not BASELINE.is_file():
        if updating:
            return
        # Schemathesis would quietly record every finding into a missing baseline and pass.
        raise SystemExit(f"{BASELINE} is missing; create it with --baseline-update, then give each entry a reason")
    for entry in json.loads(BASELINE.read_text())["entries"]:
        if entry.get("check") == "not_a_server_error":
            raise SystemExit(f"{BASELINE.name}: a 5xx can not be accepted ({entry['operation']}): fix the server")
        if not entry.get("reason") and not updating:
            raise SystemExit(f"{BASELINE.name}: entry {entry.get('id')} ({entry['operation']}, {entry['check']}) "
                             "has no `reason`: say why it is accepted and what would fix it")


def ensure_schemathesis() -> Path:
    """The schemathesis command from the pinned virtualenv, installing it when missing or stale."""
    wanted = REQUIREMENTS.read_text()
    stamp = VENV / "smsdesk-requirements.txt"
    exe = VENV / "bin" / "schemathesis"
    if exe.is_file() and stamp.is_file() and stamp.read_text() == wanted:
        # A virtualenv outlives the Python it was made with: check it still runs.
        if subprocess.run([str(exe), "--version"], capture_output=True).returncode == 0:
            return exe
    log(f"installing Schemathesis ({REQUIREMENTS.name}) into {VENV}")
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], capture_output=True, text=True)
    if made.returncode != 0:
        raise SystemExit(
            f"cannot create a virtualenv with {sys.executable} ({made.stderr.strip()[-300:]}).\n"
            "On Debian: sudo apt-get install python3-venv (cargo xtask setup installs it)"
        )
    subprocess.run([str(VENV / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(REQUIREMENTS)], check=True)
    stamp.write_text(wanted)
    return exe


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seed_data(url: str, key: str) -> set[int]:
    """Valid messages (ids 1-7) and receipts (exceptions 1-2), so generated ids find something."""
    later = (datetime.now(timezone.utc) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    singles = [
        ({"destination": "+33612345678", "text": "Seed: sent at once"}, {"Idempotency-Key": "seed-1"}),
        ({"destination": "+447911123456", "text": "Your code is 4821", "kind": "otp"}, {}),
        ({"destination": "+33 6 12 34 56 00", "text": "Seed: tomorrow", "scheduled_at": later}, {}),
    ]
    ids: set[int] = set()
    for body, headers in singles:
        ids |= created(request(url, "POST", "/api/v1/messages", body, {**bearer(key), **headers}), body)
    batch = {"messages": [
        {"destination": "+79161234567", "text": "Seed batch 1", "ordering_key": "order-7"},
        {"destination": "+79161234567", "text": "Seed batch 2", "ordering_key": "order-7"},
        {"destination": "+14158586273", "text": "Сид: ünïcødé", "kind": "bulk", "priority": 9},
    ]}
    ids |= created(request(url, "POST", "/api/v1/messages/batch", batch,
                           {**bearer(key), "Idempotency-Key": "seed-batch"}), batch)
    last = {"destination": "+33612345601", "text": "Seed: stays queued", "scheduled_at": later}
    ids |= created(request(url, "POST", "/api/v1/messages", last, bearer(key)), last)

    for body in (b"messageId=FFFF0001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678",
                 b"not a report"):
        status, answer, _ = request(url, "POST", f"/api/v1/callbacks/vonage?token={CALLBACK_SECRET}", body,
                                    {"Content-Type": "application/x-www-form-urlencoded"})
        if status != 200:
            raise SystemExit(f"seeding: a callback was answered {status}: {answer[:300]!r}")
    time.sleep(2)  # the sandbox accepts and reports on the immediate ones meanwhile
    log(f"seeded messages {sorted(ids)} and 2 callbacks")
    return ids


def race_idempotency(url: str, key: str) -> tuple[bool, set[int], str]:
    """The same request with the same key from many clients at once, single and batch: each
    must get the one message's answer (201, replayed) or 409 while the first is in flight."""
    import concurrent.futures

    cases = [("/api/v1/messages", {"destination": "+33612345678", "text": "race"}, "race-single"),
             ("/api/v1/messages/batch", {"messages": [{"destination": "+33612345678", "text": "race 1"},
                                                      {"destination": "+33612345678", "text": "race 2"}]}, "race-batch")]
    ids: set[int] = set()
    problems = []
    for path, body, idem in cases:
        headers = {**bearer(key), "Idempotency-Key": idem}
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda _: request(url, "POST", path, body, headers), range(12)))
        statuses = sorted({a[0] for a in answers})
        distinct = {frozenset(message_ids(json.loads(a[1]))) for a in answers if a[0] == 201}
        if not set(statuses) <= {201, 409} or len(distinct) != 1:
            problems.append(f"{path}: statuses {statuses}, distinct answers {[sorted(d) for d in distinct]}")
        for d in distinct:
            ids |= d
    return not problems, ids, "; ".join(problems)


def probe_nul(url: str, key: str, operator: str) -> list[str]:
    """Text with a NUL character where SQLite meets it (CHECK constraints with length(), the
    full-text search): Schemathesis generates these only now and then, so they are always sent."""
    probes = [
        ("POST", "/api/v1/keys", {"name": "\u0000"}, operator),
        ("POST", "/api/v1/exceptions/1/resolve", {"action": "dismiss", "note": "\u0000 checked"}, key),
        ("GET", "/api/v1/messages?q=ab%00cd", None, key),
    ]
    errors = []
    for method, path, body, token in probes:
        status, answer, _ = request(url, method, path, body, bearer(token))
        if status >= 500:
            shown = json.dumps(body) if body is not None else ""
            errors.append(f"{method} {path} {shown} -> {status} {answer[:200].decode(errors='replace')}")
    return errors


def created(answer: tuple[int, bytes, dict[str, str]], sent: object) -> set[int]:
    status, body, _ = answer
    if status != 201:
        raise SystemExit(f"seeding: {json.dumps(sent)} was answered {status}: {body[:300]!r}")
    return message_ids(json.loads(body))


def message_ids(answer: object) -> set[int]:
    """The message ids in a 201 answer of POST /messages or /messages/batch."""
    if isinstance(answer, dict) and isinstance(answer.get("id"), int):
        return {answer["id"]}
    if isinstance(answer, dict) and isinstance(answer.get("messages"), list):
        return {m["id"] for m in answer["messages"] if isinstance(m, dict) and isinstance(m.get("id"), int)}
    return set()


class Interaction:
    def __init__(self, raw: dict):
        req, resp = raw["request"], raw.get("response") or {}
        self.method = req["method"]
        self.uri = req["uri"]
        self.path = urllib.parse.urlsplit(self.uri).path
        self.status = resp.get("status_code") or 0
        content = resp.get("content") or {}
        if "$base64" in content:
            self.body = base64.b64decode(content["$base64"])
        else:
            self.body = str(content.get("$text", "")).encode()


class Run:
    def __init__(self, name: str, exit_code: int, interactions: list[Interaction], seconds: float):
        self.name, self.exit_code, self.interactions, self.seconds = name, exit_code, interactions, seconds

    def status_counts(self) -> dict[int, int]:
        return dict(sorted(collections.Counter(i.status for i in self.interactions).items()))

    def created_ids(self) -> set[int]:
        ids: set[int] = set()
        for i in self.interactions:
            if i.method == "POST" and i.path in INTAKE_ROUTES and i.status == 201:
                try:
                    ids |= message_ids(json.loads(i.body))
                except ValueError:
                    pass
        return ids


def run_schemathesis(exe: Path, name: str, url: str, token: str, openapi: Path, work: Path, extra: list[str]) -> Run:
    slug = name.replace(" ", "-").lower()
    reports = work / f"schemathesis-{slug}"
    ndjson = reports / "events.ndjson"
    cmd = [str(exe), "--config-file", str(CONFIG), "run", str(openapi), "--url", url, "--mode", "all",
           "--baseline", str(BASELINE), "--report", "ndjson,junit", "--report-dir", str(reports),
           "--report-ndjson-path", str(ndjson), *extra]
    log(f"schemathesis as {name}: {' '.join(cmd[1:])}")
    env = {**os.environ, "SMSDESK_FUZZ_TOKEN": token}
    t = time.monotonic()
    # In the work directory, so nothing it caches lands in the repository.
    code = subprocess.run(cmd, cwd=work, env=env).returncode
    interactions = []
    if ndjson.is_file():
        for line in ndjson.read_text().splitlines():
            finished = json.loads(line).get("ScenarioFinished")
            if finished:
                interactions += [Interaction(raw) for raw in (finished["recorder"].get("interactions") or {}).values()]
    return Run(name, code, interactions, time.monotonic() - t)


def check_database(db: Path, answered: set[int]) -> list[tuple[str, bool, str]]:
    """What a stopped instance must have left: nothing half-written."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    one = lambda sql: conn.execute(sql).fetchall()  # noqa: E731
    out: list[tuple[str, bool, str]] = []

    integrity = one("PRAGMA integrity_check")
    out.append(("PRAGMA integrity_check is ok", integrity == [("ok",)], repr(integrity[:10])))
    fk = one("PRAGMA foreign_key_check")
    out.append(("PRAGMA foreign_key_check finds nothing", not fk, repr(fk[:10])))

    total = one("SELECT count(*) FROM message")[0][0]
    bad_queue = one("SELECT m.id, (SELECT count(*) FROM queue q WHERE q.message_id = m.id) AS n FROM message m WHERE n <> 1")
    orphans = one("SELECT message_id FROM queue WHERE message_id NOT IN (SELECT id FROM message)")
    out.append((f"each of the {total} messages has exactly one queue row", not bad_queue and not orphans,
                f"messages with another count (id, rows): {bad_queue[:10]}; queue rows without a message: {orphans[:10]}"))

    existing = {r[0] for r in one("SELECT id FROM message")}
    problems = []
    records = one("SELECT scope, key, route, status, response_json FROM idempotency")
    for scope, key, route, status, response in records:
        try:
            ids = message_ids(json.loads(response))
        except ValueError:
            ids = set()
        if status != 201 or not ids or not ids <= existing:
            problems.append(f"{scope}/{key!r} on {route}: status {status}, ids {sorted(ids)}, missing {sorted(ids - existing)}")
            continue
        if route == "messages":
            (msg,) = ids
            row = one(f"SELECT idempotency_scope, idempotency_key FROM message WHERE id = {msg}")
            if row != [(scope, key)]:
                problems.append(f"{scope}/{key!r}: message {msg} carries {row}")
    out.append((f"each of the {len(records)} idempotency records answers with messages that exist", not problems,
                "\n      ".join(problems[:10])))

    receipts = one("SELECT count(*) FROM receipt")[0][0]
    no_outcome = [r[0] for r in one("SELECT id FROM receipt WHERE id NOT IN (SELECT receipt_id FROM receipt_outcome)")]
    out.append((f"each of the {receipts} receipts has its receipt_outcome", not no_outcome, f"receipts without: {no_outcome[:10]}"))

    unanswered = sorted(existing - answered)
    lost = sorted(answered - existing)
    out.append((f"the messages stored are exactly the {len(answered)} answered 201", not unanswered and not lost,
                f"stored but never answered 201: {unanswered[:20]}; answered 201 but not stored: {lost[:20]}"))
    conn.close()
    return out


def print_summary(runs: list[Run], results: list[tuple[str, bool, str]], seed: int, args: argparse.Namespace,
                  seconds: float) -> int:
    print("\napi-fuzz summary")
    print(f"  seed {seed} (repeat with --seed {seed}), up to {args.max_examples} cases per operation and phase")
    for run in runs:
        counts = "  ".join(f"{s}×{n}" for s, n in run.status_counts().items())
        print(f"  {run.name}: {len(run.interactions)} requests in {run.seconds:.0f} s: {counts}")
    failed = 0
    for name, ok, detail in results:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
        if not ok:
            failed += 1
            print(f"      {detail}")
    print(f"api-fuzz: {len(results) - failed} passed, {failed} failed ({seconds:.0f} s)")
    return failed


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""smsdesk's SMPP server, driven by an SMPP client that is not ours: smpplib (PyPI).

What it does, against the built `smsdesk` binary (--bin):

1. Starts the sandbox SMSC as a process of its own (`smsdesk sandbox-smsc`, counting what it
   accepts in a file, so the counts outlive smsdesk), and `smsdesk serve` with its SMPP server on,
   sending to that SMSC. Creates the account with `smsdesk smpp-user add` (before the start).
2. Binds smpplib as a transceiver and submits --messages messages (every 10th long, in two or three
   UDH parts; every 7th in UCS-2) at the account's rate, each asking for a receipt. Every
   submit_sm_resp's id is kept; a refused submit (ESME_RTHROTTLED) is sent again later.
3. Halfway, sends a burst at several times the rate: some submits must be refused ESME_RTHROTTLED.
4. Kills smsdesk with SIGKILL in the middle of the run, starts it again, binds again, sends the
   rest and what was never answered (with a new text: it was not taken, as far as the client
   knows), then waits for the receipts.
5. Checks: every part of one message was answered with one id; the SMSC accepted nothing twice;
   every message answered with an id was accepted by the SMSC once (one accepted try per part),
   except those whose submit to the SMSC was in flight at the kill (their outcome is unknown and
   goes to the exception queue, never sent blindly again), and each of those is counted; every
   message answered with an id whose state is final got a deliver_sm receipt in SMPP's format
   (`id:<id> ... stat:DELIVRD`), with receipted_message_id equal to that id.

Prints the figures; exits 1 on a failed check. Installs smpplib (pinned in requirements.txt)
into $HOME/.cache/smsdesk/venv-smpp when it is missing, and runs itself there.
"""

import argparse
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get("SMSDESK_SMPP_VENV", Path.home() / ".cache" / "smsdesk" / "venv-smpp"))
REQUIREMENTS = HERE / "requirements.txt"


def in_venv() -> None:
    """Runs this script again in the virtualenv that has smpplib, made on first use."""
    python = VENV / "bin" / "python3"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    try:
        import smpplib  # noqa: F401
        return
    except ImportError:
        pass
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], check=True)
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, seconds: float = 30) -> None:
    end = time.time() + seconds
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on port {port} after {seconds} s")


class Run:
    def __init__(self, args):
        self.args = args
        self.bin = args.bin
        self.tmp = Path(tempfile.mkdtemp(prefix="smsdesk-smpp-peer-"))
        self.data = self.tmp / "data"
        self.data.mkdir()
        self.smsc_port, self.server_port = free_port(), free_port()
        self.counts = self.tmp / "counts.json"
        self.env = dict(os.environ, SMSDESK_LOG_LEVEL="warn")
        self.serve = None
        self.smsc = None
        # What the client saw.
        self.lock = threading.Lock()
        self.pending = {}  # sequence -> message number
        self.ids = {}  # message number -> set of ids its parts were answered with
        self.parts_answered = {}  # message number -> parts answered OK
        self.parts = {}  # message number -> number of parts
        self.throttled = 0
        self.refused_other = {}
        # What to send again: ("pdu", n, part, coding, esm) for one refused part, as a client resends
        # a throttled PDU as it was; ("message", n) for a whole message never answered.
        self.retry = []
        self.receipts = {}  # id -> list of (stat, tlv id)
        self.bad_receipts = []

    # --- processes ------------------------------------------------------------------------------
    def start_smsc(self):
        self.smsc = subprocess.Popen(
            [self.bin, "sandbox-smsc", "--port", str(self.smsc_port), "--receipt-delay-ms", "20",
             "--counts-file", str(self.counts)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        wait_port(self.smsc_port)

    def configure(self):
        (self.data / "smsdesk.toml").write_text(
            f"""[smpp]
sandbox = false
host = "127.0.0.1"
port = {self.smsc_port}
window = 100
tps = 5000

[smpp_server]
enabled = true
port = {self.server_port}

[intake]
default_region = "FR"
""")
        out = subprocess.run(
            [self.bin, "smpp-user", "add", "pbx", "--tps", str(self.args.tps), "--window", "200",
             "--data-dir", str(self.data)],
            capture_output=True, text=True, env=self.env, check=True).stdout
        self.password = re.search(r"password:\n\s+(\S+)", out).group(1)
        assert len(self.password) <= 8, out

    def start_serve(self):
        self.serve = subprocess.Popen(
            [self.bin, "serve", "--http-port", "0", "--data-dir", str(self.data)],
            stdout=subprocess.DEVNULL, stderr=open(self.tmp / "serve.log", "a"), env=self.env)
        wait_port(self.server_port)

    def kill_serve(self):
        self.serve.send_signal(signal.SIGKILL)
        self.serve.wait()

    def stop(self):
        for p in (self.serve, self.smsc):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()

    # --- the client -----------------------------------------------------------------------------
    def connect(self):
        import smpplib.client
        client = smpplib.client.Client("127.0.0.1", self.server_port, allow_unknown_opt_params=True)
        client.set_message_sent_handler(self.on_sent)
        client.set_message_received_handler(self.on_received)
        client.set_error_pdu_handler(lambda pdu: None)
        client.connect()
        client.bind_transceiver(system_id="pbx", password=self.password)
        reader = threading.Thread(target=self.listen, args=(client,), daemon=True)
        reader.start()
        return client, reader

    def listen(self, client):
        try:
            client.listen()
        except Exception:
            # The connection went (smsdesk killed, or the client closed it).
            pass

    def on_sent(self, pdu):
        with self.lock:
            sent = self.pending.pop(pdu.sequence, None)
            if sent is None:
                return
            n, part, coding, esm = sent
            if pdu.status == 0:
                mid = pdu.message_id.decode() if isinstance(pdu.message_id, bytes) else str(pdu.message_id)
                self.ids.setdefault(n, set()).add(mid)
                self.parts_answered[n] = self.parts_answered.get(n, 0) + 1
            elif pdu.status == 0x58:
                self.throttled += 1
                self.retry.append(("pdu", n, part, coding, esm))
            else:
                self.refused_other[pdu.status] = self.refused_other.get(pdu.status, 0) + 1

    def on_received(self, pdu):
        text = pdu.short_message.decode("latin-1") if isinstance(pdu.short_message, bytes) else str(pdu.short_message)
        m = re.match(r"id:(\S+) sub:\d{3} dlvrd:\d{3} submit date:\d{10} done date:\d{10} stat:(\w{7}) err:\d{3} text:", text)
        tlv = pdu.receipted_message_id
        tlv = tlv.decode() if isinstance(tlv, bytes) else tlv
        with self.lock:
            if not m or tlv != m.group(1):
                self.bad_receipts.append(text)
            else:
                self.receipts.setdefault(m.group(1), []).append(m.group(2))
        return 0

    def send(self, client, n, attempt):
        import smpplib.consts
        import smpplib.gsm
        ucs2 = n % 7 == 0
        long = n % 10 == 0 and n < self.args.messages
        body = f"Appointment {n} attempt {attempt}: tomorrow 10:00 at the clinic"
        if ucs2:
            body = f"Запись {n}/{attempt}: завтра в 10:00"
        if long:
            body = (body + " ") * (6 if not ucs2 else 3)
        parts, coding, esm = smpplib.gsm.make_parts(body)
        with self.lock:
            self.parts[n] = len(parts)
            self.ids.pop(n, None)
            self.parts_answered.pop(n, None)
        for part in parts:
            self.send_part(client, n, part, coding, esm)

    def send_part(self, client, n, part, coding, esm):
        import smpplib.consts
        # Held while sending, so that the answer (read on another thread) finds its submit.
        with self.lock:
            pdu = client.send_message(
                source_addr_ton=smpplib.consts.SMPP_TON_ALNUM, source_addr="Clinic",
                dest_addr_ton=smpplib.consts.SMPP_TON_INTL, destination_addr=f"336{n:06d}{50 + n % 50:02d}",
                short_message=part, data_coding=coding, esm_class=esm, registered_delivery=True)
            self.pending[pdu.sequence] = (n, part, coding, esm)

    def answered(self, n):
        with self.lock:
            return self.parts_answered.get(n, 0) == self.parts.get(n, -1)

    def main(self):
        in_flight_max = 150
        self.start_smsc()
        self.configure()
        self.start_serve()
        client, reader = self.connect()
        total = self.args.messages
        kill_at = total // 2
        burst_at = total // 4
        started = time.time()
        sent_at_rate = 0
        n = 0
        attempt = {}
        killed = False
        pace = 1.0 / (self.args.tps * 0.9)
        next_send = time.time()
        give_up = time.time() + 600
        while time.time() < give_up:
            with self.lock:
                busy = bool(self.retry or self.pending)
            if n >= total and not busy:
                break
            if not killed and n >= kill_at:
                # A handful sent at once, and smsdesk killed while they are being answered.
                for k in range(20):
                    self.send(client, n + k, 1)
                n += 20
                self.kill_serve()
                killed = True
                reader.join(timeout=5)
                # What was not answered was not taken, as far as the client knows: sent again.
                with self.lock:
                    unanswered = sorted({p[0] for p in self.pending.values()} | {r[1] for r in self.retry})
                    self.pending.clear()
                    self.retry = [("message", u) for u in unanswered]
                self.killed_unanswered = len(unanswered)
                self.start_serve()
                client, reader = self.connect()
            if n == burst_at and not hasattr(self, "burst"):
                # A burst well beyond the account's rate: some are refused, and sent again.
                self.burst = self.args.tps * 3
                for k in range(self.burst):
                    self.send(client, total + k, 1)
                time.sleep(1.5)
                continue
            while True:
                with self.lock:
                    waiting = len(self.pending)
                if waiting < in_flight_max:
                    break
                time.sleep(0.001)
            with self.lock:
                again = self.retry.pop() if self.retry else None
            if again is not None and again[0] == "pdu":
                self.send_part(client, *again[1:])
            elif again is not None:
                attempt[again[1]] = attempt.get(again[1], 1) + 1
                self.send(client, again[1], attempt[again[1]])
            elif n < total:
                self.send(client, n, 1)
                n += 1
                sent_at_rate += 1
            else:
                time.sleep(0.05)
                next_send = time.time()
                continue
            next_send += pace
            delay = next_send - time.time()
            if delay > 0:
                time.sleep(delay)
        elapsed_in = time.time() - started
        return client, reader, elapsed_in

    def check(self, client, elapsed_in):
        failures = []
        messages = self.args.messages + getattr(self, "burst", 0)
        with self.lock:
            answered = {n: ids for n, ids in self.ids.items() if self.parts_answered.get(n) == self.parts.get(n)}
        split = [n for n, ids in answered.items() if len(ids) != 1]
        if split:
            failures.append(f"{len(split)} messages had parts answered with different ids: {split[:5]}")
        ids = {next(iter(v)): n for n, v in answered.items() if len(v) == 1}
        if len(answered) != messages:
            never = [n for n in range(messages) if n not in answered][:5]
            detail = [(n, self.parts.get(n), self.parts_answered.get(n), self.ids.get(n)) for n in never]
            failures.append(f"{messages - len(answered)} of {messages} messages were never answered with an id: {detail}")
        if self.throttled == 0:
            failures.append("the burst beyond the account's rate was never throttled")
        # Wait until smsdesk is done with every message answered (none queued or sending), then
        # for the receipts of every message whose state is final.
        db = sqlite3.connect(self.data / "smsdesk.db")
        deadline = time.time() + 90
        while time.time() < deadline:
            busy = db.execute("SELECT count(*) FROM queue WHERE status IN ('queued', 'sending')").fetchone()[0]
            if busy == 0:
                break
            time.sleep(0.5)
        # The SMSC's receipts come after its acceptances: wait until no more states become final
        # (for 3 s), then every final one must have reached the client.
        final_states = "('delivered','expired','deleted','undeliverable','rejected','unknown')"
        settled, count = time.time(), -1
        while time.time() < deadline and time.time() - settled < 3:
            now = db.execute(f"SELECT count(*) FROM projection WHERE state IN {final_states}").fetchone()[0]
            if now != count:
                settled, count = time.time(), now
            time.sleep(0.5)
        while True:
            final = dict(db.execute(
                f"SELECT message_id, state FROM projection WHERE state IN {final_states}").fetchall())
            with self.lock:
                missing = [i for i in ids if int(i) in final and i not in self.receipts]
            if not missing or time.time() > deadline:
                break
            time.sleep(0.5)
        if missing:
            failures.append(f"{len(missing)} final messages got no receipt, e.g. {missing[:5]}")
        if self.bad_receipts:
            failures.append(f"{len(self.bad_receipts)} receipts not in SMPP's format, e.g. {self.bad_receipts[:2]}")
        # Sent once: what the SMSC accepted, and the tries smsdesk recorded.
        counts = json.loads(self.counts.read_text())
        if counts["accepted_twice"]:
            failures.append(f"the SMSC accepted {counts['accepted_twice']} texts twice")
        rows = db.execute(
            "SELECT m.id, m.segments, q.status, "
            "(SELECT count(*) FROM attempt a WHERE a.message_id = m.id AND a.outcome = 'accepted') "
            "FROM message m JOIN queue q ON q.message_id = m.id").fetchall()
        by_id = {str(r[0]): r for r in rows}
        lost = [i for i in ids if i not in by_id]
        if lost:
            failures.append(f"{len(lost)} messages answered with an id are not in the database: {lost[:5]}")
            ids = {i: n for i, n in ids.items() if i in by_id}
        in_doubt = [i for i in ids if by_id[i][2] == "outcome_unknown"]
        not_once = [i for i in ids if by_id[i][2] != "outcome_unknown" and by_id[i][3] != by_id[i][1]]
        if not_once:
            failures.append(f"{len(not_once)} answered messages were not accepted once per part: "
                            f"{[by_id[i] for i in not_once[:5]]}")
        if len(in_doubt) > 100:
            failures.append(f"{len(in_doubt)} messages in doubt after one kill: more than one window")
        duplicates = sum(len(v) - 1 for v in self.receipts.values())
        print(json.dumps({
            "messages_answered": len(ids),
            "submits_refused_throttled": self.throttled,
            "submits_refused_other": self.refused_other,
            "unanswered_at_kill_sent_again": getattr(self, "killed_unanswered", 0),
            "in_doubt_after_kill": len(in_doubt),
            "answered_without_final_state": sum(1 for i in ids if int(i) not in final),
            "receipts": sum(len(v) for v in self.receipts.values()),
            "receipts_repeated": duplicates,
            "smsc": counts,
            "seconds": round(elapsed_in, 1),
        }, indent=2))
        return failures


def main() -> int:
    in_venv()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--messages", type=int, default=10_000)
    p.add_argument("--tps", type=int, default=1_000)
    args = p.parse_args()
    run = Run(args)
    try:
        client, reader, elapsed = run.main()
        failures = run.check(client, elapsed)
        try:
            client.unbind()
        except Exception:
            pass
    finally:
        run.stop()
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Run the real `smsdesk` binary headless for a script: find it, give it an API key, start
`smsdesk serve` on a free port, talk to it over HTTP, and stop it the way an operator would.

Standard library only; shared by api_fuzz.py and bench_http.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so `finally` blocks stop the server and the load tool."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def log(message: str) -> None:
    print(f"[{Path(sys.argv[0]).stem}] {message}", file=sys.stderr, flush=True)


def target_dir() -> Path:
    """Where cargo builds: CARGO_TARGET_DIR when set, else target/ in the repository (as xtask)."""
    env = os.environ.get("CARGO_TARGET_DIR")
    if not env:
        return REPO / "target"
    path = Path(env)
    return path if path.is_absolute() else REPO / path


def find_binary(given: str | None, profile: str) -> Path:
    """The smsdesk binary: --bin, else SMSDESK_BIN (what the browser tests use), else the one
    cargo built for `profile`."""
    candidate = given or os.environ.get("SMSDESK_BIN")
    path = Path(candidate) if candidate else target_dir() / profile / "smsdesk"
    if not path.is_file():
        build = "cargo build -p smsdesk" + (" --release" if profile == "release" else "")
        raise SystemExit(f"no smsdesk binary at {path}: build it first ({build}) or pass --bin")
    return path


def create_api_key(binary: Path, data_dir: Path, name: str, scopes: str = "send,read:all,act,export") -> str:
    """Creates an API key with `scopes` with the command line and returns it (printed once,
    indented, after "API key N created for NAME (scopes: …):")."""
    out = subprocess.run(
        [str(binary), "api-key", "create", "--name", name, "--scope", scopes, "--data-dir", str(data_dir)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in out.splitlines():
        if line.startswith("  sdk_"):
            return line.strip()
    raise SystemExit(f"`smsdesk api-key create` printed no key:\n{out}")


class Server:
    """`smsdesk serve --http-port 0` on its own data directory, standard error to a file."""

    def __init__(self, binary: Path, data_dir: Path, env: dict[str, str] | None = None, log_path: Path | None = None):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = log_path or data_dir.with_name(data_dir.name + ".server.log")
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(binary), "serve", "--http-port", "0", "--data-dir", str(data_dir)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        self.url = self._wait_for_instance(timeout=60)
        self._wait_for_health(timeout=30)

    @property
    def pid(self) -> int:
        return self.process.pid

    def _wait_for_instance(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        instance = self.data_dir / "instance.json"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"smsdesk serve exited early ({self.process.returncode}):\n{self.log_text()}")
            try:
                published = json.loads(instance.read_text())
            except (OSError, ValueError):
                published = {}
            # A killed earlier instance may have left its file behind: wait for this one's.
            if published.get("pid") == self.pid:
                return published["httpUrl"]
            time.sleep(0.05)
        raise SystemExit(f"smsdesk serve did not publish {instance} within {timeout:.0f} s:\n{self.log_text()}")

    def _wait_for_health(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, body, _ = request(self.url, "GET", "/api/v1/health")
                if status == 200 and json.loads(body).get("status") in ("ok", "degraded"):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"{self.url}/api/v1/health did not answer within {timeout:.0f} s")
            time.sleep(0.1)

    def operator_token(self) -> str:
        return (self.data_dir / "operator.token").read_text().strip()

    def peak_rss_kib(self) -> int | None:
        """VmHWM: the most resident memory the process has had (read before it exits)."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        except OSError:
            return None
        return None

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, as a service manager would; returns the exit code (0 is a clean stop)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise SystemExit(f"smsdesk did not stop within {timeout:.0f} s of SIGTERM (killed):\n{self.log_text()}")
        self._log.close()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._log.close()

    def log_text(self, last: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-last:])


def request(base: str, method: str, path: str, body: object | bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, bytes, dict[str, str]]:
    """One HTTP request; returns (status, body, headers) for any status, raising only on network errors."""
    data = None
    all_headers = dict(headers or {})
    if isinstance(body, bytes):
        data = body
    elif body is not None:
        data = json.dumps(body).encode()
        all_headers.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(base + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)

"""Running one step of a suite on one engine, and reading back what it measured.

Each run is its own process (so that peak RSS and the --statistics tickers are the step's own),
started with the suite's flags plus --db, --use_existing_db, --benchmarks and
--report_interval_seconds/--report_file (the throughput series), under `/usr/bin/time -v` for the
peak RSS when that exists (else the RSS the kernel reports to wait4). Its stdout, stderr, time
output and CSV are kept under <dir>/logs/.

Not thread-safe: one run at a time (the point is that the engines do not overlap).
"""

import dataclasses
import os
import signal
import time

import compare_parse
import compare_suites

TIME_BIN = "/usr/bin/time"


@dataclasses.dataclass(frozen=True)
class Engine:
    """An engine under test: display name, key (directory and ticker prefix), tool binary."""
    name: str
    key: str
    binary: str


def _flag_args(flags):
    return [f"--{k}={v}" for k, v in flags.items()]


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _wait(pid, timeout):
    """Waits for `pid`, killing its process group after `timeout` s.

    Returns (exit code, rusage, timed out)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status, rusage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            return os.waitstatus_to_exitcode(status), rusage, False
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)  # the group this run started, by its id
            _, status, rusage = os.wait4(pid, 0)
            return os.waitstatus_to_exitcode(status), rusage, True
        time.sleep(0.02)


class Runner:
    """Runs steps for a suite whose flags are `flags`, with files under `work_dir`."""

    def __init__(self, work_dir, flags, timeout):
        self.work_dir = work_dir
        self.flags = flags
        self.timeout = timeout
        self.logs = os.path.join(work_dir, "logs")
        self.use_time = os.access(TIME_BIN, os.X_OK)
        os.makedirs(self.logs, exist_ok=True)

    def db_path(self, engine, step):
        return os.path.join(self.work_dir, engine.key, step.db)

    def command(self, engine, step, stem):
        flags = dict(self.flags)
        flags.update(step.flags)
        flags.update({
            "benchmarks": ",".join(step.benchmarks_for(engine.key)),
            "db": self.db_path(engine, step),
            "use_existing_db": 1 if step.existing else 0,
            "report_interval_seconds": 1,
            "report_file": stem + ".csv",
        })
        return [engine.binary] + _flag_args(flags)

    def run(self, engine, step, round_index):
        """Runs `step` on `engine`; returns the run's record (a dict, see result())."""
        stem = os.path.join(self.logs, f"r{round_index + 1}-{step.slug}-{engine.key}")
        argv = self.command(engine, step, stem)
        full = ([TIME_BIN, "-v", "-o", stem + ".time"] if self.use_time else []) + argv
        os.makedirs(os.path.dirname(self.db_path(engine, step)), exist_ok=True)
        os.sync()  # the previous run's dirty pages must not be written back during this one
        start = time.monotonic()
        with open(stem + ".out", "wb") as out, open(stem + ".err", "wb") as err, \
                open(os.devnull, "rb") as devnull:
            pid = os.posix_spawn(full[0], full, os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull.fileno(), 0),
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2)], setpgroup=0)
            code, rusage, timed_out = _wait(pid, self.timeout)
        wall = time.monotonic() - start
        record = self.result(engine, step, stem, code, timed_out)
        if record["peak_rss_bytes"] is None:
            record["peak_rss_bytes"] = rusage.ru_maxrss * 1024  # KiB on Linux
        record.update({"round": round_index + 1, "wall_seconds": wall, "command": argv,
                       "log": stem})
        return record

    def result(self, engine, step, stem, code, timed_out):
        """The record of a finished run from its files; status "ok", "n/a" or "error"."""
        out, err = _read(stem + ".out"), _read(stem + ".err")
        lines, skipped = compare_parse.parse_report(out)
        timed = step.timed_for(engine.key)
        record = {
            "engine": engine.name, "step": step.name, "status": "ok", "reason": "",
            "benchmarks": list(step.benchmarks_for(engine.key)), "exit_code": code,
            "version": compare_parse.parse_version(err + out),
            "peak_rss_bytes": compare_parse.parse_peak_rss_bytes(_read(stem + ".time")),
            "throughput": compare_parse.parse_series(_read(stem + ".csv")),
        }
        tickers = compare_parse.parse_tickers(out)
        record["write_amplification"] = compare_parse.write_amplification(
            tickers, compare_suites.ENTRY_BYTES)
        stall = tickers.get("stall.micros")
        record["stall_seconds"] = stall / 1e6 if stall is not None else None
        missing_skip = [skipped[n] for n in timed if n in skipped]
        if timed_out:
            record.update(status="error", reason=f"timed out after {self.timeout} s")
        elif code != 0:
            msg = compare_parse.failure_message(err, out)
            msg = msg.replace(self.db_path(engine, step), "<db>")
            if compare_parse.is_not_supported(msg):
                record.update(status="n/a", reason=f"not supported yet: {msg}")
            else:
                record.update(status="error", reason=f"exit {code}: {msg}")
        elif missing_skip:
            record.update(status="n/a", reason=f"not supported yet: {missing_skip[0]}")
        elif not all(n in lines for n in timed):
            absent = [n for n in timed if n not in lines]
            record.update(status="error", reason=f"no report line for {', '.join(absent)}")
        else:
            record.update(_measures([lines[n] for n in timed]))
        return record


def _measures(timed_lines):
    """The step's figures from its timed report lines (the first is the primary)."""
    primary = timed_lines[0]
    if len(timed_lines) == 1:
        return {"ops": primary.ops, "seconds": primary.seconds,
                "ops_per_sec": primary.ops_per_sec, "mb_per_sec": primary.mb_per_sec,
                "p99_micros": primary.p99_micros, "message": primary.message}
    seconds = 0.0
    for line in timed_lines:
        if line.seconds is not None:
            seconds += line.seconds
        else:
            seconds += (line.ops or 1) / max(line.ops_per_sec, 1e-9)
    ops = primary.ops or 0
    mb = None
    if primary.mb_per_sec is not None and primary.seconds:
        mb = primary.mb_per_sec * primary.seconds / seconds
    return {"ops": ops, "seconds": seconds, "ops_per_sec": ops / seconds if seconds else 0.0,
            "mb_per_sec": mb, "p99_micros": primary.p99_micros, "message": primary.message}

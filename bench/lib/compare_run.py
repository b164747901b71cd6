"""Running one step of a suite on one engine, and reading back what it measured.

Each run is its own process (so that peak RSS and the --statistics tickers are the step's own),
started with the suite's flags plus --db, --use_existing_db, --benchmarks and
--report_interval_seconds/--report_file (the throughput series), under `/usr/bin/time -v` for the
peak RSS when that exists (else the RSS the kernel reports to wait4). Its stdout, stderr, time
output and CSV are kept under <dir>/logs/.

The bytes the run wrote to storage are /proc/<pid>/io's write_bytes of the spawned process, read
once it has exited but before it is reaped: by then the kernel has added in the I/O of every
child it reaped (the tool under /usr/bin/time) and of every thread. The same count for both
engines: WAL, flushes, compactions, MANIFEST and logs, counted when the pages are dirtied.

A step with a rocksdb_tool runs that program (from `tools`, e.g. bench/rocksdb_ingest_bench) on
RocksDB instead of db_bench, with the same flags plus the step's RocksDB-only ones; where the
program was not built the run is n/a with the reason.

A step with until_compacted is timed from the spawn until the engine's background work was done
(shale_bench's waitforcompaction line; RocksDB's LOG events), see _until_compacted().

Not thread-safe: one run at a time (the point is that the engines do not overlap).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time

import compare_parse

TIME_BIN = "/usr/bin/time"


@dataclasses.dataclass(frozen=True)
class Engine:
    """An engine under test: display name, key (directory and ticker prefix), tool binary, and
    for the report its version (None: read from its runs' banners) and how it was built."""
    name: str
    key: str
    binary: str
    version: str | None = None
    build: str = ""


def _flag_args(flags):
    return [f"--{k}={v}" for k, v in flags.items()]


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _wait(pid, timeout, monitor=None):
    """Waits for `pid`, killing its process group after `timeout` s; calls monitor(pid), when
    given, every 20 ms while it runs (the scale suite's sampler).

    Returns (exit code, rusage, timed out, /proc/<pid>/io fields read before reaping it)."""
    deadline = time.monotonic() + timeout
    timed_out = False
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
        if monitor is not None:
            monitor(pid)
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)  # the group this run started, by its id
            timed_out = True
            break
        time.sleep(0.02)
    # Exited but not reaped yet (unless killed just now): its I/O counters are still readable.
    io = compare_parse.parse_proc_io(_read(f"/proc/{pid}/io")) if not timed_out else {}
    _, status, rusage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), rusage, timed_out, io


class Runner:
    """Runs steps for a suite whose flags are `flags`, with files under `work_dir`."""

    def __init__(self, work_dir, flags, timeout, tools=None, report_interval=1, logs=None):
        self.work_dir = work_dir
        self.report_interval = report_interval  # --report_interval_seconds of every run
        self.tools = tools or {}  # rocksdb_tool name -> binary path, or None when not built
        self.flags = flags
        self.timeout = timeout
        self.logs = logs or os.path.join(work_dir, "logs")
        self.use_time = os.access(TIME_BIN, os.X_OK)
        os.makedirs(self.logs, exist_ok=True)

    def db_path(self, engine, step):
        return os.path.join(self.work_dir, engine.key, step.db)

    def binary(self, engine, step):
        """The program the step runs on `engine`; None when it was not built."""
        if engine.key == "rocksdb" and step.rocksdb_tool:
            return self.tools.get(step.rocksdb_tool)
        return engine.binary

    def command(self, engine, step, stem):
        flags = dict(self.flags)
        flags.update(step.flags_for(engine.key))
        flags.update({
            "benchmarks": ",".join(step.benchmarks_for(engine.key)),
            "db": self.db_path(engine, step),
            "use_existing_db": 1 if step.existing else 0,
            "report_interval_seconds": self.report_interval,
            "report_file": stem + ".csv",
        })
        return [self.binary(engine, step)] + _flag_args(flags)

    def run(self, engine, step, round_index, monitor=None):
        """Runs `step` on `engine`; returns the run's record (a dict, see result()). `monitor`,
        when given, is called with the spawned pid while the run goes on (see _wait)."""
        if self.binary(engine, step) is None:
            return {"engine": engine.name, "step": step.name, "status": "n/a",
                    "reason": f"{step.rocksdb_tool} not built: run bench/rocksdb/build.sh, "
                              "re-run cmake, then cmake --build build/release --target "
                              f"{step.rocksdb_tool}",
                    "round": round_index + 1, "wall_seconds": 0.0}
        stem = os.path.join(self.logs, f"r{round_index + 1}-{step.slug}-{engine.key}")
        argv = self.command(engine, step, stem)
        full = ([TIME_BIN, "-v", "-o", stem + ".time"] if self.use_time else []) + argv
        os.makedirs(os.path.dirname(self.db_path(engine, step)), exist_ok=True)
        os.sync()  # the previous run's dirty pages must not be written back during this one
        spawned_at = time.time()
        start = time.monotonic()
        with open(stem + ".out", "wb") as out, open(stem + ".err", "wb") as err, \
                open(os.devnull, "rb") as devnull:
            pid = os.posix_spawn(full[0], full, os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull.fileno(), 0),
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2)], setpgroup=0)
            code, rusage, timed_out, io = _wait(pid, self.timeout, monitor)
        wall = time.monotonic() - start
        record = self.result(engine, step, stem, code, timed_out)
        if record["peak_rss_bytes"] is None:
            record["peak_rss_bytes"] = rusage.ru_maxrss * 1024  # KiB on Linux
        record.update({"round": round_index + 1, "wall_seconds": wall, "command": argv,
                       "log": stem, "spawned_at": spawned_at, "io": io})
        self._disk_writes(record, io, step.entry_bytes)
        if step.until_compacted and record["status"] == "ok":
            self._until_compacted(engine, step, stem, spawned_at, wall, record)
        return record

    def _disk_writes(self, record, io, entry_bytes):
        """disk_write_bytes and disk_write_amplification (over the keys the tickers say were
        written x the step's entry bytes); None where unknown (e.g. a file system without block
        I/O accounting reports 0)."""
        written = io.get("write_bytes") or None
        keys = record.pop("keys_written", None)
        record["disk_write_bytes"] = written
        record["disk_write_amplification"] = (
            written / (keys * entry_bytes) if written and keys else None)

    def _until_compacted(self, engine, step, stem, spawned_at, wall, record):
        """Re-times a step from the spawn to the end of the engine's background work."""
        fill_seconds = record["seconds"]
        if engine.key == "rocksdb":
            log = os.path.join(self.db_path(engine, step), "LOG")
            done = compare_parse.parse_last_background_job(_read(log), spawned_at)
            source = "the last flush/compaction event in the DB's LOG"
            if done is None and os.path.exists(log):
                # Nothing was flushed or compacted: the fill was the whole work.
                done, source = spawned_at + fill_seconds, "the fill (no flush or compaction ran)"
        else:
            done = compare_parse.parse_compaction_done(_read(stem + ".out"))
            source = "waitforcompaction's done-at time"
        if done is None:
            total, source = wall, "the process's wall time (no end of compaction found)"
        else:
            total = max(done - spawned_at, fill_seconds)
        record.update({
            "fill_seconds": fill_seconds, "fill_ops_per_sec": record["ops_per_sec"],
            "seconds": total, "ops_per_sec": record["ops"] / total if total else 0.0,
            "compaction_wait_seconds": max(total - fill_seconds, 0.0), "total_source": source})
        if record.get("mb_per_sec") is not None:
            record["mb_per_sec"] *= fill_seconds / total

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
            "throughput": compare_parse.parse_series(_read(stem + ".csv"), self.report_interval),
        }
        if step.until_compacted:
            # Only there is the series the fill's on both engines: db_bench's compact (in the
            # bulk load) rewrites the report file with its own, empty, series.
            record.update(compare_parse.throughput_shape(record["throughput"]))
        tickers = compare_parse.parse_tickers(out)
        record["keys_written"] = tickers.get("number.keys.written")
        record["write_amplification"] = compare_parse.write_amplification(
            tickers, step.entry_bytes)
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
        elif not timed:  # no timed benchmark (e.g. the scale suite's open): no figures here
            record.update({"ops": None, "seconds": None, "ops_per_sec": None,
                           "mb_per_sec": None, "p99_micros": None, "message": ""})
        else:
            record.update(_measures([lines[n] for n in timed]))
            if step.posting_figures:
                record["posting"] = compare_parse.parse_posting(out).get(timed[0])
                if record["posting"] is None:
                    record.update(status="error", reason=f"no posting-list table for {timed[0]}")
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

"""The scale suite of bench/compare (issue 20): both engines at 36 GB of user data, one at a time.

  bench/compare --suite=scale [--num=250000000] [--engines=both|shaledb|rocksdb]
                [--parts=load,close_open,read,bulk] [--interval=10] [--read_seconds=60]
                [--backlog_seconds=60] [--bulk_memory_budget=1073741824] [--drop_caches=1]

Every run has the flags of compare_suites.common_flags (16-byte keys, compression none, 10 bloom
bits, statistics) with 128-byte values, a 1 GiB block cache, 64 MiB memtables, the WAL on and
each engine's defaults otherwise, plus --stats_dump_period_sec=--interval (the LOG's stats
dumps) and --report_interval_seconds=--interval (the throughput CSV). The parts, per engine
(RocksDB first, then ShaleDB; before an engine's first part the other engine's DBs are deleted):

  load        fillrandom of --num random keys, then flush and waitforcompaction, in one process
              (a fresh DB in <dir>/<engine>/scale; the flush leaves both DBs without a WAL to
              replay, as shale_bench's waitforcompaction, which flushes first, would anyway). Timed from the spawn until the background work was
              done (shale_bench's waitforcompaction done-at time; RocksDB's last flush or
              compaction event in its LOG). Write amplification: bytes the tool wrote to storage
              (/proc/<pid>/io write_bytes less cancelled_write_bytes, at exit) over num x 144
              user bytes; beside it the whole device's (/sys/block/<dev>/stat sectors written,
              from the spawn until a sync after the exit: every process's writes, so exact only
              on an idle machine). Space amplification: bytes allocated under the DB directory
              after the run (info LOGs left out) over the live user bytes (the expected distinct keys of num uniform draws from num, num x
              (1 - (1 - 1/num)^num), x 144). Close time: the close after the wait, at the exit.
  close_open  three processes on the loaded DB (--use_existing_db=1), each after a page-cache drop
              when --drop_caches=1 (sync, then 3 > /proc/sys/vm/drop_caches; needs root; then
              `<tool> --version` under /usr/bin/time puts the executables back in the cache):
                open         `stats` only: open time, bytes open read (/proc/<pid>/io read_bytes:
                             from the device; rchar: through read calls, cached or not), RSS
                             after open (the process's peak RSS: it does nothing else), and the
                             close of an idle DB;
                backlog      overwrite for --backlog_seconds (the same --seed, keys from the
                             load's key space), then exit at once:
                             the close time with the compaction backlog the writes left (its
                             pending bytes and L0 files from the last stats dump before it);
                reopen+wait  `waitforcompaction` on that DB: the open time with the backlog,
                             the wait, and the close after it.
  read        one process each (--use_existing_db=1, after a page-cache drop with
              --drop_caches=1): readrandom for --read_seconds on 2 threads, readseq (1 thread,
              the whole DB: its operations count the live keys), seekrandom for --read_seconds
              on 2 threads; peak RSS of each, and the most of them.
  bulk        the scale DB is deleted first (disk space), then --num random-order pairs loaded
              into an empty DB (<dir>/<engine>/bulk) under --bulk_memory_budget bytes on both:
              ShaleDB's BulkLoader (shale_bench bulkload_sorted, 2 threads, then
              waitforcompaction); RocksDB, which ships no external sort, by bench/
              rocksdb_ingest_bench bulkload_runs (sorted runs of what the budget holds, each
              written with SstFileWriter on 2 threads and ingested, then one CompactRange: the
              runs end merged in one level). The bulk DB is deleted after its figures.

Open and close times: RocksDB's from its info LOG (DB::Open: the LOG's first line to "DB
pointer"; Close: "Shutdown: canceling all background work" to "Shutdown complete"); ShaleDB's
open from its LOG ("opened in S s"), its close from shale_bench's "close(<db>): S seconds" line.

The time series: every --interval seconds while a tool runs, its RSS (/proc/<pid>/status VmRSS;
the tool, not /usr/bin/time above it), its /proc/<pid>/io and the device's counters; joined with
the tool's throughput CSV (ops/s, MB/s = ops/s x 144 / 2^20, by the benchmark's clock, which
starts when the LOG says the open finished) and the LOG's last stats dump at that time (L0
files, pending compaction bytes, cumulative stall seconds).

Each invocation writes into <dir>/runs/<UTC time>-<num>-<engines>-<parts>/: report.md (the
exact command, commit, machine state before each part, the tables, notes), scale.json (every
run with its series; bench/plot reads it, one or more of them: `bench/plot A.json B.json`),
series/<engine>-<step>.csv and the tools' logs. The scale DB is kept at the end (a later
invocation's --parts=close_open,read reads it); it is deleted by the other engine's first part,
by the bulk part and by a new load.

Not thread-safe: one run at a time.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import time

import compare_context
import compare_parse
import compare_report
import compare_run
import compare_suites

PARTS = ("load", "close_open", "read", "bulk")
DEFAULT_NUM = 250_000_000
SLOPE_NUM = 28_000_000  # the 4 GB point
VALUE_SIZE = 128
ENTRY_BYTES = compare_suites.KEY_SIZE + VALUE_SIZE
CACHE_SIZE = 1 << 30
WRITE_BUFFER_SIZE = 64 << 20
READ_THREADS = 2
BULK_THREADS = 2
BULK_TARGET_FILE_SIZE = 64 << 20
DROP_CACHES = "/proc/sys/vm/drop_caches"
SCALE_DB = "scale"
BULK_DB = "bulk"
BULK_ROUTE = {
    "shaledb": "BulkLoader (shale_bench bulkload_sorted): sorted runs under the budget, "
               "spilled, merged and written on 2 threads, ingested into the empty DB",
    "rocksdb": "no external sort in 11.8.1: sorted runs of what the budget holds written as "
               "table files (SstFileWriter, 2 threads) and ingested one run at a time, then "
               "CompactRange merges them (rocksdb_ingest_bench bulkload_runs)",
}


def scale_flags(num, seed, interval):
    """The flags every scale run passes to both tools."""
    flags = compare_suites.common_flags(num, seed)
    flags.update(value_size=VALUE_SIZE, cache_size=CACHE_SIZE,
                 write_buffer_size=WRITE_BUFFER_SIZE, stats_dump_period_sec=interval)
    return flags


def steps_for(part, args):
    """The steps (compare_suites.Step) of one part."""
    Step = compare_suites.Step
    if part == "load":
        return [Step(name="load", kind="write",
                     benchmarks=("fillrandom", "flush", "waitforcompaction"),
                     timed=("fillrandom",), db=SCALE_DB, until_compacted=True,
                     entry_bytes=ENTRY_BYTES)]
    if part == "close_open":
        return [
            Step(name="open", kind="read", benchmarks=("stats",), timed=(), existing=True,
                 db=SCALE_DB),
            Step(name="backlog", kind="write", benchmarks=("overwrite",), timed=("overwrite",),
                 existing=True, db=SCALE_DB, flags={"duration": args.backlog_seconds},
                 entry_bytes=ENTRY_BYTES),
            Step(name="reopen+wait", kind="write", benchmarks=("waitforcompaction",), timed=(),
                 existing=True, db=SCALE_DB),
        ]
    if part == "read":
        timed = {"duration": args.read_seconds, "threads": READ_THREADS}
        return [
            Step(name="readrandom", kind="read", benchmarks=("readrandom",),
                 timed=("readrandom",), existing=True, db=SCALE_DB, flags=dict(timed)),
            Step(name="readseq", kind="read", benchmarks=("readseq",), timed=("readseq",),
                 existing=True, db=SCALE_DB),
            Step(name="seekrandom", kind="read", benchmarks=("seekrandom",),
                 timed=("seekrandom",), existing=True, db=SCALE_DB, flags=dict(timed)),
        ]
    if part == "bulk":
        return [Step(
            name="bulkload", kind="write", benchmarks=("bulkload_sorted", "waitforcompaction"),
            timed=("bulkload_sorted",), db=BULK_DB, rocksdb_tool=compare_suites.INGEST_TOOL,
            rocksdb_benchmarks=("bulkload_runs",), rocksdb_timed=("bulkload_runs",),
            flags={"bulkload_memory_budget": args.bulk_memory_budget,
                   "target_file_size_base": BULK_TARGET_FILE_SIZE},
            engine_flags={"rocksdb": {"threads": BULK_THREADS},
                          "shaledb": {"bulkload_threads": BULK_THREADS}},
            until_compacted=True, entry_bytes=ENTRY_BYTES)]
    raise ValueError(part)


def parse_parts(text):
    """The parts named in `text` (comma-separated, "all" for every one), in suite order; raises
    ValueError naming an unknown part."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if names == ["all"]:
        return list(PARTS)
    unknown = [n for n in names if n not in PARTS]
    if unknown or not names:
        raise ValueError(f"--parts: unknown part {', '.join(unknown) or '(none)'} (parts: "
                         f"{', '.join(PARTS)} or all)")
    return [p for p in PARTS if p in names]


def expected_distinct(num):
    """The expected number of distinct values among num uniform draws from num values."""
    if num <= 1:
        return float(num)
    return num * -math.expm1(num * math.log1p(-1.0 / num))


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def allocated_bytes(path, skip_prefix=None):
    """Bytes allocated to the files under `path` (st_blocks x 512), those whose names start
    with skip_prefix left out; 0 when it is absent."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            if skip_prefix and name.startswith(skip_prefix):
                continue
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def block_stat_path(work_dir):
    """/sys/class/block/<dev>/stat of the device holding work_dir, or None (e.g. an overlay)."""
    device = compare_context._mount_device(work_dir)
    if not device or not device.startswith("/dev/"):
        return None
    path = os.path.join("/sys/class/block", os.path.basename(os.path.realpath(device)), "stat")
    return path if os.path.exists(path) else None


def drop_caches():
    """Writes back dirty pages and drops the page cache; None, or why it could not."""
    os.sync()
    try:
        with open(DROP_CACHES, "w", encoding="ascii") as f:
            f.write("3\n")
    except OSError as e:
        return f"{DROP_CACHES}: {e.strerror}"
    return None


class Sampler:
    """Samples the tool of one run every `interval` seconds: its RSS and I/O from /proc, and the
    device's counters. Called (as Runner's monitor) with the spawned pid every 20 ms; the tool is
    the child of that pid when it runs under /usr/bin/time. Not thread-safe (one run, one
    caller)."""

    def __init__(self, interval, stat_path, under_time):
        self.interval = interval
        self.stat_path = stat_path
        self.under_time = under_time
        self.samples = []
        self.device_start = None
        self._next = None

    def _tool_pid(self, pid):
        if not self.under_time:
            return pid
        children = _read(f"/proc/{pid}/task/{pid}/children").split()
        return int(children[0]) if children else None

    def device(self):
        return compare_parse.parse_block_stat(_read(self.stat_path)) if self.stat_path else {}

    def __call__(self, pid):
        now = time.monotonic()
        if self._next is None:
            self.device_start = self.device()
            self._next = now
        if now < self._next:
            return
        tool = self._tool_pid(pid)
        if tool is None:
            return  # /usr/bin/time has not started it yet
        status = compare_parse.parse_proc_status(_read(f"/proc/{tool}/status"))
        if status.get("rss_bytes") is None:
            return  # exited (a zombie has no VmRSS) or gone: nothing to record
        self._next += self.interval
        io = compare_parse.parse_proc_io(_read(f"/proc/{tool}/io"))
        dev = self.device()
        sample = {"at": time.time(), "rss_bytes": status.get("rss_bytes"),
                  "hwm_bytes": status.get("hwm_bytes"), "read_bytes": io.get("read_bytes"),
                  "write_bytes": io.get("write_bytes")}
        if dev and self.device_start:
            sample["device_write_bytes"] = dev["write_bytes"] - self.device_start["write_bytes"]
            sample["device_read_bytes"] = dev["read_bytes"] - self.device_start["read_bytes"]
        self.samples.append(sample)


def build_series(samples, throughput, dumps, spawned_at, bench_start_at, interval):
    """The run's time series on the sampler's grid: per sample, seconds since the spawn, the
    throughput CSV's interval that ended at that time (ops/s and MB/s over the interval before
    the sample: the CSV line whose time, on the benchmark's clock started at bench_start_at, is
    within half an interval of the sample; None outside the benchmark), RSS,
    the tool's and the device's bytes written, and the last stats dump at or before it (L0
    files, pending compaction bytes, cumulative stall seconds; None before the first)."""
    rows = []
    for s in samples:
        ops = None
        if throughput and bench_start_at is not None:
            rel = s["at"] - bench_start_at
            nearest = min(throughput, key=lambda c: abs(c["seconds"] - rel))
            if abs(nearest["seconds"] - rel) <= interval / 2:
                ops = nearest["ops_per_sec"]
        dump = None
        for d in dumps:
            if d["at"] <= s["at"]:
                dump = d
        rows.append({
            "seconds": round(s["at"] - spawned_at, 3),
            "ops_per_sec": ops,
            "mb_per_sec": ops * ENTRY_BYTES / 1048576.0 if ops is not None else None,
            "rss_bytes": s.get("rss_bytes"),
            "write_bytes": s.get("write_bytes"),
            "read_bytes": s.get("read_bytes"),
            "device_write_bytes": s.get("device_write_bytes"),
            "l0_files": dump["l0_files"] if dump else None,
            "pending_compaction_bytes": dump["pending_compaction_bytes"] if dump else None,
            "stall_seconds": dump["stall_seconds"] if dump else None,
        })
    return rows


SERIES_COLUMNS = ("seconds", "ops_per_sec", "mb_per_sec", "rss_bytes", "l0_files",
                  "pending_compaction_bytes", "stall_seconds", "write_bytes", "read_bytes",
                  "device_write_bytes")


def series_csv(rows):
    lines = [",".join(SERIES_COLUMNS)]
    for r in rows:
        lines.append(",".join("" if r.get(c) is None else
                              (f"{r[c]:.1f}" if isinstance(r[c], float) else str(r[c]))
                              for c in SERIES_COLUMNS))
    return "\n".join(lines) + "\n"


def _max(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def scale_figures(engine, step, record, sampler, runner, num, interval):
    """Adds the scale figures to a finished run's record (see the top of the file)."""
    db = runner.db_path(engine, step)
    log_text = _read(os.path.join(db, "LOG"))
    spawned_at = record["spawned_at"]
    dumps = [d for d in compare_parse.parse_stats_dumps(log_text) if d["at"] >= spawned_at - 1]
    oc = compare_parse.parse_open_close(log_text)
    if oc["open_done_at"] is not None and oc["open_done_at"] < spawned_at - 1:
        oc = {"open_seconds": None, "open_done_at": None, "close_seconds": None}  # an old LOG
    out = _read(record["log"] + ".out")
    if engine.key == "shaledb":
        close = compare_parse.parse_close_line(out)
        oc["close_seconds"] = close[0] if close else None
    os.sync()  # the tool's dirty pages, to the device counters
    dev = sampler.device()
    user_bytes = num * ENTRY_BYTES
    io = record.get("io") or {}
    # Bytes the tool had the kernel write: write_bytes less what was truncated or deleted before
    # it reached the device (cancelled_write_bytes: e.g. the bulk loader's spilled runs).
    written = (io["write_bytes"] - io.get("cancelled_write_bytes", 0)
               if io.get("write_bytes") else None)
    device_written = (dev["write_bytes"] - sampler.device_start["write_bytes"]
                      if dev and sampler.device_start else None)
    on_disk = allocated_bytes(db, skip_prefix="LOG")
    live = expected_distinct(num) * ENTRY_BYTES
    series = build_series(sampler.samples, record.get("throughput") or [], dumps, spawned_at,
                          oc["open_done_at"], interval)
    wait = None
    if step.name == "reopen+wait" and record["status"] == "ok" and oc["open_done_at"]:
        if engine.key == "shaledb":
            done = compare_parse.parse_compaction_done(out)
        else:
            done = compare_parse.parse_last_background_job(log_text, oc["open_done_at"])
            done = done or oc["open_done_at"]
        wait = max(done - oc["open_done_at"], 0.0) if done else None
    last = dumps[-1] if dumps else {}
    record.update({
        "open_seconds": oc["open_seconds"], "close_seconds": oc["close_seconds"],
        "proc_read_bytes": io.get("read_bytes"), "proc_rchar": io.get("rchar"),
        "device_write_bytes": device_written,
        "device_write_amplification": device_written / user_bytes if device_written else None,
        "proc_write_bytes": written,
        "proc_write_amplification": written / user_bytes if written else None,
        "db_bytes": on_disk, "live_bytes": live,
        "space_amplification": on_disk / live if on_disk and live else None,
        "max_l0_files": _max(d["l0_files"] for d in dumps),
        "max_pending_compaction_bytes": _max(d["pending_compaction_bytes"] for d in dumps),
        "last_dump": last or None,
        "max_sampled_rss_bytes": _max(s.get("rss_bytes") for s in sampler.samples),
        "wait_seconds": wait,
        "series": series,
    })


# ---------------------------------------------------------------------------------- Tables

def _fmt_bytes(v):
    if v is None:
        return "-"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= size:
            return f"{v / size:.2f} {unit}"
    return f"{v:.0f} B"


def _fmt_num(v, digits=0):
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def _fmt_secs(v):
    return "-" if v is None else f"{v:.3f}" if v < 10 else f"{v:.1f}"


def _fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}"


def _cell(record, key, fmt):
    if record is None:
        return "-"
    if record["status"] != "ok" and key not in ("close_seconds", "open_seconds"):
        return f"{record['status']}: {record['reason']}"[:60]
    value = record.get(key) if not callable(key) else key(record)
    return fmt(value)


def _fill_mb(r):
    ops = r.get("fill_ops_per_sec")
    return ops * ENTRY_BYTES / 1048576.0 if ops is not None else None


def _stall(r):
    if r.get("stall_seconds") is not None:
        return r["stall_seconds"]
    return (r.get("last_dump") or {}).get("stall_seconds")


def _read_peak(records):
    return _max(r.get("peak_rss_bytes") for r in records if r and r["status"] == "ok")


# (label, step, key or function, formatter) per figure, by part.
FIGURES = {
    "load": [
        ("fillrandom ops/s", "load", "fill_ops_per_sec", _fmt_num),
        ("fillrandom MB/s", "load", _fill_mb, lambda v: _fmt_num(v, 1)),
        ("load + compaction wall s (until background work done)", "load", "seconds",
         _fmt_secs),
        ("  of which waiting for compaction, s", "load", "compaction_wait_seconds", _fmt_secs),
        ("throughput: last tenth / first tenth", "load", "last_first_ratio", _fmt_ratio),
        ("longest stretch with no progress, s", "load", "longest_zero_seconds", _fmt_secs),
        ("peak RSS", "load", "peak_rss_bytes", _fmt_bytes),
        ("max L0 files (stats dumps)", "load", "max_l0_files", _fmt_num),
        ("max pending compaction bytes", "load", "max_pending_compaction_bytes", _fmt_bytes),
        ("write stall s (stall.micros)", "load", _stall, _fmt_secs),
        ("disk write-amp (tool's /proc io bytes written / user bytes)", "load",
         "proc_write_amplification", _fmt_ratio),
        ("device write-amp (/sys/block stat delta / user bytes)", "load",
         "device_write_amplification", _fmt_ratio),
        ("bytes on disk after the load", "load", "db_bytes", _fmt_bytes),
        ("space-amp (on disk / expected live bytes)", "load", "space_amplification", _fmt_ratio),
        ("close s (after the wait)", "load", "close_seconds", _fmt_secs),
        ("open s (fresh DB)", "load", "open_seconds", _fmt_secs),
    ],
    "close_open": [
        ("open s (compacted DB)", "open", "open_seconds", _fmt_secs),
        ("open: bytes read from the device", "open", "proc_read_bytes", _fmt_bytes),
        ("open: bytes read by read calls (rchar)", "open", "proc_rchar", _fmt_bytes),
        ("RSS after open (peak of an open-only process)", "open", "peak_rss_bytes", _fmt_bytes),
        ("close s (idle DB)", "open", "close_seconds", _fmt_secs),
        ("backlog: overwrite ops/s", "backlog", "ops_per_sec", _fmt_num),
        ("backlog: pending compaction bytes at the last dump", "backlog",
         lambda r: (r.get("last_dump") or {}).get("pending_compaction_bytes"), _fmt_bytes),
        ("backlog: L0 files at the last dump", "backlog",
         lambda r: (r.get("last_dump") or {}).get("l0_files"), _fmt_num),
        ("close s (with the backlog, not waiting)", "backlog", "close_seconds", _fmt_secs),
        ("open s (with the backlog)", "reopen+wait", "open_seconds", _fmt_secs),
        ("reopen+wait process: bytes read from the device (open + compactions)",
         "reopen+wait", "proc_read_bytes", _fmt_bytes),
        ("wait for the backlog s", "reopen+wait", "wait_seconds", _fmt_secs),
        ("close s (after the wait)", "reopen+wait", "close_seconds", _fmt_secs),
    ],
    "read": [
        ("readrandom ops/s (2 threads)", "readrandom", "ops_per_sec", _fmt_num),
        ("readrandom P99 us", "readrandom", "p99_micros", lambda v: _fmt_num(v, 2)),
        ("readrandom peak RSS", "readrandom", "peak_rss_bytes", _fmt_bytes),
        ("readseq ops/s", "readseq", "ops_per_sec", _fmt_num),
        ("readseq keys (the live keys)", "readseq", "ops", _fmt_num),
        ("readseq peak RSS", "readseq", "peak_rss_bytes", _fmt_bytes),
        ("seekrandom ops/s (2 threads)", "seekrandom", "ops_per_sec", _fmt_num),
        ("seekrandom P99 us", "seekrandom", "p99_micros", lambda v: _fmt_num(v, 2)),
        ("seekrandom peak RSS", "seekrandom", "peak_rss_bytes", _fmt_bytes),
    ],
    "bulk": [
        ("bulk load s (to a fully compacted DB)", "bulkload", "seconds", _fmt_secs),
        ("pairs/s", "bulkload", "ops_per_sec", _fmt_num),
        ("user MB/s", "bulkload",
         lambda r: (r["ops"] * ENTRY_BYTES / 1048576.0 / r["seconds"]
                    if r.get("ops") and r.get("seconds") else None), lambda v: _fmt_num(v, 1)),
        ("peak RSS", "bulkload", "peak_rss_bytes", _fmt_bytes),
        ("disk write-amp (tool's /proc io)", "bulkload", "proc_write_amplification",
         _fmt_ratio),
        ("device write-amp (/sys/block)", "bulkload", "device_write_amplification", _fmt_ratio),
        ("bytes on disk", "bulkload", "db_bytes", _fmt_bytes),
        ("space-amp", "bulkload", "space_amplification", _fmt_ratio),
    ],
}


def _ratio(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return "-"
    return f"{a / b:.2f}"


def part_table(part, records, engines, markdown=False):
    """One part's table: a row per figure, a column per engine, then ShaleDB / RocksDB."""
    names = [e.name for e in engines]
    header = ["figure"] + names + (["ShaleDB / RocksDB"] if len(names) == 2 else [])
    cells = []
    for label, step, key, fmt in FIGURES[part]:
        row, values = [label], []
        for e in engines:
            r = records.get((e.key, step))
            row.append(_cell(r, key, fmt))
            v = None
            if r is not None and r["status"] == "ok":
                v = key(r) if callable(key) else r.get(key)
            values.append(v)
        if len(names) == 2:
            row.append(_ratio(values[1], values[0]))  # engines are [RocksDB, ShaleDB]
        cells.append(row)
    if part == "read":
        row = ["peak RSS while reading (most of the three)"]
        values = []
        for e in engines:
            v = _read_peak([records.get((e.key, s)) for s in ("readrandom", "readseq",
                                                                 "seekrandom")])
            row.append(_fmt_bytes(v))
            values.append(v)
        if len(names) == 2:
            row.append(_ratio(values[1], values[0]))
        cells.append(row)
    table = compare_report._table(header, cells, markdown)
    if part == "bulk":
        lines = []
        for e in engines:
            message = (records.get((e.key, "bulkload")) or {}).get("message") or "-"
            lines.append(f"{e.name}'s route: {BULK_ROUTE[e.key]}; its report: {message}")
        table += "\n\n" + ("\n".join(f"- {line}" for line in lines) if markdown else
                            "\n".join(lines))
    return table


# ------------------------------------------------------------------------------------ Run

def _machine_now(work_dir):
    usage = shutil.disk_usage(work_dir)
    return {"at": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "load_average": compare_context.load_average(), "disk_free_bytes": usage.free}


def _rm(path):
    shutil.rmtree(path, ignore_errors=True)


def _progress(engine, step, record):
    if record["status"] != "ok":
        what = f"{record['status']}: {record['reason']}"
    elif record.get("ops_per_sec") is not None:
        what = f"{record['ops_per_sec']:,.0f} ops/s"
    else:
        what = "ok"
    extra = []
    for key, label in (("open_seconds", "open"), ("close_seconds", "close")):
        if record.get(key) is not None:
            extra.append(f"{label} {record[key]:.3f} s")
    print(f"[scale] {engine.name:<8} {step.name:<12} {what} ({record['wall_seconds']:.1f} s"
          f"{'; ' + ', '.join(extra) if extra else ''})", file=sys.stderr, flush=True)


def run(args, argv, engines, repo, tools, ingest_version_of):
    """Runs the scale suite's parts on `engines` ([RocksDB, ShaleDB] or one of them); prints the
    tables; returns the exit status (1 when a run failed)."""
    parts = parse_parts(args.parts)
    num = args.num or DEFAULT_NUM
    work_dir = os.path.abspath(args.dir)
    os.makedirs(work_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    run_dir = os.path.join(work_dir, "runs", f"{stamp}-{num}-{args.engines}-{'+'.join(parts)}")
    os.makedirs(os.path.join(run_dir, "series"), exist_ok=True)
    flags = scale_flags(num, args.seed, args.interval)
    runner = compare_run.Runner(work_dir, flags, args.timeout, tools,
                                report_interval=args.interval,
                                logs=os.path.join(run_dir, "logs"))
    stat_path = block_stat_path(work_dir)
    context = {
        "suite": "scale", "num": num, "repeat": 1, "parts": parts,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "commit": compare_context.commit(repo),
        "command": "bench/compare " + " ".join(argv),
        "machine": compare_context.describe(work_dir),
        "device_stat": stat_path, "interval_seconds": args.interval,
        "drop_caches": bool(args.drop_caches), "part_machine": [],
    }
    records, runs = {}, []
    for engine in engines:
        for other in ("rocksdb", "shaledb"):  # one engine's DBs on the disk at a time
            if other != engine.key:
                _rm(os.path.join(work_dir, other))
        for part in parts:
            state = dict(_machine_now(work_dir), engine=engine.name, part=part)
            context["part_machine"].append(state)
            print(f"[scale] {engine.name} {part}: load average {state['load_average']}, "
                  f"{_fmt_bytes(state['disk_free_bytes'])} free", file=sys.stderr, flush=True)
            if part == "load":
                _rm(os.path.join(work_dir, engine.key, SCALE_DB))
            if part == "bulk":
                _rm(os.path.join(work_dir, engine.key, SCALE_DB))
                _rm(os.path.join(work_dir, engine.key, BULK_DB))
            for step in steps_for(part, args):
                record = _run_step(args, runner, engine, step, part, stat_path, num, work_dir)
                record["part"] = part
                records[(engine.key, step.name)] = record
                runs.append(record)
                _progress(engine, step, record)
                with open(os.path.join(run_dir, "series", f"{engine.key}-{step.slug}.csv"), "w",
                          encoding="utf-8") as f:
                    f.write(series_csv(record.get("series") or []))
            if part == "bulk":
                _rm(os.path.join(work_dir, engine.key, BULK_DB))
    context["machine"]["load_after"] = compare_context.load_average()

    info = compare_context.engine_info(engines, runs)
    for e in info:
        if e["name"] == "RocksDB" and "bulk" in parts:
            path = tools.get(compare_suites.INGEST_TOOL)
            e["build"] += (f"; bulk part: {path}, on librocksdb "
                           f"{ingest_version_of(runs) or '?'}" if path else
                           f"; {compare_suites.INGEST_TOOL} not built")
    header = compare_context.header_lines(context, info, flags)
    header.append(f"Command: {context['command']}")
    header.append("Machine before each part: " + "; ".join(
        f"{m['engine']} {m['part']} at {m['at']}: load {m['load_average']}, "
        f"{_fmt_bytes(m['disk_free_bytes'])} free" for m in context["part_machine"]))
    notes = scale_notes(args, stat_path)
    text = ["\n".join(header), ""]
    md = [f"### `scale` suite: {num:,} keys, commit {context['commit']}, {context['date']}", ""]
    md += [f"- {h}" for h in header[1:]] + [""]
    for part in parts:
        title = f"{part} ({num:,} keys x {ENTRY_BYTES} bytes = {_fmt_bytes(num * ENTRY_BYTES)})"
        text += [title, part_table(part, records, engines), ""]
        md += [f"#### {title}", "", part_table(part, records, engines, markdown=True), ""]
    text.append(compare_report.format_notes(notes))
    md += [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    text.append(f"\nRun folder: {run_dir}")
    print("\n".join(text))

    doc = dict(context, tool="bench/compare", schema_version=1, engines=info, flags=flags,
               runs=runs, notes=notes, run_dir=run_dir)
    json_path = os.path.join(run_dir, "scale.json")
    for path in [json_path] + ([args.json] if args.json else []):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, default=str)
            f.write("\n")
    for path in [os.path.join(run_dir, "report.md")] + ([args.markdown] if args.markdown else []):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
    if args.plot:
        subprocess.run([os.path.join(repo, "bench", "plot"), json_path], check=False)
    return 1 if any(r["status"] == "error" for r in runs) else 0


def _run_step(args, runner, engine, step, part, stat_path, num, work_dir):
    """Runs one step with the sampler; a step on a DB that is not there is an error record."""
    if step.existing and not os.path.exists(os.path.join(runner.db_path(engine, step),
                                                         "CURRENT")):
        return {"engine": engine.name, "step": step.name, "status": "error",
                "reason": f"no DB at {runner.db_path(engine, step)}: run --parts=load first "
                          f"(with the same --dir)", "wall_seconds": 0.0}
    dropped = None
    if args.drop_caches and part in ("close_open", "read"):
        dropped = drop_caches() or "dropped"
        # The tool (and /usr/bin/time) back in the page cache, so that the run's read_bytes
        # are the DB's, not the executable's and its libraries'.
        warm = [runner.binary(engine, step), "--version"]
        subprocess.run(([compare_run.TIME_BIN] if runner.use_time else []) + warm,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    sampler = Sampler(args.interval, stat_path, runner.use_time)
    record = runner.run(engine, step, 0, monitor=sampler)
    record["page_cache"] = dropped or "kept"
    scale_figures(engine, step, record, sampler, runner, num, args.interval)
    return record


def scale_notes(args, stat_path):
    return [
        "Flags: compare_suites.common_flags with --value_size=128, --cache_size=1 GiB, "
        "--write_buffer_size=64 MiB, --stats_dump_period_sec and --report_interval_seconds = "
        f"{args.interval}; the WAL on; every other option at each engine's default.",
        "load: timed from the spawn of the tool until its background work was done (shale_bench "
        "waitforcompaction's done-at time, which flushes the memtable first; RocksDB's last "
        "flush or compaction event in its LOG). The last/first tenth and the no-progress "
        "stretch come from the fill's --report_interval_seconds series.",
        "Write-amp: the tool's /proc/<pid>/io write_bytes less cancelled_write_bytes (read at "
        "its exit, children and threads included) over num x 144 bytes; the device figure is the whole device's "
        f"sectors written ({stat_path or 'no block device found'}) from the spawn to a sync "
        "after the exit: other processes' writes count too.",
        "Space-amp: bytes allocated under the DB directory (tables, WAL, MANIFEST; not the "
        "info LOGs, which the stats dumps fill) after the run over the expected live bytes: num x (1 - (1 - 1/num)^num) distinct keys x 144 "
        "(readseq's key count, in the read table, is the exact one).",
        "Open and close times: RocksDB's info LOG (first line to 'DB pointer'; 'Shutdown: "
        "canceling all background work' to 'Shutdown complete'); ShaleDB's LOG ('opened in') "
        "and shale_bench's close line. RSS after open: the peak RSS of a process that opens the "
        "DB, runs `stats` and closes it. Open's bytes read: read_bytes (from the device: with "
        "the page cache dropped, what open reads) and rchar (read calls, cached or not).",
        f"Page cache: {'dropped' if args.drop_caches else 'not dropped'} before each run of "
        "close_open and read (--drop_caches).",
        f"backlog: overwrite for {args.backlog_seconds} s (the load's --seed; keys drawn from "
        "the same [0, num) as the load's), then the process exits without waiting for "
        "compaction.",
        f"read: readrandom and seekrandom for {args.read_seconds} s on {READ_THREADS} threads, "
        "readseq on 1 thread over the whole DB; each its own process.",
        f"bulk: both under --bulkload_memory_budget={args.bulk_memory_budget} bytes with "
        f"{BULK_THREADS} threads, files cut at {BULK_TARGET_FILE_SIZE >> 20} MiB; the time runs "
        "until the DB is fully compacted (ShaleDB: bulkload_sorted's report line, the loader "
        "ingests into the empty DB's last level; RocksDB: bulkload_runs's, CompactRange "
        "included).",
        "Time series: series/<engine>-<step>.csv in the run folder, every "
        f"{args.interval} s: ops/s and MB/s (the tool's CSV), RSS (/proc), L0 files, pending "
        "compaction bytes and stall seconds (the LOG's last stats dump), bytes written.",
    ]

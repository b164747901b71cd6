"""Parsing of what db_bench and shale_bench print, for bench/compare.

Both tools print the same text (shale_bench copies db_bench's formats), so one parser reads both:
  - the report line of each benchmark (RocksDB 7.8's layout):
  fillrandom   :       3.456 micros/op 289351 ops/sec 69.100 seconds 20000000 operations;   32.0 MB/s
    or, for a benchmark the tool could not run, "compact      : skipped (why)";
  - with --histogram=1, after each report line, "Percentiles: P50: 1.2 P75: 2.3 P99: 6.7 ...";
  - with --statistics=1, ticker lines "rocksdb.wal.bytes COUNT : 262000" (ShaleDB: "shale.");
  - with --report_interval_seconds, a CSV file "secs_elapsed,interval_qps" (db_bench 7.8 writes
    the operations of each interval, which are ops/s with the 1 s interval bench/compare uses);
  - on stderr, the version banner ("RocksDB:    version 7.8.3", "ShaleDB:    version 0.1.0");
  - shale_bench's waitforcompaction line "waitforcompaction(DB): waited 1.234 seconds (done at
    unix time 1795272240.495887)";
  - shale_bench's posting-list lines after postinglist's report line: the hottest list's size,
    then the Get table by its size (tools/shale_bench/posting_list.h):
  postinglist  : hottest list: key 0, 12.94% of the adds, 1000131 ids
  Get of the hottest list while the writers go on, by its size (microseconds; ...):
    ids                gets        P50        P99        max      adds/s
    <1k               24611       0.50       0.99    8047.36      297377
And dd's summary on stderr ("2147483648 bytes (2.1 GB, 2.0 GiB) copied, 4.95 s, 434 MB/s"),
/usr/bin/time -v's "Maximum resident set size (kbytes): N", /proc/<pid>/io, and RocksDB's
info LOG, whose EVENT_LOG_v1 lines say when each flush and compaction finished:
  ... EVENT_LOG_v1 {"time_micros": 1795272240495887, "job": 6, "event": "compaction_finished", ...

Every function is pure (text in, values out); none raises on malformed input: what cannot be read
is left out (None, or missing from the returned collection).
"""

from __future__ import annotations

import dataclasses
import re
import time

_REPORT_LINE = re.compile(
    r"^(?P<name>\S+)\s+:\s+(?P<micros>[0-9.]+) micros/op (?P<ops_sec>[0-9.]+) ops/sec"
    r"(?: (?P<seconds>[0-9.]+) seconds (?P<ops>\d+) operations;)?"
    r"(?:\s+(?P<mb>[0-9.]+) MB/s)?(?P<rest>.*)$")
_SKIPPED_LINE = re.compile(r"^(?P<name>\S+)\s+:\s+skipped \((?P<reason>.*)\)\s*$")
_PERCENTILE_P99 = re.compile(r"\bP99: (?P<p99>[0-9.]+)")
_TICKER = re.compile(r"^(?:rocksdb|shale)\.(?P<name>[\w.]+) COUNT : (?P<count>\d+)\s*$")
_MAX_RSS = re.compile(r"Maximum resident set size \(kbytes\): (?P<kib>\d+)")
_VERSION = re.compile(r"^(?:RocksDB|ShaleDB):\s+version (?P<version>\S+)", re.MULTILINE)
_WAITED = re.compile(r"^waitforcompaction\(.*\): waited (?P<secs>[0-9.]+) seconds "
                     r"\(done at unix time (?P<at>[0-9.]+)\)\s*$", re.MULTILINE)
_DD_SUMMARY = re.compile(r"^(?P<bytes>\d+) bytes .*copied, (?P<secs>[0-9.]+(?:e-?\d+)?) s,",
                         re.MULTILINE)
_HOTTEST = re.compile(r"^(?P<name>\S+)\s+: hottest list: key 0, (?P<share>[0-9.]+)% of the "
                      r"adds, (?P<ids>\d+) ids$")
_BUCKET_ROW = re.compile(r"^  (?P<bucket>\S+)\s+(?P<gets>\d+)\s+(?P<p50>[0-9.]+|-)\s+"
                         r"(?P<p99>[0-9.]+|-)\s+(?P<max>[0-9.]+|-)\s+(?P<adds>[0-9.]+)$")
_LOG_EVENT = re.compile(r'EVENT_LOG_v1 \{"time_micros": (?P<micros>\d+), .*?"event": '
                        r'"(?P<event>flush_finished|compaction_finished)"')


@dataclasses.dataclass
class BenchLine:
    """One benchmark's report line, and the P99 of the first histogram printed after it."""
    name: str
    micros_per_op: float
    ops_per_sec: float
    seconds: float | None = None  # None when the tool's format lacks it (older db_bench)
    ops: int | None = None
    mb_per_sec: float | None = None  # None when the line has no MB/s (e.g. compact)
    message: str = ""
    p99_micros: float | None = None


def parse_report(text):
    """The report lines and skipped benchmarks of a tool's stdout.

    Returns (lines, skipped): lines maps a benchmark name to its BenchLine (the last one if a
    name repeats), skipped maps a name to the reason the tool gave for skipping it.
    """
    lines, skipped = {}, {}
    current = None
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _SKIPPED_LINE.match(line)
        if m:
            skipped[m["name"]] = m["reason"]
            current = None
            continue
        m = _REPORT_LINE.match(line)
        if m:
            current = BenchLine(
                name=m["name"], micros_per_op=float(m["micros"]), ops_per_sec=float(m["ops_sec"]),
                seconds=float(m["seconds"]) if m["seconds"] else None,
                ops=int(m["ops"]) if m["ops"] else None,
                mb_per_sec=float(m["mb"]) if m["mb"] else None, message=m["rest"].strip())
            lines[current.name] = current
            continue
        if current is not None and current.p99_micros is None and line.startswith("Percentiles:"):
            m = _PERCENTILE_P99.search(line)
            if m:
                current.p99_micros = float(m["p99"])
    return lines, skipped


def parse_tickers(text):
    """The --statistics tickers of a tool's stdout, by name without the engine prefix."""
    tickers = {}
    for line in text.splitlines():
        m = _TICKER.match(line.strip())
        if m:
            tickers[m["name"]] = int(m["count"])
    return tickers


def write_amplification(tickers, entry_bytes):
    """Bytes the engine wrote to disk (flush + compaction + WAL) over the user's key+value bytes.

    The denominator is keys written x entry_bytes (key_size + value_size), the same for both
    engines whatever their write-batch encoding. None when no key was written or the tickers are
    missing (no --statistics).
    """
    keys = tickers.get("number.keys.written", 0)
    if keys <= 0 or entry_bytes <= 0 or "wal.bytes" not in tickers:
        return None
    disk = (tickers.get("flush.write.bytes", 0) + tickers.get("compact.write.bytes", 0) +
            tickers.get("wal.bytes", 0))
    return disk / (keys * entry_bytes)


def parse_peak_rss_bytes(time_v_text):
    """Peak RSS in bytes from /usr/bin/time -v's output; None if absent."""
    m = _MAX_RSS.search(time_v_text or "")
    return int(m["kib"]) * 1024 if m else None


def parse_series(csv_text, interval=1):
    """The --report_file CSV as [{"seconds": s, "ops_per_sec": q}, ...], bad lines skipped. Both
    tools write the operations of each interval: ops/s is that over `interval` (the
    --report_interval_seconds the run was given)."""
    series = []
    for line in (csv_text or "").splitlines()[1:]:
        parts = line.strip().split(",")
        if len(parts) < 2:
            continue
        try:
            series.append({"seconds": float(parts[0]),
                           "ops_per_sec": float(parts[1]) / max(interval, 1)})
        except ValueError:
            continue
    return series


def parse_version(text):
    """The engine version of the tool's banner, or None."""
    m = _VERSION.search(text or "")
    return m["version"] if m else None


def failure_message(stderr, stdout=""):
    """The last meaningful line a failed tool printed (progress output dropped)."""
    for text in (stderr, stdout):
        candidates = []
        for line in (text or "").replace("\r", "\n").splitlines():
            line = line.strip()
            if not line or line.startswith("... finished"):
                continue
            candidates.append(line)
        if candidates:
            msg = candidates[-1]
            for prefix in ("shale_bench: ", "db_bench: "):
                if msg.startswith(prefix):
                    msg = msg[len(prefix):]
            return msg
    return "no output"


def is_not_supported(message):
    """Whether a tool's message says the feature is missing (rather than something failed)."""
    lowered = message.lower()
    return "not supported yet" in lowered or "not implemented" in lowered


def parse_compaction_done(text):
    """When shale_bench's last waitforcompaction saw compaction done (unix seconds), or None."""
    matches = list(_WAITED.finditer(text or ""))
    return float(matches[-1]["at"]) if matches else None


def parse_last_background_job(log_text, since_unix=0.0):
    """When the last flush or compaction finished (unix seconds) according to a RocksDB info
    LOG's EVENT_LOG_v1 lines, ignoring events before `since_unix`; None if there is none."""
    last = None
    for m in _LOG_EVENT.finditer(log_text or ""):
        at = int(m["micros"]) / 1e6
        if at >= since_unix and (last is None or at > last):
            last = at
    return last


def parse_proc_io(text):
    """/proc/<pid>/io as {field: int} ("write_bytes", "cancelled_write_bytes", ...)."""
    fields = {}
    for line in (text or "").splitlines():
        name, _, value = line.partition(":")
        try:
            fields[name.strip()] = int(value)
        except ValueError:
            continue
    return fields


def throughput_shape(series):
    """How a --report_file series evolves: the mean ops/s of each tenth of the run (each sample
    its own "tenth" when there are fewer than 10), the last tenth over the first, and the
    longest stretch of consecutive samples with no progress, in seconds.

    Returns {} for an empty series; last_first_ratio is None when the first tenth is 0.
    """
    if not series:
        return {}
    qps = [s["ops_per_sec"] for s in series]
    parts = min(10, len(qps))
    tenths = []
    for i in range(parts):
        chunk = qps[i * len(qps) // parts:(i + 1) * len(qps) // parts]
        tenths.append(sum(chunk) / len(chunk))
    secs = [s["seconds"] for s in series]
    steps = sorted(b - a for a, b in zip(secs, secs[1:]) if b > a)
    interval = steps[len(steps) // 2] if steps else 1.0
    longest = run = 0
    for q in qps:
        run = run + 1 if q <= 0 else 0
        longest = max(longest, run)
    return {"tenths_ops_per_sec": tenths, "first_tenth_ops_per_sec": tenths[0],
            "last_tenth_ops_per_sec": tenths[-1],
            "last_first_ratio": tenths[-1] / tenths[0] if tenths[0] > 0 else None,
            "longest_zero_seconds": longest * interval}


def parse_dd(text):
    """{"bytes", "seconds"} of dd's summary line (LC_ALL=C), or None."""
    matches = list(_DD_SUMMARY.finditer(text or ""))
    if not matches:
        return None
    m = matches[-1]
    return {"bytes": int(m["bytes"]), "seconds": float(m["secs"])}


def _micros(text):
    return None if text == "-" else float(text)


def parse_posting(text):
    """shale_bench's posting-list figures by benchmark name: {"hottest_ids", "hottest_share"
    (a fraction), "buckets": [{"bucket", "gets", "p50_micros", "p99_micros", "max_micros"
    (None without Gets), "adds_per_sec"}, ...]}, in the order printed."""
    out = {}
    current = None
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        m = _HOTTEST.match(line)
        if m:
            current = {"hottest_ids": int(m["ids"]), "hottest_share": float(m["share"]) / 100,
                       "buckets": []}
            out[m["name"]] = current
            continue
        m = _BUCKET_ROW.match(line)
        if m and current is not None:
            current["buckets"].append({
                "bucket": m["bucket"], "gets": int(m["gets"]), "p50_micros": _micros(m["p50"]),
                "p99_micros": _micros(m["p99"]), "max_micros": _micros(m["max"]),
                "adds_per_sec": float(m["adds"])})
        elif current is not None and current["buckets"] and not line.startswith("  "):
            current = None  # the table ended
    return out


# ------------------------------------------------------------------ The scale suite (issue 20)
#
# The scale suite's time series and open/close figures come from four more sources:
#   - the DB's info LOG, whose stats dumps (Options::stats_dump_period_sec; both engines start
#     one with "------- DUMPING STATS -------") carry the L0 file count, the pending
#     compaction bytes and the cumulative write-stall time. RocksDB 11.8.1 writes the dump as
#     one message: its first line has the LOG's time stamp, the rest none:
#       2026/11/26-12:13:04.821422 28405 [db/db_impl/db_impl.cc:1532] ------- DUMPING STATS -------
#       Cumulative stall: 00:00:0.006 H:M:S, 0.1 percent
#         L0      5/4     32.55 MB   0.2 ...            (absent when L0 is empty)
#       Estimated pending compaction bytes: 137724077
#     ShaleDB writes it line by line, each stamped:
#       2026/11/26-12:14:09.214544 92cfe3 Write stalls: 0, 0.000 s; memtable-limit 0 (...) ...
#       2026/11/26-12:14:09.214545 92cfe3 Write controller: normal; pending compaction bytes 146335227; ...
#       2026/11/26-12:14:09.214571 92cfe3 L0         5       29.2     0 ...
#   - the LOG's open and close lines: RocksDB's first line ("RocksDB version: 11.8.1", where
#     DB::Open starts), "DB pointer 0x..." (where it returns), "Shutdown: canceling all
#     background work" and "Shutdown complete" (Close); ShaleDB's "opened in 0.027 s: files[...]";
#   - shale_bench's close line "close(<db>): 0.123 seconds (done at unix time 1795272426.13)";
#   - /proc/<pid>/status (VmRSS, VmHWM) and /sys/block/<dev>/stat (sectors read and written).
# LOG time stamps are local time (as the engines write them); log_time() reads them so.

_LOG_STAMP = re.compile(r"^(?P<y>\d{4})/(?P<mo>\d\d)/(?P<d>\d\d)-(?P<h>\d\d):(?P<mi>\d\d):"
                        r"(?P<s>\d\d(?:\.\d+)?) \S+ (?:\[[^\]]*\] )?")
_RDB_L0_ROW = re.compile(r"^\s*L0\s+(?P<files>\d+)/\d+\s")
_RDB_PENDING = re.compile(r"^Estimated pending compaction bytes: (?P<bytes>\d+)")
_RDB_STALL = re.compile(r"^Cumulative stall: (?P<h>\d+):(?P<m>\d+):(?P<s>[0-9.]+) H:M:S")
_SHALE_L0_ROW = re.compile(r"^L0\s+(?P<files>\d+)\s+[0-9.]+\s")
_SHALE_PENDING = re.compile(r"^Write controller: .*; pending compaction bytes (?P<bytes>\d+);")
_SHALE_STALL = re.compile(r"^Write stalls: \d+, (?P<secs>[0-9.]+) s")
_SHALE_OPENED = re.compile(r"opened in (?P<secs>[0-9.]+) s")
_CLOSE_LINE = re.compile(r"^close\(.*\): (?P<secs>[0-9.]+) seconds \(done at unix time "
                         r"(?P<at>[0-9.]+)\)\s*$", re.MULTILINE)


def log_time(line):
    """(unix seconds, the rest of the line) of a LOG line with a time stamp, else (None, line).
    The stamp is read as local time, as both engines write it."""
    m = _LOG_STAMP.match(line)
    if not m:
        return None, line
    whole = float(m["s"])
    stamp = time.mktime((int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]),
                         int(whole), 0, 0, -1))
    return stamp + (whole - int(whole)), line[m.end():]


def parse_stats_dumps(log_text):
    """The stats dumps of an info LOG of either engine, in order, as
    [{"at": unix seconds, "l0_files": n, "pending_compaction_bytes": n or None,
      "stall_seconds": s or None}, ...]. A dump whose level table has no L0 row has 0 L0 files;
    a dump without a level table (RocksDB leaves its per-column-family part out when nothing
    changed since the last dump) carries the previous dump's L0 files and pending bytes."""
    dumps = []
    current = None
    for raw in (log_text or "").splitlines():
        at, line = log_time(raw)
        if "------- DUMPING STATS -------" in line:
            current = {"at": at, "l0_files": None, "pending_compaction_bytes": None,
                       "stall_seconds": None}
            dumps.append(current)
            continue
        if current is None:
            continue
        line = line.rstrip()
        if line.startswith("** Compaction Stats [") or line == "** Compaction **":
            if current["l0_files"] is None:
                current["l0_files"] = 0  # the level table; its L0 row, if any, follows
            continue
        m = _RDB_L0_ROW.match(line) or _SHALE_L0_ROW.match(line)
        if m and current.get("_l0_seen") is None:
            current["l0_files"] = int(m["files"])
            current["_l0_seen"] = True  # RocksDB prints a second, per-priority table
            continue
        m = _RDB_PENDING.match(line) or _SHALE_PENDING.match(line)
        if m and current["pending_compaction_bytes"] is None:
            current["pending_compaction_bytes"] = int(m["bytes"])
            continue
        m = _RDB_STALL.match(line)
        if m:
            current["stall_seconds"] = int(m["h"]) * 3600 + int(m["m"]) * 60 + float(m["s"])
            continue
        m = _SHALE_STALL.match(line)
        if m:
            current["stall_seconds"] = float(m["secs"])
    previous = None
    for d in dumps:
        d.pop("_l0_seen", None)
        if previous is not None:
            for key in ("l0_files", "pending_compaction_bytes"):
                if d[key] is None:
                    d[key] = previous[key]
        previous = d
    return [d for d in dumps if d["at"] is not None]


def parse_open_close(log_text):
    """Open and close times an info LOG shows for the last open in it: {"open_seconds",
    "open_done_at" (unix), "close_seconds"}, each None where the LOG lacks it (ShaleDB's LOG
    has no start of Close: shale_bench prints it, see parse_close_line)."""
    out = {"open_seconds": None, "open_done_at": None, "close_seconds": None}
    open_start = shutdown_start = None
    for raw in (log_text or "").splitlines():
        at, line = log_time(raw)
        if at is None:
            continue
        if line.startswith("RocksDB version:"):
            open_start, out = at, {"open_seconds": None, "open_done_at": None,
                                   "close_seconds": None}
        elif line.startswith("DB pointer ") and open_start is not None:
            out["open_seconds"], out["open_done_at"] = at - open_start, at
        elif line.startswith("Shutdown: canceling all background work"):
            shutdown_start = at
        elif line.startswith("Shutdown complete") and shutdown_start is not None:
            out["close_seconds"] = at - shutdown_start
        else:
            m = _SHALE_OPENED.match(line)
            if m:
                out = {"open_seconds": float(m["secs"]), "open_done_at": at,
                       "close_seconds": None}
    return out


def parse_close_line(text):
    """shale_bench's last close line as (seconds, done at unix seconds), or None."""
    matches = list(_CLOSE_LINE.finditer(text or ""))
    return (float(matches[-1]["secs"]), float(matches[-1]["at"])) if matches else None


def parse_proc_status(text):
    """/proc/<pid>/status's memory figures in bytes: {"rss_bytes" (VmRSS), "hwm_bytes"
    (VmHWM, the peak)}, the ones present."""
    out = {}
    for line in (text or "").splitlines():
        name, _, value = line.partition(":")
        key = {"VmRSS": "rss_bytes", "VmHWM": "hwm_bytes"}.get(name.strip())
        parts = value.split()
        if key and len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
            out[key] = int(parts[0]) * 1024
    return out


def parse_block_stat(text):
    """/sys/block/<dev>/stat as {"read_bytes", "write_bytes"} (sectors of 512 bytes, fields 3
    and 7), or {} when it is not one."""
    fields = (text or "").split()
    if len(fields) < 7 or not all(f.isdigit() for f in fields[:7]):
        return {}
    return {"read_bytes": int(fields[2]) * 512, "write_bytes": int(fields[6]) * 512}

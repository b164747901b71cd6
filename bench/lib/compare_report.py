"""Summarizing runs into the comparison table, as text, Markdown and JSON.

summarize() reduces the runs of each (step, engine) to one row: the median of each figure over
the rounds that succeeded, or the reason none did ("n/a (not supported yet: ...)", "error: ...").
ShaleDB's rows carry its ratio of throughput over RocksDB's as measured in the same run (ShaleDB
ops/s / RocksDB ops/s), and the ratio of time (ShaleDB seconds / RocksDB seconds). No factor
is applied: the opponent is a real build (the header names its version).

Steps that run on ShaleDB alone (shaledb_only) get rows for ShaleDB only, without ratios; the
merge suite's posting-list steps (posting_figures) get their own tables (format_posting,
format_posting_targets) and stay out of the side-by-side table (side_by_side_rows).

Steps with compaction_figures also get a second table (format_compaction_text): the step's total
time, the fill's own ops/s, the bytes written to storage per user byte, how throughput held up
(last tenth of the run over the first) and the longest stretch without progress. Steps with
ingest_figures get the ingest suite's two tables (format_ingest, format_targets): user-data MB/s
against the disk's bandwidth, and issue 9's targets.

Pure functions over plain dicts and lists.
"""

import statistics

import compare_suites

HEADER = ("engine", "benchmark", "ops/s", "MB/s", "p99 (us)", "write-amp", "peak RSS",
          "ratio vs RocksDB")
_FIGURES = ("ops_per_sec", "mb_per_sec", "p99_micros", "write_amplification", "peak_rss_bytes",
            "seconds", "stall_seconds", "disk_write_bytes", "disk_write_amplification",
            "fill_seconds", "fill_ops_per_sec", "compaction_wait_seconds",
            "first_tenth_ops_per_sec", "last_tenth_ops_per_sec", "last_first_ratio",
            "longest_zero_seconds")
COMPACTION_HEADER = ("engine", "benchmark", "total (s)", "fill ops/s", "disk write-amp",
                     "last/first tenth", "longest stall (s)", "time ratio vs RocksDB")


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _summary_row(step, engine_name, runs):
    mine = [r for r in runs if r["step"] == step.name and r["engine"] == engine_name]
    ok = [r for r in mine if r["status"] == "ok"]
    row = {"step": step.name, "engine": engine_name, "runs": len(ok)}
    if not ok:
        failed = next((r for r in mine if r["status"] == "error"), None) or \
            next((r for r in mine if r["status"] == "n/a"), None)
        if failed is None:
            row.update(status="error", reason="did not run")
        else:
            row.update(status=failed["status"], reason=failed["reason"])
        return row
    row.update(status="ok", reason="")
    for key in _FIGURES:
        row[key] = _median([r.get(key) for r in ok])
    if any(r.get("posting") for r in ok):
        row["posting"] = _median_posting([r["posting"] for r in ok if r.get("posting")])
    row["ops_per_sec_min"] = min(r["ops_per_sec"] for r in ok)
    row["ops_per_sec_max"] = max(r["ops_per_sec"] for r in ok)
    return row


def _median_posting(postings):
    """The median of each posting-list figure over rounds (buckets matched by position)."""
    first = postings[0]
    buckets = []
    for i, b in enumerate(first["buckets"]):
        same = [p["buckets"][i] for p in postings if len(p["buckets"]) > i]
        buckets.append(dict(b, **{k: _median([x[k] for x in same])
                                  for k in ("gets", "p50_micros", "p99_micros", "max_micros",
                                            "adds_per_sec")}))
    return {"hottest_ids": _median([p["hottest_ids"] for p in postings]),
            "hottest_share": first["hottest_share"], "buckets": buckets}


def summarize(steps, engine_names, runs):
    """One row per (step, engine) in suite order, with ratios on ShaleDB's rows."""
    rows = []
    for step in steps:
        names = ["ShaleDB"] if step.shaledb_only else engine_names
        by_engine = {e: _summary_row(step, e, runs) for e in names}
        rocks = by_engine.get("RocksDB")
        for name in names:
            row = by_engine[name]
            if name != "RocksDB" and row["status"] == "ok" and rocks and rocks["status"] == "ok" \
                    and rocks["ops_per_sec"]:
                row["ratio"] = row["ops_per_sec"] / rocks["ops_per_sec"]
                if row.get("seconds") and rocks.get("seconds"):
                    row["time_ratio"] = row["seconds"] / rocks["seconds"]
            rows.append(row)
    return rows


def _num(v, digits=0):
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


def _bytes(v):
    if v is None:
        return "-"
    return f"{v / (1 << 20):,.0f} MiB"


def _ratio_cell(row, have_rocksdb):
    if row["engine"] == "RocksDB":
        return "1.00" if row["status"] == "ok" else "-"
    if "ratio" in row:
        return f"{row['ratio']:.2f}"
    return "n/a (no db_bench)" if not have_rocksdb else "n/a"


def row_cells(row, have_rocksdb):
    """The table cells of a summary row (HEADER's columns)."""
    ratio = _ratio_cell(row, have_rocksdb)
    if row["status"] != "ok":
        label = "n/a" if row["status"] == "n/a" else "error"
        return [row["engine"], row["step"], f"{label} ({row['reason']})", "-", "-", "-", "-", ratio]
    wa = row["write_amplification"]
    return [row["engine"], row["step"], _num(row["ops_per_sec"]), _num(row["mb_per_sec"], 1),
            _num(row["p99_micros"], 2), "-" if wa is None else f"{wa:.2f}",
            _bytes(row["peak_rss_bytes"]), ratio]


def format_text(rows, have_rocksdb):
    """An aligned ' | ' table; a row that did not run spans its reason over the figure columns."""
    cells = [row_cells(r, have_rocksdb) for r in rows]
    widths = [len(h) for h in HEADER]
    for c, r in zip(cells, rows):
        for i, v in enumerate(c):
            if r["status"] == "ok" or i < 2 or i > 6:
                widths[i] = max(widths[i], len(v))
    out = [" | ".join(h.ljust(w) for h, w in zip(HEADER, widths)).rstrip(),
           "-+-".join("-" * w for w in widths)]
    for c, r in zip(cells, rows):
        if r["status"] == "ok":
            out.append(" | ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())
        else:
            head = " | ".join(v.ljust(w) for v, w in zip(c[:2], widths))
            out.append(f"{head} | {c[2]} | {c[7]}")
    return "\n".join(out)


def format_markdown_table(rows, have_rocksdb):
    def line(values):
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
    out = [line(HEADER), "|" + "|".join("---" for _ in HEADER) + "|"]
    out.extend(line(row_cells(r, have_rocksdb)) for r in rows)
    return "\n".join(out)


def _compaction_cells(row, have_rocksdb):
    if row["status"] != "ok":
        label = "n/a" if row["status"] == "n/a" else "error"
        return [row["engine"], row["step"], f"{label} ({row['reason']})"] + ["-"] * 5
    fill = row.get("fill_ops_per_sec") or row["ops_per_sec"]
    tenth = row.get("last_first_ratio")
    if row["engine"] == "RocksDB":
        ratio = "1.00"
    elif "time_ratio" in row:
        ratio = f"{row['time_ratio']:.2f}"
    else:
        ratio = "n/a (no db_bench)" if not have_rocksdb else "n/a"
    return [row["engine"], row["step"], _num(row.get("seconds"), 1), _num(fill),
            _num(row.get("disk_write_amplification"), 2),
            "-" if tenth is None else f"{tenth:.2f}", _num(row.get("longest_zero_seconds")),
            ratio]


def compaction_rows(steps, rows):
    """The summary rows of the steps that have compaction figures, in order."""
    names = {s.name for s in steps if s.compaction_figures}
    return [r for r in rows if r["step"] in names]


def format_compaction_text(rows, have_rocksdb):
    """The compaction table (COMPACTION_HEADER), aligned like format_text."""
    cells = [_compaction_cells(r, have_rocksdb) for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(COMPACTION_HEADER)]
    out = [" | ".join(h.ljust(w) for h, w in zip(COMPACTION_HEADER, widths)).rstrip(),
           "-+-".join("-" * w for w in widths)]
    out.extend(" | ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() for c in cells)
    return "\n".join(out)


def format_compaction_markdown(rows, have_rocksdb):
    def line(values):
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
    out = [line(COMPACTION_HEADER), "|" + "|".join("---" for _ in COMPACTION_HEADER) + "|"]
    out.extend(line(_compaction_cells(r, have_rocksdb)) for r in rows)
    return "\n".join(out)


def compaction_notes():
    """The notes of the compaction table."""
    return [
        "Compaction table: total = the step's time (fill + compaction for fillrandom+compaction, "
        "fill + compact for bulkload); fill ops/s = the fill's own report line; disk write-amp = "
        "bytes the process wrote to storage (/proc/<pid>/io write_bytes: WAL, flushes, "
        f"compactions, MANIFEST, logs) / (keys written x {compare_suites.ENTRY_BYTES} bytes); "
        "last/first tenth = mean ops/s of the last tenth of the fill over its first tenth, from "
        "the --report_interval_seconds=1 series; longest stall = the longest run of 1-second "
        "intervals with no operation done (both only for fillrandom+compaction: db_bench's "
        "compact rewrites the series file of the bulk load's fill); time ratio = ShaleDB "
        "seconds / RocksDB seconds in the same run (> 1: ShaleDB slower).",
    ]


def side_by_side_rows(steps, rows):
    """The summary rows of the steps run on both engines, in order."""
    alone = {s.name for s in steps if s.shaledb_only}
    return [r for r in rows if r["step"] not in alone]


def footnotes(steps, rows, repeat, have_rocksdb):
    """The notes printed under the table: how each figure was obtained."""
    notes = [
        "ratio vs RocksDB = ShaleDB ops/s / RocksDB ops/s, both measured in this run (> 1: "
        "ShaleDB faster); RocksDB is the db_bench named in the header (its version as "
        "db_bench --version prints it), no factor applied.",
    ]
    entry = "/".join(str(b) for b in sorted({s.entry_bytes for s in steps
                                             if not s.shaledb_only} or {compare_suites.ENTRY_BYTES}))
    notes.append(
        "ops/s, MB/s: the tool's report line; p99: its --histogram=1 percentiles (microseconds); "
        "write-amp: (flush + compaction + WAL bytes written, from --statistics=1 tickers) / "
        f"(keys written x {entry} bytes: key + value), '-' where no key was written; "
        "peak RSS: /usr/bin/time -v of the step's process.")
    notes.extend(s.note for s in steps if s.note)
    if any(s.compaction_figures for s in steps):
        notes.extend(compaction_notes())
    if any(s.ingest_figures for s in steps):
        notes.extend(ingest_notes())
    if any(s.posting_figures for s in steps):
        notes.extend(posting_notes())
    if repeat > 1:
        notes.append(f"Each figure is the median of {repeat} rounds (engine order alternated "
                     "every round); the JSON holds every run.")
    if not have_rocksdb:
        notes.append("db_bench not found: RocksDB column skipped.")
    if any(r["status"] != "ok" for r in rows):
        notes.append("n/a rows: the step could not run on that engine yet; the reason is the "
                     "tool's own message.")
    notes.append("Other processes may share this machine's cores: figures are indicative.")
    return notes


def format_notes(notes):
    return "\n".join(f"[{i}] {n}" for i, n in enumerate(notes, 1))


# ------------------------------------------------------------------ The ingest suite's tables
#
# Bulk-load table: per (step, engine) of the steps with ingest_figures, the step's time, its
# user-data MB/s (the tool's own figure), that over the disk's sequential write bandwidth (dd),
# and the bytes the process wrote to storage per user byte. Targets table: the two
# targets for each bulk-load step (compare_suites.TARGET_STEPS): its time over RocksDB's
# fillrandom + compact (the bulkload step) in the same run, and its MB/s over the same engine's
# fillseq MB/s.

INGEST_HEADER = ("engine", "benchmark", "total (s)", "user MB/s", "MB/s / dd",
                 "disk write / user byte")
TARGET_HEADER = ("engine", "bulk load", "time (s)", "time / RocksDB fillrandom+compact",
                 "time target", "MB/s / own fillseq MB/s", "MB/s target")


def ingest_rows(steps, rows):
    """The summary rows of the steps with ingest figures, in order."""
    names = {s.name for s in steps if s.ingest_figures}
    return [r for r in rows if r["step"] in names]


def _user_bytes(row):
    if row.get("mb_per_sec") is None or not row.get("seconds"):
        return None
    return row["mb_per_sec"] * 1048576.0 * row["seconds"]


def _not_run(row):
    """The cells of a row that did not run: engine, step, the reason (spanning the rest)."""
    label = "n/a" if row["status"] == "n/a" else "error"
    return [row["engine"], row["step"], f"{label} ({row['reason']})"]


def _ingest_cells(row, dd_mb):
    if row["status"] != "ok":
        return _not_run(row)
    mb = row.get("mb_per_sec")
    user = _user_bytes(row)
    disk = row.get("disk_write_bytes")
    return [row["engine"], row["step"], _num(row.get("seconds"), 2), _num(mb, 1),
            f"{mb / dd_mb:.3f}" if mb is not None and dd_mb else "-",
            f"{disk / user:.2f}" if disk and user else "-"]


def _table(header, cells, markdown):
    """Rows of cells under `header`, aligned (or as Markdown); a row shorter than the header
    (a step that did not run) spans its last cell over the remaining columns."""
    if markdown:
        def line(values):
            values = values + ["-"] * (len(header) - len(values))
            return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
        return "\n".join([line(list(header)), "|" + "|".join("---" for _ in header) + "|"] +
                         [line(c) for c in cells])
    full = [c for c in cells if len(c) == len(header)]
    widths = [max([len(h)] + [len(c[i]) for c in full] +
                  [len(c[i]) for c in cells if i < len(c) - 1]) for i, h in enumerate(header)]
    out = [" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
           "-+-".join("-" * w for w in widths)]
    out.extend(" | ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() for c in cells)
    return "\n".join(out)


def disk_line(dd):
    """The line saying what dd measured (or why it did not)."""
    if dd is None:
        return "Disk: sequential write bandwidth not measured (--dd_mib=0)"
    if "error" in dd:
        return f"Disk: dd failed ({dd['error']}): MB/s / dd not computed"
    return (f"Disk: {dd['mb_per_sec']:,.1f} MB/s sequential write ({dd['command']}: "
            f"{dd['bytes'] / (1 << 20):,.0f} MiB in {dd['seconds']:.2f} s, {dd['mode']})")


def format_ingest(rows, dd, markdown=False):
    """The bulk-load table (INGEST_HEADER)."""
    dd_mb = dd.get("mb_per_sec") if dd else None
    return _table(INGEST_HEADER, [_ingest_cells(r, dd_mb) for r in rows], markdown)


def _row(rows, step, engine):
    return next((r for r in rows if r["step"] == step and r["engine"] == engine), None)


def target_rows(rows):
    """Per bulk-load step and engine: its time over RocksDB's fillrandom + compact, and its MB/s
    over its own engine's fillseq MB/s; whether ShaleDB meets each target."""
    rocks_bulk = _row(rows, "bulkload", "RocksDB")
    base_seconds = rocks_bulk.get("seconds") if rocks_bulk and rocks_bulk["status"] == "ok" \
        else None
    out = []
    for step in compare_suites.TARGET_STEPS:
        for engine in ("RocksDB", "ShaleDB"):
            row = _row(rows, step, engine)
            if row is None:
                continue
            t = {"engine": engine, "step": step, "status": row["status"],
                 "reason": row["reason"], "seconds": row.get("seconds")}
            fillseq = _row(rows, "fillseq", engine)
            if row["status"] == "ok" and base_seconds:
                t["time_ratio"] = row["seconds"] / base_seconds
                if engine == "ShaleDB":
                    t["time_target_met"] = (t["time_ratio"] <=
                                            compare_suites.TARGET_TIME_VS_ROCKSDB_BULKLOAD)
            if row["status"] == "ok" and fillseq and fillseq["status"] == "ok" and \
                    row.get("mb_per_sec") is not None and fillseq.get("mb_per_sec"):
                t["mb_ratio_fillseq"] = row["mb_per_sec"] / fillseq["mb_per_sec"]
                if engine == "ShaleDB":
                    t["mb_target_met"] = (t["mb_ratio_fillseq"] >=
                                          compare_suites.TARGET_MB_VS_FILLSEQ)
            out.append(t)
    return out


def _met(flag, target):
    if flag is None:
        return "-"
    return f"{'yes' if flag else 'NO'} ({target})"


def _target_cells(t, have_rocksdb):
    if t["status"] != "ok":
        return _not_run(t)
    missing = "n/a (no db_bench)" if not have_rocksdb else "n/a"
    ratio = t.get("time_ratio")
    mb = t.get("mb_ratio_fillseq")
    return [t["engine"], t["step"], _num(t["seconds"], 2),
            missing if ratio is None else f"{ratio:.3f}",
            _met(t.get("time_target_met"),
                 f"<= {compare_suites.TARGET_TIME_VS_ROCKSDB_BULKLOAD}"),
            "-" if mb is None else f"{mb:.2f}",
            _met(t.get("mb_target_met"), f">= {compare_suites.TARGET_MB_VS_FILLSEQ}")]


def format_targets(targets, have_rocksdb, markdown=False):
    """The targets table (TARGET_HEADER)."""
    return _table(TARGET_HEADER, [_target_cells(t, have_rocksdb) for t in targets], markdown)


def ingest_notes():
    """The notes of the ingest suite's two tables."""
    return [
        "Bulk-load table: total = the step's time (fillseq: its report line; bulkload: fill + "
        "compact; bulkload_external: write + ingest; bulkload_sorted: the whole load); user "
        "MB/s = the tool's MB/s of user data (key + value bytes of the pairs the step counts) "
        "over that time; MB/s / dd = that over the disk's sequential write bandwidth measured "
        "with dd before the first step; disk write / user byte = /proc/<pid>/io write_bytes of "
        "the step's process over its user bytes (MB/s x seconds).",
        "Targets table (issue 9): time / RocksDB fillrandom+compact = the step's seconds over "
        "RocksDB's bulkload step (fillrandom,compact with PrepareForBulkLoad's options) as "
        "measured in this run with the db_bench named in the header. Target: at most "
        f"{compare_suites.TARGET_TIME_VS_ROCKSDB_BULKLOAD}. MB/s / "
        "own fillseq MB/s: the step's user MB/s over the same engine's fillseq MB/s (ShaleDB's "
        f"target: at least {compare_suites.TARGET_MB_VS_FILLSEQ}). The issue's bulk loader is "
        "ShaleDB's bulkload_sorted; the other rows are for comparison.",
    ]


# ------------------------------------------------------------------ The merge suite's tables
#
# Posting-list table: per posting step (ShaleDB only) and size bucket of the hottest list, the
# reader's Gets of it (count, P50, P99, max) and all writers' adds/s while it had that size,
# under the step's overall adds/s and final size. Targets table: merges/s of postinglist over
# postinglist_rmw on the same stream to the same size, and the P99 of the Gets of the hottest
# list at the full target size.

POSTING_HEADER = ("benchmark", "adds/s", "hottest ids", "size bucket", "gets", "Get P50 (us)",
                  "Get P99 (us)", "Get max (us)", "adds/s meanwhile")
POSTING_TARGET_HEADER = ("target", "measured", "met")


def posting_rows(steps, rows):
    """The summary rows of the steps with posting figures, in order."""
    names = {s.name for s in steps if s.posting_figures}
    return [r for r in rows if r["step"] in names]


def _posting_cells(row):
    if row["status"] != "ok":
        return [_not_run(row)[1], f"{'n/a' if row['status'] == 'n/a' else 'error'} "
                                  f"({row['reason']})"]
    p = row["posting"]
    out = []
    for i, b in enumerate(p["buckets"]):
        head = ([row["step"], _num(row["ops_per_sec"]), _num(p["hottest_ids"])] if i == 0
                else ["", "", ""])
        out.append(head + [b["bucket"], _num(b["gets"]), _num(b["p50_micros"], 2),
                           _num(b["p99_micros"], 2), _num(b["max_micros"], 2),
                           _num(b["adds_per_sec"])])
    return out


def format_posting(rows, markdown=False):
    """The posting-list table (POSTING_HEADER): one line per size bucket of each step."""
    cells = []
    for r in rows:
        c = _posting_cells(r)
        cells.extend(c if r["status"] == "ok" else [c])
    return _table(POSTING_HEADER, cells, markdown)


def _bucket_at_target(row):
    """The top size bucket (at least the target) of a posting row, or None."""
    if row is None or row["status"] != "ok" or not row["posting"]["buckets"]:
        return None
    top = row["posting"]["buckets"][-1]
    return top if top["bucket"].startswith(">=") else None


def posting_targets(steps, rows):
    """The issue's two posting-list targets, [{"target", "value", "text", "met"}]: merges/s of
    postinglist over postinglist_rmw run to the same size, and the Get P99 at the largest
    postinglist step's target."""
    posting = [s for s in steps if s.posting_figures]
    rmw_step = next((s for s in posting if s.benchmarks == ("postinglist_rmw",)), None)
    merges = [s for s in posting if s.benchmarks == ("postinglist",)]
    size = (lambda s: s.flags.get("posting_target_ids", 0))
    merge_step = next((s for s in merges if rmw_step and size(s) == size(rmw_step)), None)
    full_step = max(merges, key=size, default=None)
    to_ids = (lambda s: f" to {compare_suites.short_count(size(s))} ids" if s else "")
    speedup = {"target": "merges/s of postinglist / postinglist_rmw on the same stream"
                         f"{to_ids(rmw_step)}: >= {compare_suites.TARGET_POSTING_SPEEDUP:g}",
               "value": None, "text": "n/a", "met": None}
    merge = _row(rows, merge_step.name, "ShaleDB") if merge_step else None
    rmw = _row(rows, rmw_step.name, "ShaleDB") if rmw_step else None
    if merge and rmw and merge["status"] == "ok" and rmw["status"] == "ok" and \
            rmw["ops_per_sec"]:
        speedup["value"] = merge["ops_per_sec"] / rmw["ops_per_sec"]
        speedup["text"] = (f"{speedup['value']:.1f} ({_num(merge['ops_per_sec'])} / "
                           f"{_num(rmw['ops_per_sec'])})")
        speedup["met"] = speedup["value"] >= compare_suites.TARGET_POSTING_SPEEDUP
    at_ids = f" at >= {compare_suites.short_count(size(full_step))} ids" if full_step else ""
    get = {"target": f"Get P99 of the hottest list{at_ids} while merges go on: "
                     f"< {compare_suites.TARGET_POSTING_GET_P99_MS:g} ms",
           "value": None, "text": "n/a", "met": None}
    top = _bucket_at_target(_row(rows, full_step.name, "ShaleDB") if full_step else None)
    if top and top["p99_micros"] is not None:
        get["value"] = top["p99_micros"] / 1000
        get["text"] = f"{get['value']:.2f} ms ({_num(top['gets'])} Gets)"
        get["met"] = get["value"] < compare_suites.TARGET_POSTING_GET_P99_MS
    return [speedup, get]


def format_posting_targets(targets, markdown=False):
    """The targets table (POSTING_TARGET_HEADER)."""
    cells = [[t["target"], t["text"], "-" if t["met"] is None else ("yes" if t["met"] else "NO")]
             for t in targets]
    return _table(POSTING_TARGET_HEADER, cells, markdown)


def posting_notes():
    """The notes of the posting-list tables."""
    return [
        "Posting-list table (ShaleDB only): adds/s = the step's report line (one writer; the "
        "reader's Gets are not counted); hottest ids = the hottest list's size at the end, "
        "checked by shale_bench against the adds made to it; per size bucket of the hottest "
        "list: the reader's Gets of it while it had that size (count, P50, P99, max, in "
        "microseconds) and all adds per second meanwhile. Targets (issue 11): merges/s at "
        f"least {compare_suites.TARGET_POSTING_SPEEDUP:g}x read-modify-write's on the same "
        "stream, and the P99 of the Gets of the hottest list at the full target size under "
        f"{compare_suites.TARGET_POSTING_GET_P99_MS:g} ms.",
    ]

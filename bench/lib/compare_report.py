"""Summarizing runs into the comparison table, as text, Markdown and JSON.

summarize() reduces the runs of each (step, engine) to one row: the median of each figure over
the rounds that succeeded, or the reason none did ("n/a (not supported yet: ...)", "error: ...").
ShaleDB's rows carry two ratios of throughput: over RocksDB as measured (Debian's db_bench), and
over an estimated release-build RocksDB (the measured ops/s x the step's release factor).

Pure functions over plain dicts and lists.
"""

import statistics

import compare_suites

HEADER = ("engine", "benchmark", "ops/s", "MB/s", "p99 (us)", "write-amp", "peak RSS",
          "ratio vs Debian", "ratio vs release est.")
_FIGURES = ("ops_per_sec", "mb_per_sec", "p99_micros", "write_amplification", "peak_rss_bytes",
            "seconds", "stall_seconds")


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
    row["ops_per_sec_min"] = min(r["ops_per_sec"] for r in ok)
    row["ops_per_sec_max"] = max(r["ops_per_sec"] for r in ok)
    return row


def summarize(steps, engine_names, runs):
    """One row per (step, engine) in suite order, with ratios on ShaleDB's rows."""
    rows = []
    for step in steps:
        factor, measured = compare_suites.release_factor(step)
        by_engine = {e: _summary_row(step, e, runs) for e in engine_names}
        rocks = by_engine.get("RocksDB")
        for name in engine_names:
            row = by_engine[name]
            row.update(release_factor=factor, factor_measured=measured)
            if name == "RocksDB" and row["status"] == "ok":
                row["release_estimate_ops_per_sec"] = row["ops_per_sec"] * factor
            if name != "RocksDB" and row["status"] == "ok" and rocks and rocks["status"] == "ok" \
                    and rocks["ops_per_sec"]:
                row["ratio_debian"] = row["ops_per_sec"] / rocks["ops_per_sec"]
                row["ratio_release_estimate"] = row["ops_per_sec"] / (rocks["ops_per_sec"] * factor)
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


def _ratio_cells(row, have_rocksdb):
    if row["engine"] == "RocksDB":
        if row["status"] != "ok":
            return "-", "-"
        est = row["release_estimate_ops_per_sec"]
        return "1.00", f"est. {_num(est)} ops/s (x{row['release_factor']:.2f})"
    if "ratio_debian" in row:
        return (f"{row['ratio_debian']:.2f}",
                f"{row['ratio_release_estimate']:.2f} (x{row['release_factor']:.2f})")
    if not have_rocksdb:
        return "n/a (no db_bench)", "n/a (no db_bench)"
    return "n/a", "n/a"


def row_cells(row, have_rocksdb):
    """The table cells of a summary row (HEADER's columns)."""
    ratio, ratio_release = _ratio_cells(row, have_rocksdb)
    if row["status"] != "ok":
        label = "n/a" if row["status"] == "n/a" else "error"
        return [row["engine"], row["step"], f"{label} ({row['reason']})", "-", "-", "-", "-", ratio,
                ratio_release]
    wa = row["write_amplification"]
    return [row["engine"], row["step"], _num(row["ops_per_sec"]), _num(row["mb_per_sec"], 1),
            _num(row["p99_micros"], 2), "-" if wa is None else f"{wa:.2f}",
            _bytes(row["peak_rss_bytes"]), ratio, ratio_release]


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
            out.append(f"{head} | {c[2]} | {c[7]} | {c[8]}")
    return "\n".join(out)


def format_markdown_table(rows, have_rocksdb):
    def line(values):
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"
    out = [line(HEADER), "|" + "|".join("---" for _ in HEADER) + "|"]
    out.extend(line(row_cells(r, have_rocksdb)) for r in rows)
    return "\n".join(out)


def footnotes(steps, rows, repeat, have_rocksdb):
    """The notes printed under the table: how each figure was obtained."""
    f = compare_suites.MEASURED_FACTORS
    notes = [
        "ratio = ShaleDB ops/s / RocksDB ops/s. 'vs Debian': against /usr/bin/db_bench "
        "(rocksdb-tools, built with assertions) as measured. 'vs release est.': against that "
        "figure x the measured release/Debian speed factor: "
        f"fillseq {f['fillseq']:.2f} with WAL ({f['fillseq_nowal']:.2f} without), "
        f"fillrandom {f['fillrandom']:.2f}, bulk load {f['bulkload']:.2f}, "
        f"readrandom {f['readrandom']:.2f}.",
    ]
    assumed = sorted({f"{s.name} x{compare_suites.release_factor(s)[0]:.2f}" for s in steps
                      if not compare_suites.release_factor(s)[1]})
    if assumed:
        notes.append(
            "No measured factor for " + ", ".join(assumed) + ": the generic factor for other "
            f"write benchmarks ({compare_suites.OTHER_WRITE_FACTOR:.2f}) or other read "
            f"benchmarks ({compare_suites.OTHER_READ_FACTOR:.2f}) is applied.")
    notes.append(
        "ops/s, MB/s: the tool's report line; p99: its --histogram=1 percentiles (microseconds); "
        "write-amp: (flush + compaction + WAL bytes written, from --statistics=1 tickers) / "
        f"(keys written x {compare_suites.ENTRY_BYTES} bytes), '-' where no key was written; "
        "peak RSS: /usr/bin/time -v of the step's process.")
    notes.extend(s.note for s in steps if s.note)
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

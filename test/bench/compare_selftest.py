#!/usr/bin/env python3
"""Tests of bench/compare: its parsers and summary on canned tool output, its `selftest`
suite end to end (2000 keys, fillseq and readrandom; a few seconds), the ShaleDB side of
its `compaction` suite end to end at 2000 keys (about a second), and its `ingest` suite end to
end at 2000 keys with a 4 MiB dd (RocksDB's side too where db_bench and rocksdb_ingest_bench
exist; n/a rows otherwise).

Usage: compare_selftest.py --compare bench/compare --shale_bench PATH --dir WORK_DIR
                           [--db_bench PATH] [--rocksdb_ingest_bench PATH]

--db_bench defaults to the Release RocksDB 11.8.1 of bench/rocksdb/build.sh when it is built
(`build.sh --check`: nothing is built here). The end-to-end test checks that the printed table
parses and carries the measured ratio against RocksDB (no factor), and that the header names the
version db_bench --version prints. When db_bench is absent it checks instead that the RocksDB
side is skipped with "db_bench not found: RocksDB column skipped" (nothing is built or
installed). The skip path is also exercised with a db_bench path that does not exist.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import unittest

ARGS = None

# Canned output of Debian's db_bench 7.8.3 (trimmed): report lines, histograms, statistics.
DB_BENCH_OUT = """\
DB path: [/tmp/x]
fillseq      :       6.054 micros/op 164866 ops/sec 0.012 seconds 2000 operations;   18.2 MB/s
Microseconds per write:
Count: 2000 Average: 6.0180  StdDev: 90.60
Percentiles: P50: 3.12 P75: 3.65 P99: 9.33 P99.9: 110.00 P99.99: 4051.00
------------------------------------------------------
DB path: [/tmp/x]
readrandom   :       0.912 micros/op 1066666 ops/sec 0.002 seconds 2000 operations;  118.0 MB/s (1990 of 2000 found)

Microseconds per read:
Percentiles: P50: 0.54 P75: 0.81 P99: 2.14 P99.9: 15.00 P99.99: 1535.00
Microseconds per write:
Percentiles: P50: 7.00 P75: 8.00 P99: 99.00 P99.9: 150.00 P99.99: 1535.00
compact      :   16306.000 micros/op 61 ops/sec 0.016 seconds 1 operations;
flush        : skipped (Not implemented: compaction is not supported yet)

STATISTICS:
rocksdb.number.keys.written COUNT : 2000
rocksdb.bytes.written COUNT : 262000
rocksdb.wal.bytes COUNT : 262000
rocksdb.flush.write.bytes COUNT : 232000
rocksdb.compact.write.bytes COUNT : 116000
rocksdb.db.get.micros P50 : 0.525762 P95 : 0.998948 P99 : 1.917647 P100 : 43.000000 COUNT : 2000
"""


# A RocksDB info LOG (trimmed): EVENT_LOG_v1 lines of flushes and compactions.
ROCKSDB_LOG = """\
2026/11/21-14:43:59.100000 22018 [db/flush_job.cc:870] [default] [JOB 3] Flushing memtable
2026/11/21-14:43:59.101000 22018 EVENT_LOG_v1 {"time_micros": 1795272239101000, "job": 3, "event": "flush_started", "num_memtables": 1}
2026/11/21-14:43:59.200000 22018 (Original Log Time 2026/11/21-14:43:59.199990) EVENT_LOG_v1 {"time_micros": 1795272239199990, "job": 3, "event": "flush_finished", "output_compression": "NoCompression", "lsm_state": [1, 0]}
2026/11/21-14:44:00.495949 22018 (Original Log Time 2026/11/21-14:44:00.495896) EVENT_LOG_v1 {"time_micros": 1795272240495887, "job": 6, "event": "compaction_finished", "compaction_time_micros": 99945, "output_level": 1}
2026/11/21-14:44:01.000000 22018 EVENT_LOG_v1 {"time_micros": 1795272241000000, "job": 7, "event": "compaction_started", "compaction_reason": "LevelL0FilesNum"}
2026/11/21-14:44:01.500000 22018 EVENT_LOG_v1 {"time_micros": 1795272241500000, "job": 8, "event": "table_file_deletion", "file_number": 12}
"""

SHALE_WAIT_OUT = """\
fillrandom   :       5.847 micros/op 171020 ops/sec 2.924 seconds 500000 operations;   18.9 MB/s
waitforcompaction(/tmp/db): started
waitforcompaction(/tmp/db): waited 0.232 seconds (done at unix time 1795272426.132635)
waitforcompaction(/tmp/db): finished
"""


# Canned output of bench/rocksdb_ingest_bench (trimmed) and of dd (LC_ALL=C).
INGEST_BENCH_OUT = """\
DB path: [/tmp/x]
bulkload_external.prepare :       0.066 micros/op 15111104 ops/sec 0.007 seconds 100000 operations; (generate 0.002 s, sort 0.005 s; 63240 distinct keys)
bulkload_external.write :       0.998 micros/op 1002294 ops/sec 0.063 seconds 63240 operations;  110.9 MB/s (8 files, 7.4 MiB, 2 threads)
bulkload_external.ingest :    5213.781 micros/op 191 ops/sec 0.042 seconds 8 operations;
bulkload_external :       1.657 micros/op 603403 ops/sec 0.105 seconds 63240 operations;   66.8 MB/s (63240 distinct keys of 100000; files per level L0:0 L6:8)
bulkload_sorted :       1.114 micros/op 897479 ops/sec 0.111 seconds 100000 operations;   99.3 MB/s (prepare 0.007 s, write 0.063 s, ingest 0.042 s)
"""
DD_OUT = """\
2048+0 records in
2048+0 records out
2147483648 bytes (2.1 GB, 2.0 GiB) copied, 4.95121 s, 434 MB/s
"""


def load_lib():
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(ARGS.compare)), "lib"))
    import compare_parse
    import compare_report
    import compare_suites
    return compare_parse, compare_report, compare_suites


class IngestTest(unittest.TestCase):
    """The ingest suite's steps, the RocksDB tool's lines, dd, and the two tables."""

    def setUp(self):
        self.parse, self.report, self.suites = load_lib()
        import compare_run
        self.run_mod = compare_run
        self.steps = self.suites.suite_steps("ingest", 1000)[1]

    def test_parse_tool_lines_and_dd(self):
        lines, skipped = self.parse.parse_report(INGEST_BENCH_OUT)
        self.assertEqual(skipped, {})
        self.assertEqual(lines["bulkload_external"].ops, 63240)
        self.assertEqual(lines["bulkload_external"].mb_per_sec, 66.8)
        self.assertEqual(lines["bulkload_sorted"].ops, 100000)
        self.assertIsNone(lines["bulkload_external.ingest"].mb_per_sec)
        self.assertEqual(self.parse.parse_dd(DD_OUT), {"bytes": 2147483648, "seconds": 4.95121})
        self.assertIsNone(self.parse.parse_dd("dd: failed to open 'x': Invalid argument\n"))

    def test_steps_tools_and_engine_flags(self):
        self.assertEqual([s.name for s in self.steps],
                         ["fillseq", "bulkload", "bulkload_external", "bulkload_sorted"])
        self.assertTrue(all(s.ingest_figures for s in self.steps))
        bulk, external, loader = self.steps[1:]
        self.assertEqual(bulk.benchmarks_for("rocksdb"), ("fillrandom", "compact"))
        self.assertEqual(bulk.flags["disable_wal"], 1)
        runner = self.run_mod.Runner(os.path.join(ARGS.dir, "unit"), {"num": 1000, "threads": 1},
                                     60, {"rocksdb_ingest_bench": "/x/rocksdb_ingest_bench"})
        rocks = self.run_mod.Engine("RocksDB", "rocksdb", "/usr/bin/db_bench")
        shale = self.run_mod.Engine("ShaleDB", "shaledb", "/x/shale_bench")
        argv = runner.command(rocks, loader, "/tmp/stem")
        self.assertEqual(argv[0], "/x/rocksdb_ingest_bench")
        self.assertIn("--threads=2", argv)
        self.assertIn("--benchmarks=bulkload_sorted", argv)
        self.assertIn("--target_file_size_base=67108864", argv)
        self.assertIn("--threads=1", runner.command(rocks, external, "/tmp/stem"))
        argv = runner.command(shale, loader, "/tmp/stem")
        self.assertEqual(argv[0], "/x/shale_bench")
        self.assertIn("--bulkload_threads=2", argv)
        self.assertIn("--threads=1", argv)  # the suite's, not RocksDB's writer threads
        self.assertEqual(runner.command(rocks, bulk, "/tmp/stem")[0], "/usr/bin/db_bench")
        missing = self.run_mod.Runner(os.path.join(ARGS.dir, "unit"), {}, 60,
                                      {"rocksdb_ingest_bench": None})
        record = missing.run(rocks, loader, 0)
        self.assertEqual(record["status"], "n/a")
        self.assertIn("rocksdb_ingest_bench not built", record["reason"])

    def record(self, engine, step, seconds, mb):
        return {"engine": engine, "step": step, "status": "ok", "reason": "", "round": 1,
                "ops_per_sec": 1000 / seconds, "mb_per_sec": mb, "seconds": seconds,
                "disk_write_bytes": mb * 1048576 * seconds * 1.5}

    def test_tables_and_targets(self):
        runs = [self.record("RocksDB", "fillseq", 10.0, 20.0),
                self.record("ShaleDB", "fillseq", 5.0, 40.0),
                self.record("RocksDB", "bulkload", 100.0, 2.0),
                self.record("ShaleDB", "bulkload", 50.0, 4.0),
                self.record("RocksDB", "bulkload_external", 8.0, 30.0),
                self.record("ShaleDB", "bulkload_external", 4.0, 60.0),
                self.record("ShaleDB", "bulkload_sorted", 20.0, 15.0),
                {"engine": "RocksDB", "step": "bulkload_sorted", "status": "n/a",
                 "reason": "rocksdb_ingest_bench not built: x", "round": 1}]
        rows = self.report.summarize(self.steps, ["RocksDB", "ShaleDB"], runs)
        dd = {"mb_per_sec": 300.0, "bytes": 1 << 30, "seconds": 3.41, "mode": "O_DIRECT",
              "command": "dd ..."}
        text = self.report.format_ingest(self.report.ingest_rows(self.steps, rows), dd)
        self.assertRegex(text, r"(?m)^ShaleDB \| bulkload_sorted +\| 20\.00 +\| 15\.0 +\| "
                               r"0\.050 +\| 1\.50$")
        self.assertRegex(text, r"(?m)^RocksDB \| bulkload_sorted +\| n/a \(rocksdb_ingest_bench "
                               r"not built: x\)$")
        targets = {(t["engine"], t["step"]): t for t in self.report.target_rows(rows)}
        loader = targets[("ShaleDB", "bulkload_sorted")]
        self.assertAlmostEqual(loader["time_ratio"], 0.2)
        self.assertTrue(loader["time_target_met"])  # 0.2 <= 0.25, no factor applied
        self.assertAlmostEqual(loader["mb_ratio_fillseq"], 15.0 / 40.0)
        self.assertFalse(loader["mb_target_met"])
        external = targets[("ShaleDB", "bulkload_external")]
        self.assertTrue(external["time_target_met"])  # 0.04
        self.assertTrue(external["mb_target_met"])  # 60 / 40
        rocks = targets[("RocksDB", "bulkload_external")]
        self.assertAlmostEqual(rocks["mb_ratio_fillseq"], 1.5)  # over RocksDB's own fillseq
        self.assertNotIn("time_target_met", rocks)
        table = self.report.format_targets(list(targets.values()), True)
        self.assertRegex(table, r"(?m)^ShaleDB \| bulkload_sorted +\| 20\.00 +\| 0\.200 +\| "
                                r"yes \(<= 0\.25\) +\| 0\.38 +\| NO \(>= 0\.5\)$")
        self.assertNotIn("release", table)
        self.assertIn("| ShaleDB | bulkload_external | 4.00 | 0.040 | yes (<= "
                      "0.25) | 1.50 | yes (>= 0.5) |",
                      self.report.format_targets(list(targets.values()), True, markdown=True))
        self.assertIn("434", self.report.disk_line(
            dict(dd, mb_per_sec=434.0)))


class ParseTest(unittest.TestCase):
    def setUp(self):
        self.parse, _, _ = load_lib()

    def test_report_lines_and_p99(self):
        lines, skipped = self.parse.parse_report(DB_BENCH_OUT)
        self.assertEqual(set(lines), {"fillseq", "readrandom", "compact"})
        fs = lines["fillseq"]
        self.assertEqual((fs.ops_per_sec, fs.seconds, fs.ops, fs.mb_per_sec, fs.p99_micros),
                         (164866, 0.012, 2000, 18.2, 9.33))
        rr = lines["readrandom"]
        self.assertEqual((rr.mb_per_sec, rr.p99_micros, rr.message),
                         (118.0, 2.14, "(1990 of 2000 found)"))
        self.assertIsNone(lines["compact"].mb_per_sec)
        self.assertIsNone(lines["compact"].p99_micros)  # no histogram after it
        self.assertEqual(skipped, {"flush": "Not implemented: compaction is not supported yet"})

    def test_write_amplification_uses_logical_bytes(self):
        tickers = self.parse.parse_tickers(DB_BENCH_OUT)
        self.assertEqual(tickers["wal.bytes"], 262000)
        self.assertNotIn("db.get.micros", tickers)
        wa = self.parse.write_amplification(tickers, 116)
        self.assertAlmostEqual(wa, (262000 + 232000 + 116000) / (2000 * 116))
        self.assertIsNone(self.parse.write_amplification({"wal.bytes": 5}, 116))
        self.assertIsNone(self.parse.write_amplification({}, 116))

    def test_rss_series_version_and_failures(self):
        self.assertEqual(self.parse.parse_peak_rss_bytes(
            "\tMaximum resident set size (kbytes): 16932\n"), 16932 * 1024)
        self.assertIsNone(self.parse.parse_peak_rss_bytes(""))
        self.assertEqual(self.parse.parse_series("secs_elapsed,interval_qps\n1,100\n2,250\nx\n"),
                         [{"seconds": 1.0, "ops_per_sec": 100.0},
                          {"seconds": 2.0, "ops_per_sec": 250.0}])
        self.assertEqual(self.parse.parse_version("RocksDB:    version 7.8.3\nDate: x"), "7.8.3")
        msg = self.parse.failure_message(
            "ShaleDB:    version 0.1.0\nshale_bench: Invalid argument: --benchmarks: benchmark "
            "'bulkload' is not supported yet\n")
        self.assertEqual(msg, "Invalid argument: --benchmarks: benchmark 'bulkload' is not "
                              "supported yet")
        self.assertTrue(self.parse.is_not_supported(msg))
        self.assertFalse(self.parse.is_not_supported("Corruption: bad block"))
        progress_then_error = "... finished 100 ops\r... finished 200 ops\rIO error: disk full\n"
        self.assertEqual(self.parse.failure_message(progress_then_error), "IO error: disk full")


class CompactionParseTest(unittest.TestCase):
    def setUp(self):
        self.parse, _, _ = load_lib()

    def test_end_of_background_work(self):
        self.assertEqual(self.parse.parse_compaction_done(SHALE_WAIT_OUT), 1795272426.132635)
        self.assertIsNone(self.parse.parse_compaction_done(DB_BENCH_OUT))
        # The last *finished* flush or compaction; started events and deletions do not count.
        self.assertAlmostEqual(self.parse.parse_last_background_job(ROCKSDB_LOG),
                               1795272240.495887, places=6)
        self.assertAlmostEqual(self.parse.parse_last_background_job(ROCKSDB_LOG, 1795272239.0),
                               1795272240.495887, places=6)
        # Events from before the run started (an earlier process) are ignored.
        self.assertIsNone(self.parse.parse_last_background_job(ROCKSDB_LOG, 1795272241.0))
        self.assertIsNone(self.parse.parse_last_background_job(""))

    def test_proc_io(self):
        io = self.parse.parse_proc_io("rchar: 52439756\nwrite_bytes: 52457472\n"
                                      "cancelled_write_bytes: 0\nbogus\n")
        self.assertEqual(io, {"rchar": 52439756, "write_bytes": 52457472,
                              "cancelled_write_bytes": 0})

    def test_throughput_shape(self):
        series = [{"seconds": float(i + 1), "ops_per_sec": q} for i, q in enumerate(
            [100] * 10 + [80] * 50 + [0, 0, 0, 40, 0, 0] + [40] * 14)]  # 80 samples
        shape = self.parse.throughput_shape(series)
        self.assertEqual(len(shape["tenths_ops_per_sec"]), 10)
        self.assertEqual(shape["first_tenth_ops_per_sec"], 100)  # samples 0..7
        self.assertEqual(shape["last_tenth_ops_per_sec"], 40)
        self.assertAlmostEqual(shape["last_first_ratio"], 0.4)
        self.assertEqual(shape["longest_zero_seconds"], 3.0)
        # Fewer samples than tenths: each sample is its own part.
        short = self.parse.throughput_shape([{"seconds": 1.0, "ops_per_sec": 0},
                                             {"seconds": 2.0, "ops_per_sec": 50}])
        self.assertEqual(short["tenths_ops_per_sec"], [0, 50])
        self.assertIsNone(short["last_first_ratio"])
        self.assertEqual(short["longest_zero_seconds"], 1.0)
        self.assertEqual(self.parse.throughput_shape([]), {})


class SummaryTest(unittest.TestCase):
    def setUp(self):
        _, self.report, self.suites = load_lib()
        self.steps = self.suites.suite_steps("quick")[1][:2]  # fillseq, fillrandom

    def run_record(self, engine, step, ops, rnd=1, status="ok", reason=""):
        return {"engine": engine, "step": step, "status": status, "reason": reason,
                "round": rnd, "ops_per_sec": ops, "mb_per_sec": 1.0, "p99_micros": 2.0,
                "write_amplification": 1.1, "peak_rss_bytes": 1 << 20, "seconds": 1.0,
                "stall_seconds": 0.0}

    def test_medians_ratios_and_na(self):
        runs = [self.run_record("RocksDB", "fillseq", v, i) for i, v in enumerate((100, 300, 200))]
        runs += [self.run_record("ShaleDB", "fillseq", v, i) for i, v in enumerate((50, 150, 90))]
        runs.append(self.run_record("RocksDB", "fillrandom", 100))
        runs.append(self.run_record("ShaleDB", "fillrandom", None, status="n/a",
                                    reason="not supported yet: no way"))
        rows = self.report.summarize(self.steps, ["RocksDB", "ShaleDB"], runs)
        shale_fs = rows[1]
        self.assertEqual((shale_fs["engine"], shale_fs["ops_per_sec"]), ("ShaleDB", 90))
        self.assertAlmostEqual(shale_fs["ratio"], 90 / 200)
        self.assertNotIn("ratio", rows[3])
        text = self.report.format_text(rows, True)
        self.assertIn("n/a (not supported yet: no way)", text)
        self.assertRegex(text, r"(?m)^ShaleDB \| fillseq +\| 90 +\|.*\| 0\.45$")
        self.assertRegex(text, r"(?m)^RocksDB \| fillseq +\| 200 +\|.*\| 1\.00$")

    def test_compaction_suite_time_ratios_and_table(self):
        steps = self.suites.suite_steps("compaction", 1000)[1]
        self.assertEqual([s.name for s in steps], ["fillrandom+compaction", "bulkload"])
        self.assertTrue(steps[0].until_compacted)
        self.assertEqual(steps[1].flags["disable_wal"], 1)
        self.assertEqual(steps[1].benchmarks_for("rocksdb"), ("fillrandom", "compact"))
        runs = []
        for engine, seconds, wa in (("RocksDB", 200.0, 5.0), ("ShaleDB", 100.0, 3.0)):
            r = self.run_record(engine, steps[0].name, 1000 / seconds)
            r.update(seconds=seconds, fill_ops_per_sec=50.0, disk_write_amplification=wa,
                     last_first_ratio=0.5, longest_zero_seconds=4.0)
            runs.append(r)
            runs.append(self.run_record(engine, steps[1].name, 10.0))
        rows = self.report.summarize(steps, ["RocksDB", "ShaleDB"], runs)
        shale = rows[1]
        self.assertAlmostEqual(shale["ratio"], 2.0)
        self.assertAlmostEqual(shale["time_ratio"], 0.5)
        text = self.report.format_compaction_text(
            self.report.compaction_rows(steps, rows), True)
        self.assertRegex(text, r"(?m)^ShaleDB \| fillrandom\+compaction \| 100\.0 +\| 50 +\| "
                               r"3\.00 +\| 0\.50 +\| 4 +\| 0\.50$")
        self.assertRegex(text, r"(?m)^RocksDB \| fillrandom\+compaction \| 200\.0 .*\| 1\.00$")
        self.assertRegex(text, r"(?m)^ShaleDB \| bulkload .*\| 1\.00$")
        notes = " ".join(self.report.footnotes(steps, rows, 1, True))
        self.assertIn("/proc/<pid>/io write_bytes", notes)

    def test_no_release_estimate_anywhere(self):
        # Every ratio is measured against the real opponent: no factor in the suites, headers,
        # footnotes or step JSON.
        import compare_context
        self.assertFalse(hasattr(self.suites, "MEASURED_FACTORS"))
        self.assertFalse(hasattr(self.suites, "release_factor"))
        self.assertEqual(self.report.HEADER[-1], "ratio vs RocksDB")
        self.assertEqual(self.report.COMPACTION_HEADER[-1], "time ratio vs RocksDB")
        for suite in self.suites.SUITES:
            steps = self.suites.suite_steps(suite, 1000)[1]
            text = " ".join(self.report.footnotes(steps, [], 1, True))
            text += " ".join(self.report.ingest_notes() + self.report.compaction_notes())
            self.assertNotRegex(text.lower(), r"release est|release/debian|\(x\d", suite)
            for s in steps:
                self.assertNotIn("release_factor", compare_context.step_json(s))


def parse_table(stdout):
    """(header cells, rows of cells) of the printed table; fails the test if absent."""
    lines = stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("engine "))
    header = [c.strip() for c in lines[start].split(" | ")]
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append([c.strip() for c in line.split(" | ")])
    return header, rows


def number(cell):
    return float(cell.replace(",", ""))


class EndToEndTest(unittest.TestCase):
    def compare(self, name, *extra, suite="selftest"):
        work = os.path.join(ARGS.dir, name)
        os.makedirs(work, exist_ok=True)
        out_json, out_md = os.path.join(work, "out.json"), os.path.join(work, "out.md")
        p = subprocess.run(
            [sys.executable, ARGS.compare, f"--suite={suite}", "--dir", work,
             "--shale_bench", ARGS.shale_bench, "--json", out_json, "--markdown", out_md,
             *extra], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(out_json, encoding="utf-8") as f:
            doc = json.load(f)
        with open(out_md, encoding="utf-8") as f:
            md = f.read()
        return p.stdout, doc, md

    def check_common(self, stdout, doc, md, engines):
        header, rows = parse_table(stdout)
        self.assertEqual(header[:4], ["engine", "benchmark", "ops/s", "MB/s"])
        self.assertEqual(header[-1], "ratio vs RocksDB")
        self.assertNotIn("release est", stdout)
        self.assertEqual([(r[0], r[1]) for r in rows],
                         [(e, b) for b in ("fillseq", "readrandom") for e in engines])
        for r in rows:
            self.assertEqual(len(r), len(header), r)
            self.assertGreater(number(r[2]), 0, r)
        self.assertEqual(doc["suite"], "selftest")
        self.assertEqual(len(doc["runs"]), 2 * len(engines))
        self.assertTrue(all(r["status"] == "ok" for r in doc["runs"]), doc["runs"])
        self.assertRegex(md, r"commit [0-9a-f]{4,}")
        self.assertIn("| engine | benchmark | ops/s |", md)
        self.assertIn("CPUs", md)
        return header, rows

    def test_selftest_suite(self):
        have = os.access(ARGS.db_bench, os.X_OK)
        stdout, doc, md = self.compare("e2e", "--db_bench", ARGS.db_bench)
        if not have:
            print("db_bench not found: RocksDB column skipped", file=sys.stderr)
            self.assertIn("db_bench not found: RocksDB column skipped", stdout)
            self.check_common(stdout, doc, md, ["ShaleDB"])
            return
        header, rows = self.check_common(stdout, doc, md, ["RocksDB", "ShaleDB"])
        ratio = header.index("ratio vs RocksDB")
        for rocks, shale in zip(rows[0::2], rows[1::2]):
            self.assertEqual(rocks[ratio], "1.00")
            self.assertRegex(shale[ratio], r"^\d+\.\d\d$")
            expected = number(shale[2]) / number(rocks[2])
            self.assertAlmostEqual(float(shale[ratio]), expected, delta=0.006)
        # The header names the RocksDB version db_bench --version prints.
        p = subprocess.run([ARGS.db_bench, "--version"], capture_output=True, text=True)
        version = re.search(r"version (\S+)", p.stdout + p.stderr)[1]
        rocks = next(e for e in doc["engines"] if e["name"] == "RocksDB")
        self.assertEqual(rocks["version"], version)
        self.assertRegex(stdout, rf"(?m)^Engines: RocksDB {re.escape(version)} \(")
        self.assertIn(f"RocksDB {version} (", md)

    def test_compaction_suite_shaledb_side(self):
        stdout, doc, md = self.compare("compaction", "--db_bench", "/nonexistent/db_bench",
                                       "--no_install", "--num=2000", suite="compaction")
        self.assertEqual(doc["suite"], "compaction")
        self.assertEqual([(r["step"], r["status"]) for r in doc["runs"]],
                         [("fillrandom+compaction", "ok"), ("bulkload", "ok")], doc["runs"])
        fill, bulk = doc["runs"]
        self.assertEqual(fill["total_source"], "waitforcompaction's done-at time")
        self.assertGreaterEqual(fill["seconds"], fill["fill_seconds"])
        self.assertLess(fill["seconds"], fill["wall_seconds"])
        self.assertAlmostEqual(fill["ops_per_sec"], 2000 / fill["seconds"], delta=1e-6 * 2000)
        for run in (fill, bulk):
            self.assertGreater(run["disk_write_amplification"], 0.5, run)
        self.assertEqual(bulk["ops"], 2000)
        lines = stdout.splitlines()
        start = lines.index(next(l for l in lines if l.startswith("engine ") and "total (s)" in l))
        rows = [[c.strip() for c in l.split(" | ")] for l in lines[start + 2:start + 4]]
        self.assertEqual([r[:2] for r in rows], [["ShaleDB", "fillrandom+compaction"],
                                                 ["ShaleDB", "bulkload"]])
        self.assertEqual(rows[0][-1], "n/a (no db_bench)")
        self.assertIn("| engine | benchmark | total (s) |", md)

    def test_reads_suite_shaledb_side(self):
        # Every read workload of issue 21 runs on ShaleDB (RocksDB's side is n/a here) on the
        # DB the first step fills; the warm steps time their second pass.
        stdout, doc, md = self.compare("reads", "--db_bench", "/nonexistent/db_bench",
                                       "--no_install", "--num=3000", suite="reads")
        self.assertEqual(doc["suite"], "reads")
        self.assertEqual([(r["step"], r["status"]) for r in doc["runs"]],
                         [(name, "ok") for name in (
                             "fillrandom+compact", "readrandom (cache 1/10)",
                             "readrandom (all cached)", "readmissing",
                             "multireadrandom (batch 32)", "seekrandom (+10 Next)", "readseq",
                             "readreverse", "readwhilewriting")], doc["runs"])
        for run in doc["runs"]:
            self.assertGreater(run["ops_per_sec"], 0, run)
        suites = load_lib()[2]
        warm = suites.suite_steps("reads", 3000)[1][2]
        self.assertEqual(warm.benchmarks, ("readrandom", "readrandom"))
        self.assertIn("readmissing", stdout)

    def test_ingest_suite(self):
        have_db_bench = os.access(ARGS.db_bench, os.X_OK)
        have_tool = os.access(ARGS.rocksdb_ingest_bench, os.X_OK)
        stdout, doc, md = self.compare(
            "ingest", "--db_bench", ARGS.db_bench, "--no_install", "--num=2000", "--dd_mib=4",
            "--rocksdb_ingest_bench", ARGS.rocksdb_ingest_bench, suite="ingest")
        steps = ["fillseq", "bulkload", "bulkload_external", "bulkload_sorted"]
        status = {(r["engine"], r["step"]): (r["status"], r["reason"]) for r in doc["runs"]}
        for step in steps:
            self.assertEqual(status[("ShaleDB", step)][0], "ok", status)
            if not have_db_bench:
                self.assertNotIn(("RocksDB", step), status)
            elif step.startswith("bulkload_") and not have_tool:
                self.assertEqual(status[("RocksDB", step)][0], "n/a")
                self.assertIn("rocksdb_ingest_bench not built", status[("RocksDB", step)][1])
            else:
                self.assertEqual(status[("RocksDB", step)][0], "ok", status)
        self.assertGreater(doc["disk"]["mb_per_sec"], 0, doc["disk"])
        self.assertEqual(doc["disk"]["bytes"], 4 << 20)
        self.assertFalse(os.path.exists(os.path.join(ARGS.dir, "ingest", "dd.tmp")))
        self.assertRegex(stdout, r"(?m)^Disk: [\d,.]+ MB/s sequential write \(dd ")
        lines = stdout.splitlines()
        start = lines.index(next(l for l in lines if l.startswith("engine ") and "MB/s / dd" in l))
        end = lines.index("", start)
        rows = [[c.strip() for c in l.split(" | ")] for l in lines[start + 2:end]]
        shale = {r[1]: r for r in rows if r[0] == "ShaleDB"}
        self.assertEqual(sorted(shale), sorted(steps))
        for r in shale.values():
            self.assertGreater(number(r[3]), 0, r)  # user MB/s
            self.assertRegex(r[4], r"^\d+\.\d{3}$")  # over dd's
        loader = next(t for t in doc["targets"]
                      if (t["engine"], t["step"]) == ("ShaleDB", "bulkload_sorted"))
        self.assertGreater(loader["mb_ratio_fillseq"], 0)
        self.assertEqual("time_ratio" in loader, have_db_bench)
        self.assertIn("| engine | bulk load | time (s) | time / RocksDB fillrandom+compact |", md)
        self.assertIn("| MB/s / dd |", md)

    def test_missing_db_bench_skips_rocksdb(self):
        stdout, doc, md = self.compare("no_db_bench", "--db_bench", "/nonexistent/db_bench")
        self.assertIn("db_bench not found: RocksDB column skipped", stdout)
        _, rows = self.check_common(stdout, doc, md, ["ShaleDB"])
        self.assertEqual(rows[0][-1], "n/a (no db_bench)")


def built_release_db_bench(compare):
    """The db_bench of bench/rocksdb/build.sh's install when it is built (--check builds
    nothing), else a path that does not exist."""
    script = os.path.join(os.path.dirname(os.path.abspath(compare)), "rocksdb", "build.sh")
    p = subprocess.run([script, "--check"], capture_output=True, text=True)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        return "/nonexistent/db_bench"
    return os.path.join(lines[-1], "bin", "db_bench")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--compare", required=True)
    p.add_argument("--shale_bench", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--db_bench", help="default: the Release RocksDB of bench/rocksdb/build.sh "
                                      "when built")
    p.add_argument("--rocksdb_ingest_bench", default="/nonexistent/rocksdb_ingest_bench")
    ARGS, rest = p.parse_known_args()
    if ARGS.db_bench is None:
        ARGS.db_bench = built_release_db_bench(ARGS.compare)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tests of bench/compare's merge suite (issue 11): its steps, the parser of shale_bench's
posting-list table, the ShaleDB-only rows and the targets, and the suite end to end at 2000
keys (a few seconds; RocksDB's side too where db_bench exists: by default the Release RocksDB
11.8.1 of bench/rocksdb/build.sh when it is built; nothing is built or installed).

Usage: compare_merge_test.py --compare bench/compare --shale_bench PATH --dir WORK_DIR
                             [--db_bench PATH]
"""

import argparse
import json
import os
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True
ARGS = None

# What shale_bench prints for a posting-list benchmark (tools/shale_bench/posting_list.cc).
POSTING_OUT = """\
DB path: [/tmp/x]
postinglist  :       3.760 micros/op 265972 ops/sec 5.536 seconds 1472433 operations;    5.6 MB/s ( merges:1472433 lists:1000 hottest:1000131 ids)
postinglist  : hottest list: key 0, 12.94% of the adds, 1000131 ids
Get of the hottest list while the writers go on, by its size (microseconds; adds/s: all writers' rate meanwhile):
  ids                gets        P50        P99        max      adds/s
  <1k               24611       0.50       0.99    8047.36      297377
  1k-10k              286     346.67    7057.92    8961.66      262473
  100k-1M               0          -          -          -           0
  >=1M               1001    1234.50    4321.00    9000.00      250000
Microseconds per merge:
Count: 1472433 Average: 3.7  StdDev: 1.0
Percentiles: P50: 2.50 P75: 3.10 P99: 9.80 P99.9: 50.00 P99.99: 900.00
"""


def load_lib():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(ARGS.compare)), "lib"))
    import compare_parse
    import compare_report
    import compare_suites
    return compare_parse, compare_report, compare_suites


class MergeSuiteTest(unittest.TestCase):
    def setUp(self):
        self.parse, self.report, self.suites = load_lib()

    def test_steps(self):
        num, steps = self.suites.suite_steps("merge")
        self.assertEqual(num, 1_000_000)
        self.assertEqual([s.name for s in steps],
                         ["mergerandom", "readrandommergerandom", "postinglist (to 1M ids)",
                          "postinglist (to 20k ids)", "postinglist_rmw (to 20k ids)"])
        merge, mixed = steps[0], steps[1]
        self.assertEqual(merge.flags, {"merge_operator": "uint64add", "value_size": 8,
                                       "merge_keys": 100_000})
        self.assertTrue(mixed.existing)
        self.assertEqual(merge.entry_bytes, 24)
        posting = steps[2:]
        self.assertTrue(all(s.shaledb_only and s.posting_figures for s in posting))
        self.assertEqual([s.flags["posting_target_ids"] for s in posting],
                         [1_000_000, 20_000, 20_000])
        self.assertEqual([s.flags["posting_target_gets"] for s in posting], [1000, 0, 0])
        self.assertEqual(posting[2].benchmarks, ("postinglist_rmw",))
        # A smaller --num shrinks the posting targets.
        _, small = self.suites.suite_steps("merge", 2000)
        self.assertEqual([s.flags.get("posting_target_ids") for s in small[2:]],
                         [2000, 1000, 1000])

    def test_parse_posting(self):
        posting = self.parse.parse_posting(POSTING_OUT)
        self.assertEqual(set(posting), {"postinglist"})
        p = posting["postinglist"]
        self.assertEqual(p["hottest_ids"], 1000131)
        self.assertAlmostEqual(p["hottest_share"], 0.1294)
        self.assertEqual([b["bucket"] for b in p["buckets"]], ["<1k", "1k-10k", "100k-1M", ">=1M"])
        self.assertEqual(p["buckets"][3], {"bucket": ">=1M", "gets": 1001, "p50_micros": 1234.5,
                                           "p99_micros": 4321.0, "max_micros": 9000.0,
                                           "adds_per_sec": 250000.0})
        self.assertIsNone(p["buckets"][2]["p99_micros"])
        lines, _ = self.parse.parse_report(POSTING_OUT)
        self.assertEqual(lines["postinglist"].p99_micros, 9.8)  # the merges', not the Gets'
        self.assertEqual(self.parse.parse_posting("fillseq : 1.0 micros/op 1 ops/sec\n"), {})

    def posting_run(self, step, ops_per_sec, p99, round_index=1):
        posting = self.parse.parse_posting(POSTING_OUT)["postinglist"]
        posting["buckets"][-1]["p99_micros"] = p99
        return {"engine": "ShaleDB", "step": step, "status": "ok", "reason": "",
                "round": round_index, "ops_per_sec": ops_per_sec, "seconds": 1.0,
                "posting": posting}

    def test_rows_tables_and_targets(self):
        _, steps = self.suites.suite_steps("merge")
        names = [s.name for s in steps]
        runs = [{"engine": e, "step": "mergerandom", "status": "ok", "reason": "", "round": 1,
                 "ops_per_sec": v, "seconds": 1.0} for e, v in (("RocksDB", 100.0),
                                                                ("ShaleDB", 300.0))]
        runs += [self.posting_run(names[2], 250000.0, 4321.0),
                 self.posting_run(names[2], 150000.0, 6000.0, 2),
                 self.posting_run(names[3], 200000.0, None),
                 self.posting_run(names[4], 10000.0, None)]
        rows = self.report.summarize(steps, ["RocksDB", "ShaleDB"], runs)
        # The ShaleDB-only steps have ShaleDB rows only, and stay out of the side-by-side table.
        self.assertEqual([(r["step"], r["engine"]) for r in rows if r["step"] in names[2:]],
                         [(n, "ShaleDB") for n in names[2:]])
        side = self.report.side_by_side_rows(steps, rows)
        self.assertEqual({r["step"] for r in side}, {"mergerandom", "readrandommergerandom"})
        shale = next(r for r in side if r["engine"] == "ShaleDB" and r["step"] == "mergerandom")
        self.assertAlmostEqual(shale["ratio"], 3.0)  # measured, no factor
        full = next(r for r in rows if r["step"] == names[2])
        self.assertEqual(full["ops_per_sec"], 200000.0)  # median of two rounds
        self.assertAlmostEqual(full["posting"]["buckets"][-1]["p99_micros"], (4321 + 6000) / 2)
        speedup, get = self.report.posting_targets(steps, rows)
        self.assertAlmostEqual(speedup["value"], 20.0)
        self.assertTrue(speedup["met"])
        self.assertIn("to 20k ids", speedup["target"])
        self.assertAlmostEqual(get["value"], 5.1605)
        self.assertFalse(get["met"])
        self.assertIn("at >= 1M ids", get["target"])
        table = self.report.format_posting(self.report.posting_rows(steps, rows))
        self.assertRegex(table, r"(?m)^postinglist \(to 1M ids\) +\| 200,000 +\| 1,000,131 +\| "
                                r"<1k +\| 24,611 +\| 0\.50 +\| 0\.99 +\| 8,047\.36 +\| 297,377$")
        self.assertRegex(table, r"(?m)^ +\| +\| +\| >=1M +\| 1,001 +\| 1,234\.50 +\| "
                                r"5,160\.50 +\| 9,000\.00 +\| 250,000$")
        targets = self.report.format_posting_targets([speedup, get])
        self.assertRegex(targets, r"(?m)\| 20\.0 \(200,000 / 10,000\) +\| yes$")
        self.assertRegex(targets, r"(?m)\| 5\.16 ms \(1,001 Gets\) +\| NO$")
        notes = self.report.footnotes(steps, rows, 2, True)
        self.assertFalse(any("release est" in n or "is applied" in n for n in notes), notes)
        self.assertTrue(any("keys written x 24 bytes" in n for n in notes))
        # A failed RMW run: the speedup is n/a, the table says why.
        runs[-1] = dict(runs[-1], status="error", reason="exit 1: boom")
        rows = self.report.summarize(steps, ["RocksDB", "ShaleDB"], runs)
        self.assertIsNone(self.report.posting_targets(steps, rows)[0]["met"])
        self.assertRegex(self.report.format_posting(self.report.posting_rows(steps, rows)),
                         r"(?m)^postinglist_rmw \(to 20k ids\) +\| error \(exit 1: boom\)$")


class MergeSuiteEndToEndTest(unittest.TestCase):
    def test_merge_suite(self):
        json_path = os.path.join(ARGS.dir, "merge.json")
        cmd = [sys.executable, ARGS.compare, "--suite=merge", "--num=2000", f"--dir={ARGS.dir}",
               f"--shale_bench={ARGS.shale_bench}", f"--db_bench={ARGS.db_bench}",
               "--no_install", f"--json={json_path}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        have_rocksdb = os.path.exists(ARGS.db_bench)
        out = p.stdout
        for step in ("mergerandom", "readrandommergerandom"):
            self.assertRegex(out, rf"(?m)^ShaleDB \| {step} +\| [0-9,]+ ")
            if have_rocksdb:
                self.assertRegex(out, rf"(?m)^RocksDB \| {step} +\| [0-9,]+ ")
                self.assertRegex(out, rf"(?m)^ShaleDB \| {step} .*\| \d+\.\d\d$")
        self.assertRegex(out, r"(?m)^postinglist \(to 2k ids\) +\| [0-9,]+ +\| [0-9,]+ +\| <1k ")
        self.assertRegex(out, r"(?m)^postinglist_rmw \(to 1k ids\) +\| [0-9,]+ +\| 1,000 +\| ")
        self.assertRegex(out, r"(?m)^merges/s of postinglist / postinglist_rmw on the same "
                              r"stream to 1k ids: >= 5 +\| \d+\.\d \(")
        self.assertRegex(out, r"(?m)^Get P99 of the hottest list at >= 2k ids while merges go "
                              r"on: < 5 ms +\| \d+\.\d\d ms \([0-9,]+ Gets\) +\| (yes|NO)$")
        with open(json_path) as f:
            doc = json.load(f)
        posting_runs = [r for r in doc["runs"] if r["step"].startswith("posting")]
        self.assertEqual({r["engine"] for r in posting_runs}, {"ShaleDB"})
        self.assertTrue(all(r["status"] == "ok" for r in doc["runs"]), doc["runs"])
        # Both ways of adding stop at the same size: the very same adds.
        same = [r for r in posting_runs if "to 1k ids" in r["step"]]
        self.assertEqual(len(same), 2)
        self.assertEqual(same[0]["ops"], same[1]["ops"])
        self.assertEqual(len(doc["posting_targets"]), 2)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--compare", required=True)
    p.add_argument("--shale_bench", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--db_bench", help="default: the Release RocksDB of bench/rocksdb/build.sh "
                                      "when built")
    ARGS, rest = p.parse_known_args()
    if ARGS.db_bench is None:
        script = os.path.join(os.path.dirname(os.path.abspath(ARGS.compare)), "rocksdb",
                              "build.sh")
        built = subprocess.run([script, "--check"], capture_output=True, text=True)
        lines = built.stdout.strip().splitlines()
        ARGS.db_bench = (os.path.join(lines[-1], "bin", "db_bench")
                         if built.returncode == 0 and lines else "/nonexistent/db_bench")
    os.makedirs(ARGS.dir, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()

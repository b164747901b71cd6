#!/usr/bin/env python3
"""End-to-end tests of shale_bench's merge benchmarks (a few seconds in all).

Usage: bench_merge_cli_test.py SHALE_BENCH

mergerandom and readrandommergerandom print db_bench 7.8's report lines and messages
("( updates:N)", "(reads:R merges:M total:N hits:H maxlength:L)") and their "merge"
histograms; with uint64add every merge lands (readrandom then finds exactly the merge keys
that were hit); the put operator runs too. postinglist and postinglist_rmw print their report
line, the hottest list's size and the Get table by its size, and the same in the JSON report's
"details".
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from tools_cli_test import JSON_FIELDS, REPORT_LINE  # noqa: E402

BENCH = None

POSTING_MESSAGE = re.compile(
    r"^ \( (?P<kind>merges|updates):(?P<adds>\d+) lists:(?P<lists>\d+) hottest:(?P<ids>\d+) "
    r"ids\)$")
HOTTEST_LINE = re.compile(
    r"^(?P<name>\S+) +: hottest list: key 0, (?P<share>\d+\.\d\d)% of the adds, (?P<ids>\d+) ids$")
BUCKET_ROW = re.compile(
    r"^  (?P<bucket>\S+) +(?P<gets>\d+) +(?P<p50>[0-9.]+|-) +(?P<p99>[0-9.]+|-) "
    r"+(?P<max>[0-9.]+|-) +(?P<adds>\d+)$")


def run(*args, expect=0):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60)
    if p.returncode != expect:
        raise AssertionError(f"{args}: exit {p.returncode}, expected {expect}\n"
                             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


class MergeBenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="shale_bench_merge_cli_")
        self.db = os.path.join(self.tmp, "db")
        self.json = os.path.join(self.tmp, "out.json")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def bench(self, *flags, expect=0):
        return run(BENCH, f"--db={self.db}", "--seed=3", f"--json={self.json}", *flags,
                   expect=expect)

    def lines(self, stdout):
        return {m.group("name"): m for m in map(REPORT_LINE.match, stdout.splitlines()) if m}

    def check_json(self, names):
        with open(self.json) as f:
            report = json.load(f)
        self.assertEqual([b["name"] for b in report["benchmarks"]], names)
        for b in report["benchmarks"]:
            for field in JSON_FIELDS:
                self.assertIn(field, b, b["name"])
            self.assertGreater(b["ops"], 0)
        return report

    def test_mergerandom_and_readrandommergerandom(self):
        p = self.bench("--benchmarks=mergerandom,readrandom,readrandommergerandom",
                       "--merge_operator=uint64add", "--value_size=8", "--num=2000",
                       "--merge_keys=100", "--histogram")
        lines = self.lines(p.stdout)
        merge = lines["mergerandom"]
        self.assertEqual(merge.group("ops"), "2000")
        self.assertEqual(merge.group("msg"), " ( updates:2000)")
        # db_bench counts key + operand bytes: 2000 x (16 + 8) bytes.
        self.assertIsNotNone(merge.group("mbs"))
        # The merges hit keys below 100 only, nearly all of them (2000 merges over 100 keys).
        found = re.match(r"^ \((?P<found>\d+) of 2000 found\)$", lines["readrandom"].group("msg"))
        self.assertIsNotNone(found, lines["readrandom"].group("msg"))
        self.assertGreater(int(found["found"]), 40)
        self.assertLess(int(found["found"]), 200)
        mixed = re.match(r"^ \(reads:(?P<r>\d+) merges:(?P<m>\d+) total:2000 hits:(?P<h>\d+) "
                         r"maxlength:8\)$", lines["readrandommergerandom"].group("msg"))
        self.assertIsNotNone(mixed, lines["readrandommergerandom"].group("msg"))
        self.assertEqual(int(mixed["r"]) + int(mixed["m"]), 2000)
        self.assertAlmostEqual(int(mixed["m"]) / 2000, 0.7, delta=0.06)
        self.assertEqual(mixed["h"], mixed["r"])  # every merge key was merged into before
        self.assertIsNone(lines["readrandommergerandom"].group("mbs"))
        self.assertIn("Microseconds per merge:", p.stdout)
        self.check_json(["mergerandom", "readrandom", "readrandommergerandom"])

    def test_other_operators_and_errors(self):
        for op, size in (("put", 100), ("max", 20), ("stringappend", 4)):
            p = self.bench("--benchmarks=mergerandom", f"--merge_operator={op}",
                           f"--value_size={size}", "--num=500")
            self.assertEqual(self.lines(p.stdout)["mergerandom"].group("ops"), "500", op)
        p = self.bench("--benchmarks=mergerandom", "--merge_operator=uint64add", "--num=10",
                       expect=1)
        self.assertIn("--value_size: must be 8", p.stderr)
        p = self.bench("--benchmarks=postinglist", "--merge_operator=uint64add", expect=1)
        self.assertIn("needs --merge_operator=sortedset64", p.stderr)

    def test_postinglist_and_rmw(self):
        p = self.bench("--benchmarks=postinglist,postinglist_rmw",
                       "--merge_operator=sortedset64", "--posting_lists=20",
                       "--posting_target_ids=1000", "--posting_target_gets=10")
        lines = self.lines(p.stdout)
        hottest = {m.group("name"): m for m in map(HOTTEST_LINE.match, p.stdout.splitlines()) if m}
        rows = [m for m in map(BUCKET_ROW.match, p.stdout.splitlines()) if m]
        self.assertEqual([r["bucket"] for r in rows], ["<1k", ">=1k"] * 2, p.stdout)
        report = self.check_json(["postinglist", "postinglist_rmw"])
        for i, (name, kind) in enumerate((("postinglist", "merges"),
                                          ("postinglist_rmw", "updates"))):
            m = POSTING_MESSAGE.match(lines[name].group("msg"))
            self.assertIsNotNone(m, lines[name].group("msg"))
            self.assertEqual(m["kind"], kind)
            self.assertEqual(m["adds"], lines[name].group("ops"))
            self.assertEqual(m["lists"], "20")
            self.assertGreaterEqual(int(m["ids"]), 1000)
            self.assertEqual(hottest[name]["ids"], m["ids"])
            details = report["benchmarks"][i]["details"]
            self.assertEqual(details["hottest_ids"], int(m["ids"]))
            self.assertEqual(details["adds"], int(m["adds"]))
            self.assertEqual(details["lists"], 20)
            self.assertAlmostEqual(details["hottest_share"] * 100, float(hottest[name]["share"]),
                                   delta=0.01)
            top = details["hottest_get"][-1]
            self.assertEqual(top["bucket"], ">=1k")
            self.assertNotIn("max_ids", top)
            self.assertGreaterEqual(top["gets"], 10)
            self.assertEqual(rows[2 * i + 1]["gets"], str(top["gets"]))
            self.assertLessEqual(top["p50_micros"], top["p99_micros"])
            self.assertLessEqual(top["p99_micros"], top["max_micros"])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: bench_merge_cli_test.py SHALE_BENCH")
    BENCH = sys.argv.pop(1)
    unittest.main()

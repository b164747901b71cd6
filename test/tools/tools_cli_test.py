#!/usr/bin/env python3
"""End-to-end tests of shale_bench and the shale admin CLI.

Usage: tools_cli_test.py SHALE_BENCH SHALE

shale_bench: flag errors, a tiny run (--num=1000) of every benchmark checked against
db_bench's report-line format, the JSON report's schema, the --stats_interval_seconds line and
the --report_interval_seconds CSV (db_bench's format), --use_existing_db, compact (everything
in the bottom level), waitforcompaction (returns with the L0 trigger no longer reached) and
bulkload (its phases, total and files per level: all in the bottom level). shale: every command
on a small DB and its error cases (usage errors, a missing directory, a directory without a DB,
a corrupt CURRENT, a corrupt table).
"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

BENCH = SHALE = None

ALL_BENCHMARKS = [
    "fillseq", "fillrandom", "fillsync", "fillbatch", "overwrite", "updaterandom", "readrandom",
    "readmissing", "multireadrandom", "readseq", "readreverse", "seekrandom", "readwhilewriting",
    "readrandomwriterandom", "deleteseq", "deleterandom", "flush", "compact",
    "waitforcompaction", "stats", "levelstats", "sstables", "bulkload", "bulkload_sorted",
    "bulkload_external"]
ADMIN_STEPS = {"flush", "waitforcompaction", "stats", "levelstats", "sstables"}

# db_bench's report line (RocksDB 7.8), e.g.
#   fillseq      :       4.840 micros/op 206240 ops/sec 0.048 seconds 10000 operations;   22.8 MB/s
REPORT_LINE = re.compile(
    r"^(?P<name>\S+) +: +(?P<micros>\d+\.\d{3}) micros/op (?P<ops_sec>\d+) ops/sec "
    r"(?P<secs>\d+\.\d{3}) seconds (?P<ops>\d+) operations;(?P<mbs> +\d+\.\d MB/s)?(?P<msg> .*)?$")
SKIPPED_LINE = re.compile(r"^(?P<name>\S+) +: skipped \((?P<why>.*)\)$")
INTERVAL_LINE = re.compile(
    r"^\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d  \.\.\. thread \d+: \(\d+,\d+\) ops and "
    r"\(\d+\.\d,\d+\.\d\) ops/second in \(\d+\.\d{6},\d+\.\d{6}\) seconds$")
JSON_FIELDS = {
    "name": str, "threads": int, "ops": int, "seconds": float, "micros_per_op": float,
    "ops_per_sec": float, "mb_per_sec": float, "p50_micros": float, "p99_micros": float,
    "p999_micros": float, "write_amplification": float, "stall_seconds": float,
    "peak_rss_bytes": int, "message": str, "throughput": list}
# The files of each level in shale.levelstats ("L6         2       36.9 ...").
LEVELSTATS_ROW = re.compile(r"(?m)^L(?P<level>\d+) +(?P<files>\d+) ")
WAITED_LINE = re.compile(
    r"(?m)^waitforcompaction\((?P<db>.+)\): waited (?P<secs>\d+\.\d{3}) seconds "
    r"\(done at unix time (?P<at>\d+\.\d{6})\)$")
# The report lines of each multi-phase benchmark, in order; the phases that time no operation
# one by one have no latencies.
PHASES = {
    "bulkload": ["bulkload.fill", "bulkload.compact", "bulkload"],
    "bulkload_sorted": ["bulkload_sorted.add", "bulkload_sorted.merge", "bulkload_sorted.ingest",
                        "bulkload_sorted"],
    "bulkload_external": ["bulkload_external.prepare", "bulkload_external.write",
                          "bulkload_external.ingest", "bulkload_external"],
}
UNTIMED_PHASES = {"compact", "bulkload.compact", "bulkload_sorted.merge", "bulkload_sorted.ingest",
                  "bulkload_external.prepare", "bulkload_external.write",
                  "bulkload_external.ingest", "bulkload_external"}
BULKLOAD_SORTED_TOTAL = re.compile(
    r"^ \((?P<distinct>\d+) distinct keys; sort \d+\.\d{3} s, spill \d+\.\d{3} s, "
    r"add waited \d+\.\d{3} s; files per level (?P<levels>L0:\d+( L\d:\d+)*)\)$")
BULKLOAD_EXTERNAL_TOTAL = re.compile(
    r"^ \((?P<distinct>\d+) distinct keys of (?P<num>\d+); "
    r"files per level (?P<levels>L0:\d+( L\d:\d+)*)\)$")
BULKLOAD_TOTAL = re.compile(
    r"^ \(write amplification (?P<wa>\d+\.\d\d); files per level (?P<levels>L0:\d+( L\d:\d+)*)\)$")


def run(*args, expect=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60)
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"{args}: exit {p.returncode}, expected {expect}\n"
                             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def key_hex(i):
    """The hex of shale_bench's 16-byte key number i."""
    return f"{i:016X}" + "30" * 8


class BenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="shale_bench_test_")
        self.db = os.path.join(self.tmp, "db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def bench(self, *flags, expect=0):
        return run(BENCH, f"--db={self.db}", "--seed=7", *flags, expect=expect)

    def test_flag_errors(self):
        p = self.bench("--no_such_flag=1", expect=1)
        self.assertIn("Unknown command line flag 'no_such_flag'", p.stderr)
        p = self.bench("--num=abc", expect=1)
        self.assertIn("num", p.stderr)
        p = self.bench("--merge_operator=bytesxor", expect=1)
        self.assertIn("--merge_operator: not supported yet", p.stderr)
        p = self.bench("--merge_operator=nosuch", expect=1)
        self.assertIn("--merge_operator", p.stderr)
        p = self.bench("--benchmarks=mergerandom", "--num=10", expect=1)
        self.assertIn("mergerandom needs a merge operator", p.stderr)
        p = self.bench("--benchmarks=readwhilemerging", expect=1)
        self.assertIn("'readwhilemerging' is not supported yet", p.stderr)
        for flag in ("--fifo_compaction_allow_compaction=1", "--use_fsync=1",
                     "--min_write_buffer_number_to_merge=2"):
            p = self.bench(flag, expect=1)
            self.assertIn(flag.split("=")[0] + ": not supported yet", p.stderr)
        p = self.bench("--compaction_style=4", expect=1)
        self.assertIn("--compaction_style", p.stderr)
        p = self.bench("--benchmarks=fillseq,nosuch", expect=1)
        self.assertIn("unknown benchmark 'nosuch'", p.stderr)
        p = self.bench("stray_argument", expect=1)
        self.assertIn("unexpected argument", p.stderr)
        # Options only DB::Open can judge: its error, and a failing exit status.
        p = self.bench("--benchmarks=fillseq", "--num=10", "--cache_size=1048576",
                       "--cache_numshardbits=20", expect=1)
        self.assertIn("--cache_numshardbits", p.stderr)
        p = self.bench("--benchmarks=fillseq", "--num=10", "--compaction_style=1",
                       "--fifo_compaction_ttl=60", expect=1)
        self.assertIn("ttl", p.stderr)

    def test_compaction_flags_are_accepted(self):
        for flags in (["--compaction_style=1", "--universal_size_ratio=5",
                       "--universal_min_merge_width=2", "--universal_max_merge_width=8",
                       "--universal_max_size_amplification_percent=150"],
                      ["--compaction_style=2", "--fifo_compaction_max_table_files_size_mb=64",
                       "--fifo_compaction_ttl=3600"],
                      ["--compaction_style=3"],
                      ["--disable_auto_compactions=1", "--subcompactions=2",
                       "--level0_file_num_compaction_trigger=2",
                       "--level0_slowdown_writes_trigger=10", "--level0_stop_writes_trigger=20",
                       "--target_file_size_base=1048576", "--target_file_size_multiplier=2",
                       "--max_bytes_for_level_base=4194304", "--max_bytes_for_level_multiplier=5",
                       "--level_compaction_dynamic_level_bytes=0", "--max_background_jobs=4",
                       "--delayed_write_rate=1048576",
                       "--soft_pending_compaction_bytes_limit=1073741824",
                       "--hard_pending_compaction_bytes_limit=2147483648"],
                      ["--prepare_for_bulk_load"]):
            p = self.bench("--benchmarks=fillrandom,readrandom", "--num=2000",
                           "--write_buffer_size=65536", *flags)
            lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines())
                     if m}
            self.assertEqual(set(lines), {"fillrandom", "readrandom"}, (flags, p.stdout))
            if "--compaction_style=2" not in flags:  # FIFO may have dropped the oldest keys
                self.assertRegex(lines["readrandom"].group("msg"), r"\((\d+) of 2000 found\)")

    def level_files(self, stdout):
        """{level: files} of the last shale.levelstats table in stdout."""
        rows = {}
        for m in LEVELSTATS_ROW.finditer(stdout):
            if int(m.group("level")) == 0:
                rows = {}
            rows[int(m.group("level"))] = int(m.group("files"))
        return rows

    def test_compact_leaves_everything_in_the_bottom_level(self):
        p = self.bench("--benchmarks=fillrandom,compact,levelstats,readrandom", "--num=20000",
                       "--write_buffer_size=131072")
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        self.assertEqual(lines["compact"].group("ops"), "1")
        files = self.level_files(p.stdout)
        self.assertEqual(sorted(files), list(range(7)), p.stdout)
        self.assertGreater(files[6], 0, p.stdout)
        self.assertEqual(sum(files[l] for l in range(6)), 0, p.stdout)
        found = re.match(r"^ \((\d+) of 20000 found\)$", lines["readrandom"].group("msg"))
        self.assertIsNotNone(found)
        self.assertGreater(int(found.group(1)), 20000 * 0.55)  # ~63% of random keys are distinct

    def test_waitforcompaction_returns_when_compaction_is_done(self):
        p = self.bench("--benchmarks=fillrandom,waitforcompaction,levelstats", "--num=30000",
                       "--write_buffer_size=65536", "--level0_file_num_compaction_trigger=2")
        m = WAITED_LINE.search(p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(m.group("db"), self.db)
        self.assertLess(float(m.group("secs")), 30)
        self.assertRegex(p.stdout, r"(?m)^waitforcompaction\(.+\): started\n"
                                   r"waitforcompaction\(.+\): waited .*\n"
                                   r"waitforcompaction\(.+\): finished$")
        # Then the compaction debt the DB estimated when writing stopped, against the time taken.
        self.assertRegex(p.stdout, r"(?m)^waitforcompaction\(.+\): compaction debt at start \d+ "
                                   r"bytes .*took [0-9.]+ s")
        files = self.level_files(p.stdout)
        self.assertLess(files[0], 2, p.stdout)  # the L0 trigger is no longer reached
        self.assertGreater(sum(files.values()), 0, p.stdout)

    def test_close_is_timed(self):
        # The DB's Close at the end of the run is timed on a line of its own, after the last
        # benchmark (bench/compare's scale suite reads it).
        p = self.bench("--benchmarks=fillrandom", "--num=20000")
        m = re.search(r"(?m)^close\((?P<db>.+)\): (?P<secs>\d+\.\d{3}) seconds \(done at unix "
                      r"time (?P<at>\d+\.\d{6})\)$", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(m.group("db"), self.db)
        self.assertLess(float(m.group("secs")), 30)
        self.assertLess(abs(float(m.group("at")) - time.time()), 600)
        self.assertLess(p.stdout.index("fillrandom   :"), m.start())

    def bulkload(self, *flags):
        json_path = os.path.join(self.tmp, "bulk.json")
        p = self.bench("--benchmarks=bulkload,readrandom", "--num=20000", f"--json={json_path}",
                       *flags)
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        with open(json_path) as f:
            report = json.load(f)
        return p, lines, report

    def test_bulkload_reports_phases_and_ends_in_the_bottom_level(self):
        p, lines, report = self.bulkload()
        self.assertIn("WAL disabled (bulkload's default", p.stdout)
        self.assertEqual(list(lines), ["bulkload.fill", "bulkload.compact", "bulkload",
                                       "readrandom"], p.stdout)
        fill, compact, total = lines["bulkload.fill"], lines["bulkload.compact"], lines["bulkload"]
        self.assertEqual(fill.group("ops"), "20000")
        self.assertEqual(compact.group("ops"), "1")
        self.assertEqual(total.group("ops"), "20000")
        self.assertAlmostEqual(float(total.group("secs")),
                               float(fill.group("secs")) + float(compact.group("secs")),
                               delta=0.0015)
        m = BULKLOAD_TOTAL.match(total.group("msg"))
        self.assertIsNotNone(m, total.group("msg"))
        # PrepareForBulkLoad's 2 levels: everything ends in L1, the bottom one.
        self.assertRegex(m.group("levels"), r"^L0:0 L1:[1-9]\d*$")
        self.assertGreater(float(m.group("wa")), 0.5)
        self.assertLess(float(m.group("wa")), 3)
        # The DB is reopened with the flags' options: the data is all still there.
        self.assertRegex(lines["readrandom"].group("msg"), r"^ \(1\d{4} of 20000 found\)$")
        names = [b["name"] for b in report["benchmarks"]]
        self.assertEqual(names, ["bulkload.fill", "bulkload.compact", "bulkload", "readrandom"])
        self.assertAlmostEqual(report["benchmarks"][2]["write_amplification"], float(m.group("wa")),
                               delta=0.006)

    def test_bulkload_honours_disable_wal(self):
        p, lines, _ = self.bulkload("--disable_wal=0")
        self.assertIn("WAL enabled (--disable_wal)", p.stdout)
        self.assertIn("bulkload", lines)
        p, _, _ = self.bulkload("--use_existing_db")
        self.assertRegex(p.stdout, r"(?m)^bulkload +: skipped \(--use_existing_db is true\)$")

    def bulk_ingest(self, name, *flags):
        json_path = os.path.join(self.tmp, "bulk.json")
        p = self.bench(f"--benchmarks={name},readrandom", "--num=20000", f"--json={json_path}",
                       *flags)
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        self.assertEqual(list(lines), PHASES[name] + ["readrandom"], p.stdout)
        with open(json_path) as f:
            names = [b["name"] for b in json.load(f)["benchmarks"]]
        self.assertEqual(names, PHASES[name] + ["readrandom"])
        # fillrandom's 20000 keys hold about 12,600 distinct ones; every one is found.
        m = re.match(r"^ \((?P<found>\d+) of 20000 found\)$", lines["readrandom"].group("msg"))
        self.assertIsNotNone(m, lines["readrandom"].group("msg"))
        self.assertGreater(int(m.group("found")), 10000)
        return p, lines

    def test_bulkload_sorted_spills_and_ends_in_the_bottom_level(self):
        p, lines = self.bulk_ingest("bulkload_sorted", "--bulkload_memory_budget=262144",
                                    "--bulkload_threads=2", "--target_file_size_base=262144")
        self.assertIn("memory budget 262144 bytes (0.2 MiB), 2 threads", p.stdout)
        add, merge, total = (lines["bulkload_sorted.add"], lines["bulkload_sorted.merge"],
                             lines["bulkload_sorted"])
        self.assertEqual(add.group("ops"), "20000")
        self.assertEqual(total.group("ops"), "20000")
        self.assertIsNotNone(total.group("mbs"))
        self.assertGreaterEqual(float(total.group("secs")) + 0.0015,
                                float(add.group("secs")) + float(merge.group("secs")))
        runs = re.match(r"^ \((?P<runs>\d+) runs spilled, [\d.]+ MiB; (?P<files>\d+) files, ",
                        merge.group("msg"))
        self.assertIsNotNone(runs, merge.group("msg"))
        self.assertGreater(int(runs.group("runs")), 3)
        m = BULKLOAD_SORTED_TOTAL.match(total.group("msg"))
        self.assertIsNotNone(m, total.group("msg"))
        self.assertEqual(merge.group("ops"), m.group("distinct"))
        self.assertRegex(m.group("levels"), r"^L0:0 L1:0 L2:0 L3:0 L4:0 L5:0 L6:[1-9]\d*$")
        self.assertEqual(m.group("levels").split(":")[-1], runs.group("files"))

    def test_bulkload_external_ingests_sorted_files(self):
        p, lines = self.bulk_ingest("bulkload_external", "--target_file_size_base=262144")
        m = BULKLOAD_EXTERNAL_TOTAL.match(lines["bulkload_external"].group("msg"))
        self.assertIsNotNone(m, lines["bulkload_external"].group("msg"))
        self.assertEqual(m.group("num"), "20000")
        self.assertEqual(lines["bulkload_external"].group("ops"), m.group("distinct"))
        self.assertRegex(m.group("levels"), r"^L0:0 L1:0 L2:0 L3:0 L4:0 L5:0 L6:[2-9]\d*$")
        self.assertFalse(os.path.exists(os.path.join(self.db, "external.tmp")))

    def test_help_lists_the_flags(self):
        p = run(BENCH, "--help", expect=1)  # absl exits 1 after --help
        for flag in ("--benchmarks", "--num", "--compression_ratio", "--json", "--bloom_bits",
                     "--bulkload_memory_budget", "--bulkload_threads"):
            self.assertIn(flag, p.stdout + p.stderr)

    def test_every_benchmark_once(self):
        json_path = os.path.join(self.tmp, "out.json")
        p = self.bench("--benchmarks=" + ",".join(ALL_BENCHMARKS), "--num=1000", "--histogram",
                       f"--json={json_path}")
        timed = [b for b in ALL_BENCHMARKS if b not in ADMIN_STEPS]
        reported, skipped, seen = [], [], []
        for line in p.stdout.splitlines():
            m = REPORT_LINE.match(line)
            if m:
                reported.append(m)
                seen.append(m.group("name"))
                continue
            m = SKIPPED_LINE.match(line)
            if m:
                skipped.append(m.group("name"))
                seen.append(m.group("name"))
                self.assertIn("not supported yet", m.group("why"))
        timed = [n for b in timed for n in PHASES.get(b, [b])]
        self.assertEqual(seen, timed, p.stdout)
        self.assertEqual(skipped, [])
        by_name = {m.group("name"): m for m in reported}
        for name in ("fillseq", "fillrandom", "fillbatch", "overwrite", "deleteseq"):
            self.assertEqual(by_name[name].group("ops"), "1000", name)
        self.assertIsNotNone(by_name["fillseq"].group("mbs"))
        self.assertEqual(by_name["fillsync"].group("msg"), " (1 ops)")
        # readrandom runs after fillbatch..overwrite left keys 0..999 in place.
        self.assertRegex(by_name["readrandom"].group("msg"), r"^ \(1000 of 1000 found\)$")
        self.assertRegex(by_name["readrandomwriterandom"].group("msg"),
                         r"^ \( reads:900 writes:100 total:1000 found:\d+\)$")
        self.assertIn("Microseconds per write:", p.stdout)
        self.assertIn("Microseconds per read:", p.stdout)
        self.assertIn("Percentiles: P50:", p.stdout)
        self.assertIn("flush memtable", p.stdout)
        self.assertIn("waitforcompaction(", p.stdout)

        with open(json_path) as f:
            report = json.load(f)
        self.assertEqual(report["tool"], "shale_bench")
        self.assertEqual(report["num"], 1000)
        names = [b["name"] for b in report["benchmarks"]]
        self.assertEqual(names, [m.group("name") for m in reported])
        for b in report["benchmarks"]:
            for field, kind in JSON_FIELDS.items():
                self.assertIn(field, b, b["name"])
                if kind is float:
                    self.assertIsInstance(b[field], (int, float), (b["name"], field))
                else:
                    self.assertIsInstance(b[field], kind, (b["name"], field))
            self.assertGreater(b["ops"], 0)
            self.assertGreater(b["peak_rss_bytes"], 1 << 20)
            self.assertLessEqual(b["p50_micros"], b["p99_micros"])
            self.assertLessEqual(b["p99_micros"], b["p999_micros"])
            if b["name"] not in UNTIMED_PHASES:  # one untimed call each, or phases
                self.assertGreater(b["p999_micros"], 0, b["name"])
            self.assertGreaterEqual(b["write_amplification"], 0)
            self.assertAlmostEqual(b["ops_per_sec"], b["ops"] / b["seconds"],
                                   delta=1e-6 * b["ops_per_sec"])

    def test_benchmark_write_rate_limit_paces_the_writer_of_readwhilewriting(self):
        # 11,600 bytes/s of 16-byte keys and 100-byte values: 100 Puts a second at most.
        p = self.bench("--benchmarks=fillseq,readwhilewriting", "--num=2000", "--reads=400000",
                       "--benchmark_write_rate_limit=11600", "--statistics")
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        secs = float(lines["readwhilewriting"].group("secs"))
        written = int(re.search(r"shale\.number\.keys\.written COUNT : (\d+)", p.stdout).group(1))
        during = written - 2000  # fillseq wrote 2000
        self.assertGreater(during, 0)
        # The writer runs a little longer than the readers' timed part (it stops when they do).
        self.assertLessEqual(during, 100 * (secs + 0.5) + 2, f"{during} Puts in {secs} s")

    def test_num_column_families_spreads_keys_over_the_families(self):
        # fillseq in batches of 7 (each batch spans the families), then every read benchmark:
        # each key is read in its own family (k % 3), so all are found.
        p = self.bench("--benchmarks=fillseq,readrandom,readmissing,multireadrandom,readseq,"
                       "readreverse,seekrandom,updaterandom,flush,compact,waitforcompaction,stats",
                       "--num=999", "--num_column_families=3", "--batch_size=7")
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        for name in ("readrandom", "multireadrandom", "seekrandom"):
            self.assertEqual(lines[name].group("msg"), " (999 of 999 found)", name)
        # readmissing reads each key without its last byte: never written, never found.
        self.assertEqual(lines["readmissing"].group("msg"), " (0 of 999 found)")
        self.assertEqual(lines["readseq"].group("ops"), "999")
        self.assertEqual(lines["readreverse"].group("ops"), "999")
        self.assertEqual(lines["updaterandom"].group("msg"), " ( updates:999 found:999)")
        for name in ("default", "column_family_name_000001", "column_family_name_000002"):
            self.assertIn(f"column family {name}:", p.stdout)
        families = run(SHALE, "list_column_families", self.db, expect=0).stdout.splitlines()
        self.assertEqual(families, ["default", "column_family_name_000001",
                                    "column_family_name_000002"])
        for i, name in enumerate(families):
            rows = run(SHALE, "scan", self.db, "--hex", f"--column_family={name}",
                       expect=0).stdout.splitlines()
            self.assertEqual([r.split(" : ")[0] for r in rows],
                             [key_hex(k) for k in range(i, 999, 3)], name)
        # Reopened: the families are found again (and must all be named to open the DB).
        p = self.bench("--benchmarks=readrandom", "--num=999", "--num_column_families=3",
                       "--use_existing_db")
        self.assertRegex(p.stdout, r"(?m)^readrandom +: .* \(999 of 999 found\)$")
        p = self.bench("--benchmarks=readrandom", "--num=999", "--use_existing_db", expect=1)
        self.assertIn("column_family_name_000001", p.stderr)
        p = self.bench("--num_column_families=0", expect=1)
        self.assertIn("--num_column_families", p.stderr)

    def test_bulk_loads_spread_keys_over_the_families(self):
        for name, total in (("bulkload_sorted", BULKLOAD_SORTED_TOTAL),
                            ("bulkload_external", BULKLOAD_EXTERNAL_TOTAL),
                            ("bulkload", BULKLOAD_TOTAL)):
            p = self.bench(f"--benchmarks={name}", "--num=999", "--num_column_families=3",
                           "--bulkload_memory_budget=200000")
            lines = [line for line in p.stdout.splitlines()
                     if line.startswith(name + " ") and REPORT_LINE.match(line)]
            self.assertEqual(len(lines), 1, p.stdout)
            m = total.match(REPORT_LINE.match(lines[0]).group("msg"))
            self.assertIsNotNone(m, lines[0])
            # Every key is in its own family (k % 3), and nothing was lost on the way.
            scanned = 0
            for i, family in enumerate(["default", "column_family_name_000001",
                                        "column_family_name_000002"]):
                rows = run(SHALE, "scan", self.db, "--hex", f"--column_family={family}",
                           expect=0).stdout.splitlines()
                numbers = [int(r.split(" : ")[0][:16], 16) for r in rows]
                self.assertTrue(numbers, (name, family))
                self.assertEqual([k % 3 for k in numbers], [i] * len(numbers), (name, family))
                scanned += len(numbers)
            if "distinct" in m.groupdict():
                self.assertEqual(scanned, int(m.group("distinct")), name)
            self.assertEqual(sorted(os.listdir(self.db)).count("bulkload.tmp.1"), 0)

    def test_threads_and_existing_db(self):
        p = self.bench("--benchmarks=fillseq,readwhilewriting,readrandom", "--num=1000",
                       "--threads=2")
        lines = {m.group("name"): m for m in map(REPORT_LINE.match, p.stdout.splitlines()) if m}
        self.assertEqual(lines["fillseq"].group("ops"), "2000")  # each thread does --num
        self.assertEqual(lines["readwhilewriting"].group("ops"), "2000")  # the writer not counted
        # Like db_bench, the message is the first thread's.
        self.assertEqual(lines["readrandom"].group("msg"), " (1000 of 1000 found)")
        # The data outlives the process; fill benchmarks refuse to destroy it.
        p = self.bench("--benchmarks=fillseq,readseq", "--num=1000", "--use_existing_db")
        self.assertRegex(p.stdout, r"(?m)^fillseq +: skipped \(--use_existing_db is true\)$")
        self.assertRegex(p.stdout, r"(?m)^readseq +: .* 1000 operations;")

    def test_intervals(self):
        json_path = os.path.join(self.tmp, "out.json")
        csv_path = os.path.join(self.tmp, "report.csv")
        p = self.bench("--benchmarks=fillseq,readrandom", "--num=1000", "--duration=2",
                       "--stats_interval_seconds=1", "--report_interval_seconds=1",
                       f"--report_file={csv_path}", f"--json={json_path}")
        intervals = [l for l in p.stderr.splitlines() if "... thread" in l]
        self.assertTrue(intervals, p.stderr)
        for line in intervals:
            self.assertRegex(line, INTERVAL_LINE)
        with open(json_path) as f:
            readrandom = json.load(f)["benchmarks"][1]
        self.assertEqual(readrandom["name"], "readrandom")
        self.assertGreaterEqual(readrandom["seconds"], 2)
        self.assertGreaterEqual(len(readrandom["throughput"]), 1)
        for sample in readrandom["throughput"]:
            self.assertGreater(sample["ops_per_sec"], 0)
        with open(csv_path) as f:
            rows = f.read().splitlines()
        # db_bench's file: the last timed benchmark's (readrandom, 2 s), seconds counted from
        # its start, operations per interval; the partial last interval left out.
        self.assertEqual(rows[0], "secs_elapsed,interval_qps")
        self.assertIn(len(rows), (2, 3), rows)
        for i, row in enumerate(rows[1:], 1):
            secs, ops = row.split(",")
            self.assertEqual(secs, str(i), rows)
            self.assertGreater(int(ops), 0, rows)


class ColumnFamilyCliTest(unittest.TestCase):
    """The admin CLI on a DB with three column families: 99 keys, key k in family k % 3."""

    FAMILIES = ["default", "column_family_name_000001", "column_family_name_000002"]

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="shale_cli_cf_test_")
        cls.db = os.path.join(cls.tmp, "db")
        run(BENCH, f"--db={cls.db}", "--benchmarks=fillseq,flush", "--num=99", "--seed=1",
            "--num_column_families=3", expect=0)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def shale(self, *args, expect=0):
        return run(SHALE, *args, expect=expect)

    def copy(self, name):
        """A copy of the DB to change."""
        path = os.path.join(self.tmp, name)
        shutil.copytree(self.db, path)
        return path

    def keys(self, db, family, *flags):
        rows = self.shale("scan", db, "--hex", f"--column_family={family}", *flags).stdout
        return [r.split(" : ")[0] for r in rows.splitlines()]

    def test_list_column_families(self):
        self.assertEqual(self.shale("list_column_families", self.db).stdout.splitlines(),
                         self.FAMILIES)
        self.assertIn("usage: shale list_column_families",
                      self.shale("list_column_families", "--help").stdout)
        p = self.shale("list_column_families", os.path.join(self.tmp, "nope"), expect=1)
        self.assertIn("no such directory", p.stderr)

    def test_repair(self):
        db = self.copy("repair")
        os.remove(os.path.join(db, "CURRENT"))
        self.shale("list_column_families", db, expect=1)
        self.assertRegex(self.shale("repair", db).stdout, r"^OK: repaired")
        self.assertEqual(self.shale("list_column_families", db).stdout.splitlines(),
                         self.FAMILIES)
        for i, family in enumerate(self.FAMILIES):
            self.assertEqual(self.keys(db, family), [key_hex(k) for k in range(i, 99, 3)])
        self.assertRegex(self.shale("verify", db).stdout, r"and 99 keys verified")
        self.assertIn("usage: shale repair", self.shale("repair", "--help").stdout)
        p = self.shale("repair", os.path.join(self.tmp, "nope"), expect=1)
        self.assertIn("no such DB directory", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "nope")))

    def test_reads_go_to_the_named_family(self):
        for i, family in enumerate(self.FAMILIES):
            self.assertEqual(self.keys(self.db, family), [key_hex(k) for k in range(i, 99, 3)])
        self.assertEqual(self.keys(self.db, "default"),
                         [r.split(" : ")[0] for r in
                          self.shale("scan", self.db, "--hex").stdout.splitlines()])
        p = self.shale("get", self.db, "--hex", key_hex(1), expect=1)
        self.assertIn("key not found", p.stderr)
        value = self.shale("get", self.db, "--hex", key_hex(1),
                           "--column_family=column_family_name_000001").stdout
        self.assertTrue(value.strip())
        p = self.shale("get", self.db, "--hex", key_hex(1), "--column_family=nope", expect=1)
        self.assertIn("no column family 'nope'", p.stderr)
        self.assertIn("column_family_name_000002", p.stderr)  # names the ones it has
        self.assertIn("** Column family column_family_name_000002 **",
                      self.shale("stats", self.db,
                                 "--column_family=column_family_name_000002").stdout)
        self.assertRegex(self.shale("verify", self.db).stdout,
                         r"^OK: \d+ table files and 99 keys verified")

    def test_writes_go_to_the_named_family(self):
        db = self.copy("writes")
        cf1 = "--column_family=column_family_name_000001"
        self.shale("put", db, "new-key", "v", cf1)
        self.assertEqual(self.shale("get", db, "new-key", cf1).stdout, "v\n")
        self.shale("get", db, "new-key", expect=1)
        self.shale("get", db, "new-key", "--column_family=column_family_name_000002", expect=1)
        self.shale("delete", db, "--hex", key_hex(4), cf1)
        self.assertNotIn(key_hex(4), self.keys(db, "column_family_name_000001"))
        self.shale("compact", db, cf1)
        self.assertEqual(self.keys(db, "column_family_name_000002"),
                         [key_hex(k) for k in range(2, 99, 3)])
        # write-sst from one family, ingest into another.
        sst = os.path.join(self.tmp, "from_cf2.sst")
        self.shale("write-sst", db, sst, "--column_family=column_family_name_000002")
        self.shale("ingest", db, sst, "--column_family=default")
        self.assertEqual(self.keys(db, "default"),
                         sorted([key_hex(k) for k in range(0, 99, 3)] +
                                [key_hex(k) for k in range(2, 99, 3)]))
        self.assertRegex(self.shale("verify", db).stdout, r"and 132 keys verified")
        p = self.shale("put", db, "k", "v", "--column_family=nope", expect=1)
        self.assertIn("no column family 'nope'", p.stderr)

    def test_each_family_keeps_its_options(self):
        db = self.copy("options")
        self.shale("create_column_family", db, "small",
                   "--options=write_buffer_size=2097152;merge_operator=stringappend")
        # Opening the DB again (here for a put in another family) must not give the family
        # the default family's options: each is opened with its own from the OPTIONS file.
        self.shale("put", db, "k", "v")
        out = self.shale("options", db, "--column_family=small").stdout
        self.assertIn("write_buffer_size=2097152", out)
        self.assertIn("merge_operator=stringappend", out)
        self.assertNotIn("write_buffer_size=2097152", self.shale("options", db).stdout)
        p = self.shale("options", db, "--column_family=nope", expect=1)
        self.assertIn("no column family 'nope'", p.stderr)
        p = self.shale("create_column_family", db, "bad", "--options=max_open_files=5", expect=1)
        self.assertIn("max_open_files", p.stderr)
        self.assertNotIn("bad", self.shale("list_column_families", db).stdout.splitlines())

    def test_create_drop_and_dump_manifest(self):
        db = self.copy("manifest")
        out = self.shale("dump-manifest", db).stdout
        self.assertIn("=> column family 1 'column_family_name_000001' added", out)
        self.assertIn("=> column family 2 'column_family_name_000002' added", out)
        # Each family's live table files under its own heading (fillseq,flush: one each).
        live = out[out.index("Live files:"):]
        for i, name in enumerate(self.FAMILIES):
            self.assertRegex(live, rf"column family {i} '{name}':\n  L\d #\d+ ")
        self.assertEqual(self.shale("create_column_family", db, "extra").stdout, "OK\n")
        p = self.shale("create_column_family", db, "extra", expect=1)
        self.assertIn("Invalid argument", p.stderr)
        self.shale("put", db, "x", "1", "--column_family=extra")
        self.assertEqual(self.shale("get", db, "x", "--column_family=extra").stdout, "1\n")
        self.assertEqual(self.shale("list_column_families", db).stdout.splitlines(),
                         self.FAMILIES + ["extra"])
        self.assertEqual(self.shale("drop_column_family", db, "column_family_name_000001").stdout,
                         "OK\n")
        # Read before anything opens the DB again (an open may start a new MANIFEST, which
        # lists the live families only).
        out = self.shale("dump-manifest", db).stdout
        self.assertIn("=> column family 1 'column_family_name_000001' dropped", out)
        self.assertIn("  1 'column_family_name_000001' (dropped)", out)
        live = out[out.index("Live files:"):]
        self.assertNotIn("column_family_name_000001", live)
        self.assertIn("column family 3 'extra':", live)
        self.assertIn("'extra' added", out)
        self.assertEqual(self.shale("list_column_families", db).stdout.splitlines(),
                         ["default", "column_family_name_000002", "extra"])
        p = self.shale("drop_column_family", db, "default", expect=1)
        self.assertIn("Invalid argument", p.stderr)
        p = self.shale("drop_column_family", db, "nope", expect=1)
        self.assertIn("no column family 'nope'", p.stderr)


class AdminCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="shale_cli_test_")
        cls.db = os.path.join(cls.tmp, "db")
        # 100 keys (numbers 0..99) flushed to a table.
        run(BENCH, f"--db={cls.db}", "--benchmarks=fillseq,flush", "--num=100", "--seed=1",
            expect=0)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def shale(self, *args, expect=0):
        return run(SHALE, *args, expect=expect)

    def tables(self, db):
        return sorted(f for f in os.listdir(db) if f.endswith(".sst"))

    def test_usage(self):
        self.assertIn("dump-manifest", self.shale(expect=2).stderr)
        out = self.shale("--help").stdout
        for command in ("get", "put", "delete", "scan", "dump-sst", "dump-manifest", "verify",
                        "compact", "ingest", "stats", "options"):
            self.assertIn(command, out)
            self.assertIn(f"usage: shale {command}", self.shale(command, "--help").stdout)
        self.assertIn("unknown command", self.shale("frobnicate", expect=2).stderr)
        self.assertIn("missing arguments", self.shale("get", self.db, expect=2).stderr)
        self.assertIn("too many arguments", self.shale("get", self.db, "a", "b", expect=2).stderr)
        self.assertIn("--bogus", self.shale("scan", self.db, "--bogus", expect=2).stderr)
        self.assertIn("--limit", self.shale("scan", self.db, "--limit=x", expect=1).stderr)

    def test_reads_open_read_only_beside_a_writer(self):
        """get, scan and stats open the DB read-only: a process holding its LOCK does not block
        them, and they change no file; put still needs the LOCK."""
        db = os.path.join(self.tmp, "read_only_db")
        run(BENCH, f"--db={db}", "--benchmarks=fillseq", "--num=10", "--seed=1", expect=0)
        self.shale("put", db, "k", "v")  # in the WAL only: the reads replay it
        with open(os.path.join(db, "LOCK"), "r+b") as lock:
            fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a writer holds
            listing = {n: os.stat(os.path.join(db, n)).st_mtime_ns for n in os.listdir(db)}
            self.assertEqual(self.shale("get", db, "k").stdout, "v\n")
            self.assertIn("k : v", self.shale("scan", db).stdout)
            self.shale("stats", db)
            self.assertIn("LOCK", self.shale("put", db, "k", "w", expect=1).stderr)
            self.assertEqual(
                {n: os.stat(os.path.join(db, n)).st_mtime_ns for n in os.listdir(db)}, listing)

    def test_put_get_delete_scan(self):
        self.assertEqual(self.shale("put", self.db, "zz-key", "a value").stdout, "OK\n")
        self.assertEqual(self.shale("get", self.db, "zz-key").stdout, "a value\n")
        self.assertEqual(self.shale("get", self.db, "--hex", key_hex(7)).stdout.strip()[:4],
                         self.shale("scan", self.db, "--hex", "--from", key_hex(7), "--limit=1")
                         .stdout.split(" : ")[1][:4])
        self.shale("delete", self.db, "zz-key")
        p = self.shale("get", self.db, "zz-key", expect=1)
        self.assertIn("key not found: zz-key", p.stderr)
        rows = self.shale("scan", self.db, "--hex", f"--from={key_hex(10)}",
                          f"--to={key_hex(20)}").stdout.splitlines()
        self.assertEqual([r.split(" : ")[0] for r in rows], [key_hex(i) for i in range(10, 20)])
        self.assertEqual(len(self.shale("scan", self.db, "--limit=5").stdout.splitlines()), 5)
        self.assertEqual(len(self.shale("scan", self.db).stdout.splitlines()), 100)
        self.assertIn("\\x00", self.shale("scan", self.db, "--limit=1").stdout)

    def test_inspection(self):
        table = self.tables(self.db)[0]
        out = self.shale("dump-sst", os.path.join(self.db, table)).stdout
        self.assertIn("shale.num.entries: 100", out)
        self.assertEqual(len(re.findall(r"(?m)^  '.*' seq:\d+, type:1 => '", out)), 100)
        out = self.shale("dump-sst", "--blocks", os.path.join(self.db, table)).stdout
        self.assertIn("data block 0", out)
        self.assertIn("meta-index", out)
        out = self.shale("dump-manifest", self.db).stdout
        self.assertIn("--- edit 0", out)
        self.assertIn("Live files:", out)
        number = int(table.split(".")[0])
        self.assertRegex(out, rf"(?m)^  L\d #0*{number} ")
        self.assertRegex(self.shale("verify", self.db).stdout, r"^OK: \d+ table files and \d+ keys")
        stats = self.shale("stats", self.db).stdout
        self.assertIn("Level", stats)
        self.assertIn("Compaction debt:", stats)
        self.assertIn("shale.estimate-compaction-seconds-left: ", stats)
        # Freshly opened: nothing timed yet, so the rates are unknown rather than 0.
        self.assertIn("shale.compaction-rate: unknown", stats)
        self.assertIn("write_buffer_size=", self.shale("options", self.db).stdout)

    def test_compact_and_ingest(self):
        self.shale("compact", self.db)
        self.assertRegex(self.shale("verify", self.db).stdout, r"^OK: \d+ table files and 100 keys")
        p = self.shale("ingest", self.db, os.path.join(self.tmp, "missing.sst"), expect=1)
        self.assertIn("shale: ingest:", p.stderr)

    def run_on_terminal(self, *args):
        """Runs `shale args` with stderr on a pseudo-terminal; (exit status, stdout, the
        terminal's output)."""
        import pty
        master, slave = pty.openpty()
        try:
            p = subprocess.Popen([str(SHALE), *args], stdout=subprocess.PIPE, stderr=slave)
            os.close(slave)
            slave = None
            chunks = []
            while True:
                try:
                    data = os.read(master, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            out, _ = p.communicate(timeout=60)
            return p.returncode, out.decode(), b"".join(chunks).decode(errors="replace")
        finally:
            os.close(master)
            if slave is not None:
                os.close(slave)

    def test_long_commands_show_progress_on_a_terminal_only(self):
        db = os.path.join(self.tmp, "db_progress")
        run(BENCH, f"--db={db}", "--benchmarks=fillrandom,flush", "--num=20000",
            "--write_buffer_size=65536", "--disable_auto_compactions=1", "--seed=3", expect=0)
        status, out, terminal = self.run_on_terminal("compact", db)
        self.assertEqual(status, 0, terminal)
        self.assertEqual(out, "OK\n")
        self.assertRegex(terminal, r"compact_range: done, \d+\.\d [KMG]iB in \d+\.\d s")
        status, out, terminal = self.run_on_terminal("verify", db)
        self.assertEqual(status, 0, terminal)
        self.assertRegex(out, r"^OK: \d+ table files and \d+ keys")
        self.assertIn("verify (tables): done", terminal)
        self.assertRegex(terminal, r"verify \(scan\): done, \d+\.\d [KMG]iB in")
        # Not a terminal (a pipe): no progress at all.
        self.assertEqual(self.shale("compact", db).stderr, "")
        self.assertEqual(self.shale("verify", db).stderr, "")

    def scan_hex(self, db, *flags):
        """{key hex: value hex} of db."""
        rows = self.shale("scan", db, "--hex", *flags).stdout.splitlines()
        return dict(r.split(" : ") for r in rows)

    def test_transfer_commands_help(self):
        out = self.shale("--help").stdout
        for command in ("ingest", "write-sst", "checkpoint"):
            self.assertIn(command, out)
            self.assertIn(f"usage: shale {command}", self.shale(command, "--help").stdout)
        help_text = self.shale("ingest", "--help").stdout
        for flag in ("--move", "--ingest_behind", "--verify_checksums", "--no_allow_global_seqno",
                     "--no_allow_blocking_flush"):
            self.assertIn(flag, help_text)
        self.assertIn("missing arguments", self.shale("checkpoint", self.db, expect=2).stderr)
        self.assertIn("missing arguments", self.shale("ingest", self.db, expect=2).stderr)
        self.assertIn("--bogus", self.shale("ingest", self.db, "f.sst", "--bogus", expect=2).stderr)

    def test_checkpoint(self):
        dest = os.path.join(self.tmp, "checkpoint")
        self.assertRegex(self.shale("checkpoint", self.db, dest).stdout, r"^OK: checkpoint of ")
        self.assertFalse(os.path.exists(dest + ".tmp"))
        self.assertEqual(self.scan_hex(dest), self.scan_hex(self.db))
        tables = self.tables(dest)
        self.assertTrue(tables)
        for table in tables:  # hard links to the source's tables
            self.assertGreaterEqual(os.stat(os.path.join(dest, table)).st_nlink, 2, table)
        # The copy is a database of its own.
        self.shale("put", dest, "only-in-copy", "1")
        self.shale("get", self.db, "only-in-copy", expect=1)
        self.assertRegex(self.shale("verify", dest).stdout, r"^OK: \d+ table files and 101 keys")
        # Errors: an existing destination, a missing parent, a missing database.
        p = self.shale("checkpoint", self.db, dest, expect=1)
        self.assertIn("shale: checkpoint: Invalid argument", p.stderr)
        self.assertIn("exists", p.stderr)
        p = self.shale("checkpoint", self.db, os.path.join(self.tmp, "no", "such", "dest"),
                       expect=1)
        self.assertIn("shale: checkpoint:", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "no")))
        p = self.shale("checkpoint", os.path.join(self.tmp, "nope"),
                       os.path.join(self.tmp, "cp2"), expect=1)
        self.assertIn("no such directory", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "cp2")))

    def test_write_sst_errors(self):
        sst = os.path.join(self.tmp, "empty_range.sst")
        p = self.shale("write-sst", self.db, sst, "--from=zzzz", "--to=zzzzz", expect=1)
        self.assertIn("no keys in the range", p.stderr)
        self.assertFalse(os.path.exists(sst))
        p = self.shale("write-sst", self.db, sst, "--hex", "--from=XYZ", expect=1)
        self.assertIn("--from", p.stderr)
        p = self.shale("write-sst", os.path.join(self.tmp, "nope"), sst, expect=1)
        self.assertIn("no such directory", p.stderr)

    def test_ingest(self):
        """Needs DB::IngestExternalFile (issue 9)."""
        source = self.scan_hex(self.db, f"--to={key_hex(100)}")  # keys 0..99
        # The target holds keys 0..9 (shale_bench's values) and its own value for key 5.
        target = os.path.join(self.tmp, "ingest_target")
        run(BENCH, f"--db={target}", "--benchmarks=fillseq", "--num=10", "--seed=9", expect=0)
        self.shale("put", target, "--hex", key_hex(5), "6C6F63616C")  # "local"
        low, high = (os.path.join(self.tmp, n) for n in ("low.sst", "high.sst"))
        p = self.shale("write-sst", self.db, low, "--hex", f"--to={key_hex(50)}")
        self.assertEqual(p.stdout, f"OK: 50 entries written to {low}\n")
        self.shale("write-sst", self.db, high, "--hex", f"--from={key_hex(50)}",
                   f"--to={key_hex(100)}")

        # Errors leave the database as it was: a missing file (named), a missing database, a
        # file that overlaps the database's keys without a sequence number allowed, a
        # bottommost ingestion the database was not opened for.
        before = self.scan_hex(target)
        p = self.shale("ingest", target, high, os.path.join(self.tmp, "missing.sst"), expect=1)
        self.assertIn("missing.sst", p.stderr)
        self.assertIn("no such file", p.stderr)
        p = self.shale("ingest", os.path.join(self.tmp, "nope"), high, expect=1)
        self.assertIn("no such directory", p.stderr)
        p = self.shale("ingest", target, low, "--no_allow_global_seqno", expect=1)
        self.assertRegex(p.stderr, r"^shale: ingest: \S.*")
        p = self.shale("ingest", target, high, "--ingest_behind", expect=1)
        self.assertRegex(p.stderr, r"^shale: ingest: \S.*")
        self.assertEqual(self.scan_hex(target), before)
        self.assertTrue(os.path.exists(low) and os.path.exists(high))

        # Keys above the database's: copied (the file stays), checksums verified first.
        self.assertEqual(self.shale("ingest", target, high, "--verify_checksums").stdout,
                         "OK: 1 files ingested\n")
        self.assertTrue(os.path.exists(high))
        # Overlapping keys: the file's values win; --move takes the file away.
        self.shale("ingest", target, low, "--move")
        self.assertFalse(os.path.exists(low))
        self.assertEqual(self.scan_hex(target), source)
        self.assertRegex(self.shale("verify", target).stdout, r"^OK: \d+ table files and 100 keys")

    def test_missing_and_corrupt_databases(self):
        missing = os.path.join(self.tmp, "nope")
        self.assertIn("no such directory", self.shale("get", missing, "k", expect=1).stderr)
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        for command in (["get", empty, "k"], ["scan", empty], ["verify", empty],
                        ["dump-manifest", empty], ["options", empty]):
            p = self.shale(*command, expect=1)
            self.assertIn("not a ShaleDB database", p.stderr, command)

        bad_current = os.path.join(self.tmp, "bad_current")
        shutil.copytree(self.db, bad_current)
        with open(os.path.join(bad_current, "CURRENT"), "w") as f:
            f.write("garbage\n")
        self.assertRegex(self.shale("get", bad_current, "k", expect=1).stderr, r"shale: get: .+")
        self.assertIn("Corruption", self.shale("dump-manifest", bad_current, expect=1).stderr)

        bad_table = os.path.join(self.tmp, "bad_table")
        shutil.copytree(self.db, bad_table)
        path = os.path.join(bad_table, self.tables(bad_table)[0])
        with open(path, "r+b") as f:
            f.seek(100)
            f.write(b"\xde\xad\xbe\xef" * 4)
        p = self.shale("verify", bad_table, expect=1)
        self.assertIn("Corruption", p.stderr)
        self.assertIn(os.path.basename(path), p.stderr)
        not_a_table = os.path.join(self.tmp, "plain.sst")
        with open(not_a_table, "w") as f:
            f.write("not a table" * 10)
        self.assertIn("Corruption", self.shale("dump-sst", not_a_table, expect=1).stderr)


if __name__ == "__main__":
    BENCH, SHALE = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

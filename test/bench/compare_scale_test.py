#!/usr/bin/env python3
"""Tests of bench/compare's scale suite (issue 20, bench/lib/compare_scale.py): its parsers on
canned output (both engines' LOG stats dumps, open and close lines, shale_bench's close line,
/proc/<pid>/status, /sys/block/<dev>/stat, the throughput CSV at a 10 s interval), the time
series join, the tables, the /proc sampler on a real child process, the argument checks, and
the suite end to end at 3000 keys: ShaleDB's side of every part (a few seconds), RocksDB's load
when bench/rocksdb/build.sh's RocksDB 11.8.1 is built (nothing is built or installed here).

Usage: compare_scale_test.py --compare bench/compare --shale_bench PATH --dir WORK_DIR
                             [--db_bench PATH] [--rocksdb_ingest_bench PATH]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import unittest

ARGS = None


def load_lib():
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(ARGS.compare)), "lib"))
    import compare_parse
    import compare_run
    import compare_scale
    return compare_parse, compare_run, compare_scale


def stamp(t):
    """A LOG time stamp (local time, as the engines write it) for unix time t."""
    return time.strftime("%Y/%m/%d-%H:%M:%S", time.localtime(t)) + f".{int(t % 1 * 1e6):06d}"


T0 = 1795695184.0  # 2026-11-26, a whole second: the stamps below are exact

# RocksDB 11.8.1's info LOG (trimmed): the open, three stats dumps (the second without its
# column-family part, as RocksDB writes it when nothing changed; the third with L0 empty), the
# close.
ROCKSDB_LOG = f"""\
{stamp(T0)} 28356 RocksDB version: 11.8.1
{stamp(T0 + 0.000012)} 28356 Git sha 0
{stamp(T0 + 0.25)} 28356 DB pointer 0x7fefd6aed000
{stamp(T0 + 10)} 28405 [db/db_impl/db_impl.cc:1532] ------- DUMPING STATS -------
{stamp(T0 + 10.000018)} 28405 [db/db_impl/db_impl.cc:1534] 
** DB Stats **
Uptime(secs): 10.0 total, 10.0 interval
Cumulative stall: 00:01:2.500 H:M:S, 0.1 percent
Interval stall: 00:00:0.006 H:M:S, 0.3 percent

** Compaction Stats [default] **
Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB)
---------------------------------------------------------------------
  L0      5/4     32.55 MB   0.2      0.0     0.0      0.0       0.2
  L1      2/0     66.38 MB   0.3      0.1     0.1      0.1       0.1
 Sum      7/4     98.93 MB   0.0      0.1     0.1      0.1       0.3

** Compaction Stats [default] **
Priority    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB)
 Low      0/0      0.00 KB   0.0      0.7     0.2      0.5       0.7
Estimated pending compaction bytes: 137724077
Write Stall (count): cf-l0-file-count-limit-delays-with-ongoing-compaction: 0
{stamp(T0 + 20)} 28405 [db/db_impl/db_impl.cc:1532] ------- DUMPING STATS -------
{stamp(T0 + 20.000018)} 28405 [db/db_impl/db_impl.cc:1534] 
** DB Stats **
Cumulative stall: 00:01:3.000 H:M:S, 0.1 percent
{stamp(T0 + 20.1)} 28405 [db/db_impl/db_impl.cc:1539] ------- Malloc STATS -------
{stamp(T0 + 30)} 28405 [db/db_impl/db_impl.cc:1532] ------- DUMPING STATS -------
** DB Stats **
Cumulative stall: 00:01:3.000 H:M:S, 0.1 percent
** Compaction Stats [default] **
Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB)
  L1      3/0    134.72 MB   0.5      0.7     0.2      0.5       0.7
Estimated pending compaction bytes: 0
{stamp(T0 + 40)} 28356 [db/db_impl/db_impl.cc:543] Shutdown: canceling all background work
{stamp(T0 + 41.5)} 28356 [db/db_impl/db_impl.cc:1026] Shutdown complete
"""

# ShaleDB's info LOG (trimmed): the open, one stats dump (every line stamped), the close.
SHALE_LOG = f"""\
{stamp(T0)} 44c649 opening /tmp/db
{stamp(T0 + 0.027)} 44c649 opened in 0.027 s: files[ 0 0 0 0 0 0 7 ], last sequence 9
{stamp(T0 + 10)} 92cfe3 ------- DUMPING STATS -------
{stamp(T0 + 10)} 92cfe3 ** DB Stats **
{stamp(T0 + 10)} 92cfe3 Write stalls: 3, 1.250 s; memtable-limit 0 (0.000 s); level0-files 3 (1.250 s); pending-compaction-bytes 0 (0.000 s)
{stamp(T0 + 10)} 92cfe3 Write controller: normal; pending compaction bytes 146335227; running compactions 1
{stamp(T0 + 10)} 92cfe3 ** Compaction **
{stamp(T0 + 10)} 92cfe3 Level  Files   Size(MB) Comps Moves  Rn(MB) Rnp1(MB) Write(MB) W-Amp  Comp(s)
{stamp(T0 + 10)} 92cfe3 L0         5       29.2     0     0     0.0      0.0       0.0  0.00     0.00
{stamp(T0 + 10)} 92cfe3 L6         2      110.3     6     0   146.2    320.9     425.3  2.91     2.37
{stamp(T0 + 12)} 44c649 closed: OK
"""

SHALE_OUT = """\
fillrandom   :       3.059 micros/op 326842 ops/sec 0.918 seconds 300000 operations;   44.9 MB/s
close(/tmp/db): 0.024 seconds (done at unix time 1795695196.132635)
"""

PROC_STATUS = """\
Name:\tshale_bench
VmPeak:\t 1234567 kB
VmHWM:\t  163284 kB
VmRSS:\t  120000 kB
Threads:\t5
"""

BLOCK_STAT = "  193651    43815 11865626   128061  2381245  1612395 1000108728  9087164  0  2004484  9375210\n"


class ScaleParseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.parse, _, _ = load_lib()

    def test_log_time_is_local_time(self):
        at, rest = self.parse.log_time(f"{stamp(T0 + 7.25)} 28405 [x.cc:1] hello")
        self.assertAlmostEqual(at, T0 + 7.25, places=5)
        self.assertEqual(rest, "hello")
        self.assertEqual(self.parse.log_time("** DB Stats **"), (None, "** DB Stats **"))

    def test_rocksdb_stats_dumps(self):
        dumps = self.parse.parse_stats_dumps(ROCKSDB_LOG)
        self.assertEqual([round(d["at"] - T0, 3) for d in dumps], [10, 20, 30])
        self.assertEqual(dumps[0], {"at": dumps[0]["at"], "l0_files": 5,
                                    "pending_compaction_bytes": 137724077,
                                    "stall_seconds": 62.5})
        # No column-family part: the level figures carry over; the stall is the dump's own.
        self.assertEqual((dumps[1]["l0_files"], dumps[1]["pending_compaction_bytes"],
                          dumps[1]["stall_seconds"]), (5, 137724077, 63.0))
        # A level table without an L0 row: no L0 file.
        self.assertEqual((dumps[2]["l0_files"], dumps[2]["pending_compaction_bytes"]), (0, 0))

    def test_shaledb_stats_dumps(self):
        dumps = self.parse.parse_stats_dumps(SHALE_LOG)
        self.assertEqual(len(dumps), 1)
        self.assertAlmostEqual(dumps[0]["at"], T0 + 10, places=5)
        self.assertEqual((dumps[0]["l0_files"], dumps[0]["pending_compaction_bytes"],
                          dumps[0]["stall_seconds"]), (5, 146335227, 1.25))

    def test_open_and_close(self):
        oc = self.parse.parse_open_close(ROCKSDB_LOG)
        self.assertAlmostEqual(oc["open_seconds"], 0.25, places=5)
        self.assertAlmostEqual(oc["open_done_at"], T0 + 0.25, places=5)
        self.assertAlmostEqual(oc["close_seconds"], 1.5, places=5)
        oc = self.parse.parse_open_close(SHALE_LOG)
        self.assertEqual(oc["open_seconds"], 0.027)
        self.assertAlmostEqual(oc["open_done_at"], T0 + 0.027, places=5)
        self.assertIsNone(oc["close_seconds"])  # ShaleDB's LOG has no start of Close
        self.assertEqual(self.parse.parse_close_line(SHALE_OUT), (0.024, 1795695196.132635))
        self.assertIsNone(self.parse.parse_close_line("fillrandom : ..."))
        self.assertEqual(self.parse.parse_open_close(""), {
            "open_seconds": None, "open_done_at": None, "close_seconds": None})

    def test_proc_status_block_stat_and_series(self):
        self.assertEqual(self.parse.parse_proc_status(PROC_STATUS),
                         {"hwm_bytes": 163284 * 1024, "rss_bytes": 120000 * 1024})
        self.assertEqual(self.parse.parse_proc_status("Name: x\n"), {})
        self.assertEqual(self.parse.parse_block_stat(BLOCK_STAT),
                         {"read_bytes": 11865626 * 512, "write_bytes": 1000108728 * 512})
        self.assertEqual(self.parse.parse_block_stat("garbage"), {})
        # Both tools write the operations of each interval: at 10 s, a tenth of it per second.
        series = self.parse.parse_series("secs_elapsed,interval_qps\n10,3000000\n20,2500000\n",
                                         10)
        self.assertEqual(series, [{"seconds": 10.0, "ops_per_sec": 300000.0},
                                  {"seconds": 20.0, "ops_per_sec": 250000.0}])


class ScaleSuiteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.parse, cls.runlib, cls.scale = load_lib()

    def test_parts_and_distinct_keys(self):
        self.assertEqual(self.scale.parse_parts("all"), list(self.scale.PARTS))
        self.assertEqual(self.scale.parse_parts("read,load"), ["load", "read"])
        with self.assertRaisesRegex(ValueError, "unknown part bogus"):
            self.scale.parse_parts("load,bogus")
        self.assertAlmostEqual(self.scale.expected_distinct(1_000_000) / 1e6, 1 - 1 / 2.718281828,
                               places=5)

    def test_steps_and_flags(self):
        args = argparse.Namespace(backlog_seconds=60, read_seconds=60,
                                  bulk_memory_budget=1 << 30)
        flags = self.scale.scale_flags(250_000_000, 7, 10)
        self.assertEqual((flags["value_size"], flags["cache_size"], flags["write_buffer_size"],
                          flags["stats_dump_period_sec"], flags["key_size"]),
                         (128, 1 << 30, 64 << 20, 10, 16))
        self.assertNotIn("disable_wal", flags)
        load, = self.scale.steps_for("load", args)
        self.assertEqual(load.benchmarks, ("fillrandom", "flush", "waitforcompaction"))
        self.assertTrue(load.until_compacted)
        names = [s.name for s in self.scale.steps_for("close_open", args)]
        self.assertEqual(names, ["open", "backlog", "reopen+wait"])
        reads = {s.name: s for s in self.scale.steps_for("read", args)}
        self.assertEqual(reads["readrandom"].flags, {"duration": 60, "threads": 2})
        bulk, = self.scale.steps_for("bulk", args)
        self.assertEqual(bulk.benchmarks_for("rocksdb"), ("bulkload_runs",))
        self.assertEqual(bulk.flags["bulkload_memory_budget"], 1 << 30)
        self.assertEqual(bulk.flags_for("shaledb")["bulkload_threads"], 2)

    def test_series_join(self):
        spawned = 1000.0
        samples = [{"at": spawned + t, "rss_bytes": int(100 * t), "write_bytes": 7}
                   for t in (0.2, 1, 2, 3)]
        throughput = [{"seconds": 1.0, "ops_per_sec": 100.0},
                      {"seconds": 2.0, "ops_per_sec": 200.0}]
        dumps = [{"at": spawned + 1.5, "l0_files": 3, "pending_compaction_bytes": 9,
                  "stall_seconds": 0.5}]
        # The benchmark's clock starts 0.1 s after the spawn: its lines end at 1.1 and 2.1 s;
        # each sample takes the line that ended within half an interval of it.
        rows = self.scale.build_series(samples, throughput, dumps, spawned, spawned + 0.1, 1)
        self.assertEqual([r["seconds"] for r in rows], [0.2, 1.0, 2.0, 3.0])
        # At 0.2 s the first line (ops over 0.1..1.1 s) has not ended yet: no rate to give.
        self.assertEqual([r["ops_per_sec"] for r in rows], [None, 100.0, 200.0, None])
        self.assertAlmostEqual(rows[1]["mb_per_sec"], 100 * 144 / 1048576.0)
        self.assertEqual([r["l0_files"] for r in rows], [None, None, 3, 3])
        self.assertEqual([r["rss_bytes"] for r in rows], [20, 100, 200, 300])
        csv = self.scale.series_csv(rows).splitlines()
        self.assertEqual(csv[0].split(",")[:5],
                         ["seconds", "ops_per_sec", "mb_per_sec", "rss_bytes", "l0_files"])
        self.assertEqual(csv[4].split(",")[1], "")  # no throughput: an empty cell

    def test_part_table(self):
        engines = [self.runlib.Engine("RocksDB", "rocksdb", "/x"),
                   self.runlib.Engine("ShaleDB", "shaledb", "/y")]
        base = {"status": "ok", "reason": ""}
        records = {
            ("rocksdb", "open"): dict(base, open_seconds=2.0, close_seconds=1.0,
                                      peak_rss_bytes=200 << 20),
            ("shaledb", "open"): dict(base, open_seconds=0.5, close_seconds=None,
                                      peak_rss_bytes=100 << 20),
            ("shaledb", "backlog"): {"status": "error", "reason": "exit 1: boom"},
        }
        table = self.scale.part_table("close_open", records, engines)
        lines = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]]
                 for line in table.splitlines()}
        self.assertEqual(lines["figure"], ["RocksDB", "ShaleDB", "ShaleDB / RocksDB"])
        self.assertEqual(lines["open s (compacted DB)"], ["2.000", "0.500", "0.25"])
        self.assertEqual(lines["RSS after open (peak of an open-only process)"],
                         ["200.00 MiB", "100.00 MiB", "0.50"])
        self.assertEqual(lines["close s (idle DB)"], ["1.000", "-", "-"])
        self.assertEqual(lines["backlog: overwrite ops/s"][:2], ["-", "error: exit 1: boom"])
        md = self.scale.part_table("close_open", records, engines, markdown=True)
        self.assertIn("| open s (compacted DB) | 2.000 | 0.500 | 0.25 |", md)
        one = self.scale.part_table("close_open", records, engines[1:])
        self.assertNotIn("ShaleDB / RocksDB", one)

    def test_sampler_on_a_child_process(self):
        # Under /usr/bin/time the tool is the child of the spawned process: a shell that forks
        # sleep (the trailing `:` keeps it from exec'ing it) stands in for that.
        for under_time, argv in ((False, ["sleep", "2"]), (True, ["sh", "-c", "sleep 2; :"])):
            p = subprocess.Popen(argv)
            try:
                sampler = self.scale.Sampler(0.05, None, under_time)
                deadline = time.monotonic() + 1.5
                while time.monotonic() < deadline and len(sampler.samples) < 3:
                    sampler(p.pid)
                    time.sleep(0.01)
            finally:
                p.kill()
                p.wait()
            self.assertGreaterEqual(len(sampler.samples), 3, under_time)
            s = sampler.samples[-1]
            self.assertGreater(s["rss_bytes"], 0)
            self.assertGreaterEqual(s["hwm_bytes"], s["rss_bytes"])
            self.assertNotIn("device_write_bytes", s)  # no block device given

    def test_sampler_skips_a_process_that_has_exited(self):
        # A process that has exited but not been reaped still has a /proc/<pid>/status, without
        # VmRSS: sampling it must record nothing rather than a sample with no RSS (the last
        # sample of a run is read as the run's final RSS).
        p = subprocess.Popen(["true"])
        try:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                with open(f"/proc/{p.pid}/stat", encoding="utf-8") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
                time.sleep(0.01)
            sampler = self.scale.Sampler(0.05, None, False)
            sampler(p.pid)
            self.assertEqual(sampler.samples, [])
        finally:
            p.wait()


def built_release_db_bench(compare):
    script = os.path.join(os.path.dirname(os.path.abspath(compare)), "rocksdb", "build.sh")
    p = subprocess.run([script, "--check"], capture_output=True, text=True)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        return "/nonexistent/db_bench"
    return os.path.join(lines[-1], "bin", "db_bench")


class ScaleEndToEndTest(unittest.TestCase):
    def compare(self, name, *extra, status=0):
        work = os.path.join(ARGS.dir, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        p = subprocess.run(
            [sys.executable, ARGS.compare, "--suite=scale", "--dir", work, "--num=3000",
             "--interval=1", "--read_seconds=1", "--backlog_seconds=1", "--drop_caches=0",
             "--bulk_memory_budget=131072", "--shale_bench", ARGS.shale_bench,
             "--rocksdb_ingest_bench", ARGS.rocksdb_ingest_bench, *extra],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, status, p.stdout + p.stderr)
        runs = os.path.join(work, "runs")
        run_dir = os.path.join(runs, os.listdir(runs)[0]) if os.path.isdir(runs) else None
        return p, run_dir

    def table_rows(self, stdout, part):
        """{figure: [cells]} of one part's table in the printed output."""
        lines = stdout.split(f"\n{part} (", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        return {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]]
                for line in lines if "|" in line}

    def test_shaledb_every_part(self):
        p, run_dir = self.compare("shaledb", "--engines=shaledb")
        load = self.table_rows(p.stdout, "load")
        self.assertEqual(load["figure"], ["ShaleDB"])
        self.assertGreater(float(load["fillrandom ops/s"][0].replace(",", "")), 0)
        self.assertGreater(float(load["space-amp (on disk / expected live bytes)"][0]), 0.5)
        self.assertRegex(load["close s (after the wait)"][0], r"^\d+\.\d{3}$")
        close_open = self.table_rows(p.stdout, "close_open")
        for figure in ("open s (compacted DB)", "close s (idle DB)",
                       "close s (with the backlog, not waiting)", "open s (with the backlog)",
                       "close s (after the wait)"):
            self.assertRegex(close_open[figure][0], r"^\d+\.\d{3}$", figure)
        read = self.table_rows(p.stdout, "read")
        self.assertGreater(int(read["readseq keys (the live keys)"][0].replace(",", "")), 1000)
        self.assertIn("MiB", read["peak RSS while reading (most of the three)"][0])
        self.assertIn("ShaleDB's route: BulkLoader", p.stdout)

        with open(os.path.join(run_dir, "scale.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual((doc["suite"], doc["num"], doc["parts"]),
                         ("scale", 3000, ["load", "close_open", "read", "bulk"]))
        self.assertIn("--engines=shaledb", doc["command"])
        self.assertRegex(doc["commit"], r"^[0-9a-f]{4,}")
        self.assertEqual(len(doc["part_machine"]), 4)
        self.assertIn("kernel", doc["machine"])
        steps = [r["step"] for r in doc["runs"]]
        self.assertEqual(steps, ["load", "open", "backlog", "reopen+wait", "readrandom",
                                 "readseq", "seekrandom", "bulkload"])
        self.assertTrue(all(r["status"] == "ok" for r in doc["runs"]), doc["runs"])
        by_step = {r["step"]: r for r in doc["runs"]}
        self.assertIsNotNone(by_step["open"]["open_seconds"])
        self.assertTrue(by_step["readrandom"]["series"])
        self.assertGreater(by_step["readrandom"]["series"][-1]["rss_bytes"], 0)
        with open(os.path.join(run_dir, "series", "shaledb-load.csv"), encoding="utf-8") as f:
            self.assertTrue(f.readline().startswith("seconds,ops_per_sec,mb_per_sec,rss_bytes"))
        with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("Command: bench/compare --suite=scale", md)
        self.assertIn("| fillrandom ops/s |", md)
        # The scale DB stays for a later invocation's parts; the bulk DB does not.
        work = os.path.dirname(os.path.dirname(run_dir))
        self.assertFalse(os.path.exists(os.path.join(work, "shaledb", "bulk")))

        # A later invocation reads the DB the load left... when there is one.
        p, _ = self.compare("shaledb-no-db", "--engines=shaledb", "--parts=read", status=1)
        self.assertIn("no DB at", p.stdout)

    def test_rocksdb_load(self):
        if not os.access(ARGS.db_bench, os.X_OK):
            self.skipTest(f"no db_bench at {ARGS.db_bench} (bench/rocksdb/build.sh not run)")
        p, run_dir = self.compare("rocksdb", "--engines=rocksdb", "--parts=load",
                                  f"--db_bench={ARGS.db_bench}")
        load = self.table_rows(p.stdout, "load")
        self.assertEqual(load["figure"], ["RocksDB"])
        self.assertGreater(float(load["fillrandom ops/s"][0].replace(",", "")), 0)
        self.assertRegex(load["close s (after the wait)"][0], r"^\d+\.\d{3}$")
        self.assertRegex(load["open s (fresh DB)"][0], r"^\d+\.\d{3}$")
        with open(os.path.join(run_dir, "scale.json"), encoding="utf-8") as f:
            doc = json.load(f)
        run, = doc["runs"]
        self.assertEqual(run["status"], "ok", run)
        # db_bench's waitforcompaction sleeps 5 s: the series has samples with the LOG's dumps.
        self.assertTrue(any(r["l0_files"] is not None for r in run["series"]), run["series"])

    def test_usage_errors(self):
        for argv, message in ((["--suite=scale", "--parts=load,bogus"], "unknown part bogus"),
                              (["--suite=quick", "--engines=shaledb"], "only for --suite=scale"),
                              (["--suite=scale", "--interval=0"], "--interval must be")):
            p = subprocess.run([sys.executable, ARGS.compare, *argv], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(message, p.stderr)


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

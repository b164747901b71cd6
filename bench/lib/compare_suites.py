"""The workload suites of bench/compare.

A suite is a list of steps run in order on each engine. A step is one process of db_bench or
shale_bench with one --benchmarks list and the SAME flags for both engines (common_flags() plus
the step's own); only the --benchmarks list may differ, where db_bench has no benchmark of that
name (ShaleDB's `bulkload` is db_bench's `fillrandom,compact` with PrepareForBulkLoad's options).

Read steps open the DB a fill step left in the same engine's directory (--use_existing_db=1).

A step with rocksdb_tool runs, on RocksDB, that program (built from bench/, e.g.
rocksdb_ingest_bench) instead of db_bench; engine_flags adds flags for one engine only (where
the two tools name the same setting differently, e.g. the bulk load's writer threads).

A step with until_compacted=True is timed from the start of the tool's process until the
engine's background work (flushes and compactions) is done, not by its report lines alone (see
compare_run.py); its figures also go to the compaction table (compaction_figures=True).

A step with shaledb_only=True runs on ShaleDB alone (a benchmark db_bench does not have: the
posting-list workload) and stays out of the side-by-side table; with posting_figures=True its
hottest-list figures go to the posting-list tables (compare_report.py).
"""

import dataclasses

KEY_SIZE = 16
VALUE_SIZE = 100
ENTRY_BYTES = KEY_SIZE + VALUE_SIZE
WRITE_BUFFER_SIZE = 64 << 20
DEFAULT_SEED = 20260101

# What Options::PrepareForBulkLoad sets, as flags both tools take (RocksDB's options.cc, with
# ShaleDB's larger write buffers and background jobs), and the WAL off as it advises.
_BULK_LOAD_FLAGS = {
    "disable_auto_compactions": 1,
    "level0_file_num_compaction_trigger": 1 << 30,
    "level0_slowdown_writes_trigger": 1 << 30,
    "level0_stop_writes_trigger": 1 << 30,
    "soft_pending_compaction_bytes_limit": 0,
    "hard_pending_compaction_bytes_limit": 0,
    "num_levels": 2,
    "target_file_size_base": 256 << 20,
    "write_buffer_size": 256 << 20,
    "max_write_buffer_number": 6,
    "max_background_jobs": 6,
    "disable_wal": 1,
}


@dataclasses.dataclass(frozen=True)
class Step:
    """One benchmark step. `timed` names the report lines whose seconds make up the step's time
    (the first is the primary: its ops, MB/s and P99 are the step's); the rocksdb_* fields, when
    set, replace benchmarks/timed for db_bench."""
    name: str
    kind: str  # "write" or "read"
    benchmarks: tuple
    timed: tuple
    flags: dict = dataclasses.field(default_factory=dict)
    existing: bool = False  # read the DB an earlier step filled
    db: str = "main"        # DB subdirectory of the engine's directory
    rocksdb_benchmarks: tuple = ()
    rocksdb_timed: tuple = ()
    note: str = ""  # footnote explaining how the step is measured
    until_compacted: bool = False  # timed until background compactions are done
    compaction_figures: bool = False  # listed in the compaction table too
    ingest_figures: bool = False  # listed in the ingest suite's bulk-load tables too
    rocksdb_tool: str = ""  # a bench/ program run instead of db_bench on RocksDB
    engine_flags: dict = dataclasses.field(default_factory=dict)  # engine key -> extra flags
    entry_bytes: int = ENTRY_BYTES  # user bytes per key written (for write amplification)
    shaledb_only: bool = False  # run on ShaleDB alone; not in the side-by-side table
    posting_figures: bool = False  # listed in the posting-list tables

    def benchmarks_for(self, engine_key):
        if engine_key == "rocksdb" and self.rocksdb_benchmarks:
            return self.rocksdb_benchmarks
        return self.benchmarks

    def flags_for(self, engine_key):
        """The step's own flags for one engine (the suite's common flags come first)."""
        return dict(self.flags, **self.engine_flags.get(engine_key, {}))

    def timed_for(self, engine_key):
        if engine_key == "rocksdb" and self.rocksdb_timed:
            return self.rocksdb_timed
        return self.timed

    @property
    def slug(self):
        return self.name.replace("+", "-").replace(" ", "_").replace("/", "-")


def common_flags(num, seed):
    """The flags every step passes to both engines (output-only flags are added per run)."""
    return {
        "num": num,
        "key_size": KEY_SIZE,
        "value_size": VALUE_SIZE,
        "compression_type": "none",  # db_bench defaults to snappy
        "write_buffer_size": WRITE_BUFFER_SIZE,
        "max_write_buffer_number": 2,
        "bloom_bits": 10,
        "threads": 1,
        "cache_size": 0,  # no block cache on either side unless a step asks for one
        "seed": seed,
        "histogram": 1,
        "statistics": 1,
    }


def _fill(name):
    return Step(name=name, kind="write", benchmarks=(name,), timed=(name,))


def _read(name, **flags):
    return Step(name=name, kind="read", benchmarks=(name,), timed=(name,), flags=flags,
                existing=True)


_OVERWRITE = Step(name="overwrite", kind="write", benchmarks=("overwrite",), timed=("overwrite",),
                  existing=True)


def _bulkload(compaction_figures=False, ingest_figures=False):
    return Step(
        name="bulkload", kind="write", benchmarks=("bulkload",), timed=("bulkload",),
        flags=dict(_BULK_LOAD_FLAGS), db="bulk",
        rocksdb_benchmarks=("fillrandom", "compact"), rocksdb_timed=("fillrandom", "compact"),
        compaction_figures=compaction_figures, ingest_figures=ingest_figures,
        note="bulkload: the bulk-load procedure, with PrepareForBulkLoad's options and no WAL as "
             "flags to both tools: ShaleDB runs its `bulkload` benchmark (PrepareForBulkLoad, "
             "fillrandom, CompactRange); RocksDB runs fillrandom,compact. ops/s is num / (fill + "
             "compact seconds) from the report lines. It runs in a DB directory of its own.")


def _standard_steps(num):
    cache = num * ENTRY_BYTES // 10
    return [
        _fill("fillseq"),
        Step(name="fillrandom+waitforcompaction", kind="write",
             benchmarks=("fillrandom", "waitforcompaction"), timed=("fillrandom",),
             note="fillrandom+waitforcompaction: ops/s is fillrandom's own report line (the wait "
                  "for compactions is not timed here: the compaction suite does); write-amp "
                  "includes the compactions waited for."),
        _bulkload(),
        _read("readrandom", cache_size=cache),
        _read("readseq"),
        _OVERWRITE,
    ]


def _compaction_steps(num):
    return [
        Step(name="fillrandom+compaction", kind="write",
             benchmarks=("fillrandom", "waitforcompaction"), timed=("fillrandom",),
             until_compacted=True, compaction_figures=True,
             note="fillrandom+compaction: fillrandom at each engine's default options (only the "
                  "suite's flags above are given), then waitforcompaction; timed from the start "
                  "of the tool's process until its background work was done: for ShaleDB the "
                  "time its waitforcompaction saw no compaction due or running (polled every "
                  "100 ms, after flushing the memtable), for RocksDB the last flush_finished or "
                  "compaction_finished event in the DB's LOG (db_bench's waitforcompaction "
                  "sleeps 5 s, then polls every 10 s, so its own end is not the compaction's). "
                  "ops/s is num / that time; fill ops/s is fillrandom's report line. ShaleDB "
                  "also flushes the last memtable, which db_bench leaves in the WAL. Defaults "
                  "that differ: level_compaction_dynamic_level_bytes (ShaleDB true, "
                  "db_bench false), delayed_write_rate (16 vs 8 MiB/s), "
                  "hard_pending_compaction_bytes_limit (256 vs 128 GiB)."),
        _bulkload(compaction_figures=True),
    ]


# Issue 8: reads from a DB ten times larger than the block cache, on 2 threads, and what open
# tables cost in memory with partitioned index and filters (both engines keep index and filter
# out of the cache: cache_index_and_filter_blocks=false, RocksDB's default).
_CACHE_READ_FLAGS = {"partition_index_and_filters": 1, "threads": 2}


def _cache_steps(num):
    cache = num * ENTRY_BYTES // 10
    return [
        Step(name="fillrandom+waitforcompaction", kind="write",
             benchmarks=("fillrandom", "waitforcompaction"), timed=("fillrandom",),
             flags={"partition_index_and_filters": 1},
             note="cache suite, fill: tables written with partitioned index and filters "
                  "(bloom 10 bits/key), then compactions waited for."),
        _read("readrandom", cache_size=cache, reads=max(num // 20, 1000),
              **_CACHE_READ_FLAGS),
        Step(name="readrandom (8 MiB cache)", kind="read", benchmarks=("readrandom",),
             timed=("readrandom",), existing=True,
             flags=dict(_CACHE_READ_FLAGS, cache_size=8 << 20, reads=max(num // 100, 1000)),
             note="readrandom (8 MiB cache): every table gets opened, so peak RSS minus the "
                  "cache is about what the open tables' readers keep (per GB of data in the "
                  "note)."),
    ]


# Issue 9: loading random-order pairs into a fully compacted DB. ShaleDB's bulk loader and its
# SstFileWriter + IngestExternalFile path beside RocksDB's (bench/rocksdb_ingest_bench.cc),
# RocksDB's fillrandom + full compaction (the bulkload step) and both engines' fillseq.
INGEST_TOOL = "rocksdb_ingest_bench"
INGEST_TARGET_FILE_SIZE = 64 << 20  # RocksDB's default target_file_size_base
INGEST_THREADS = 2  # bulkload_sorted's table-writing threads, on both engines
# The targets: the bulk load takes at most this share of the time of RocksDB's fillrandom + full compaction, and reaches at least this share of ShaleDB's
# fillseq MB/s.
TARGET_TIME_VS_ROCKSDB_BULKLOAD = 0.25
TARGET_MB_VS_FILLSEQ = 0.5
# The steps the targets are computed for; the first is the bulk loader.
TARGET_STEPS = ("bulkload_sorted", "bulkload_external")


def _ingest_step(name, what, rocksdb_threads, shaledb_flags):
    return Step(
        name=name, kind="write", benchmarks=(name,), timed=(name,),
        flags={"target_file_size_base": INGEST_TARGET_FILE_SIZE}, db="ingest",
        rocksdb_tool=INGEST_TOOL, ingest_figures=True,
        engine_flags={"rocksdb": {"threads": rocksdb_threads}, "shaledb": shaledb_flags},
        note=f"{name}: {what} Files are cut at --target_file_size_base="
             f"{INGEST_TARGET_FILE_SIZE} and ingested with move_files into an empty DB. "
             f"RocksDB's side is bench/{INGEST_TOOL}.cc, linked to the librocksdb it was built "
             "against (the header gives its version: the Release 11.8.1 of bench/rocksdb/"
             "build.sh, or Debian's 7.8.3 as a fallback).")


def _ingest_steps(num):
    return [
        dataclasses.replace(_fill("fillseq"), ingest_figures=True),
        _bulkload(ingest_figures=True),
        _ingest_step(
            "bulkload_external",
            "--num pairs in random order (fillrandom's keys, duplicates included), sorted in "
            "memory before the clock starts, duplicates dropped (the last one wins); timed: "
            "SstFileWriter + IngestExternalFile; ops and MB/s count the distinct pairs. One "
            "writer thread on both engines (shale_bench's bulkload_external uses one "
            f"SstFileWriter; {INGEST_TOOL} --threads=1).", 1, {}),
        _ingest_step(
            "bulkload_sorted",
            "the whole load from random-order input: ShaleDB's BulkLoader (Add of --num pairs "
            "in random order, then Finish: sort in runs under its memory budget, spill, merge, "
            f"write on --bulkload_threads={INGEST_THREADS}, ingest); RocksDB, which has no bulk "
            f"loader, does the same in {INGEST_TOOL} --threads={INGEST_THREADS}: generate the "
            "pairs into one buffer in memory (all of them: no memory budget), sort an index of "
            f"them on {INGEST_THREADS} threads, write on {INGEST_THREADS} threads, ingest. ops "
            "and MB/s count the --num pairs given.",
            INGEST_THREADS, {"bulkload_threads": INGEST_THREADS}),
    ]


# Issue 11: merge operators. db_bench's mergerandom and readrandommergerandom with uint64add
# (8-byte operands) on both engines, then ShaleDB's posting-list workload alone: the hottest
# list taken to POSTING_TARGET_IDS ids by merges (Get latency at that size), and both ways of
# adding ids (Merge, read-modify-write) on the same stream up to POSTING_COMPARE_IDS (both
# smaller with a smaller --num, see _merge_steps).
MERGE_VALUE_SIZE = 8
MERGE_KEYS_PER_NUM = 10  # merge_keys = num / 10: ten operands per key on average
POSTING_LISTS = 1000
POSTING_TARGET_IDS = 1_000_000
POSTING_COMPARE_IDS = 20_000
POSTING_TARGET_GETS = 1000
# The targets: merges/s at least this many times read-modify-write's on the same
# stream, and Get of the hottest list at POSTING_TARGET_IDS ids under this P99 (ms).
TARGET_POSTING_SPEEDUP = 5.0
TARGET_POSTING_GET_P99_MS = 5.0
# A Get of a list merges every operand of it still in the memtables, one per add: with the
# suite's 64 MiB write buffers that would be ~100k operands for the hottest list, tens of ms a
# Get. The posting steps bound them as RocksDB users do, with max_successive_merges: the
# 2000th operand on top of a list in the memtable is merged at write time into a value.
POSTING_MAX_SUCCESSIVE_MERGES = 2000
_POSTING_FLAGS = {
    "merge_operator": "sortedset64",
    "posting_lists": POSTING_LISTS,
    "zipf_theta": 0.99,
    "max_successive_merges": POSTING_MAX_SUCCESSIVE_MERGES,
}


def short_count(n):
    """1000000 -> "1M", 20000 -> "20k", 1500 -> "1500"."""
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def _posting_step(name, benchmark, target, gets, note=""):
    return Step(name=name, kind="write", benchmarks=(benchmark,), timed=(benchmark,),
                flags=dict(_POSTING_FLAGS, posting_target_ids=target, posting_target_gets=gets),
                db="posting", shaledb_only=True, posting_figures=True, note=note)


def _merge_steps(num):
    """The merge suite; a --num below the default shrinks the posting targets too (to num ids
    for the hottest list, and num / 50, at least 1000, for the comparison)."""
    merge_flags = {"merge_operator": "uint64add", "value_size": MERGE_VALUE_SIZE,
                   "merge_keys": max(num // MERGE_KEYS_PER_NUM, 1)}
    entry = KEY_SIZE + MERGE_VALUE_SIZE
    full_ids = min(POSTING_TARGET_IDS, num)
    compare_ids = min(POSTING_COMPARE_IDS, max(num // 50, 1000))
    compare = short_count(compare_ids)
    return [
        Step(name="mergerandom", kind="write", benchmarks=("mergerandom",),
             timed=("mergerandom",), flags=dict(merge_flags), entry_bytes=entry,
             note="mergerandom: --num Merge calls with uint64add into --merge_keys keys (num / "
                  f"{MERGE_KEYS_PER_NUM}), each operand an 8-byte generated value as db_bench "
                  f"makes them."),
        Step(name="readrandommergerandom", kind="read", benchmarks=("readrandommergerandom",),
             timed=("readrandommergerandom",), flags=dict(merge_flags), entry_bytes=entry,
             existing=True,
             note="readrandommergerandom: --num operations on mergerandom's DB, 70% Merge and "
                  "30% Get (--mergereadpercent=70) of the same keys; p99 over both."),
        _posting_step(
            f"postinglist (to {short_count(full_ids)} ids)", "postinglist", full_ids,
            POSTING_TARGET_GETS,
            note="postinglist: ShaleDB only (db_bench has no such workload). One writer adds one "
                 f"new id per operation to one of {POSTING_LISTS} lists picked by Zipf (theta "
                 "0.99: list 0, the hottest, gets about 13% of the adds) with Merge(list, "
                 "SortedSet64AddOperand({id})) (--merge_operator=sortedset64), while one reader "
                 "Gets the hottest list back to back; the run ends once the hottest list holds "
                 f"the target and the reader has timed {POSTING_TARGET_GETS} Gets at that size "
                 "(or 10 s after it got there). adds/s = the writer's merges per second over "
                 "the whole run; the Get target reads the top size bucket (at least the "
                 "target). All posting steps run with --max_successive_merges="
                 f"{POSTING_MAX_SUCCESSIVE_MERGES}: a Get merges every operand of its list still "
                 "in the memtables, and the suite's 64 MiB memtables would otherwise hold ~100k "
                 "of the hottest list's."),
        _posting_step(f"postinglist (to {compare} ids)", "postinglist", compare_ids, 0),
        _posting_step(
            f"postinglist_rmw (to {compare} ids)", "postinglist_rmw", compare_ids, 0,
            note="postinglist_rmw: the same lists and ids (same --seed) added by read-modify-"
                 "write (Get, SortedSet64Decode, insert, SortedSet64Value, Put); it and the "
                 f"postinglist step before it stop as the hottest list reaches {compare} ids "
                 "(--posting_target_gets=0), so both do exactly the same adds (RMW's cost grows "
                 "with the lists' sizes: it cannot be taken to 1M ids in minutes)."),
    ]


# Issue 21: the read workloads of the performance issue, on one fully compacted DB per engine
# (fillrandom, then compact), 2 reader threads unless named. "All cached" steps give a cache of
# twice the data and read the keys once before the timed pass (the report's last line of that
# name is the one timed). readwhilewriting comes last: its writer changes the DB.
READS_THREADS = 2
READS_WRITE_RATE = 2 << 20  # readwhilewriting's writer: 2 MiB/s of keys and values


def _reads_steps(num):
    data = num * ENTRY_BYTES
    small = max(data // 10, 8 << 20)
    whole = max(2 * data, 64 << 20)
    two = {"threads": READS_THREADS}

    def warm(name, benchmark, **flags):
        return Step(name=name, kind="read", benchmarks=("readrandom", benchmark),
                    timed=(benchmark,), flags=dict(two, **flags), existing=True,
                    note=f"{name}: a readrandom pass first fills the cache; the {benchmark} "
                         "pass after it is timed.")

    return [
        Step(name="fillrandom+compact", kind="write", benchmarks=("fillrandom", "compact"),
             timed=("fillrandom", "compact"),
             note="fillrandom+compact: the DB every read step reads, fully compacted on both "
                  "engines."),
        Step(name="readrandom (cache 1/10)", kind="read", benchmarks=("readrandom",),
             timed=("readrandom",), flags=dict(two, cache_size=small), existing=True),
        warm("readrandom (all cached)", "readrandom", cache_size=whole),
        warm("readmissing", "readmissing", cache_size=whole),
        warm("multireadrandom (batch 32)", "multireadrandom", cache_size=whole, batch_size=32),
        Step(name="seekrandom (+10 Next)", kind="read", benchmarks=("seekrandom",),
             timed=("seekrandom",), flags=dict(two, cache_size=small, seek_nexts=10,
                                               reads=max(num // 10, 1000)), existing=True),
        _read("readseq", cache_size=small),
        _read("readreverse", cache_size=small),
        Step(name="readwhilewriting", kind="read", benchmarks=("readwhilewriting",),
             timed=("readwhilewriting",),
             flags={"threads": 1, "cache_size": small,
                    "benchmark_write_rate_limit": READS_WRITE_RATE}, existing=True,
             note=f"readwhilewriting: 1 reader and 1 writer held to {READS_WRITE_RATE >> 20} "
                  "MiB/s (--benchmark_write_rate_limit); the figures are the reader's."),
    ]


SUITES = {
    "selftest": (2000, "a tiny check of the script itself (seconds)",
                 lambda num: [_fill("fillseq"), _read("readrandom")]),
    "quick": (1_000_000, "about 2 minutes: 1M keys",
              lambda num: [_fill("fillseq"), _fill("fillrandom"), _read("readrandom"),
                           _read("readseq"), _OVERWRITE]),
    "standard": (20_000_000, "20M keys; readrandom with a block cache of 1/10 of the data",
                 _standard_steps),
    "compaction": (20_000_000, "issue 7: 20M random keys until compacted, then the bulk load",
                   _compaction_steps),
    "cache": (20_000_000, "issue 8: readrandom on 2 threads with a cache of 1/10 of the data, "
                          "and with an 8 MiB cache (peak RSS: what open tables cost)",
              _cache_steps),
    "ingest": (20_000_000, "issue 9: bulk load of 20M random-order pairs (bulk loader, "
                           "SstFileWriter + ingest) beside fillseq, RocksDB's fillrandom + "
                           "compact, and dd", _ingest_steps),
    # Issue 20: run by compare_scale.py (parts, engines one at a time, time series), not by
    # bench/compare's step loop; its steps are compare_scale.steps_for()'s.
    "scale": (250_000_000, "issue 20: 250M random keys x 144 bytes (36 GB), one engine at a "
                           "time: load until compacted, close and open, reads, bulk load "
                           "(hours; --parts, --engines, --num=28000000 for the 4 GB point)",
              lambda num: []),
    "reads": (5_000_000, "issue 21: every read workload (cache 1/10 and all cached, absent "
                         "keys, MultiGet, seek, scans, reads beside a paced writer) on 2 "
                         "threads, on one compacted DB", _reads_steps),
    "merge": (1_000_000, "issue 11: mergerandom and readrandommergerandom (uint64add), then "
                         "ShaleDB's posting-list workload: merges vs read-modify-write and Get "
                         "of a 1M-id list", _merge_steps),
}


def suite_steps(name, num=None):
    """(num, steps) of a named suite; `num` overrides the suite's key count."""
    default_num, _, make = SUITES[name]
    n = num or default_num
    return n, make(n)

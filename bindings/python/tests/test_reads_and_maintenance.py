"""DB.multi_get, DB.approximate_sizes, DB.resume, statistics (enable_statistics=True) and the
options presets (prepare_for_bulk_load, optimize_for_point_lookup, increase_parallelism)."""

import glob
import os
import re
import struct

import pytest

import shale


def u64(n):
    return struct.pack("<Q", n)


def options_file(db_path):
    """The newest OPTIONS file of the DB as {name: value} (the last value of a name wins:
    sections do not repeat names the tests read)."""
    newest = max(glob.glob(os.path.join(db_path, "OPTIONS-*")))
    options = {}
    with open(newest) as f:
        for line in f:
            match = re.match(r"\s+(\w+)=(.*)$", line)
            if match:
                options[match.group(1)] = match.group(2)
    return options


def table_files(db):
    return sum(db.int_property(f"shale.num-files-at-level{level}") or 0 for level in range(7))


# ---------------------------------------------------------------- multi_get


def test_multi_get_in_order_with_missing_keys_and_a_snapshot(db):
    db.put(b"a", b"1")
    db.put(b"b", b"")
    snapshot = db.snapshot()
    db.put(b"a", b"2")
    db.delete(b"b")
    db.put(b"c", b"3")
    keys = [b"c", b"a", b"missing", b"b", b"a"]
    assert db.multi_get(keys) == [b"3", b"2", None, None, b"2"]
    # As of the snapshot: b's empty value is a value, not "absent"; c did not exist yet.
    assert db.multi_get(keys, snapshot=snapshot) == [None, b"1", None, b"", b"1"]
    assert db.multi_get([]) == []
    assert db.multi_get(iter([bytearray(b"a"), memoryview(b"c")])) == [b"2", b"3"]
    with pytest.raises(TypeError, match="key must be bytes"):
        db.multi_get([b"a", "c"])
    snapshot.release()
    with pytest.raises(shale.Error, match="released"):
        db.multi_get([b"a"], snapshot=snapshot)


def test_multi_get_matches_get_across_memtable_and_tables(db):
    for i in range(500):
        db.put(b"k%04d" % i, b"v%d" % i)
    db.flush()
    for i in range(0, 500, 3):
        db.put(b"k%04d" % i, b"new%d" % i)  # in the memtable, over the table
    for i in range(0, 500, 7):
        db.delete(b"k%04d" % i)
    keys = [b"k%04d" % i for i in range(0, 520, 2)]
    assert db.multi_get(keys) == [db.get(key) for key in keys]


def test_multi_get_raises_a_read_error(db_path):
    with shale.DB(db_path, create_if_missing=True) as db:
        for i in range(200):
            db.put(b"k%04d" % i, b"v" * 100)
        db.flush()
    (table,) = glob.glob(os.path.join(db_path, "*.sst"))
    with open(table, "r+b") as f:
        f.seek(100)
        f.write(b"XXXXXXXX")
    with shale.DB(db_path, paranoid_checks=False) as db:
        with pytest.raises(shale.CorruptionError):
            db.multi_get([b"zzz", b"k0000"])


def test_multi_get_on_a_closed_db(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        db.multi_get([b"a"])


# ---------------------------------------------------------------- approximate_sizes


def test_approximate_sizes_count_table_bytes_per_range(db):
    for i in range(2000):
        db.put(b"a%05d" % i, b"x" * 200)
    assert db.approximate_sizes([(b"a", b"b")]) == [0]  # still in the memtable
    db.flush()
    for i in range(200):
        db.put(b"b%05d" % i, b"y" * 200)
    db.flush()
    whole_a, half_a, all_b, empty, reversed_range, everything = db.approximate_sizes(
        [(b"a", b"b"), (b"a", b"a01000"), (b"b", b"c"), (b"c", b"d"), (b"b", b"a"),
         (b"", b"\xff")])
    assert 2000 * 200 * 0.5 < whole_a < 2000 * 200 * 2
    assert 200 * 200 * 0.5 < all_b < 200 * 200 * 2
    assert 0 < half_a < whole_a
    assert empty == 0 and reversed_range == 0
    assert everything >= whole_a + all_b
    assert db.approximate_sizes([]) == []
    with pytest.raises(TypeError, match="limit must be bytes"):
        db.approximate_sizes([(b"a", "b")])


# ---------------------------------------------------------------- resume


class Add(shale.MergeOperator):
    """Decimal counters, with a switch that makes every full merge fail."""

    name = "test.Add"

    def __init__(self):
        self.fail = False

    def full_merge(self, key, existing_value, operands):
        if self.fail:
            return None
        return str(int(existing_value or b"0") + sum(map(int, operands))).encode()


def test_resume_after_a_failed_flush(db_path):
    operator = Add()
    with shale.DB(db_path, create_if_missing=True, merge_operator=operator) as db:
        db.resume()  # no background error: nothing to do
        db.put(b"n", b"5")
        db.merge(b"n", b"1")
        operator.fail = True  # the flush must merge n's operand into its value, and fails
        with pytest.raises(shale.CorruptionError, match="test.Add"):
            db.flush()
        with pytest.raises(shale.CorruptionError):  # writes stop behind the background error
            db.put(b"x", b"1")
        with pytest.raises(shale.CorruptionError):  # the cause is still there
            db.resume()
        operator.fail = False
        db.resume()
        db.put(b"x", b"1")
        assert db.get(b"n") == b"6" and db.get(b"x") == b"1"
        assert table_files(db) >= 1  # resume flushed
    with shale.DB(db_path, merge_operator=Add()) as db:
        assert db.get(b"n") == b"6" and db.get(b"x") == b"1"


def test_resume_on_a_closed_db(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        db.resume()


# ---------------------------------------------------------------- statistics


def ticker(text, name):
    match = re.search(r"^%s COUNT : (\d+)$" % re.escape(name), text, re.MULTILINE)
    assert match, f"{name} not in the statistics"
    return int(match.group(1))


def test_statistics_count_reads(db_path):
    with shale.DB(db_path, create_if_missing=True, enable_statistics=True) as db:
        for i in range(100):
            db.put(b"k%03d" % i, b"v")
        before = ticker(db.statistics(), "shale.number.keys.read")
        for i in range(30):
            db.get(b"k%03d" % i)
        db.multi_get([b"k000", b"k001", b"missing"])
        text = db.statistics()
        assert ticker(text, "shale.number.keys.read") == before + 33
        assert ticker(text, "shale.number.keys.written") == 100
        assert "P50" in text or "P99" in text  # the histograms follow the tickers
    assert ticker(db.statistics(), "shale.number.keys.written") == 100  # after close


def test_statistics_off_by_default(db):
    assert db.statistics() is None


# ---------------------------------------------------------------- presets


def test_presets_apply_before_the_named_options(db_path):
    with shale.DB(db_path, create_if_missing=True, prepare_for_bulk_load=True,
                  optimize_for_point_lookup=16, increase_parallelism=3,
                  write_buffer_size="1M") as db:
        db.put(b"k", b"v")
    options = options_file(db_path)
    # prepare_for_bulk_load
    assert options["disable_auto_compactions"] == "true"
    assert options["num_levels"] == "2"
    assert options["max_write_buffer_number"] == "6"
    assert options["write_buffer_size"] == str(1 << 20)  # the named option wins
    # optimize_for_point_lookup
    assert options["data_block_index_type"] == "kDataBlockBinaryAndHash"
    assert options["filter_policy"].startswith("bloomfilter:10")
    assert options["block_cache"] == str(16 << 20)
    # increase_parallelism comes after the bulk-load preset's 6 jobs
    assert options["max_background_jobs"] == "3"


def test_prepare_for_bulk_load_then_compact(db_path):
    with shale.DB(db_path, create_if_missing=True, prepare_for_bulk_load=True) as db:
        for batch in range(3):
            for i in range(300):
                db.put(b"k%05d" % (i * 3 + batch), b"v" * 50)
            db.flush()
        # The first flush, overlapping nothing, goes straight to the bottom level; the others
        # stay in L0: nothing compacts by itself.
        assert db.int_property("shale.num-files-at-level0") == 2
        assert db.int_property("shale.num-files-at-level1") == 1
        db.compact_range()
        assert db.int_property("shale.num-files-at-level0") == 0
        assert db.int_property("shale.num-files-at-level1") >= 1
        assert db.get(b"k00004") == b"v" * 50


def test_compaction_debt_properties_and_stats_dump(db_path):
    # stats_dump_period_sec goes through the options string like any option; the debt figures
    # and RocksDB's names of the properties come through int_property.
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True,
                  level0_file_num_compaction_trigger=2, stats_dump_period_sec=1) as db:
        for batch in range(4):
            for i in range(300):
                db.put(b"k%05d" % i, b"v" * 50)
            db.flush()
        pending = db.int_property("rocksdb.estimate-pending-compaction-bytes")
        assert pending == db.int_property("shale.estimate-pending-compaction-bytes") > 0
        assert db.int_property("shale.compaction-rate") > 0  # the flush rate, until compactions
        assert db.int_property("shale.estimate-compaction-seconds-left") >= 1
        assert "Compaction debt:" in db.property("shale.stats")
        db.compact_range()
        assert db.int_property("shale.estimate-compaction-seconds-left") == 0
    with pytest.raises(shale.InvalidArgumentError, match="stats_dump_period_sec"):
        shale.DB(db_path, stats_dump_period_sec=-1)


def test_preset_argument_errors(db_path):
    with pytest.raises(TypeError, match="increase_parallelism must be an int"):
        shale.DB(db_path, create_if_missing=True, increase_parallelism="8")
    with pytest.raises(ValueError, match="increase_parallelism must be >= 1"):
        shale.DB(db_path, create_if_missing=True, increase_parallelism=0)
    with pytest.raises(ValueError, match="optimize_for_point_lookup must be >= 0"):
        shale.DB(db_path, create_if_missing=True, optimize_for_point_lookup=-1)
    with pytest.raises(ValueError, match="optimize_for_point_lookup=8 would replace"):
        shale.DB(db_path, create_if_missing=True, block_cache=shale.Cache(1 << 20),
                 optimize_for_point_lookup=8)
    with pytest.raises(TypeError, match="block_cache must be a shale.Cache"):
        shale.DB(db_path, create_if_missing=True, block_cache=8 << 20)
    with pytest.raises(shale.InvalidArgumentError, match="max_background_jobs"):
        shale.DB(db_path, create_if_missing=True, increase_parallelism=1 << 20)
    assert not os.path.exists(os.path.join(db_path, "CURRENT"))


# ---------------------------------------------------------------- flush_wal, file deletions


def test_flush_wal_with_and_without_sync(db):
    db.put(b"k", b"v")
    db.flush_wal()
    db.flush_wal(sync=False)
    assert db.get(b"k") == b"v"


def test_obsolete_files_stay_while_file_deletions_are_disabled(db, db_path):
    def sst_on_disk():
        return len(glob.glob(os.path.join(db_path, "*.sst")))

    db.disable_file_deletions()
    db.disable_file_deletions()  # nested
    for round_ in range(3):
        for i in range(50):
            db.put(b"k%02d" % i, b"%d" % round_)
        db.flush()
    db.compact_range()
    assert sst_on_disk() > table_files(db)
    db.enable_file_deletions()  # one of two: still disabled
    assert sst_on_disk() > table_files(db)
    db.enable_file_deletions()
    assert sst_on_disk() == table_files(db)
    db.disable_file_deletions()
    db.enable_file_deletions(force=True)
    assert db.get(b"k07") == b"2"


def test_delete_files_in_range_drops_whole_files_below_l0(db, db_path):
    for i in range(100):
        db.put(b"k%03d" % i, b"v" * 100)
    db.flush()
    db.compact_range(bottommost_level_compaction="force")
    assert table_files(db) >= 1
    db.delete_files_in_range(b"k010", b"k020")  # no file wholly inside: nothing dropped
    assert db.get(b"k015") == b"v" * 100
    db.put(b"in-memtable", b"1")
    db.delete_files_in_range()
    assert table_files(db) == 0
    assert glob.glob(os.path.join(db_path, "*.sst")) == []
    assert db.get(b"k015") is None
    assert db.get(b"in-memtable") == b"1"

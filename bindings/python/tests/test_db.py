"""The shale.DB API over the C ABI: every method, its errors, and a randomized run against a
dict model."""

import glob
import os
import random
import time

import pytest

import shale


def test_put_get_delete_bytes_in_and_out(db):
    db.put(b"k", b"v1")
    db.put(bytearray(b"k"), memoryview(b"v2"))  # bytes-like in, bytes out
    value = db.get(b"k")
    assert value == b"v2" and type(value) is bytes
    assert db.get(b"absent") is None
    assert db.get(b"absent", b"default") == b"default"
    db.put(b"empty", b"")
    assert db.get(b"empty") == b""  # an empty value is not "absent"
    db.put(b"a\x00b", b"\x00\xff\x00")
    assert db.get(b"a\x00b") == b"\x00\xff\x00"
    assert db.get(b"a") is None
    db.delete(b"k")
    assert db.get(b"k") is None
    db.delete(b"never-there")


def test_latest_sequence_number_counts_records(db):
    start = db.latest_sequence_number()
    db.put(b"a", b"1")
    assert db.latest_sequence_number() == start + 1
    batch = shale.WriteBatch()
    batch.put(b"b", b"2")
    batch.delete(b"a")
    db.write(batch)
    assert db.latest_sequence_number() == start + 3  # one per record of the batch


def test_text_is_not_accepted(db):
    with pytest.raises(TypeError, match="key must be bytes"):
        db.put("k", b"v")
    with pytest.raises(TypeError, match="value must be bytes"):
        db.put(b"k", "v")
    with pytest.raises(TypeError):
        db.get("k")


def test_write_options_and_reopen(db_path):
    with shale.DB(db_path, create_if_missing=True) as db:
        db.put(b"synced", b"1", sync=True)
        db.put(b"no-wal", b"2", disable_wal=True)
        db.delete_range(b"a", b"b", sync=True)
    with shale.DB(db_path) as db:
        assert db.get(b"synced") == b"1"
        assert db.get(b"no-wal") == b"2"


def test_size_limits(db):
    """A key at shale.MAX_KEY_SIZE round-trips; one byte more is refused, writing nothing."""
    at = b"k" * shale.MAX_KEY_SIZE
    db.put(at, b"v")
    assert db.get(at) == b"v"
    seq = db.latest_sequence_number()
    over = at + b"k"
    with pytest.raises(shale.InvalidArgumentError, match="too large"):
        db.put(over, b"v")
    with pytest.raises(shale.InvalidArgumentError, match="too large"):
        db.delete(over)
    with pytest.raises(shale.InvalidArgumentError, match="too large"):
        db.delete_range(b"a", over)
    batch = shale.WriteBatch()
    batch.put(b"fine", b"1")
    batch.put(over, b"v")
    with pytest.raises(shale.InvalidArgumentError, match="too large"):
        db.write(batch)
    assert db.latest_sequence_number() == seq
    assert db.get(b"fine") is None and db.get(over) is None


def test_delete_range(db):
    for k in (b"c1", b"c2", b"c3", b"c4"):
        db.put(k, b"v")
    db.delete_range(b"c2", b"c4")
    assert [k for k, _ in db.iterator()] == [b"c1", b"c4"]
    with pytest.raises(shale.InvalidArgumentError):
        db.delete_range(b"z", b"a")


def test_write_batch_is_atomic_and_reusable(db):
    db.put(b"old", b"x")
    batch = shale.WriteBatch()
    assert len(batch) == 0
    batch.put(b"k1", b"v1")
    batch.put(b"k2", b"v2")
    batch.delete(b"old")
    batch.delete_range(b"k2", b"k3")
    assert len(batch) == 4
    assert db.get(b"k1") is None
    db.write(batch)
    assert db.get(b"k1") == b"v1"
    assert db.get(b"k2") is None
    assert db.get(b"old") is None
    batch.clear()
    assert len(batch) == 0
    batch.put(b"k3", b"v3")
    db.write(batch, sync=True)
    assert db.get(b"k3") == b"v3"
    with pytest.raises(TypeError):
        db.write([(b"k", b"v")])


def test_iterator_order_bounds_and_seeks(db):
    keys = [b"a", b"b", b"c", b"d", b"e"]
    for k in keys:
        db.put(k, k.upper())
    assert list(db.iterator()) == [(k, k.upper()) for k in keys]
    assert [k for k, _ in db.iterator(reverse=True)] == keys[::-1]
    assert [k for k, _ in db.iterator(lower_bound=b"b", upper_bound=b"d")] == [b"b", b"c"]

    it = db.iterator()
    assert not it.valid()
    it.seek(b"bb")
    assert it.key() == b"c" and it.value() == b"C"
    assert [k for k, _ in it] == [b"c", b"d", b"e"]  # from the key sought
    it.seek_for_prev(b"bb")
    assert it.key() == b"b"
    it.prev()
    assert it.key() == b"a"
    it.prev()
    assert not it.valid()
    with pytest.raises(shale.Error, match="not at a key"):
        it.key()
    it.check_error()
    it.seek_to_last()
    assert it.key() == b"e"
    it.next()
    assert not it.valid()
    it.seek_to_first()
    assert it.key() == b"a"
    it.close()
    with pytest.raises(shale.Error, match="closed"):
        it.seek_to_first()


def test_snapshot_isolation(db):
    db.put(b"a", b"1")
    db.put(b"b", b"1")
    with db.snapshot() as snap:
        db.put(b"a", b"2")
        db.delete(b"b")
        db.put(b"c", b"1")
        assert db.get(b"a", snapshot=snap) == b"1"
        assert db.get(b"b", snapshot=snap) == b"1"
        assert db.get(b"c", snapshot=snap) is None
        it = db.iterator(snapshot=snap)
        assert list(it) == [(b"a", b"1"), (b"b", b"1")]
    # Releasing the snapshot closed its iterator.
    with pytest.raises(shale.Error, match="closed"):
        it.seek_to_first()
    with pytest.raises(shale.Error, match="released"):
        db.get(b"a", snapshot=snap)
    assert db.get(b"a") == b"2"


def test_snapshot_of_another_db_is_rejected(tmp_path, db):
    with shale.DB(str(tmp_path / "other"), create_if_missing=True) as other:
        with other.snapshot() as snap:
            with pytest.raises(ValueError):
                db.get(b"a", snapshot=snap)


def test_close_closes_iterators_and_snapshots(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    db.put(b"a", b"1")
    it = db.iterator()
    snap = db.snapshot()
    db.close()
    assert db.closed
    db.close()  # idempotent
    with pytest.raises(shale.Error, match="closed"):
        db.get(b"a")
    with pytest.raises(shale.Error, match="closed"):
        it.seek_to_first()
    snap.release()  # already released: a no-op
    with shale.DB(db_path) as again:  # the LOCK was released
        assert again.get(b"a") == b"1"


def test_open_errors_carry_the_engine_message(db_path):
    with pytest.raises(shale.InvalidArgumentError, match="does not exist"):
        shale.DB(db_path)
    with shale.DB(db_path, create_if_missing=True):
        with pytest.raises(shale.IOError, match="LOCK") as e:
            shale.DB(db_path)
        assert isinstance(e.value, OSError) and isinstance(e.value, shale.Error)
        with pytest.raises(shale.IOError):
            shale.destroy_db(db_path)
    with pytest.raises(shale.InvalidArgumentError, match="exists"):
        shale.DB(db_path, error_if_exists=True)


def test_options_are_parsed_by_the_engine(tmp_path):
    path = str(tmp_path / "db")
    with pytest.raises(shale.InvalidArgumentError, match="no_such_option"):
        shale.DB(path, create_if_missing=True, no_such_option=1)
    with pytest.raises(shale.InvalidArgumentError, match="target_file_size_base") as e:
        shale.DB(path, create_if_missing=True, target_file_size_base=0)
    assert e.value.message == str(e.value) and e.value.message.startswith("Invalid argument")
    with pytest.raises(shale.InvalidArgumentError, match="use_fsync: not supported yet"):
        shale.DB(path, create_if_missing=True, use_fsync=True)
    with pytest.raises(shale.InvalidArgumentError, match="ttl"):
        shale.DB(path, create_if_missing=True, ttl=60,
                 compaction_style="kCompactionStyleUniversal")  # only level and FIFO
    for style in ("kCompactionStyleUniversal", "kCompactionStyleFIFO", "kCompactionStyleNone"):
        with shale.DB(path, create_if_missing=True, compaction_style=style) as db:
            db.put(b"k", b"v")
            assert db.get(b"k") == b"v"
        shale.destroy_db(path)
    with pytest.raises(shale.InvalidArgumentError, match="block_size"):
        shale.DB(path, create_if_missing=True, block_based_table_factory={"block_size": 0})
    table = {"block_size": "1K", "filter_policy": "bloomfilter:10:false",
             "index_type": "kTwoLevelIndexSearch", "partition_filters": True}
    with shale.DB(path, create_if_missing=True, paranoid_checks=False, compression="kZSTD",
                  write_buffer_size="4M", block_based_table_factory=table) as db:
        for i in range(500):
            db.put(b"k%04d" % i, b"v" * 50)
        db.flush()
        assert db.get(b"k0123") == b"v" * 50
        assert db.get(b"k9999") is None
    shale.destroy_db(path)
    # The block cache and where index and filter live are table options too.
    table = {"block_cache": "2M", "cache_index_and_filter_blocks": True,
             "index_type": "kTwoLevelIndexSearch", "pin_top_level_index_and_filter": True}
    with shale.DB(path, create_if_missing=True, block_based_table_factory=table) as db:
        for i in range(500):
            db.put(b"k%04d" % i, b"v" * 50)
        db.flush()
        assert db.get(b"k0123") == b"v" * 50
        assert db.int_property("shale.block-cache-capacity") == 2 << 20
        assert db.int_property("shale.block-cache-pinned-usage") > 0
        assert db.int_property("shale.memory-usage") >= db.int_property(
            "shale.block-cache-usage")
    with pytest.raises(shale.InvalidArgumentError, match="no_block_cache"):
        shale.DB(path, block_based_table_factory={"block_cache": "1M", "no_block_cache": True})


def test_flush_compact_and_properties(db):
    assert db.int_property("shale.num-files-at-level0") == 0
    for round_ in range(2):
        for i in range(300):
            db.put(b"k%04d" % i, b"%d" % round_)
        db.flush(wait=round_ == 0)
        db.flush()
    assert db.int_property("shale.estimate-num-keys") > 0
    assert db.property("shale.num-files-at-level0") == str(
        db.int_property("shale.num-files-at-level0"))
    assert "malloc" in db.property("shale.memtable-allocator")
    assert db.property("shale.stats")
    assert db.property("shale.no-such-property") is None
    assert db.int_property("shale.no-such-property") is None
    assert db.int_property("shale.stats") is None
    db.compact_range(b"k0100", b"k0200")
    db.compact_range()
    assert db.int_property("shale.num-files-at-level0") == 0
    assert db.get(b"k0000") == b"1"
    assert len(list(db.iterator())) == 300


def _put_overlapping_tables(db, tables, keys=300):
    """`tables` flushes of the same keys; the value of each key is the last table's number."""
    for table in range(tables):
        for i in range(keys):
            db.put(b"k%04d" % i, b"%d" % table)
        db.flush()


def test_compact_range_empties_l0_with_auto_compactions_off(db_path):
    # Two levels: the first flush goes to L1, the next ones overlap it and stay in L0.
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True, num_levels=2,
                  level0_file_num_compaction_trigger=2) as db:
        _put_overlapping_tables(db, 5)
        assert db.property("shale.num-files-at-level0") == "4"
        assert db.int_property("shale.num-running-compactions") == 0
        assert db.int_property("shale.is-write-stopped") == 0
        assert db.int_property("shale.compaction-pending") == 0  # due, but switched off
        db.compact_range()
        assert db.property("shale.num-files-at-level0") == "0"
        assert db.int_property("shale.num-files-at-level1") >= 1
        assert db.get(b"k0000") == b"4" and db.get(b"k0299") == b"4"
        assert len(list(db.iterator())) == 300


def test_compact_range_options(db_path):
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True) as db:
        _put_overlapping_tables(db, 1)
        assert db.int_property("shale.num-files-at-level6") == 1  # an empty DB: the bottom
        db.compact_range(b"k0000", b"k9999", change_level=True, target_level=2,
                         bottommost_level_compaction="force", exclusive=False)
        assert db.int_property("shale.num-files-at-level6") == 0
        assert db.int_property("shale.num-files-at-level2") >= 1
        # A target level past num_levels: the engine refuses, nothing moves, no exception
        # (RocksDB's C API reports no error here).
        db.compact_range(change_level=True, target_level=7, bottommost_level_compaction="force")
        assert db.int_property("shale.num-files-at-level2") >= 1
        assert db.get(b"k0100") == b"0"
        with pytest.raises(ValueError, match="bottommost_level_compaction"):
            db.compact_range(bottommost_level_compaction="always")


def test_set_options(db_path):
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True, num_levels=2,
                  level0_file_num_compaction_trigger=2) as db:
        _put_overlapping_tables(db, 3)
        assert db.int_property("shale.num-files-at-level0") == 2
        db.set_options({"disable_auto_compactions": "false"})
        # What is due is scheduled at once: the background compaction merges L0 into L1.
        deadline = time.monotonic() + 10
        while (db.int_property("shale.num-files-at-level0") != 0
               and time.monotonic() < deadline):
            time.sleep(0.01)
        assert db.int_property("shale.num-files-at-level0") == 0
        db.set_options({"disable_auto_compactions": True, "write_buffer_size": "8M"})
        _put_overlapping_tables(db, 3)
        assert db.int_property("shale.num-files-at-level0") == 3
        with pytest.raises(shale.InvalidArgumentError, match="no_such_option"):
            db.set_options({"no_such_option": "1"})
        with pytest.raises(shale.InvalidArgumentError, match="compaction_style"):
            db.set_options({"compaction_style": "kCompactionStyleUniversal"})  # not dynamic
        with pytest.raises(shale.InvalidArgumentError, match="write_buffer_size"):
            db.set_options({"write_buffer_size": "lots"})
        with pytest.raises(TypeError):
            db.set_options([("write_buffer_size", "8M")])
        assert db.get(b"k0001") == b"2"
    with pytest.raises(shale.Error, match="closed"):
        db.set_options({"write_buffer_size": "8M"})


def test_destroy_db(db_path):
    with shale.DB(db_path, create_if_missing=True) as db:
        db.put(b"a", b"1")
    shale.destroy_db(db_path)
    with pytest.raises(shale.InvalidArgumentError):
        shale.DB(db_path)


def test_repair_db(db_path):
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families=["a"]) as db:
        db.put(b"flushed", b"1")
        db.flush()
        db.put(b"k", b"in-wal", cf=db.get_column_family("a"))
        with pytest.raises(shale.IOError, match="LOCK"):
            shale.repair_db(db_path)
    os.remove(os.path.join(db_path, "CURRENT"))
    with pytest.raises(shale.Error):
        shale.DB(db_path, column_families=["a"])
    shale.repair_db(db_path)
    with shale.DB(db_path, column_families=["a"]) as db:
        assert db.get(b"flushed") == b"1"
        assert db.get(b"k", cf=db.get_column_family("a")) == b"in-wal"
    missing = os.path.join(db_path, "missing")
    with pytest.raises(shale.Error, match="missing"):
        shale.repair_db(missing)
    assert not os.path.exists(missing)


def test_corruption_reaches_python(db_path):
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
            db.get(b"k0000")
        with pytest.raises(shale.CorruptionError):
            list(db.iterator())


def test_iteration_stops_at_a_read_error_before_any_stale_entry(db_path):
    # Old values of every key at the bottom; newer values of the even keys and deletions of the
    # odd ones in an L0 table; then the bottom table's first data block is damaged. A scan in
    # either direction must raise before it yields an entry that is not the DB's: never an old
    # value or a deleted key (issue 19, finding 12: a reverse scan yielded one, then raised).
    table_options = {"block_size": "256", "no_block_cache": True}
    with shale.DB(db_path, create_if_missing=True, compression="kNoCompression",
                  disable_auto_compactions=True,
                  block_based_table_factory=table_options) as db:
        for i in range(100):
            db.put(b"k%04d" % i, b"old%04d" % i)
        db.compact_range()
        bottom = set(glob.glob(os.path.join(db_path, "*.sst")))
        model = {}
        for i in range(100):
            if i % 2:
                db.delete(b"k%04d" % i)
            else:
                db.put(b"k%04d" % i, b"new%04d" % i)
                model[b"k%04d" % i] = b"new%04d" % i
        db.flush()
    (table,) = bottom
    with open(table, "r+b") as f:
        f.seek(10)  # inside the first data block: its checksum no longer matches
        f.write(b"XXXX")
    with shale.DB(db_path, paranoid_checks=False,
                  block_based_table_factory=table_options) as db:
        for reverse in (True, False):
            expected = sorted(model.items(), reverse=reverse)
            seen = []
            with pytest.raises(shale.CorruptionError):
                for entry in db.iterator(reverse=reverse):
                    seen.append(entry)
            assert seen == expected[:len(seen)]
            if reverse:
                assert seen  # the damaged block is the first: a backward scan gets far
        # The same through the explicit calls: never valid() together with an error.
        it = db.iterator()
        it.seek_to_last()
        while it.valid():
            it.check_error()
            assert model[it.key()] == it.value()
            it.prev()
        with pytest.raises(shale.CorruptionError):
            it.check_error()
        it.close()


def test_random_operations_match_a_dict(db_path):
    rng = random.Random(5)
    model = {}
    db = shale.DB(db_path, create_if_missing=True, write_buffer_size=4 << 20)
    try:
        for step in range(3000):
            key = b"key%02d" % rng.randrange(40)
            op = rng.randrange(100)
            if op < 50:
                value = b"v%d" % step
                db.put(key, value)
                model[key] = value
            elif op < 65:
                db.delete(key)
                model.pop(key, None)
            elif op < 70:
                end = b"key%02d" % (int(key[3:]) + rng.randrange(5))
                db.delete_range(key, end)
                for k in [k for k in model if key <= k < end]:
                    del model[k]
            elif op < 80:
                batch = shale.WriteBatch()
                for _ in range(rng.randrange(1, 5)):
                    k = b"key%02d" % rng.randrange(40)
                    if rng.randrange(3):
                        batch.put(k, b"b%d" % step)
                        model[k] = b"b%d" % step
                    else:
                        batch.delete(k)
                        model.pop(k, None)
                db.write(batch)
            elif op < 97:
                assert db.get(key) == model.get(key)
            elif op < 99:
                db.flush(wait=bool(rng.randrange(2)))
            else:
                db.close()
                db = shale.DB(db_path)
            if step % 500 == 0:
                assert list(db.iterator()) == sorted(model.items())
        assert list(db.iterator()) == sorted(model.items())
        assert list(db.iterator(reverse=True)) == sorted(model.items(), reverse=True)
    finally:
        db.close()


def test_single_delete(db):
    db.put(b"once", b"v")
    db.single_delete(b"once")
    assert db.get(b"once") is None


def test_column_family_db_options_are_keywords_and_reach_the_options_file(tmp_path):
    # create_missing_column_families, max_total_wal_size and atomic_flush (issue 23) go through
    # the options string like any option; the OPTIONS file the DB writes records them in
    # [DBOptions].
    path = str(tmp_path / "cf_db_options")
    with shale.DB(path, create_if_missing=True, create_missing_column_families=True,
                  max_total_wal_size="64M", atomic_flush=True) as db:
        db.put(b"k", b"v")
        assert db.get(b"k") == b"v"
    [options_file] = sorted(glob.glob(os.path.join(path, "OPTIONS-*")))[-1:]
    with open(options_file) as f:
        text = f.read()
    db_section = text[text.index("[DBOptions]"):text.index("[CFOptions")]
    for line in ("create_missing_column_families=true", f"max_total_wal_size={64 << 20}",
                 "atomic_flush=true"):
        assert f"  {line}\n" in db_section
    with pytest.raises(shale.InvalidArgumentError, match="max_total_wal_size"):
        shale.DB(path, max_total_wal_size="lots")

"""shale.Cache: a block cache shared by DBs (DB(..., block_cache=cache)), its accessors and
its lifetime."""

import gc
import glob
import os

import pytest

import shale


def fill(db, prefix, count=2000):
    for i in range(count):
        db.put(prefix + b"%05d" % i, b"x" * 100)
    db.flush()


def read_all(db, prefix, count=2000):
    for i in range(count):
        assert db.get(prefix + b"%05d" % i) == b"x" * 100


def test_two_dbs_share_one_cache(tmp_path):
    cache = shale.Cache(5 << 20)
    assert (cache.capacity, cache.usage, cache.pinned_usage, cache.occupancy_count) == \
        (5 << 20, 0, 0, 0)
    with shale.DB(str(tmp_path / "a"), create_if_missing=True, block_cache=cache) as a, \
            shale.DB(str(tmp_path / "b"), create_if_missing=True, block_cache=cache,
                     block_based_table_factory={"block_size": "2K"}) as b:
        fill(a, b"a")
        fill(b, b"b")
        read_all(a, b"a")
        after_a = cache.usage
        assert after_a > 100 * 1000  # most of a's ~200 KB of blocks
        read_all(b, b"b")
        assert cache.usage > after_a + 100 * 1000  # b's blocks land in the same cache
        assert cache.occupancy_count > 0
        assert cache.pinned_usage <= cache.usage
        # Both DBs report the shared cache (DB properties), not an 8 MiB cache of their own.
        for db in (a, b):
            assert db.int_property("shale.block-cache-capacity") == 5 << 20
            assert db.int_property("shale.block-cache-usage") == cache.usage


def test_named_table_options_apply_with_the_cache(tmp_path):
    cache = shale.Cache(4 << 20)
    path = str(tmp_path / "db")
    with shale.DB(path, create_if_missing=True, block_cache=cache,
                  block_based_table_factory={"block_size": "2K",
                                             "filter_policy": "bloomfilter:10"}) as db:
        fill(db, b"k")
        read_all(db, b"k", 100)
        assert cache.usage > 0
    with open(max(glob.glob(os.path.join(path, "OPTIONS-*")))) as f:
        options = f.read()
    assert "block_size=2048" in options and "bloomfilter:10" in options
    assert f"block_cache={4 << 20}" in options


def test_set_capacity_evicts(tmp_path):
    cache = shale.Cache(8 << 20)
    with shale.DB(str(tmp_path / "db"), create_if_missing=True, block_cache=cache) as db:
        fill(db, b"k")
        read_all(db, b"k")
        assert cache.usage > 100 * 1000
        cache.set_capacity(16 << 10)
        assert cache.capacity == 16 << 10
        assert cache.usage <= 16 << 10  # nothing is in use between reads
        read_all(db, b"k", 50)
        cache.set_capacity(0)
        # What is left is the open table's reader memory, charged while the table is open
        # (charge_table_reader_memory, on by default).
        assert cache.usage == cache.pinned_usage == db.int_property(
            "shale.estimate-table-readers-mem")


def test_open_tables_are_charged_to_the_cache_unless_told_not_to(tmp_path):
    for charge in (True, False):
        cache = shale.Cache(1 << 20)
        with shale.DB(str(tmp_path / str(charge)), create_if_missing=True, block_cache=cache,
                      block_based_table_factory={"filter_policy": "bloomfilter:10",
                                                 "charge_table_reader_memory": charge}) as db:
            for part in range(3):
                fill(db, b"k%d" % part)
            for part in range(3):
                read_all(db, b"k%d" % part)
            readers = db.int_property("shale.estimate-table-readers-mem")
            assert readers > 3 * 2000 * 10 // 8  # three tables' filters at least
            assert cache.pinned_usage == (readers if charge else 0)
            assert cache.usage <= 1 << 20


def test_the_db_keeps_the_cache_after_its_handle_is_gone(tmp_path):
    cache = shale.Cache(4 << 20)
    with shale.DB(str(tmp_path / "db"), create_if_missing=True, block_cache=cache) as db:
        assert db.block_cache is cache
        cache.close()
        cache.close()  # idempotent
        with pytest.raises(shale.Error, match="Cache is closed"):
            cache.usage
        del cache
        gc.collect()
        fill(db, b"k")
        read_all(db, b"k")  # the engine's cache is alive: the DB holds its share
        assert db.int_property("shale.block-cache-usage") > 0
        with pytest.raises(shale.Error, match="Cache is closed"):
            shale.DB(str(tmp_path / "other"), create_if_missing=True,
                     block_cache=db.block_cache)


def test_strict_capacity_limit_and_options(tmp_path):
    with shale.Cache(64 << 10, num_shard_bits=0, strict_capacity_limit=True,
                     high_pri_pool_ratio=0.0) as cache:
        with shale.DB(str(tmp_path / "db"), create_if_missing=True, block_cache=cache) as db:
            fill(db, b"k")
            read_all(db, b"k")  # reads work past the limit, uncached
            assert cache.usage <= 64 << 10
        assert "capacity=65536" in repr(cache)
    assert repr(cache) == "<shale.Cache (closed)>"


def test_cache_argument_errors():
    with pytest.raises(ValueError, match="capacity must be >= 0"):
        shale.Cache(-1)
    with pytest.raises(TypeError, match="capacity must be an int"):
        shale.Cache("8M")
    with pytest.raises(ValueError, match="num_shard_bits"):
        shale.Cache(1 << 20, num_shard_bits=20)
    with pytest.raises(ValueError, match="high_pri_pool_ratio"):
        shale.Cache(1 << 20, high_pri_pool_ratio=1.5)
    cache = shale.Cache(0)
    assert cache.capacity == 0
    with pytest.raises(ValueError, match="capacity must be >= 0"):
        cache.set_capacity(-5)

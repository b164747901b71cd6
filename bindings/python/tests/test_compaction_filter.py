"""shale.CompactionFilter: a filter written in Python removes and rewrites values during
compactions (never flushes), for the DB's column families too; an exception keeps the entry;
the filter's C handle lives until the DB is closed."""

import threading

import pytest

import shale


class PrefixFilter(shale.CompactionFilter):
    name = "test.PrefixFilter"

    def __init__(self):
        self.calls = 0
        self.lock = threading.Lock()

    def filter(self, level, key, value):
        with self.lock:
            self.calls += 1
        if key.startswith(b"del"):
            return True
        if key.startswith(b"chg"):
            return value + b"+f"
        if key.startswith(b"boom"):
            raise RuntimeError("boom")
        return None


def test_filter_removes_and_changes_in_compactions(db_path):
    f = PrefixFilter()
    with shale.DB(db_path, create_if_missing=True, compaction_filter=f) as db:
        db.put(b"del1", b"a")
        db.put(b"chg1", b"b")
        db.put(b"keep1", b"c")
        db.put(b"boom1", b"d")
        db.flush()
        assert f.calls == 0  # flushes do not filter
        assert db.get(b"del1") == b"a"
        db.compact_range()
        assert f.calls == 4
        assert db.get(b"del1") is None
        assert db.get(b"chg1") == b"b+f"
        assert db.get(b"keep1") == b"c"
        assert db.get(b"boom1") == b"d"  # an exception keeps the entry
    with shale.DB(db_path) as db:  # removed and changed for good
        assert db.get(b"del1") is None
        assert db.get(b"chg1") == b"b+f"


def test_filter_applies_to_column_families(db_path):
    f = PrefixFilter()
    with shale.DB(db_path, create_if_missing=True, compaction_filter=f) as db:
        cf = db.create_column_family("other")
        db.put(b"del1", b"a", cf=cf)
        db.compact_range(cf=cf)
        assert db.get(b"del1", cf=cf) is None


def test_bad_compaction_filter_argument(db_path):
    with pytest.raises(TypeError, match="compaction_filter"):
        shale.DB(db_path, create_if_missing=True, compaction_filter=42)


def test_changed_values_survive_background_compactions(db_path):
    """Automatic compactions run on the engine's own threads (not Python threads): the buffers
    of changed values must outlive the callback until the engine copies them (a per-thread
    Python local was cleared at every return, so the engine copied freed memory)."""
    import time

    class Rewrite(shale.CompactionFilter):
        name = "test.Rewrite"

        def __init__(self):
            self.calls = 0
            self.lock = threading.Lock()

        def filter(self, level, key, value):
            with self.lock:
                self.calls += 1
            return key * 200  # a large new value, different for every key

    f = Rewrite()
    with shale.DB(db_path, create_if_missing=True, compaction_filter=f,
                  level0_file_num_compaction_trigger=2) as db:
        keys = [b"k%05d" % i for i in range(2000)]
        for round_ in range(3):
            for k in keys:
                db.put(k, b"v%d" % round_)
            db.flush()
        deadline = time.time() + 30
        while time.time() < deadline:
            if f.calls > 0 and db.int_property("rocksdb.num-running-compactions") == 0 \
                    and db.int_property("shale.compaction-pending") == 0:
                break
            time.sleep(0.05)
        assert f.calls > 0, "no automatic compaction ran"
        for k in keys:
            v = db.get(k)
            assert v in (k * 200, b"v2"), (k, v[:40])
        assert sum(1 for k in keys if db.get(k) == k * 200) > 0

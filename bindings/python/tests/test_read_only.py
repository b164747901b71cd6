"""Read-only opens through the binding: DB(path, read_only=True) beside a writer that holds the
DB, writes refused with NotSupportedError, a missing DB, error_if_wal_file_exists, and a
subset of the column families."""

import os

import pytest

import shale


def _listing(path):
    """Every file of the directory with its size and mtime; for the writer's info LOG, which
    its background work may append to at any time, only the name (a read-only open that
    started its own LOG would show as a new LOG.old.* name)."""
    out = {}
    for name in os.listdir(path):
        st = os.stat(os.path.join(path, name))
        out[name] = None if name == "LOG" else (st.st_size, st.st_mtime_ns)
    return out


def test_read_only_beside_a_writer(db_path):
    with shale.DB(db_path, create_if_missing=True) as writer:
        writer.put(b"flushed", b"1")
        writer.flush()
        writer.put(b"in-wal", b"2")
        before = _listing(db_path)
        with shale.DB(db_path, read_only=True) as reader:
            assert reader.get(b"flushed") == b"1"
            assert reader.get(b"in-wal") == b"2"
            assert [key for key, _ in reader.iterator()] == [b"flushed", b"in-wal"]
            with pytest.raises(shale.NotSupportedError, match="read only mode"):
                reader.put(b"k", b"v")
            with pytest.raises(shale.NotSupportedError, match="read only mode"):
                reader.delete(b"flushed")
            with pytest.raises(shale.NotSupportedError, match="read only mode"):
                reader.flush()
            reader.compact_range()  # reports no error (as RocksDB's C API), and does nothing
            with pytest.raises(shale.NotSupportedError, match="read only mode"):
                reader.create_column_family("new")
        assert _listing(db_path) == before  # the read-only DB changed no file
        # It sees the DB as of its open.
        with shale.DB(db_path, read_only=True) as reader:
            writer.put(b"later", b"3")
            assert reader.get(b"later") is None
        writer.put(b"after", b"4")
        assert writer.get(b"after") == b"4"


def test_missing_db_and_error_if_wal_file_exists(db_path):
    with pytest.raises(shale.InvalidArgumentError, match="does not exist"):
        shale.DB(db_path, read_only=True, create_if_missing=True)
    assert not os.path.exists(db_path)
    with shale.DB(db_path, create_if_missing=True) as writer:
        writer.put(b"a", b"1")
    with pytest.raises(shale.CorruptionError, match="error_if_wal_file_exists"):
        shale.DB(db_path, read_only=True, error_if_wal_file_exists=True)
    with shale.DB(db_path, read_only=True) as reader:
        assert reader.get(b"a") == b"1"
    with pytest.raises(ValueError):
        shale.DB(db_path, error_if_wal_file_exists=True)


def test_read_only_column_family_subset(db_path):
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families=["a", "b"]) as writer:
        writer.put(b"ka", b"va", cf="a")
        writer.put(b"kb", b"vb", cf="b")
    with shale.DB(db_path, read_only=True, column_families=["b"]) as reader:
        assert sorted(reader.column_families) == ["b", "default"]
        assert reader.get(b"kb", cf="b") == b"vb"
        with pytest.raises(shale.NotSupportedError):
            reader.put(b"x", b"y", cf="b")
    with pytest.raises(shale.InvalidArgumentError, match="Column family not found: zz"):
        shale.DB(db_path, read_only=True, column_families=["zz"])

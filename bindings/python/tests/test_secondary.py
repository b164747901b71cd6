"""Secondary instances through the binding: DB(path, secondary_path=...) beside a primary that
holds the DB sees the state at its open, and after try_catch_up_with_primary() the primary's
writes, flush and compaction; an iterator made before keeps its view; writes raise
NotSupportedError; no file of the DB changes; a subset of the column families; bad
arguments."""

import os

import pytest

import shale


def _listing(path):
    """Every file of the directory with its size and mtime (see test_read_only.py: the
    primary's own LOG only by name)."""
    out = {}
    for name in os.listdir(path):
        st = os.stat(os.path.join(path, name))
        out[name] = None if name == "LOG" else (st.st_size, st.st_mtime_ns)
    return out


def test_secondary_catches_up(db_path, tmp_path):
    secondary_path = str(tmp_path / "secondary")
    with shale.DB(db_path, create_if_missing=True) as primary:
        primary.put(b"a", b"1")
        primary.put(b"b", b"1")
        with shale.DB(db_path, secondary_path=secondary_path) as secondary:
            assert os.path.exists(os.path.join(secondary_path, "LOG"))
            assert secondary.get(b"a") == b"1"
            before = secondary.iterator()
            primary.put(b"a", b"2")
            primary.put(b"c", b"3")
            assert secondary.get(b"c") is None
            secondary.try_catch_up_with_primary()
            assert secondary.get(b"a") == b"2"
            assert secondary.get(b"c") == b"3"
            primary.flush()
            primary.compact_range()
            primary.delete(b"b")
            secondary.try_catch_up_with_primary()
            assert list(secondary.iterator()) == list(primary.iterator())
            assert list(before) == [(b"a", b"1"), (b"b", b"1")]
            with pytest.raises(shale.NotSupportedError, match="secondary mode"):
                secondary.put(b"k", b"v")
            with pytest.raises(shale.NotSupportedError, match="secondary mode"):
                secondary.flush()
        with pytest.raises(shale.NotSupportedError, match="secondary instance"):
            primary.try_catch_up_with_primary()
        files = _listing(db_path)
        with shale.DB(db_path, secondary_path=secondary_path) as secondary:
            secondary.try_catch_up_with_primary()
        assert _listing(db_path) == files  # the secondary changed no file of the DB


def test_secondary_column_family_subset_and_bad_arguments(db_path, tmp_path):
    secondary_path = str(tmp_path / "secondary")
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families=["a", "b"]) as primary:
        primary.put(b"kb", b"vb", cf="b")
        with shale.DB(db_path, secondary_path=secondary_path,
                      column_families=["b"]) as secondary:
            assert sorted(secondary.column_families) == ["b", "default"]
            assert secondary.get(b"kb", cf="b") == b"vb"
            primary.put(b"kb", b"vb2", cf="b")
            primary.flush(cf="b")
            secondary.try_catch_up_with_primary()
            assert secondary.get(b"kb", cf="b") == b"vb2"
        with pytest.raises(shale.InvalidArgumentError, match="Column family not found: zz"):
            shale.DB(db_path, secondary_path=secondary_path, column_families=["zz"])
        with pytest.raises(shale.InvalidArgumentError, match="secondary_path"):
            shale.DB(db_path, secondary_path=db_path)
        with pytest.raises(ValueError):
            shale.DB(db_path, secondary_path=secondary_path, read_only=True)

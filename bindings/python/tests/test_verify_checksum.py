"""DB.verify_checksum: a clean DB verifies (with progress over its live table files), a damaged
table raises shale.CorruptionError naming the file, a bad progress_interval is refused before
any work, and a closed DB raises shale.Error.

The tests skip when the loaded library does not export shale_verify_checksum yet."""

import os

import pytest

import shale
from shale import _library


@pytest.fixture(autouse=True)
def _needs_verify():
    for name in ("shale_verify_checksum", "shale_verify_checksum_with_progress"):
        if _library.optional(name) is None:
            pytest.skip(f"{_library.library_path()} does not export {name} yet")


def _fill(db, tables=3, keys=500):
    for t in range(tables):
        for i in range(keys):
            db.put(b"t%d-%06d" % (t, i), b"v" * 100)
        db.flush()


def _tables(path):
    return sorted(name for name in os.listdir(path) if name.endswith(".sst"))


def test_clean_db_verifies_with_progress(db_path):
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True) as db:
        _fill(db)
        db.put(b"in-memtable", b"1")
        db.verify_checksum()
        reports = []
        db.verify_checksum(progress=reports.append, progress_interval=0)
        # The tables verified (close then flushes the memtable into one more).
        total = sum(os.path.getsize(os.path.join(db_path, name)) for name in _tables(db_path))
    assert len(reports) >= 2
    assert {r.operation for r in reports} == {"verify"}
    assert [r.finished for r in reports] == [False] * (len(reports) - 1) + [True]
    done = [r.bytes_done for r in reports]
    assert done == sorted(done)
    final = reports[-1]
    assert final.entries_done == final.entries_total == 3
    assert final.bytes_done == final.bytes_total == total
    assert final.fraction == 1.0


def test_damaged_table_raises_corruption_naming_the_file(db_path):
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True) as db:
        _fill(db, tables=2)
    damaged = _tables(db_path)[0]
    with open(os.path.join(db_path, damaged), "r+b") as f:
        f.seek(100)  # inside the first data block
        f.write(b"\xde\xad\xbe\xef" * 4)
    with shale.DB(db_path) as db:
        with pytest.raises(shale.CorruptionError, match=damaged):
            db.verify_checksum()
        reports = []
        with pytest.raises(shale.CorruptionError, match=damaged):
            db.verify_checksum(progress=reports.append, progress_interval=0)
        assert reports and reports[-1].finished


def test_bad_interval_is_refused(db):
    reports = []
    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        db.verify_checksum(progress=reports.append, progress_interval=-1)
    with pytest.raises(TypeError):
        db.verify_checksum(progress=reports.append, progress_interval="1")
    assert reports == []


def test_closed_db_raises(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        db.verify_checksum()

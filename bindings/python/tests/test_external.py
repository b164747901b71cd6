"""External table files from Python: SstFileWriter (its info, errors and abandoned files),
DB.ingest_external_file (placement semantics, options, errors, a randomized run against a dict
model), and DB.create_checkpoint.

Tests that need the engine's ingestion skip while the library answers "Not implemented"; tests
of functions a library may not export yet (see _library._OPTIONAL_PROTOTYPES) skip when they are
missing, naming them."""

import os
import random

import pytest

import shale
from shale import _external, _library


def _sst(tmp_path, name, pairs, deletes=(), **options):
    """Writes `pairs` (and deletions of `deletes`) to tmp_path/name in key order; its info."""
    entries = sorted([(k, v) for k, v in pairs] + [(k, None) for k in deletes])
    with shale.SstFileWriter(**options) as writer:
        writer.open(tmp_path / name)
        for key, value in entries:
            if value is None:
                writer.delete(key)
            else:
                writer.put(key, value)
        return writer.finish()


def _ingest(db, files, **options):
    """db.ingest_external_file, skipping the test while the engine does not implement it."""
    try:
        db.ingest_external_file([str(f) for f in files], **options)
    except shale.NotSupportedError as e:
        if str(e).startswith("Not implemented"):
            pytest.skip(f"the engine does not ingest yet: {e}")
        raise


def _needs(name):
    if _library.optional(name) is None:
        pytest.skip(f"{_library.library_path()} does not export {name} yet")


def _contents(db):
    return dict(db.iterator())


# ------------------------------------------------------------------ SstFileWriter


def test_finish_reports_the_file(tmp_path):
    info = _sst(tmp_path, "a.sst", [(b"k1", b"v1"), (b"k3", b"v3" * 100)], deletes=[b"k2"])
    assert info == shale.SstFileInfo(
        path=str(tmp_path / "a.sst"), smallest_key=b"k1", largest_key=b"k3",
        smallest_range_del_key=b"", largest_range_del_key=b"", num_entries=3,
        num_range_del_entries=0, file_size=os.path.getsize(tmp_path / "a.sst"))
    assert info.file_size > 300  # the 300-byte value is in it (no compression by default)


def test_one_writer_writes_file_after_file(tmp_path):
    with shale.SstFileWriter() as writer:
        for i in range(3):
            writer.open(tmp_path / f"{i}.sst")
            writer.put(b"key%d" % i, b"v")
            info = writer.finish()
            assert (info.smallest_key, info.num_entries) == (b"key%d" % i, 1)
    assert sorted(os.listdir(tmp_path)) == ["0.sst", "1.sst", "2.sst"]


def test_out_of_order_key_is_a_sticky_error_and_deletes_the_file(tmp_path):
    path = tmp_path / "bad.sst"
    with shale.SstFileWriter() as writer:
        writer.open(path)
        writer.put(b"b", b"1")
        with pytest.raises(shale.InvalidArgumentError, match="out of order: 'a'"):
            writer.put(b"a", b"1")
        assert not path.exists()
        with pytest.raises(shale.InvalidArgumentError):
            writer.put(b"c", b"1")  # sticky: a later, ordered key fails too
        with pytest.raises(shale.InvalidArgumentError):
            writer.finish()
        writer.open(tmp_path / "next.sst")  # the writer can start over with a new file
        writer.put(b"a", b"1")
        assert writer.finish().num_entries == 1
    assert not path.exists()


def test_duplicate_key_is_an_error(tmp_path):
    with shale.SstFileWriter() as writer:
        writer.open(tmp_path / "dup.sst")
        writer.put(b"k", b"1")
        with pytest.raises(shale.InvalidArgumentError, match="duplicate key 'k'"):
            writer.delete(b"k")


def test_empty_file_cannot_be_finished(tmp_path):
    with shale.SstFileWriter() as writer:
        writer.open(tmp_path / "empty.sst")
        with pytest.raises(shale.InvalidArgumentError, match="no entries"):
            writer.finish()
    assert not (tmp_path / "empty.sst").exists()


def test_unfinished_file_is_abandoned_on_close(tmp_path):
    path = tmp_path / "unfinished.sst"
    with shale.SstFileWriter() as writer:
        writer.open(path)
        writer.put(b"k", b"v")
        assert path.exists()
    assert not path.exists()
    writer.close()  # idempotent
    with pytest.raises(shale.Error, match="closed"):
        writer.open(path)

    # Garbage collection abandons it too, and a finished file survives both.
    writer = shale.SstFileWriter()
    writer.open(path)
    writer.put(b"k", b"v")
    del writer
    assert not path.exists()
    _sst(tmp_path, "unfinished.sst", [(b"k", b"v")])
    assert path.exists()


def test_call_order_errors(tmp_path):
    with shale.SstFileWriter() as writer:
        with pytest.raises(shale.InvalidArgumentError, match="no file is open"):
            writer.put(b"k", b"v")
        writer.open(tmp_path / "first.sst")
        writer.put(b"k", b"v")
        with pytest.raises(shale.InvalidArgumentError, match="first.sst is open"):
            writer.open(tmp_path / "second.sst")
        assert writer.finish().path == str(tmp_path / "first.sst")
        with pytest.raises(shale.InvalidArgumentError, match="no file is open"):
            writer.put(b"l", b"v")  # finished
    with pytest.raises(shale.IOError, match="no-such-dir"):
        shale.SstFileWriter().open(tmp_path / "no-such-dir" / "x.sst")
    with pytest.raises(TypeError, match="key must be bytes"):
        shale.SstFileWriter().put("k", b"v")


def test_options_are_the_engine_options(tmp_path):
    with pytest.raises(shale.InvalidArgumentError, match="no_such_option"):
        shale.SstFileWriter(no_such_option=1)
    pairs = [(b"key%06d" % i, b"x" * 200) for i in range(500)]
    plain = _sst(tmp_path, "plain.sst", pairs, compression="kNoCompression")
    packed = _sst(tmp_path, "packed.sst", pairs, compression="kZSTD")
    assert packed.file_size * 5 < plain.file_size


def test_delete_range(tmp_path, db):
    if _library.optional("shale_sstfilewriter_delete_range") is None:
        with shale.SstFileWriter() as writer:
            writer.open(tmp_path / "r.sst")
            with pytest.raises(shale.NotSupportedError,
                               match="shale_sstfilewriter_delete_range"):
                writer.delete_range(b"a", b"b")
        pytest.skip("the library has no shale_sstfilewriter_delete_range yet")
    with shale.SstFileWriter() as writer:
        writer.open(tmp_path / "r.sst")
        writer.delete_range(b"m", b"p")
        writer.delete_range(b"c", b"e")
        writer.delete_range(b"x", b"x")  # empty: ignored
        writer.put(b"k", b"v")
        info = writer.finish()
        assert (info.smallest_range_del_key, info.largest_range_del_key) == (b"c", b"p")
        assert (info.num_entries, info.num_range_del_entries) == (1, 2)
        writer.open(tmp_path / "bad.sst")
        with pytest.raises(shale.InvalidArgumentError, match="comes before its start"):
            writer.delete_range(b"b", b"a")
    for key in (b"a", b"d", b"n", b"q"):
        db.put(key, b"old")
    _ingest(db, [info.path])
    assert _contents(db) == {b"a": b"old", b"k": b"v", b"q": b"old"}


# ------------------------------------------------------------------ Ingestion


def test_ingest_into_an_empty_db(tmp_path, db):
    first = _sst(tmp_path, "1.sst", [(b"a%03d" % i, b"1") for i in range(100)])
    second = _sst(tmp_path, "2.sst", [(b"b%03d" % i, b"2") for i in range(100)])
    _ingest(db, [second.path, first.path])  # any order
    expected = {b"a%03d" % i: b"1" for i in range(100)}
    expected.update({b"b%03d" % i: b"2" for i in range(100)})
    assert _contents(db) == expected
    assert os.path.exists(first.path)  # move_files=False keeps the originals
    db.flush()
    db.compact_range()
    assert _contents(db) == expected


def test_move_files_removes_the_originals(tmp_path, db_path):
    info = _sst(tmp_path, "m.sst", [(b"k", b"v")])
    with shale.DB(db_path, create_if_missing=True) as db:
        _ingest(db, [info.path], move_files=True)
        assert not os.path.exists(info.path)
    with shale.DB(db_path) as db:  # the ingestion is in the MANIFEST
        assert db.get(b"k") == b"v"


def test_ingested_entries_are_newer_than_the_db(tmp_path, db):
    db.put(b"k1", b"old")
    db.put(b"k2", b"old")
    db.flush()
    db.put(b"k3", b"in-memtable")  # overlap with the memtable: flushed first by default
    snapshot = db.snapshot()
    info = _sst(tmp_path, "new.sst", [(b"k1", b"new"), (b"k3", b"new")], deletes=[b"k2"])
    _ingest(db, [info.path])
    assert _contents(db) == {b"k1": b"new", b"k3": b"new"}
    # snapshot_consistency (the default): an older snapshot does not see the ingested files.
    assert dict(db.iterator(snapshot=snapshot)) == {b"k1": b"old", b"k2": b"old",
                                                    b"k3": b"in-memtable"}


def test_refused_ingestion_leaves_the_db_unchanged(tmp_path, db):
    _needs("shale_ingestexternalfileoptions_set_allow_global_seqno")
    db.put(b"k", b"old")
    db.flush()
    info = _sst(tmp_path, "overlap.sst", [(b"k", b"new")])
    other = _sst(tmp_path, "other.sst", [(b"z", b"new")])
    with pytest.raises(shale.Error):
        _ingest(db, [other.path, info.path], allow_global_seqno=False)
    assert _contents(db) == {b"k": b"old"}  # all or none: not even z
    _ingest(db, [other.path, info.path])
    assert _contents(db) == {b"k": b"new", b"z": b"new"}


def test_memtable_overlap_without_blocking_flush_fails(tmp_path, db):
    _needs("shale_ingestexternalfileoptions_set_allow_blocking_flush")
    db.put(b"k", b"in-memtable")
    info = _sst(tmp_path, "f.sst", [(b"k", b"new")])
    with pytest.raises(shale.Error):
        _ingest(db, [info.path], allow_blocking_flush=False)
    assert db.get(b"k") == b"in-memtable"


def test_ingest_behind_keeps_the_db_values(tmp_path, db_path):
    _needs("shale_ingestexternalfileoptions_set_ingest_behind")
    with shale.DB(db_path, create_if_missing=True, allow_ingest_behind=True) as db:
        db.put(b"k", b"db")
        db.flush()
        info = _sst(tmp_path, "behind.sst", [(b"a", b"file"), (b"k", b"file")])
        _ingest(db, [info.path], ingest_behind=True, verify_checksums_before_ingest=True)
        assert _contents(db) == {b"a": b"file", b"k": b"db"}


def test_bad_files_are_errors_naming_them(tmp_path, db):
    db.put(b"k", b"v")
    missing = tmp_path / "missing.sst"
    with pytest.raises(shale.Error, match="missing.sst"):
        _ingest(db, [missing])
    garbage = tmp_path / "garbage.sst"
    garbage.write_bytes(b"not a table" * 100)
    with pytest.raises(shale.Error, match="garbage.sst"):
        _ingest(db, [garbage])
    assert _contents(db) == {b"k": b"v"}
    with pytest.raises(TypeError, match="list of paths"):
        db.ingest_external_file(str(garbage))


def test_missing_option_setter_is_not_supported_only_off_default(tmp_path, db, monkeypatch):
    # A library without the setters: a default value needs none, another one is refused
    # before the engine is called.
    real = _library.optional
    monkeypatch.setattr(_library, "optional", lambda name: None if "_set_" in name
                        else real(name))
    info = _sst(tmp_path, "f.sst", [(b"k", b"v")])
    with pytest.raises(shale.NotSupportedError,
                       match="shale_ingestexternalfileoptions_set_ingest_behind"):
        db.ingest_external_file([info.path], ingest_behind=True)
    assert db.get(b"k") is None
    _ingest(db, [info.path], **_external.INGEST_DEFAULTS)
    assert db.get(b"k") == b"v"


def test_random_ingestions_match_a_dict(tmp_path, db):
    rng = random.Random(9)
    model = {}
    for round_ in range(6):
        for _ in range(200):  # ordinary writes between the ingestions
            key = b"%04d" % rng.randrange(2000)
            if rng.random() < 0.2:
                db.delete(key)
                model.pop(key, None)
            else:
                value = b"w%d" % rng.randrange(10**6)
                db.put(key, value)
                model[key] = value
        if rng.random() < 0.5:
            db.flush()
        # Disjoint, sorted files over random key ranges, some entries deletions.
        cuts = sorted(rng.sample(range(1, 2000), 3))
        files = []
        for i, (lo, hi) in enumerate(zip([0] + cuts, cuts + [2000])):
            keys = sorted(rng.sample(range(lo, hi), min(50, hi - lo)))
            if not keys:
                continue
            with shale.SstFileWriter() as writer:
                writer.open(tmp_path / f"r{round_}-{i}.sst")
                for k in keys:
                    key = b"%04d" % k
                    if rng.random() < 0.2:
                        writer.delete(key)
                        model.pop(key, None)
                    else:
                        value = b"f%d" % rng.randrange(10**6)
                        writer.put(key, value)
                        model[key] = value
                files.append(writer.finish().path)
        _ingest(db, files, move_files=rng.random() < 0.5)
        assert _contents(db) == model, f"round {round_}"


def test_ingest_on_a_closed_db_is_an_error(tmp_path, db_path):
    info = _sst(tmp_path, "f.sst", [(b"k", b"v")])
    db = shale.DB(db_path, create_if_missing=True)
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        db.ingest_external_file([info.path])


# ------------------------------------------------------------------ Checkpoint


def test_checkpoint_is_an_independent_openable_copy(tmp_path, db):
    _needs("shale_checkpoint_create")
    db.put(b"flushed", b"1")
    db.flush()
    db.put(b"in-memtable", b"2")
    copy_dir = tmp_path / "copy"
    db.create_checkpoint(copy_dir)
    db.put(b"after", b"3")
    with shale.DB(copy_dir) as copy:
        assert _contents(copy) == {b"flushed": b"1", b"in-memtable": b"2"}
        copy.put(b"only-in-copy", b"4")
    assert db.get(b"only-in-copy") is None
    with pytest.raises(shale.InvalidArgumentError):
        db.create_checkpoint(copy_dir)  # exists already
    with pytest.raises(shale.Error, match="no-parent"):
        db.create_checkpoint(tmp_path / "no-parent" / "copy")


# ------------------------------------------------------------------ BulkLoader


def _loader(db, **options):
    _needs("shale_bulkloader_create")
    return shale.BulkLoader(db, **options)


def test_bulk_loader_spills_merges_and_last_value_wins(tmp_path, db):
    rng = random.Random(11)
    db.put(b"k00001", b"from-db")
    db.put(b"untouched", b"from-db")
    model = {b"untouched": b"from-db"}
    temp_dir = tmp_path / "spill"
    with _loader(db, memory_budget=64 << 10, threads=2, temp_dir=temp_dir,
                 target_file_size=64 << 10, compression="kZSTD",
                 max_open_files=4) as loader:  # more runs than that: merged in passes
        for i in range(30_000):  # ~1.8 MB of entries: many spilled runs of a 64 KiB budget
            key = b"k%05d" % rng.randrange(20_000)
            value = b"v%d-" % i + b"x" * rng.randrange(20)
            loader.add(key, value)
            model[key] = value
        assert db.get(b"k00001") == b"from-db"  # nothing visible before finish
        assert list(temp_dir.iterdir()), "a 64 KiB budget must spill"
        loader.finish()
        with pytest.raises(shale.InvalidArgumentError):
            loader.finish()
        with pytest.raises(shale.InvalidArgumentError):
            loader.add(b"late", b"v")
    assert _contents(db) == model
    assert not temp_dir.exists() or not list(temp_dir.iterdir())
    assert db.int_property("shale.num-files-at-level0") == 0


def test_bulk_loader_add_all_and_empty_finish(db):
    with _loader(db) as loader:
        loader.finish()  # nothing added: nothing ingested
    with _loader(db, threads=1) as loader:
        loader.add_all([(b"b", b"2"), (bytearray(b"a"), memoryview(b"1")), (b"b", b"3")])
        with pytest.raises(TypeError, match="key must be bytes"):
            loader.add("c", b"v")
        loader.finish()
    assert _contents(db) == {b"a": b"1", b"b": b"3"}


def test_bulk_loader_abandoned_load_leaves_nothing(tmp_path, db):
    temp_dir = tmp_path / "spill"
    loader = _loader(db, memory_budget=64 << 10, temp_dir=temp_dir)
    for i in range(5_000):
        loader.add(b"%06d" % i, b"v" * 50)
    loader.close()
    loader.close()  # idempotent
    assert _contents(db) == {}
    assert not temp_dir.exists() or not list(temp_dir.iterdir())
    with pytest.raises(shale.Error, match="closed"):
        loader.add(b"k", b"v")


def test_closing_the_db_closes_its_loaders(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    loader = _loader(db)
    loader.add(b"k", b"v")
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        loader.finish()
    with pytest.raises(shale.Error, match="closed"):
        shale.BulkLoader(db)
    with shale.DB(db_path) as reopened:
        assert reopened.get(b"k") is None


def test_bulk_loader_option_errors(db):
    _needs("shale_bulkloader_create")
    with pytest.raises(shale.InvalidArgumentError, match="memory_budget"):
        shale.BulkLoader(db, memory_budget=1024)
    with pytest.raises(shale.InvalidArgumentError, match="max_open_files"):
        shale.BulkLoader(db, max_open_files=2)
    with pytest.raises(ValueError, match="kZSTD"):
        shale.BulkLoader(db, compression="zstd")


def test_merge_operands_in_a_file_apply_on_top_of_the_db(tmp_path):
    path = tmp_path / "m.sst"
    with shale.SstFileWriter() as writer:
        writer.open(path)
        writer.merge(b"k1", b"two")
        writer.merge(b"k2", b"only")
        writer.finish()
    # Without a merge operator: refused.
    with shale.DB(str(tmp_path / "plain"), create_if_missing=True) as db:
        with pytest.raises(shale.InvalidArgumentError, match="merge operator"):
            db.ingest_external_file([str(path)])
    with shale.DB(str(tmp_path / "db"), create_if_missing=True,
                  merge_operator="stringappend") as db:
        db.put(b"k1", b"one")
        _ingest(db, [path])
        assert db.get(b"k1") == b"one,two"
        assert db.get(b"k2") == b"only"

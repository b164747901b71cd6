"""Column families through the binding: DB(column_families=...), create/drop/list, the cf=
keyword of every read, write and maintenance call, write batches across families, consistent
iterators over several families, and the errors of bad handles."""

import pytest

import shale


def _keys(iterator):
    return [key for key, _ in iterator]


@pytest.fixture
def cf_db(db_path):
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families=["a", "b"], write_buffer_size=4 << 20) as opened:
        yield opened


def test_open_creates_the_named_families_and_keeps_their_keys_apart(cf_db, db_path):
    a = cf_db.get_column_family("a")
    b = cf_db.get_column_family("b")
    default = cf_db.default_column_family
    assert (a.name, b.name, default.name) == ("a", "b", "default")
    assert default.id == 0 and len({a.id, b.id, default.id}) == 3
    assert sorted(cf_db.column_families) == ["a", "b", "default"]
    cf_db.put(b"k", b"in-default")
    cf_db.put(b"k", b"in-a", cf=a)
    cf_db.put(b"k", b"in-b", cf="b")  # by name
    assert cf_db.get(b"k") == b"in-default"
    assert cf_db.get(b"k", cf=default) == b"in-default"
    assert cf_db.get(b"k", cf="a") == b"in-a"
    assert cf_db.get(b"k", cf=b) == b"in-b"
    assert cf_db.list_column_families() == ["default", "a", "b"]
    assert shale.DB.list_column_families(db_path) == ["default", "a", "b"]
    assert shale.list_column_families(db_path) == ["default", "a", "b"]


def test_reopen_needs_every_family_named(db_path):
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families={"a": {}, "b": None}) as db:
        db.put(b"x", b"1", cf="a")
        db.put(b"y", b"2", cf="b")
    with pytest.raises(shale.InvalidArgumentError, match="b"):
        shale.DB(db_path, column_families=["a"])
    with pytest.raises(shale.InvalidArgumentError, match="a"):
        shale.DB(db_path)  # only "default"
    with pytest.raises(shale.InvalidArgumentError, match="c"):
        shale.DB(db_path, column_families=["a", "b", "c"])  # no create_missing_column_families
    with shale.DB(db_path, column_families=["b", "default", "a"]) as db:
        assert db.get(b"x", cf="a") == b"1"
        assert db.get(b"y", cf="b") == b"2"
        assert db.get(b"x", cf="b") is None
        assert db.get(b"x") is None


def test_families_take_their_own_options(db_path):
    with shale.DB(db_path, create_if_missing=True, create_missing_column_families=True,
                  column_families={"append": {"merge_operator": "stringappend"},
                                   "plain": {}}) as db:
        db.merge(b"m", b"x", cf="append")
        db.merge(b"m", b"y", cf="append")
        assert db.get(b"m", cf="append") == b"x,y"
        with pytest.raises(shale.InvalidArgumentError):
            db.merge(b"m", b"x", cf="plain")
        with pytest.raises(shale.InvalidArgumentError):
            db.merge(b"m", b"x")
        counter = db.create_column_family("counter", merge_operator="uint64add")
        db.merge(b"n", (5).to_bytes(8, "little"), cf=counter)
        db.merge(b"n", (7).to_bytes(8, "little"), cf=counter)
        assert int.from_bytes(db.get(b"n", cf=counter), "little") == 12


def test_create_and_drop(db, db_path):
    c = db.create_column_family("c", write_buffer_size="1M")
    d = db.create_column_family("d")
    assert (c.name, d.name) == ("c", "d")
    assert c.id not in (0, d.id)
    assert db.list_column_families() == ["default", "c", "d"]
    with pytest.raises(shale.InvalidArgumentError):
        db.create_column_family("c")
    with pytest.raises(shale.InvalidArgumentError):
        db.create_column_family("")
    db.put(b"k", b"v", cf=c)
    db.drop_column_family(c)
    assert c.dropped and "dropped" in repr(c)
    assert db.list_column_families() == ["default", "d"]
    assert "c" not in db.column_families
    with pytest.raises(KeyError, match="c"):
        db.get_column_family("c")
    with pytest.raises(shale.InvalidArgumentError):
        db.put(b"k", b"again", cf=c)
    assert db.get(b"k", cf=c) == b"v"  # the handle still reads the dropped family
    with pytest.raises(shale.InvalidArgumentError):
        db.drop_column_family(c)
    with pytest.raises(shale.InvalidArgumentError):
        db.drop_column_family("default")
    db.drop_column_family("d")
    assert db.list_column_families() == ["default"]
    db.close()
    with shale.DB(db_path) as reopened:  # nothing but "default" left
        assert reopened.get(b"k") is None


def test_every_write_and_read_takes_cf(cf_db):
    a = cf_db.get_column_family("a")
    for key in (b"r1", b"r2", b"r3", b"s"):
        cf_db.put(key, b"v", cf=a)
        cf_db.put(key, b"v")
    cf_db.delete_range(b"r1", b"r3", cf=a)
    cf_db.single_delete(b"s", cf=a)
    cf_db.delete(b"r3", cf=a, sync=True)
    assert _keys(cf_db.iterator(cf=a)) == []
    assert _keys(cf_db.iterator()) == [b"r1", b"r2", b"r3", b"s"]
    cf_db.put(b"a1", b"x", cf=a)
    cf_db.put(b"a2", b"y", cf=a)
    assert _keys(cf_db.iterator(cf="a", lower_bound=b"a2")) == [b"a2"]
    assert _keys(cf_db.iterator(cf=a, reverse=True)) == [b"a2", b"a1"]
    assert cf_db.multi_get([b"a1", b"r1", b"zz"], cf=a) == [b"x", None, None]
    assert cf_db.multi_get([b"a1", b"a1", b"r1"], cf=[a, None, "default"]) == [b"x", None, b"v"]
    with pytest.raises(ValueError, match="2 column families"):
        cf_db.multi_get([b"a1"], cf=[a, a])
    with cf_db.snapshot() as snapshot:
        cf_db.put(b"a1", b"later", cf=a)
        assert cf_db.get(b"a1", cf=a, snapshot=snapshot) == b"x"
        assert cf_db.multi_get([b"a1"], cf=a, snapshot=snapshot) == [b"x"]
    assert cf_db.get(b"a1", cf=a) == b"later"


def test_a_batch_spans_families_atomically(cf_db):
    a = cf_db.get_column_family("a")
    b = cf_db.get_column_family("b")
    cf_db.put(b"gone", b"1", cf=b)
    cf_db.put(b"r1", b"1", cf=a)
    batch = shale.WriteBatch()
    batch.put(b"k", b"a", cf=a)
    batch.put(b"k", b"b", cf=b)
    batch.put(b"k", b"default")
    batch.delete(b"gone", cf=b)
    batch.delete_range(b"r", b"s", cf=a)
    batch.put(b"once", b"1", cf=b)
    batch.single_delete(b"once", cf=b)
    batch.single_delete(b"nothing")
    assert len(batch) == 8
    cf_db.write(batch)
    assert cf_db.get(b"k", cf=a) == b"a"
    assert cf_db.get(b"k", cf=b) == b"b"
    assert cf_db.get(b"k") == b"default"
    assert cf_db.get(b"gone", cf=b) is None
    assert cf_db.get(b"r1", cf=a) is None
    assert cf_db.get(b"once", cf=b) is None
    # A merge on a family without a merge operator fails the whole batch.
    batch = shale.WriteBatch()
    batch.put(b"never", b"1", cf=a)
    batch.merge(b"m", b"1", cf=b)
    with pytest.raises(shale.InvalidArgumentError):
        cf_db.write(batch)
    assert cf_db.get(b"never", cf=a) is None
    with pytest.raises(TypeError, match="ColumnFamily"):
        shale.WriteBatch().put(b"k", b"v", cf="a")  # a batch has no DB to look names up in


def test_iterators_share_one_sequence_number(cf_db):
    cf_db.put(b"1", b"a", cf="a")
    cf_db.put(b"1", b"b", cf="b")
    cf_db.put(b"1", b"d")
    iterators = cf_db.iterators(["a", "b", None], upper_bound=b"5")
    cf_db.put(b"2", b"a", cf="a")
    cf_db.put(b"2", b"b", cf="b")
    cf_db.put(b"2", b"d")
    assert [list(it) for it in iterators] == [[(b"1", b"a")], [(b"1", b"b")], [(b"1", b"d")]]
    assert cf_db.iterators([]) == []
    assert _keys(cf_db.iterator(cf="a")) == [b"1", b"2"]


def _files(db, cf):
    return sum(db.int_property(f"shale.num-files-at-level{i}", cf=cf) for i in range(7))


def test_maintenance_per_family(cf_db, tmp_path):
    a = cf_db.get_column_family("a")
    for i in range(100):
        cf_db.put(b"key%03d" % i, b"v" * 100, cf=a)
    cf_db.put(b"x", b"1")
    cf_db.flush(cf=a)
    assert _files(cf_db, a) == 1
    assert _files(cf_db, "b") == 0
    assert _files(cf_db, None) == 0
    cf_db.put(b"key042", b"w" * 100, cf=a)
    cf_db.flush(cf="a")
    assert _files(cf_db, a) == 2
    assert cf_db.int_property("shale.num-files-at-level0", cf=a) == 1  # overlaps the first
    assert "key042" in cf_db.property("shale.sstables", cf=a)
    assert cf_db.property("shale.no-such-property", cf=a) is None
    assert cf_db.approximate_sizes([(b"key", b"kez")], cf=a)[0] > 0
    assert cf_db.approximate_sizes([(b"key", b"kez")], cf="b") == [0]
    cf_db.put(b"y", b"1")
    cf_db.flush()
    cf_db.put(b"y", b"2")
    cf_db.flush()
    assert _files(cf_db, None) == 2
    assert cf_db.int_property("shale.num-files-at-level0") == 1
    cf_db.compact_range(cf=a, bottommost_level_compaction="force")
    assert cf_db.int_property("shale.num-files-at-level0", cf=a) == 0
    assert cf_db.int_property("shale.num-files-at-level0") == 1  # untouched
    assert _files(cf_db, None) == 2
    assert cf_db.get(b"key042", cf=a) == b"w" * 100
    # Several families at once.
    cf_db.put(b"z", b"1", cf="b")
    cf_db.put(b"z", b"1", cf=a)
    cf_db.flush(cf=["b", a])
    assert _files(cf_db, "b") == 1
    assert cf_db.approximate_sizes([(b"z", b"zz")], cf="b")[0] > 0
    cf_db.set_options({"write_buffer_size": "8M"}, cf=a)
    with pytest.raises(shale.InvalidArgumentError, match="max_background_jobs"):
        cf_db.set_options({"max_background_jobs": 3}, cf=a)
    cf_db.set_db_options({"max_background_jobs": 3})
    with pytest.raises(shale.InvalidArgumentError, match="write_buffer_size"):
        cf_db.set_db_options({"write_buffer_size": "8M"})
    # Ingestion into a family.
    with shale.SstFileWriter() as writer:
        writer.open(tmp_path / "b.sst")
        writer.put(b"ingested", b"1")
        writer.finish()
    cf_db.ingest_external_file([str(tmp_path / "b.sst")], cf="b")
    assert cf_db.get(b"ingested", cf="b") == b"1"
    assert cf_db.get(b"ingested") is None


def test_bulk_load_into_a_family(cf_db):
    with shale.BulkLoader(cf_db, cf="b") as loader:
        loader.add(b"y", b"2")
        loader.add(b"x", b"1")
        loader.finish()
    assert cf_db.get(b"x", cf="b") == b"1"
    assert cf_db.get(b"y", cf="b") == b"2"
    assert cf_db.get(b"x") is None
    assert cf_db.get(b"x", cf="a") is None
    with pytest.raises(KeyError):
        shale.BulkLoader(cf_db, cf="nope")


def test_bad_handles(cf_db, tmp_path):
    with pytest.raises(TypeError, match="cf must be"):
        cf_db.get(b"k", cf=1)
    with pytest.raises(KeyError, match="nope"):
        cf_db.put(b"k", b"v", cf="nope")
    with shale.DB(str(tmp_path / "other"), create_if_missing=True) as other:
        foreign = other.create_column_family("a")
        with pytest.raises(ValueError, match="another DB"):
            cf_db.get(b"k", cf=foreign)
    with pytest.raises(shale.Error, match="closed"):
        cf_db.get(b"k", cf=foreign)  # its DB closed
    a = cf_db.get_column_family("a")
    it = cf_db.iterator(cf=a)
    cf_db.close()
    with pytest.raises(shale.Error, match="closed"):
        a._checked_handle()
    with pytest.raises(shale.Error, match="closed"):
        it.seek_to_first()
    with pytest.raises(shale.Error):
        shale.list_column_families(str(tmp_path / "no-db-here"))
    with pytest.raises(TypeError):
        shale.DB(str(tmp_path / "x"), create_if_missing=True, column_families="a")
    with pytest.raises(ValueError, match="twice"):
        shale.DB(str(tmp_path / "x"), create_if_missing=True, column_families=["a", "a"])

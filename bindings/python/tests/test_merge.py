"""Merges from Python: DB.merge and WriteBatch.merge with the built-in operators named in the
options (merge_operator=...), their errors, max_successive_merges, and a randomized run of
puts, merges and deletes against a dict model through flushes, compactions and a reopen."""

import random
import struct

import pytest

import shale


def u64(n):
    """uint64add's encoding: 8 bytes, little-endian."""
    return struct.pack("<Q", n % (1 << 64))


@pytest.fixture
def counter_db(db_path):
    with shale.DB(db_path, create_if_missing=True, merge_operator="uint64add") as opened:
        yield opened


def test_uint64add_through_every_path(db_path):
    with shale.DB(db_path, create_if_missing=True, merge_operator="uint64add",
                  disable_auto_compactions=True) as db:
        db.put(b"n", u64(5))
        db.merge(b"n", u64(1))
        db.merge(bytearray(b"n"), memoryview(u64(2)))  # bytes-like in
        db.flush()
        db.merge(b"n", u64(40))
        assert db.get(b"n") == u64(48)
        db.merge(b"fresh", u64(7))  # no value counts as 0
        db.merge(b"wrap", u64(-1))
        db.merge(b"wrap", u64(2), sync=True)
        assert db.get(b"fresh") == u64(7)
        assert db.get(b"wrap") == u64(1)
        assert list(db.iterator()) == [(b"fresh", u64(7)), (b"n", u64(48)),
                                       (b"wrap", u64(1))]
        db.compact_range()
        assert db.int_property("shale.num-files-at-level0") == 0
        assert db.get(b"n") == u64(48)
        db.merge(b"n", u64(2), disable_wal=True)
    with shale.DB(db_path, merge_operator="uint64add") as db:  # the operands survive a reopen
        assert db.get(b"n") == u64(50)


def test_other_builtins(tmp_path):
    cases = {"stringappend": b"b,a,c", "stringappend:|": b"b|a|c", "stringappend:;": b"b;a;c",
             "stringappend:": b"bac", "max": b"c"}
    for i, (name, expected) in enumerate(cases.items()):
        with shale.DB(str(tmp_path / f"db{i}"), create_if_missing=True,
                      merge_operator=name) as db:
            for operand in (b"b", b"a", b"c"):
                db.merge(b"k", operand)
            assert db.get(b"k") == expected, name


def test_write_batch_merge(counter_db):
    batch = shale.WriteBatch()
    batch.put(b"k", u64(10))
    batch.merge(b"k", u64(1))
    batch.merge(b"k", u64(2))
    assert len(batch) == 3
    assert counter_db.get(b"k") is None
    counter_db.write(batch)
    assert counter_db.get(b"k") == u64(13)
    with pytest.raises(TypeError, match="operand must be bytes"):
        batch.merge(b"k", 1)


def test_merge_without_an_operator_is_refused(db):
    with pytest.raises(shale.InvalidArgumentError, match="no merge operator"):
        db.merge(b"k", b"v")
    batch = shale.WriteBatch()
    batch.put(b"p", b"1")
    batch.merge(b"k", b"v")
    with pytest.raises(shale.InvalidArgumentError):
        db.write(batch)
    assert db.get(b"p") is None  # all or nothing


def test_option_errors(tmp_path):
    with pytest.raises(shale.InvalidArgumentError, match="merge_operator"):
        shale.DB(str(tmp_path / "a"), create_if_missing=True, merge_operator="nope")
    with shale.DB(str(tmp_path / "b"), create_if_missing=True, merge_operator=None) as db:
        with pytest.raises(shale.InvalidArgumentError):
            db.merge(b"k", b"v")
    with pytest.raises(TypeError, match="key must be bytes"):
        with shale.DB(str(tmp_path / "c"), create_if_missing=True,
                      merge_operator="max") as db:
            db.merge("k", b"v")


def test_malformed_operand_is_a_corruption_on_read(counter_db):
    counter_db.merge(b"k", u64(1))
    counter_db.merge(b"k", b"abc")  # not 8 bytes: accepted, fails when merged
    with pytest.raises(shale.CorruptionError):
        counter_db.get(b"k")
    counter_db.put(b"k", u64(3))  # a value hides the bad operand
    assert counter_db.get(b"k") == u64(3)


def test_max_successive_merges(db_path):
    with shale.DB(db_path, create_if_missing=True, merge_operator="stringappend",
                  max_successive_merges=2) as db:
        for operand in (b"1", b"2", b"3", b"4", b"5"):
            db.merge(b"k", operand)
        assert db.get(b"k") == b"1,2,3,4,5"
        db.set_options({"max_successive_merges": 0})  # dynamic
        db.merge(b"k", b"6")
        assert db.get(b"k") == b"1,2,3,4,5,6"
        with pytest.raises(shale.InvalidArgumentError, match="max_successive_merges"):
            db.set_options({"max_successive_merges": "many"})


def test_random_operations_match_a_dict(db_path):
    rng = random.Random(11)
    model = {}
    keys = [b"k%02d" % i for i in range(40)]
    options = dict(create_if_missing=True, merge_operator="uint64add",
                   write_buffer_size=64 << 10, level0_file_num_compaction_trigger=2)
    db = shale.DB(db_path, **options)
    try:
        for step in range(3000):
            key = rng.choice(keys)
            roll = rng.random()
            if roll < 0.6:
                n = rng.randrange(1 << 64)
                db.merge(key, u64(n))
                model[key] = (model.get(key, 0) + n) % (1 << 64)
            elif roll < 0.75:
                n = rng.randrange(1000)
                db.put(key, u64(n))
                model[key] = n
            elif roll < 0.85:
                db.delete(key)
                model.pop(key, None)
            elif roll < 0.95:
                assert db.get(key) == (u64(model[key]) if key in model else None)
            elif roll < 0.99:
                db.flush()
            else:
                db.compact_range()
            if step == 1500:
                db.close()
                db = shale.DB(db_path, **options)
        expected = [(k, u64(v)) for k, v in sorted(model.items())]
        assert list(db.iterator()) == expected
        assert list(db.iterator(reverse=True)) == expected[::-1]
        db.compact_range()
        assert list(db.iterator()) == expected
    finally:
        db.close()

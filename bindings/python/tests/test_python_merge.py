"""shale.MergeOperator: merge operators written in Python, called by the engine from reads,
flushes and compactions (its own threads), failures, and their lifetime."""

import gc
import logging
import os
import random
import subprocess
import sys
import textwrap
import threading

import pytest

import shale
from shale import _merge


class Add(shale.MergeOperator):
    """Decimal counters; counts its calls (under a lock: the engine calls from many threads)."""

    name = "test.Add"

    def __init__(self):
        self.lock = threading.Lock()
        self.full = 0
        self.partial = 0
        self.threads = set()

    def full_merge(self, key, existing_value, operands):
        with self.lock:
            self.full += 1
            self.threads.add(threading.get_ident())
        return str(int(existing_value or b"0") + sum(map(int, operands))).encode()

    def partial_merge(self, key, operands):
        with self.lock:
            self.partial += 1
        return str(sum(map(int, operands))).encode()


class Collect(shale.MergeOperator):
    """Records what full_merge is given; no partial_merge."""

    name = "test.Collect"

    def __init__(self):
        self.calls = []

    def full_merge(self, key, existing_value, operands):
        self.calls.append((key, existing_value, list(operands)))
        return b"|".join([b"-" if existing_value is None else existing_value] + operands)


def test_full_merge_gets_key_existing_value_and_operands_oldest_first(db_path):
    operator = Collect()
    with shale.DB(db_path, create_if_missing=True, merge_operator=operator) as db:
        db.merge(b"new", b"a")
        db.merge(b"new", b"")
        db.merge(b"new", b"c\x00d")
        assert db.get(b"new") == b"-|a||c\x00d"
        assert operator.calls[-1] == (b"new", None, [b"a", b"", b"c\x00d"])
        db.put(b"k\x00", b"")
        db.merge(b"k\x00", b"x")
        assert db.get(b"k\x00") == b"|x"
        assert operator.calls[-1] == (b"k\x00", b"", [b"x"])  # empty value, not None
        batch = shale.WriteBatch()
        batch.merge(b"b", b"1")
        batch.merge(b"b", b"2")
        db.write(batch)
        assert db.multi_get([b"b", b"new"]) == [b"-|1|2", b"-|a||c\x00d"]
        assert list(db.iterator(lower_bound=b"b", upper_bound=b"c")) == [(b"b", b"-|1|2")]


def test_background_merges_run_python_from_engine_threads(db_path):
    operator = Add()
    with shale.DB(db_path, create_if_missing=True, merge_operator=operator,
                  write_buffer_size=64 << 10, level0_file_num_compaction_trigger=2) as db:
        expected = {}
        rng = random.Random(5)
        for step in range(6000):
            key = b"k%02d" % rng.randrange(30)
            n = rng.randrange(100)
            if rng.random() < 0.1:
                db.put(key, b"%d" % n)
                expected[key] = n
            else:
                db.merge(key, b"%d" % n)
                expected[key] = expected.get(key, 0) + n
        db.flush()
        db.compact_range()
        assert {k: int(v) for k, v in db.iterator()} == expected
        assert operator.full > 0
        assert operator.threads - {threading.get_ident()}  # flushes and compactions merged
    with shale.DB(db_path, merge_operator=Add()) as db:  # merged values were written
        assert {k: int(v) for k, v in db.iterator()} == expected


def test_partial_merge_combines_operands(db_path):
    operator = Add()
    with shale.DB(db_path, create_if_missing=True, merge_operator=operator,
                  disable_auto_compactions=True) as db:
        for i in range(5):
            db.merge(b"n", b"1")
        db.flush()  # no base value: flush combines the operands with partial_merge
        assert operator.partial >= 1
        assert db.get(b"n") == b"5"


def test_a_failing_merge_is_a_corruption_and_is_logged(db_path, caplog):
    class Broken(shale.MergeOperator):
        name = "test.Broken"

        def full_merge(self, key, existing_value, operands):
            if operands == [b"boom"]:
                raise RuntimeError("boom")
            if operands == [b"none"]:
                return None
            if operands == [b"text"]:
                return "not bytes"
            return operands[-1]

    with shale.DB(db_path, create_if_missing=True, merge_operator=Broken()) as db:
        for key in (b"boom", b"none", b"text"):
            db.merge(key, key)
            with caplog.at_level(logging.ERROR, logger="shale"):
                with pytest.raises(shale.CorruptionError, match="test.Broken"):
                    db.get(key)
        assert "RuntimeError: boom" in caplog.text
        assert "returned None" in caplog.text
        assert "must be bytes" in caplog.text
        db.merge(b"ok", b"fine")
        assert db.get(b"ok") == b"fine"


def test_bad_merge_operator_argument(db_path):
    with pytest.raises(shale.InvalidArgumentError, match="merge_operator"):
        shale.DB(db_path, create_if_missing=True, merge_operator=42)


def test_one_operator_for_two_dbs_and_its_lifetime(tmp_path):
    operator = Add()
    live = len(_merge._LIVE)
    a = shale.DB(str(tmp_path / "a"), create_if_missing=True, merge_operator=operator)
    b = shale.DB(str(tmp_path / "b"), create_if_missing=True, merge_operator=operator)
    assert len(_merge._LIVE) == live + 2  # one C operator per DB
    a.merge(b"k", b"1")
    b.merge(b"k", b"2")
    assert (a.get(b"k"), b.get(b"k")) == (b"1", b"2")
    a.close()
    assert len(_merge._LIVE) == live + 1  # released with its DB
    del operator
    gc.collect()
    b.merge(b"k", b"3")  # the DB keeps the operator alive
    assert b.get(b"k") == b"5"
    b.close()
    assert len(_merge._LIVE) == live
    with shale.DB(str(tmp_path / "s"), create_if_missing=True, merge_operator=Add(),
                  enable_statistics=True) as db:
        db.merge(b"k", b"1")
        assert len(_merge._LIVE) == live + 1
    del db
    gc.collect()  # the options kept for statistics go with the DB object
    assert len(_merge._LIVE) == live


def test_a_failed_open_releases_the_operator(db_path):
    live = len(_merge._LIVE)
    with pytest.raises(shale.InvalidArgumentError, match="write_buffer_size"):
        shale.DB(db_path, create_if_missing=True, merge_operator=Add(),
                 write_buffer_size="lots")  # the options string fails
    with pytest.raises(shale.InvalidArgumentError, match="does not exist"):
        shale.DB(os.path.join(db_path, "absent"), merge_operator=Add())  # shale_open fails
    gc.collect()
    assert len(_merge._LIVE) == live


def test_exit_with_a_db_left_open_runs_its_last_merges(db_path):
    """The interpreter exits with a DB that has Python-merged data in its memtable and
    statistics on: atexit closes it while Python still runs (no crash, no lost write)."""
    code = textwrap.dedent(f"""
        import shale

        class Add(shale.MergeOperator):
            name = "test.Add"

            def full_merge(self, key, existing_value, operands):
                return str(int(existing_value or b"0") + sum(map(int, operands))).encode()

        db = shale.DB({db_path!r}, create_if_missing=True, merge_operator=Add(),
                      enable_statistics=True, write_buffer_size=64 << 10)
        for i in range(3000):
            db.merge(b"k%d" % (i % 7), b"1")
        print("done")
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done" and result.stderr == ""
    with shale.DB(db_path, merge_operator=Add()) as db:
        assert [int(v) for _, v in db.iterator()] == [429] * 4 + [428] * 3

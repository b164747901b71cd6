"""Runs spark_bulk_load.py in Spark's local mode (local[2]) and checks every key through the DB.

Opt-in, because starting the JVM takes a while: it skips unless SHALE_SPARK_TEST=1, and when
pyspark is not installed. ctest runs it as `spark_example_test`:

    SHALE_SPARK_TEST=1 ctest --test-dir build/release -R spark_example_test --output-on-failure
"""

import csv
import hashlib
import os
import random

import pytest

if os.environ.get("SHALE_SPARK_TEST") != "1":
    pytest.skip("the Spark example test is opt-in: set SHALE_SPARK_TEST=1",
                allow_module_level=True)
pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")

import shale  # noqa: E402
import spark_bulk_load  # noqa: E402 - the example, next to this file


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("shale-spark-test")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _run(spark, tmp_path, *argv):
    args = spark_bulk_load.parse_args(
        [*argv, "--sst-dir", str(tmp_path / "sst"), "--db", str(tmp_path / "db")])
    try:
        return spark_bulk_load.run(spark, args)
    except shale.NotSupportedError as e:
        if str(e).startswith("Not implemented"):
            pytest.skip(f"the engine does not ingest yet: {e}")
        raise


def _check_files(results, partitions, on_disk=True):
    """At most one file per partition, each whole on disk (unless moved into the DB), with
    disjoint key ranges in order."""
    assert 1 <= len(results) <= partitions
    for r in results:
        assert r["entries"] > 0
        assert os.path.exists(r["path"]) == on_disk
        assert not on_disk or os.path.getsize(r["path"]) == r["file_size"]
        assert r["smallest_key"] <= r["largest_key"]
    for before, after in zip(results, results[1:]):
        assert before["largest_key"] < after["smallest_key"]


def test_csv_of_100k_pairs_every_key_readable(spark, tmp_path):
    rng = random.Random(2024)
    model = {}
    rows = []
    for i in range(100_000):
        key = "k%016x" % rng.getrandbits(64)
        model[key] = "v%d" % i
        rows.append((key, model[key]))
    rows += rows[:500]  # exact duplicate rows: one of each is kept
    rng.shuffle(rows)
    path = tmp_path / "pairs.csv"
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["key", "value"])
        writer.writerows(rows)

    results = _run(spark, tmp_path, "--input", str(path), "--partitions", "4",
                   "--compression", "kZSTD")
    _check_files(results, 4)
    assert len(results) == 4
    assert sum(r["entries"] for r in results) == len(model)
    assert sum(r["duplicates"] for r in results) == 500
    with shale.DB(tmp_path / "db") as db:
        for key, value in model.items():
            assert db.get(key.encode()) == value.encode(), key
        assert sum(1 for _ in db.iterator()) == len(model)
        # Disjoint ranges into an empty DB: all in one level, none in level 0.
        assert db.int_property("shale.num-files-at-level0") == 0


def test_binary_keys_keep_unsigned_byte_order(spark, tmp_path):
    rng = random.Random(7)
    model = {bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 12))): b"%d" % i
             for i in range(20_000)}
    model[b"\x00"] = b"zero"
    model[b"\xff\xff"] = b"high"
    frame = spark.createDataFrame([(bytearray(k), bytearray(v)) for k, v in model.items()],
                                  "key binary, value binary")
    frame.write.parquet(str(tmp_path / "pairs.parquet"))

    results = _run(spark, tmp_path, "--input", str(tmp_path / "pairs.parquet"),
                   "--partitions", "3", "--move-files")
    _check_files(results, 3, on_disk=False)  # moved into the DB
    assert len(results) == 3
    with shale.DB(tmp_path / "db") as db:
        assert dict(db.iterator()) == model


def test_generated_pairs_and_file_list_without_db(spark, tmp_path):
    args = spark_bulk_load.parse_args(["--generate", "5000", "--partitions", "2",
                                       "--sst-dir", str(tmp_path / "sst")])
    results = spark_bulk_load.run(spark, args)
    with open(tmp_path / "sst" / spark_bulk_load.FILE_LIST) as listed:
        files = listed.read().split()
    _check_files(results, 2)
    assert files == [r["path"] for r in results]
    assert sum(r["entries"] for r in results) == 5000
    with shale.DB(tmp_path / "db", create_if_missing=True) as db:
        try:
            db.ingest_external_file(files)
        except shale.NotSupportedError as e:
            pytest.skip(f"the engine does not ingest yet: {e}")
        assert db.get(b"key-" + _sha_prefix(0)) == b"value-0"
        assert sum(1 for _ in db.iterator()) == 5000


def _sha_prefix(i):
    return hashlib.sha256(str(i).encode()).hexdigest()[:20].encode()

"""Bulk-loads key/value pairs into a ShaleDB database with Spark: the multi-machine load path.

  1. read the pairs (a CSV or Parquet dataset with columns `key` and `value`, or N generated
     pairs) as a DataFrame of binary keys and values;
  2. range-partition them by key into P partitions (repartitionByRange) and sort each one
     (sortWithinPartitions): partition i holds a key range of its own, sorted;
  3. in the executors, write each partition to one table file through shale.SstFileWriter,
     into --sst-dir (shared storage on a cluster), and return its name and counts;
  4. on the driver, open the DB and ingest all the files with one ingest_external_file call:
     all or none. The files cover disjoint key ranges, so they go straight to the bottom level
     of an empty DB and are never rewritten by compaction. Then check the DB's key count.

Without --db it stops after step 3 and writes the file list to <sst-dir>/files.txt, for a
DB on another host (copy the files there and ingest them: see README.md).

Keys are ordered as unsigned bytes (Spark's order of binary values, and ShaleDB's). When a
key occurs more than once, one of its rows is kept (which one is unspecified) and the others
are counted as duplicates.

  spark-submit spark_bulk_load.py --generate 1000000 --partitions 8 \\
      --sst-dir /shared/sst --db /data/db
"""

import argparse
import os
import sys

FILE_LIST = "files.txt"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", help="CSV (with a header) or Parquet dataset with columns "
                        "key and value (strings or binary)")
    source.add_argument("--generate", type=int, metavar="N", help="generate N pairs")
    parser.add_argument("--format", choices=("csv", "parquet"),
                        help="of --input (default: from its extension, else parquet)")
    parser.add_argument("--partitions", type=int, default=4,
                        help="key ranges, hence table files (default: 4)")
    parser.add_argument("--sst-dir", required=True,
                        help="where the executors write the files; must be visible to every "
                        "executor and, to ingest, to the driver")
    parser.add_argument("--db", help="the DB to ingest into (created if missing); without it, "
                        "only write the files and their list")
    parser.add_argument("--move-files", action="store_true",
                        help="move the files into the DB instead of linking copies")
    parser.add_argument("--compression", default="kNoCompression",
                        help="of the table files, a RocksDB name such as kZSTD "
                        "(default: kNoCompression)")
    parser.add_argument("--master", help="Spark master when run with python3 (e.g. local[2]); "
                        "spark-submit's --master otherwise")
    return parser.parse_args(argv)


def load_pairs(spark, args):
    """The input as a DataFrame (key: binary, value: binary), without null keys."""
    from pyspark.sql import functions as F
    if args.generate is not None:
        ids = spark.range(args.generate)
        # Keys in no particular order: 20 hex digits of the SHA-256 of the id.
        df = ids.select(
            F.concat(F.lit("key-"), F.substring(F.sha2(F.col("id").cast("string"), 256), 1,
                                                20)).alias("key"),
            F.concat(F.lit("value-"), F.col("id").cast("string")).alias("value"))
    else:
        fmt = args.format or ("csv" if args.input.endswith(".csv") else "parquet")
        reader = spark.read.option("header", "true") if fmt == "csv" else spark.read
        df = reader.format(fmt).load(args.input).select("key", "value")
    return (df.where(F.col("key").isNotNull())
              .select(F.col("key").cast("binary").alias("key"),
                      F.coalesce(F.col("value").cast("binary"), F.lit(b"")).alias("value")))


def partition_writer(sst_dir, sst_options):
    """The function that an executor runs on partition `index`: writes its sorted rows to
    <sst_dir>/part-<index>.sst and yields a dict describing the file (path, entries,
    duplicates, file_size, smallest_key, largest_key); nothing for an empty partition.
    A task attempt writes a file of its own and renames it into place, so that retried or
    speculative attempts never write one file at the same time."""
    def write(index, rows):
        import shale  # in the executor's Python
        from pyspark import TaskContext

        os.makedirs(sst_dir, exist_ok=True)  # an executor's own disk, without shared storage
        path = os.path.join(sst_dir, f"part-{index:05d}.sst")
        attempt_path = f"{path}.attempt-{TaskContext.get().taskAttemptId()}"
        previous, duplicates, info = None, 0, None
        with shale.SstFileWriter(**sst_options) as writer:
            for row in rows:
                key = bytes(row.key)
                if key == previous:
                    duplicates += 1
                    continue
                if previous is None:
                    writer.open(attempt_path)
                writer.put(key, bytes(row.value))
                previous = key
            if previous is not None:
                info = writer.finish()
        if info is not None:
            os.replace(attempt_path, path)
            yield {"path": path, "entries": info.num_entries, "duplicates": duplicates,
                   "file_size": info.file_size, "smallest_key": info.smallest_key,
                   "largest_key": info.largest_key}
    return write


def write_files(spark, df, args):
    """Steps 2 and 3: the files' dicts (see partition_writer), in key order."""
    os.makedirs(args.sst_dir, exist_ok=True)
    sst_options = {"compression": args.compression}
    ranges = df.repartitionByRange(args.partitions, "key").sortWithinPartitions("key")
    results = ranges.rdd.mapPartitionsWithIndex(
        partition_writer(args.sst_dir, sst_options)).collect()
    return sorted(results, key=lambda r: r["smallest_key"])


def ingest(db_path, files, expected_entries, move_files):
    """Step 4: ingests `files` into the DB at db_path; returns the DB's key count, which
    must be expected_entries when the DB was empty."""
    import shale
    with shale.DB(db_path, create_if_missing=True) as db:
        was_empty = next(iter(db.iterator()), None) is None
        db.ingest_external_file(files, move_files=move_files)
        count = sum(1 for _ in db.iterator(fill_cache=False))
    if was_empty and count != expected_entries:
        raise RuntimeError(f"{db_path}: {count} keys after ingesting {expected_entries} "
                           f"entries into an empty DB")
    return count


def run(spark, args):
    """Runs the job on an existing SparkSession; returns the files' dicts, in key order."""
    # Ship this file to the executors: partition_writer lives in it when it is imported.
    spark.sparkContext.addPyFile(os.path.abspath(__file__))
    results = write_files(spark, load_pairs(spark, args), args)
    files = [r["path"] for r in results]
    entries = sum(r["entries"] for r in results)
    duplicates = sum(r["duplicates"] for r in results)
    size = sum(r["file_size"] for r in results)
    print(f"wrote {len(files)} files, {entries} entries ({duplicates} duplicate keys "
          f"dropped), {size} bytes, in {args.sst_dir}")
    if args.db is None:
        with open(os.path.join(args.sst_dir, FILE_LIST), "w") as out:
            out.writelines(f"{path}\n" for path in files)
        print(f"file list: {os.path.join(args.sst_dir, FILE_LIST)}")
    elif files:
        count = ingest(args.db, files, entries, args.move_files)
        print(f"ingested into {args.db}: it now holds {count} keys")
    return results


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName("shale-bulk-load")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    try:
        run(spark, args)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()

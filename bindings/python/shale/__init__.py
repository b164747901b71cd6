"""ShaleDB for Python: a ctypes binding over the C ABI of libshale.so (include/shale/c.h).

    import shale
    with shale.DB("/tmp/db", create_if_missing=True) as db:
        db.put(b"key", b"value")
        db.get(b"key")  # b"value"

See DB, WriteBatch, Iterator and Snapshot; ColumnFamily, the handle of a column family (DB(path,
column_families=[...]), DB.create_column_family, a cf= keyword on every call); Cache, a block cache
DBs can share; MergeOperator and CompactionFilter, for merge operators and compaction filters
written in Python; for bulk loads, BulkLoader (pairs in any order), and SstFileWriter with
DB.ingest_external_file (table files built elsewhere, e.g. by a Spark job). Long operations (compact_range, ingest_external_file, create_checkpoint, a
BulkLoader's finish) report their progress to a `progress=` callback as shale.Progress. The library
is found through the environment variable SHALE_LIBRARY or the in-tree build (see shale._library);
it is loaded on first use.
"""

from ._bulk_loader import BulkLoader
from ._cache import Cache
from ._column_family import DEFAULT_COLUMN_FAMILY_NAME, ColumnFamily, list_column_families
from ._compaction_filter import CompactionFilter
from ._batch import WriteBatch
from ._db import DB, Snapshot, destroy_db, repair_db
from ._errors import (CorruptionError, Error, InvalidArgumentError, IOError,
                      NotSupportedError)
from ._external import SstFileInfo, SstFileWriter
from ._iterator import Iterator
from ._library import LibraryNotFoundError
from ._merge import MergeOperator
from ._progress import Progress, ProgressCallback
from ._wal_iterator import WalIterator

# The size limits of the engine (include/shale/limits.h, doc/size_limits.md): the longest key
# (each end of a range deletion included), the longest value or merge operand, the largest
# write batch in serialized bytes, and the largest block_size / metadata_block_size option.
# A larger key or value raises InvalidArgumentError and nothing is written.
MAX_KEY_SIZE = 8 << 20
MAX_VALUE_SIZE = (1 << 30) - (16 << 20)
MAX_WRITE_BATCH_SIZE = 1 << 31
MAX_TABLE_BLOCK_SIZE = 256 << 20

__all__ = [
    "DB", "Iterator", "Snapshot", "WriteBatch", "WalIterator", "destroy_db", "repair_db", "SstFileWriter", "SstFileInfo",
    "ColumnFamily", "list_column_families", "DEFAULT_COLUMN_FAMILY_NAME",
    "BulkLoader", "Cache", "MergeOperator", "CompactionFilter", "Progress", "ProgressCallback",
    "Error", "InvalidArgumentError", "IOError", "CorruptionError", "NotSupportedError",
    "LibraryNotFoundError",
    "MAX_KEY_SIZE", "MAX_VALUE_SIZE", "MAX_WRITE_BATCH_SIZE", "MAX_TABLE_BLOCK_SIZE",
]
__version__ = "0.1.0"

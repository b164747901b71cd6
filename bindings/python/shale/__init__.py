"""ShaleDB for Python: a ctypes binding over the C ABI of libshale.so (include/shale/c.h).

    import shale
    with shale.DB("/tmp/db", create_if_missing=True) as db:
        db.put(b"key", b"value")
        db.get(b"key")  # b"value"

See DB, WriteBatch, Iterator and Snapshot. The library is found through the environment
variable SHALE_LIBRARY or the in-tree build (see shale._library); it is loaded on first use.
"""

from ._db import DB, Iterator, Snapshot, WriteBatch, destroy_db
from ._errors import (CorruptionError, Error, InvalidArgumentError, IOError,
                      NotSupportedError)
from ._library import LibraryNotFoundError

__all__ = [
    "DB", "Iterator", "Snapshot", "WriteBatch", "destroy_db", "Error", "InvalidArgumentError",
    "IOError", "CorruptionError", "NotSupportedError", "LibraryNotFoundError",
]
__version__ = "0.1.0"

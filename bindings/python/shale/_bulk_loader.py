"""BulkLoader: loads key-value pairs given in any order into a DB as sorted table files,
without the write path (include/shale/bulk_loader.h, c.h's shale_bulkloader_*).

    with shale.BulkLoader(db, memory_budget=256 << 20, threads=2) as loader:
        for key, value in pairs:           # any order; the last value of a key wins
            loader.add(key, value)
        loader.finish()                    # sorts, merges, writes and ingests: all or nothing
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Tuple, Union

from . import _errors, _library, _progress
from ._library import BytesLike
from ._progress import ProgressCallback

if TYPE_CHECKING:
    from ._column_family import ColumnFamilyLike
    from ._db import DB

# The C ABI's compression codes (c.h: shale_no_compression, shale_snappy_compression, ...), by
# the RocksDB names that DB options use. RocksDB's bzip2 and xpress are not built.
_COMPRESSION = {"kNoCompression": 0, "kSnappyCompression": 1, "kZlibCompression": 2,
                "kLZ4Compression": 4, "kLZ4HCCompression": 5, "kZSTD": 7}
_DB_COMPRESSION = 0xFF  # the loader's default: the DB's own


_FUNCTIONS = ("create", "add", "finish", "destroy", "options_create", "options_destroy",
              "options_set_memory_budget", "options_set_threads", "options_set_temp_dir",
              "options_set_target_file_size", "options_set_compression",
              "options_set_max_open_files")


def _functions() -> Dict[str, Any]:
    """The shale_bulkloader_* functions by their short names; NotSupportedError naming the
    first one the library lacks."""
    return {name: _errors.need(f"shale_bulkloader_{name}", "shale.BulkLoader")
            for name in _FUNCTIONS}


class BulkLoader:
    """Loads pairs into `db`: add(key, value) in any order, then finish() once. Nothing is
    visible in the DB before finish, which ingests everything or nothing; into an empty DB the
    files land in the bottom level, fully compacted.

    Options (None or 0: the engine's default): memory_budget, bytes for sorting (at least
    64 KiB; default 512 MiB; more spills sorted runs to temp_dir); threads, for merging in
    finish (default: the DB's max_background_jobs, at least 2); temp_dir (default
    "<db>/bulkload.tmp"); target_file_size, where table files are cut (default: the DB's
    target_file_size_base); compression, "kNoCompression", "kSnappyCompression",
    "kZlibCompression", "kLZ4Compression", "kLZ4HCCompression" or "kZSTD" (default: the DB's);
    max_open_files, the file descriptors finish's merge may hold open at once, more spilled
    runs being merged in passes (default: automatic, from RLIMIT_NOFILE; else at least 3);
    cf, the column family loaded into (a shale.ColumnFamily or a family's name; default: the
    default family), whose options shape the table files.

    progress: called with a shale.Progress (operation "bulk_load"; stages "merge_runs",
    "write_tables" and "ingest"; key and value bytes merged) during finish(), at most every
    progress_interval seconds (0: every few thousand entries) and once at its end with
    finished=True. The engine calls it from finish's merge threads, one call at a time; an
    exception it raises is raised by finish() after the load completed (see shale.Progress).
    The loader keeps the callback until it is closed.

    Errors are sticky. Use it as a context manager or call close(): an unfinished load is
    abandoned and its temporary files removed. Closing the DB closes its loaders. Not
    thread-safe: one thread at a time.
    """

    def __init__(self, db: DB, *, memory_budget: Optional[int] = None, threads: int = 0,
                 temp_dir: Union[str, bytes, os.PathLike[str], os.PathLike[bytes], None] = None,
                 target_file_size: int = 0, compression: Optional[str] = None,
                 max_open_files: int = 0, progress: Optional[ProgressCallback] = None,
                 progress_interval: float = _progress.DEFAULT_INTERVAL,
                 cf: Optional[ColumnFamilyLike] = None) -> None:
        if compression is not None and compression not in _COMPRESSION:
            raise ValueError(f"shale: compression must be one of {sorted(_COMPRESSION)} or "
                             f"None (the DB's), not {compression!r}")
        self._handle: Optional[int] = None
        # The reporter of finish's progress; the C loader holds its thunk, so it is kept until
        # the loader is destroyed (close()).
        self._progress = _progress.reporter(progress, progress_interval, "shale.BulkLoader")
        set_progress = None if self._progress is None else _errors.need(
            "shale_bulkloader_options_set_progress", "shale.BulkLoader(progress=...)")
        self._fn = _functions()
        self._db = db
        # The family loaded into; kept so that its handle outlives the loader.
        self._cf = None if cf is None else db._resolve(cf)
        set_family: Any = None if self._cf is None else _errors.need(
            "shale_bulkloader_options_set_column_family", "shale.BulkLoader(cf=...)")
        options = self._fn["options_create"]()
        try:
            if self._cf is not None:
                set_family(options, self._cf._handle_for(db))
            if memory_budget is not None:
                self._fn["options_set_memory_budget"](options, int(memory_budget))
            self._fn["options_set_threads"](options, int(threads))
            if temp_dir is not None:
                self._fn["options_set_temp_dir"](options, os.fsencode(temp_dir))
            self._fn["options_set_target_file_size"](options, int(target_file_size))
            self._fn["options_set_compression"](
                options, _DB_COMPRESSION if compression is None else _COMPRESSION[compression])
            self._fn["options_set_max_open_files"](options, int(max_open_files))
            if self._progress is not None:
                self._progress.set_on(set_progress, options)
            self._handle = _errors.call(self._fn["create"], db._checked_handle(), options)
        finally:
            self._fn["options_destroy"](options)
        db._loaders.add(self)

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error("shale: the BulkLoader is closed")
        return self._handle

    def add(self, key: BytesLike, value: BytesLike) -> None:
        """Adds key -> value (copied); a later add of the same key wins."""
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        _errors.call(self._fn["add"], self._checked_handle(), key, len(key), value, len(value))

    def add_all(self, pairs: Iterable[Tuple[BytesLike, BytesLike]]) -> None:
        """Adds every (key, value) of an iterable."""
        for key, value in pairs:
            self.add(key, value)

    def finish(self) -> None:
        """Sorts, merges, writes and ingests everything added, all or nothing, and removes the
        temporary files. An error when called twice. Reports to the loader's progress callback;
        an exception that callback raised is raised here once the load has completed."""
        handle = self._checked_handle()
        with _progress.Reporting(self._progress):
            _errors.call(self._fn["finish"], handle)

    def close(self) -> None:
        """Frees the loader, abandoning an unfinished load (DB.close does it too). Idempotent."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._fn["destroy"](handle)
            self._db._loaders.discard(self)
        self._progress = None  # after destroy: the C loader held its thunk

    def __enter__(self) -> BulkLoader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

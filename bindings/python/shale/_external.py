"""External table files: SstFileWriter writes a table file (SST) outside any DB -- in another
process, on another machine, in a Spark executor -- and DB.ingest_external_file links a set of
them into a DB, all or none (include/shale/sst_file_writer.h, c.h).

    with shale.SstFileWriter(compression="kZSTD") as writer:
        writer.open("/shared/part-00000.sst")
        for key, value in sorted_pairs:
            writer.put(key, value)
        info = writer.finish()        # SstFileInfo(path=..., num_entries=..., ...)
    db.ingest_external_file([info.path], move_files=True)
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
from typing import Any, Iterable, Mapping, Optional, Union

from . import _errors, _library, _options, _progress
from ._library import BytesLike

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# IngestExternalFileOptions' fields in the order of DB.ingest_external_file, with the engine's
# defaults (include/shale/options.h).
INGEST_DEFAULTS = {
    "move_files": False,
    "snapshot_consistency": True,
    "allow_global_seqno": True,
    "allow_blocking_flush": True,
    "ingest_behind": False,
    "verify_checksums_before_ingest": False,
    "write_global_seqno": False,
}


@dataclasses.dataclass(frozen=True)
class SstFileInfo:
    """What SstFileWriter.finish reports about the file it wrote (ExternalSstFileInfo).

    smallest_key/largest_key are the first and last point keys (put, delete), b"" when there are
    none; smallest_range_del_key/largest_range_del_key bound the range deletions, b"" when there
    are none. num_entries counts point entries, num_range_del_entries range deletions.
    """
    path: Union[str, bytes]
    smallest_key: bytes
    largest_key: bytes
    smallest_range_del_key: bytes
    largest_range_del_key: bytes
    num_entries: int
    num_range_del_entries: int
    file_size: int


class SstFileWriter:
    """Writes table files for DB.ingest_external_file, one at a time: open(path), then put /
    delete with keys in strictly increasing bytewise order (and delete_range in any order),
    then finish(). Errors are sticky: after the first failure every call raises it again and
    the partial file is deleted. open() may be called again after finish() or a failure, for
    the next file.

    `options` are RocksDB option names, as for shale.DB: the table options
    (block_based_table_factory={...}), compression (the bottommost_compression when one is
    set) and the comparator come from them; use the DB's options so that the files match it.

    Use it as a context manager or call close(): an unfinished file is then abandoned and
    deleted. Not thread-safe: one writer per thread (or per Spark task).
    """

    def __init__(self, **options: _options.OptionValue) -> None:
        self._lib = _library.lib()
        self._io_options: Optional[int] = _options.new_options(self._lib, options)
        self._handle: Optional[int] = None
        # Of the current file; None before open and after close.
        self._path: Optional[Union[str, bytes]] = None
        self._finished = False  # the current file is complete (or failed): open() may follow
        self._reset_counts()

    def _reset_counts(self) -> None:
        self._smallest: Optional[bytes] = None
        self._largest: Optional[bytes] = None
        self._range_smallest: Optional[bytes] = None
        self._range_largest: Optional[bytes] = None
        self._entries = 0
        self._range_entries = 0

    def _checked_handle(self) -> int:
        if self._io_options is None:
            raise _errors.Error("shale: the SstFileWriter is closed")
        if self._handle is None:
            raise _errors.InvalidArgumentError("shale: SstFileWriter: no file is open")
        return self._handle

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return _errors.call(fn, self._checked_handle(), *args)
        except _errors.Error:
            self._finished = True  # errors are sticky: the file is gone, only open() is left
            raise

    def open(self, path: PathLike) -> None:
        """Creates (or truncates) the file at `path`. An error while another file is open."""
        if self._io_options is None:
            raise _errors.Error("shale: the SstFileWriter is closed")
        if self._handle is not None and not self._finished:
            raise _errors.InvalidArgumentError(
                f"shale: SstFileWriter: {os.fsdecode(path)}: {os.fsdecode(self._path or '')} is "
                f"open and unfinished")
        self._destroy_handle()  # one C writer per file
        self._handle = self._lib.shale_sstfilewriter_create(self._io_options)
        self._path = os.fspath(path)
        self._finished = False
        self._reset_counts()
        self._call(self._lib.shale_sstfilewriter_open, os.fsencode(self._path))

    def put(self, key: BytesLike, value: BytesLike) -> None:
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        self._call(self._lib.shale_sstfilewriter_put, key, len(key), value, len(value))
        self._point_added(key)

    def delete(self, key: BytesLike) -> None:
        """Adds a deletion of `key` (it hides the key's older values once ingested)."""
        key = _library.as_bytes(key, "key")
        self._call(self._lib.shale_sstfilewriter_delete, key, len(key))
        self._point_added(key)

    def merge(self, key: BytesLike, operand: BytesLike) -> None:
        """Adds a merge operand for `key` (ingestion then needs a DB with a merge operator)."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        self._call(self._lib.shale_sstfilewriter_merge, key, len(key), operand, len(operand))
        self._point_added(key)

    def delete_range(self, start: BytesLike, end: BytesLike) -> None:
        """Deletes the keys in [start, end); an empty range (start == end) is ignored."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        fn = _errors.need("shale_sstfilewriter_delete_range", "SstFileWriter.delete_range")
        self._call(fn, start, len(start), end, len(end))
        if start == end:
            return
        if self._range_smallest is None or start < self._range_smallest:
            self._range_smallest = start
        if self._range_largest is None or end > self._range_largest:
            self._range_largest = end
        self._range_entries += 1

    def _point_added(self, key: bytes) -> None:
        # The engine has checked the order, so the first key is the smallest. (The C ABI
        # offers only the bytewise comparator, which the range bounds above also assume.)
        if self._smallest is None:
            self._smallest = key
        self._largest = key
        self._entries += 1

    def finish(self) -> SstFileInfo:
        """Completes, syncs and closes the file; returns its SstFileInfo. A file with no
        entries cannot be finished (InvalidArgumentError, and the file is deleted)."""
        self._call(self._lib.shale_sstfilewriter_finish)
        self._finished = True
        assert self._path is not None  # _call raised if no file was open
        return SstFileInfo(
            path=self._path,
            smallest_key=self._smallest or b"",
            largest_key=self._largest or b"",
            smallest_range_del_key=self._range_smallest or b"",
            largest_range_del_key=self._range_largest or b"",
            num_entries=self._entries,
            num_range_del_entries=self._range_entries,
            file_size=os.path.getsize(self._path))

    def _destroy_handle(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            self._lib.shale_sstfilewriter_destroy(handle)  # deletes an unfinished file

    def close(self) -> None:
        """Abandons (and deletes) an unfinished file and frees the writer. Idempotent."""
        if getattr(self, "_io_options", None) is None:
            return
        self._destroy_handle()
        options, self._io_options = self._io_options, None
        self._lib.shale_options_destroy(options)
        self._path = None

    def __enter__(self) -> SstFileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def _set_ingest_option(lib: Any, handle: int, name: str, value: bool) -> None:
    """Sets one field of a shale_ingestexternalfileoptions_t. A field at its default needs no
    setter, so a library without the setter is an error only for a non-default value."""
    setter = f"shale_ingestexternalfileoptions_set_{name}"
    if name == "move_files":
        fn = lib.shale_ingestexternalfileoptions_set_move_files
    elif value == INGEST_DEFAULTS[name]:
        fn = _library.optional(setter)
        if fn is None:
            return
    else:
        fn = _errors.need(setter, f"ingest_external_file({name}={value})")
    fn(handle, bool(value))


def ingest(lib: Any, db_handle: int, files: Iterable[PathLike],
           options: Mapping[str, bool], progress: Optional[_progress._Reporter] = None,
           cf_handle: Optional[int] = None) -> None:
    """Calls shale_ingest_external_file (shale_ingest_external_file_cf into the family
    `cf_handle` when given) on `files` (paths) with `options` (a dict of INGEST_DEFAULTS'
    names), reporting to `progress` when given; raises the engine's error, then the progress
    callback's (see shale/_progress.py)."""
    if isinstance(files, (str, bytes, os.PathLike)):
        raise TypeError("shale: ingest_external_file takes a list of paths, not one path")
    paths = [os.fsencode(f) for f in files]
    set_progress = None if progress is None else _errors.need(
        "shale_ingestexternalfileoptions_set_progress", "DB.ingest_external_file(progress=...)")
    ingest_cf = None if cf_handle is None else _errors.need(
        "shale_ingest_external_file_cf", "DB.ingest_external_file(cf=...)")
    handle = lib.shale_ingestexternalfileoptions_create()
    try:
        with _progress.Reporting(progress):
            for name, value in options.items():
                _set_ingest_option(lib, handle, name, value)
            if progress is not None:
                progress.set_on(set_progress, handle)
            array = (ctypes.c_char_p * len(paths))(*paths)
            if cf_handle is None:
                _errors.call(lib.shale_ingest_external_file, db_handle, array, len(paths),
                             handle)
            else:
                _errors.call(ingest_cf, db_handle, cf_handle, array, len(paths), handle)
    finally:
        # The options hold the reporter's thunk: free them before `progress` may go.
        lib.shale_ingestexternalfileoptions_destroy(handle)

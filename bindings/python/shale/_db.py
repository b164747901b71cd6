"""DB and Snapshot: the database handle of the binding and its point-in-time views."""

from __future__ import annotations

import ctypes
import os
import weakref
from typing import (TYPE_CHECKING, Any, Iterable, List, Mapping, Optional, Tuple, TypeVar,
                    Union, overload)

from . import _errors, _external, _library, _merge, _options, _progress
from ._batch import WriteBatch
from ._cache import Cache
from ._iterator import Iterator
from ._library import BytesLike
from ._merge import MergeOperator
from ._progress import ProgressCallback

if TYPE_CHECKING:
    from ._bulk_loader import BulkLoader

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_T = TypeVar("_T")


# CompactRangeOptions::bottommost_level_compaction, in the C ABI's order (its int values).
_BOTTOMMOST = ("skip", "if_have_compaction_filter", "force", "force_optimized")


def destroy_db(path: PathLike, **options: _options.OptionValue) -> None:
    """Deletes the DB in directory `path` (an error while it is open)."""
    lib = _library.lib()
    handle = _options.new_options(lib, options)
    try:
        _errors.call(lib.shale_destroy_db, handle, os.fsencode(path))
    finally:
        lib.shale_options_destroy(handle)


class Snapshot:
    """A consistent view of the DB as of its creation (DB.snapshot()), for get and iterator.

    Release it (release(), a with block, or garbage collection) when done: it keeps old data
    from being compacted away. Releasing it closes the iterators that read through it.
    """

    def __init__(self, db: DB) -> None:
        self._lib = db._lib
        self._db = db
        self._handle: Optional[int] = self._lib.shale_create_snapshot(db._checked_handle())
        self._iterators: weakref.WeakSet[Iterator] = weakref.WeakSet()

    def _handle_for(self, db: DB) -> int:
        if db is not self._db:
            raise ValueError("shale: the snapshot belongs to another DB")
        if not self._handle:
            raise _errors.Error("shale: the snapshot is released")
        return self._handle

    def release(self) -> None:
        """Releases the snapshot and closes the iterators that read through it. Idempotent."""
        handle, self._handle = getattr(self, "_handle", None), None
        if not handle:
            return
        for iterator in list(self._iterators):
            iterator.close()
        self._lib.shale_release_snapshot(self._db._handle, handle)
        self._db._snapshots.discard(self)

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


class DB:
    """A ShaleDB database in directory `path`, opened with `options` (RocksDB option names and
    value syntax, parsed by the engine: create_if_missing=True, write_buffer_size="64M",
    compression="kZSTD", block_based_table_factory={"block_size": "8K"}). For merge, name a
    built-in merge operator: merge_operator="uint64add" (8-byte little-endian integers,
    summed), "max", "stringappend" or "stringappend:<delimiter>", "sortedset64"; or give
    a shale.MergeOperator written in Python. max_successive_merges=N merges a key's operands
    at write time once N are stacked.

    Keywords for what the options string cannot say (the C setters of c.h), applied to fresh
    options in this order, before the named options, which therefore override them:
      1. block_cache=shale.Cache(...): a block cache shared with other DBs (it replaces the
         table options with the defaults plus the cache; table options named in
         block_based_table_factory={...} then apply on top);
      2. prepare_for_bulk_load=True: RocksDB's PrepareForBulkLoad (no automatic compaction,
         2 levels, large write buffers; compact_range() when the load is done);
      3. optimize_for_point_lookup=MiB: OptimizeForPointLookup (a bloom filter, the
         data-block hash index and, unless 0, a new block cache of that many MiB: give 0 with
         block_cache, which it would replace; a non-zero value with block_cache is a
         ValueError);
      4. increase_parallelism=N: IncreaseParallelism (N background jobs; after the bulk-load
         preset, so N wins over its 6);
      5. enable_statistics=True: the DB counts tickers and histograms; read them with
         statistics();
      6. a MergeOperator given as merge_operator.
    So DB(p, prepare_for_bulk_load=True, write_buffer_size="64M") keeps the preset except its
    write buffer size.

    Keys and values are bytes. Errors raise shale.Error (or a subclass) with the engine's
    message. Use it as a context manager, or call close(); closing also closes the DB's
    iterators and releases its snapshots. Methods may be called from several threads, but not
    concurrently with close().
    """

    def __init__(self, path: PathLike, *, block_cache: Optional[Cache] = None,
                 prepare_for_bulk_load: bool = False,
                 optimize_for_point_lookup: Optional[int] = None,
                 increase_parallelism: Optional[int] = None, enable_statistics: bool = False,
                 **options: _options.OptionValue) -> None:
        self._lib = _library.lib()
        self._handle: Optional[int] = None
        # The options the DB was opened with, kept while statistics are enabled: the C ABI
        # reads the statistics through them (shale_options_statistics_get_string).
        self._options: Optional[int] = None
        self._iterators: weakref.WeakSet[Iterator] = weakref.WeakSet()
        self._snapshots: weakref.WeakSet[Snapshot] = weakref.WeakSet()
        self._loaders: weakref.WeakSet[BulkLoader] = weakref.WeakSet()  # borrow the DB
        self.path: Union[str, bytes] = os.fspath(path)
        # The block cache, kept for the DB's life (the engine shares the cache itself anyway).
        self.block_cache: Optional[Cache] = block_cache
        merge_operator = options.get("merge_operator")
        if isinstance(merge_operator, MergeOperator):
            del options["merge_operator"]
        else:
            merge_operator = None
        prepare = _Prepare(block_cache, prepare_for_bulk_load, optimize_for_point_lookup,
                           increase_parallelism, enable_statistics, merge_operator)
        handle = _options.new_options(self._lib, options, prepare if prepare.needed() else None)
        try:
            self._handle = _errors.call(self._lib.shale_open, handle, os.fsencode(path))
        finally:
            if enable_statistics and self._handle:
                self._options = handle
            else:
                self._lib.shale_options_destroy(handle)
        if merge_operator is not None:
            _merge.track(self)

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return not self._handle

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error(f"shale: the DB {os.fsdecode(self.path)} is closed")
        return self._handle

    # ------------------------------------------------------------ Writes

    def _write(self, fn: Any, args: Tuple[Any, ...], sync: bool, disable_wal: bool) -> None:
        wo = self._lib.shale_writeoptions_create()
        try:
            self._lib.shale_writeoptions_set_sync(wo, bool(sync))
            self._lib.shale_writeoptions_disable_WAL(wo, bool(disable_wal))
            _errors.call(fn, self._checked_handle(), wo, *args)
        finally:
            self._lib.shale_writeoptions_destroy(wo)

    def put(self, key: BytesLike, value: BytesLike, *, sync: bool = False,
            disable_wal: bool = False) -> None:
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        self._write(self._lib.shale_put, (key, len(key), value, len(value)), sync, disable_wal)

    def delete(self, key: BytesLike, *, sync: bool = False,
               disable_wal: bool = False) -> None:
        key = _library.as_bytes(key, "key")
        self._write(self._lib.shale_delete, (key, len(key)), sync, disable_wal)

    def single_delete(self, key: BytesLike, *, sync: bool = False,
                      disable_wal: bool = False) -> None:
        """Removes a key that was put at most once since its last deletion."""
        key = _library.as_bytes(key, "key")
        self._write(self._lib.shale_singledelete, (key, len(key)), sync, disable_wal)

    def delete_range(self, start: BytesLike, end: BytesLike, *, sync: bool = False,
                     disable_wal: bool = False) -> None:
        """Deletes every key in [start, end)."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        self._write(self._lib.shale_delete_range, (start, len(start), end, len(end)), sync,
                    disable_wal)

    def merge(self, key: BytesLike, operand: BytesLike, *, sync: bool = False,
              disable_wal: bool = False) -> None:
        """Adds a merge operand for key: the DB's merge operator (the option merge_operator,
        e.g. "uint64add" or "stringappend:|") combines it with the key's value when the key is
        read, flushed or compacted. InvalidArgumentError when the DB has no merge operator; a
        malformed operand shows as CorruptionError when the key is read."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        merge = _errors.need("shale_merge", "DB.merge")
        self._write(merge, (key, len(key), operand, len(operand)), sync, disable_wal)

    def write(self, batch: WriteBatch, *, sync: bool = False,
              disable_wal: bool = False) -> None:
        """Applies a WriteBatch atomically."""
        if not isinstance(batch, WriteBatch):
            raise TypeError(f"shale: write takes a WriteBatch, not {type(batch).__name__}")
        self._write(self._lib.shale_write, (batch._handle,), sync, disable_wal)

    # ------------------------------------------------------------ Reads

    def _read_options(self, snapshot: Optional[Snapshot] = None,
                      lower_bound: Optional[BytesLike] = None,
                      upper_bound: Optional[BytesLike] = None, verify_checksums: bool = True,
                      fill_cache: bool = True) -> int:
        ro = self._lib.shale_readoptions_create()
        try:
            if snapshot is not None:
                self._lib.shale_readoptions_set_snapshot(ro, snapshot._handle_for(self))
            self._lib.shale_readoptions_set_verify_checksums(ro, bool(verify_checksums))
            self._lib.shale_readoptions_set_fill_cache(ro, bool(fill_cache))
            if lower_bound is not None:
                lower_bound = _library.as_bytes(lower_bound, "lower_bound")
                self._lib.shale_readoptions_set_iterate_lower_bound(ro, lower_bound,
                                                                    len(lower_bound))
            if upper_bound is not None:
                upper_bound = _library.as_bytes(upper_bound, "upper_bound")
                self._lib.shale_readoptions_set_iterate_upper_bound(ro, upper_bound,
                                                                    len(upper_bound))
        except BaseException:
            self._lib.shale_readoptions_destroy(ro)
            raise
        return int(ro)

    @overload
    def get(self, key: BytesLike, *, snapshot: Optional[Snapshot] = None) -> Optional[bytes]:
        ...

    @overload
    def get(self, key: BytesLike, default: _T, *,
            snapshot: Optional[Snapshot] = None) -> Union[bytes, _T]:
        ...

    def get(self, key: BytesLike, default: Any = None, *,
            snapshot: Optional[Snapshot] = None) -> Any:
        """The value of key (bytes), or `default` when the key is absent."""
        key = _library.as_bytes(key, "key")
        ro = self._read_options(snapshot=snapshot)
        try:
            length = ctypes.c_size_t()
            ptr = _errors.call(self._lib.shale_get, self._checked_handle(), ro, key, len(key),
                               ctypes.byref(length))
        finally:
            self._lib.shale_readoptions_destroy(ro)
        value = _library.take_string(ptr, length.value)
        return default if value is None else value

    def multi_get(self, keys: Iterable[BytesLike], *,
                  snapshot: Optional[Snapshot] = None) -> List[Optional[bytes]]:
        """The values of `keys`, in order, all read at one snapshot (`snapshot`, or now): bytes,
        or None for a key that is absent. Raises the first key's error when a read fails."""
        key_list = [_library.as_bytes(key, "key") for key in keys]
        multi_get = _errors.need("shale_multi_get", "DB.multi_get")
        count = len(key_list)
        if count == 0:
            return []
        values = (ctypes.c_void_p * count)()
        value_sizes = (ctypes.c_size_t * count)()
        errors = (ctypes.c_void_p * count)()
        ro = self._read_options(snapshot=snapshot)
        try:
            multi_get(self._checked_handle(), ro, count, (ctypes.c_char_p * count)(*key_list),
                      (ctypes.c_size_t * count)(*map(len, key_list)), values, value_sizes,
                      errors)
        finally:
            self._lib.shale_readoptions_destroy(ro)
        # Take every buffer (freeing it) before raising, so an error leaks nothing.
        result = [_library.take_string(values[i], value_sizes[i]) for i in range(count)]
        messages = [_library.take_string(errors[i]) for i in range(count)]
        for message in messages:
            if message is not None:
                raise _errors.error_for(message.decode("utf-8", "replace"))
        return result

    def iterator(self, *, lower_bound: Optional[BytesLike] = None,
                 upper_bound: Optional[BytesLike] = None, snapshot: Optional[Snapshot] = None,
                 reverse: bool = False, verify_checksums: bool = True,
                 fill_cache: bool = True) -> Iterator:
        """An Iterator over the keys in [lower_bound, upper_bound) (None: unbounded) as of
        `snapshot` (None: now). reverse=True makes plain iteration go from the last key."""
        ro = self._read_options(snapshot, lower_bound, upper_bound, verify_checksums,
                                fill_cache)
        try:
            iterator = Iterator(self, ro, snapshot, reverse)
        finally:
            self._lib.shale_readoptions_destroy(ro)
        self._iterators.add(iterator)
        if snapshot is not None:
            snapshot._iterators.add(iterator)
        return iterator

    def snapshot(self) -> Snapshot:
        """A Snapshot of the current state."""
        snapshot = Snapshot(self)
        self._snapshots.add(snapshot)
        return snapshot

    def latest_sequence_number(self) -> int:
        """The sequence number of the last write (each record of a batch takes one)."""
        return int(self._lib.shale_get_latest_sequence_number(self._checked_handle()))

    # ------------------------------------------------------------ Maintenance

    def flush(self, wait: bool = True) -> None:
        """Flushes the memtables to table files (and waits for it unless wait=False)."""
        fo = self._lib.shale_flushoptions_create()
        try:
            self._lib.shale_flushoptions_set_wait(fo, bool(wait))
            _errors.call(self._lib.shale_flush, self._checked_handle(), fo)
        finally:
            self._lib.shale_flushoptions_destroy(fo)

    def compact_range(self, start: Optional[BytesLike] = None,
                      limit: Optional[BytesLike] = None, *, exclusive: bool = True,
                      change_level: bool = False, target_level: int = -1,
                      bottommost_level_compaction: str = "if_have_compaction_filter",
                      progress: Optional[ProgressCallback] = None,
                      progress_interval: float = _progress.DEFAULT_INTERVAL) -> None:
        """Flushes, then compacts the keys in [start, limit] and returns when done; None is an
        open end. With change_level the output moves to target_level (-1: the bottom level);
        bottommost_level_compaction is "skip", "if_have_compaction_filter", "force" or
        "force_optimized"; exclusive waits for automatic compactions to finish first. Like
        RocksDB's C API, reports no error (a failed compaction shows in later writes).

        progress: called with a shale.Progress (operation "compact_range"; bytes of the input
        table files) at most every progress_interval seconds while the compaction runs (0: at
        every few thousand entries) and once at the end with finished=True; see
        shale.Progress for where it runs and what happens when it raises."""
        start_key = None if start is None else _library.as_bytes(start, "start")
        limit_key = None if limit is None else _library.as_bytes(limit, "limit")
        try:
            bottommost = _BOTTOMMOST.index(bottommost_level_compaction)
        except ValueError:
            raise ValueError(f"shale: bottommost_level_compaction must be one of {_BOTTOMMOST}, "
                             f"not {bottommost_level_compaction!r}") from None
        rep = _progress.reporter(progress, progress_interval, "DB.compact_range")
        set_progress = None if rep is None else _errors.need(
            "shale_compactoptions_set_progress", "DB.compact_range(progress=...)")
        handle = self._checked_handle()
        co = self._lib.shale_compactoptions_create()
        try:
            with _progress.Reporting(rep):
                self._lib.shale_compactoptions_set_exclusive_manual_compaction(co,
                                                                               bool(exclusive))
                self._lib.shale_compactoptions_set_change_level(co, bool(change_level))
                self._lib.shale_compactoptions_set_target_level(co, int(target_level))
                self._lib.shale_compactoptions_set_bottommost_level_compaction(co, bottommost)
                if rep is not None:
                    rep.set_on(set_progress, co)
                self._lib.shale_compact_range_opt(handle, co, start_key, len(start_key or b""),
                                                  limit_key, len(limit_key or b""))
        finally:
            # The options hold the reporter's thunk: free them before `rep` may go.
            self._lib.shale_compactoptions_destroy(co)

    def ingest_external_file(self, files: Iterable[PathLike], *, move_files: bool = False,
                             snapshot_consistency: bool = True,
                             allow_global_seqno: bool = True, allow_blocking_flush: bool = True,
                             ingest_behind: bool = False,
                             verify_checksums_before_ingest: bool = False,
                             write_global_seqno: bool = False,
                             progress: Optional[ProgressCallback] = None,
                             progress_interval: float = _progress.DEFAULT_INTERVAL) -> None:
        """Links the table files `files` (paths written by shale.SstFileWriter) into the DB, all
        or none. Each file goes to the lowest level where it overlaps nothing. The options are
        RocksDB's IngestExternalFileOptions: move_files hard-links the files (copies across file
        systems) and removes the originals after success; allow_global_seqno=False fails
        instead of giving files that overlap the DB a new sequence number;
        allow_blocking_flush=False fails instead of flushing an overlapping memtable;
        ingest_behind puts the files below all data (needs allow_ingest_behind=True at open);
        verify_checksums_before_ingest reads every block first.

        progress: called with a shale.Progress (operation "ingest", stage "copy" or "link";
        bytes and files brought in) at most every progress_interval seconds (0: at every file
        and copied chunk) and once at the end with finished=True; see shale.Progress."""
        rep = _progress.reporter(progress, progress_interval, "DB.ingest_external_file")
        _external.ingest(self._lib, self._checked_handle(), files, {
            "move_files": move_files,
            "snapshot_consistency": snapshot_consistency,
            "allow_global_seqno": allow_global_seqno,
            "allow_blocking_flush": allow_blocking_flush,
            "ingest_behind": ingest_behind,
            "verify_checksums_before_ingest": verify_checksums_before_ingest,
            "write_global_seqno": write_global_seqno,
        }, rep)

    def create_checkpoint(self, checkpoint_dir: PathLike, *, log_size_for_flush: int = 0,
                          progress: Optional[ProgressCallback] = None,
                          progress_interval: float = _progress.DEFAULT_INTERVAL) -> None:
        """Makes an openable copy of the DB in `checkpoint_dir` (which must not exist; its
        parent must): table files hard-linked (copied across file systems) plus a fresh
        MANIFEST and CURRENT. With log_size_for_flush=0 the memtables are flushed first;
        above 0, WALs smaller than that many bytes are copied instead of flushing.

        progress: called with a shale.Progress (operation "checkpoint", stage "link" or
        "copy"; bytes and files of the tables and WALs) at most every progress_interval
        seconds (0: at every file and copied chunk) and once at the end with finished=True;
        see shale.Progress."""
        rep = _progress.reporter(progress, progress_interval, "DB.create_checkpoint")
        create = _errors.need("shale_checkpoint_object_create", "DB.create_checkpoint")
        if rep is None:
            make = _errors.need("shale_checkpoint_create", "DB.create_checkpoint")
        else:
            make = _errors.need("shale_checkpoint_create_with_progress",
                                "DB.create_checkpoint(progress=...)")
        destroy = _errors.need("shale_checkpoint_object_destroy", "DB.create_checkpoint")
        checkpoint = _errors.call(create, self._checked_handle())
        try:
            with _progress.Reporting(rep):
                if rep is None:
                    _errors.call(make, checkpoint, os.fsencode(checkpoint_dir),
                                 int(log_size_for_flush))
                else:
                    _errors.call(make, checkpoint, os.fsencode(checkpoint_dir),
                                 int(log_size_for_flush), rep.thunk, None, rep.interval)
        finally:
            destroy(checkpoint)

    def verify_checksum(self, *, progress: Optional[ProgressCallback] = None,
                        progress_interval: float = _progress.DEFAULT_INTERVAL) -> None:
        """Reads every block of every live table file and checks its checksum (RocksDB's
        VerifyChecksum); raises shale.Corruption naming the file on the first bad block.
        Blocks are read from the files, never through the block cache.

        progress: called with a shale.Progress (operation "verify"; bytes of the live table
        files verified of their total, entries = files) at most every progress_interval
        seconds (0: after every file) and once at the end with finished=True; see
        shale.Progress."""
        rep = _progress.reporter(progress, progress_interval, "DB.verify_checksum")
        if rep is None:
            verify = _errors.need("shale_verify_checksum", "DB.verify_checksum")
        else:
            verify = _errors.need("shale_verify_checksum_with_progress",
                                  "DB.verify_checksum(progress=...)")
        handle = self._checked_handle()
        with _progress.Reporting(rep):
            if rep is None:
                _errors.call(verify, handle)
            else:
                _errors.call(verify, handle, rep.thunk, None, rep.interval)

    def set_options(self, options: Mapping[str, _options.OptionValue]) -> None:
        """Changes dynamic options of the open DB, all or none: a dict of RocksDB names to
        values ({"disable_auto_compactions": False, "write_buffer_size": "8M"}); values are
        written as in DB(...). Raises InvalidArgumentError naming an unknown, malformed or
        non-dynamic option."""
        if not isinstance(options, Mapping):
            raise TypeError(f"shale: set_options takes a dict, not {type(options).__name__}")
        names = [str(name).encode() for name in options]
        values = [_options.option_value(value).encode() for value in options.values()]
        count = len(names)
        _errors.call(self._lib.shale_set_options, self._checked_handle(), count,
                     (ctypes.c_char_p * count)(*names), (ctypes.c_char_p * count)(*values))

    def property(self, name: str) -> Optional[str]:
        """A property as text ("shale.stats", "shale.num-files-at-level0", ...), or None
        when the engine does not know it."""
        ptr = self._lib.shale_property_value(self._checked_handle(), name.encode())
        text = _library.take_string(ptr)
        return None if text is None else text.decode("utf-8", "replace")

    def int_property(self, name: str) -> Optional[int]:
        """A numeric property as an int, or None when unknown or not numeric."""
        value = ctypes.c_uint64()
        if self._lib.shale_property_int(self._checked_handle(), name.encode(),
                                        ctypes.byref(value)) != 0:
            return None
        return value.value

    def approximate_sizes(self, ranges: Iterable[Tuple[BytesLike, BytesLike]]) -> List[int]:
        """The approximate bytes of table files holding each range [start, limit), in order
        (DB::GetApproximateSizes: the memtables are not counted; flush() first to count recent
        writes). A range with limit <= start is 0."""
        pairs = [(_library.as_bytes(start, "start"), _library.as_bytes(limit, "limit"))
                 for start, limit in ranges]
        approximate_sizes = _errors.need("shale_approximate_sizes", "DB.approximate_sizes")
        count = len(pairs)
        if count == 0:
            return []
        if count > 0x7FFFFFFF:
            raise ValueError(f"shale: approximate_sizes takes at most 2^31-1 ranges, not {count}")
        starts = [start for start, _ in pairs]
        limits = [limit for _, limit in pairs]
        sizes = (ctypes.c_uint64 * count)()
        _errors.call(approximate_sizes, self._checked_handle(), count,
                     (ctypes.c_char_p * count)(*starts), (ctypes.c_size_t * count)(*map(len, starts)),
                     (ctypes.c_char_p * count)(*limits), (ctypes.c_size_t * count)(*map(len, limits)),
                     sizes)
        return [int(size) for size in sizes]

    def resume(self) -> None:
        """Clears the background error that stopped the DB's writes (a failed flush,
        compaction or WAL write: writes then raise it) once its cause is gone: flushes what
        the failure left in memory and lets writes and compactions run again (DB::Resume).
        Raises the error again when the cause persists; does nothing when there is none."""
        resume = _errors.need("shale_resume", "DB.resume")
        _errors.call(resume, self._checked_handle())

    def statistics(self) -> Optional[str]:
        """The DB's statistics as text, every ticker ("shale.block.cache.hit COUNT : 12") then
        every histogram, or None when the DB was not opened with enable_statistics=True. Still
        readable after close(), with the final counts."""
        if self._options is None:
            return None
        text = _library.take_string(self._lib.shale_options_statistics_get_string(self._options))
        return None if text is None else text.decode("utf-8", "replace")

    # ------------------------------------------------------------ Lifetime

    def close(self) -> None:
        """Closes the iterators and bulk loaders (abandoning unfinished loads), releases the
        snapshots, then closes the DB. Idempotent."""
        if not getattr(self, "_handle", None):
            return
        for loader in list(self._loaders):
            loader.close()
        for iterator in list(self._iterators):
            iterator.close()
        for snapshot in list(self._snapshots):
            snapshot.release()
        handle, self._handle = self._handle, None
        self._lib.shale_close(handle)

    def __enter__(self) -> DB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _free_options(self) -> None:
        """Frees the options kept for statistics() (after which it returns None)."""
        options, self._options = getattr(self, "_options", None), None
        if options:
            self._lib.shale_options_destroy(options)

    def __del__(self) -> None:
        self.close()
        self._free_options()

    def __repr__(self) -> str:
        return f"<shale.DB {self.path!r}{' (closed)' if self.closed else ''}>"


class _Prepare:
    """The C setters DB(...) applies to fresh options before the named options (see DB's
    docstring for the order and why)."""

    def __init__(self, block_cache: Optional[Cache], prepare_for_bulk_load: bool,
                 optimize_for_point_lookup: Optional[int], increase_parallelism: Optional[int],
                 enable_statistics: bool, merge_operator: Optional[MergeOperator]) -> None:
        if block_cache is not None and not isinstance(block_cache, Cache):
            raise TypeError(f"shale: block_cache must be a shale.Cache, not "
                            f"{type(block_cache).__name__} (a capacity goes in "
                            f"block_based_table_factory={{'block_cache': ...}})")
        if optimize_for_point_lookup is not None:
            optimize_for_point_lookup = _count(optimize_for_point_lookup,
                                               "optimize_for_point_lookup", 0)
            if block_cache is not None and optimize_for_point_lookup != 0:
                raise ValueError(
                    f"shale: optimize_for_point_lookup={optimize_for_point_lookup} would "
                    f"replace block_cache with a new {optimize_for_point_lookup} MiB cache; "
                    f"give optimize_for_point_lookup=0 to keep block_cache")
        if increase_parallelism is not None:
            increase_parallelism = _count(increase_parallelism, "increase_parallelism", 1)
        self.block_cache = block_cache
        self.prepare_for_bulk_load = bool(prepare_for_bulk_load)
        self.optimize_for_point_lookup = optimize_for_point_lookup
        self.increase_parallelism = increase_parallelism
        self.enable_statistics = bool(enable_statistics)
        self.merge_operator = merge_operator

    def needed(self) -> bool:
        return (self.block_cache is not None or self.prepare_for_bulk_load
                or self.optimize_for_point_lookup is not None
                or self.increase_parallelism is not None or self.enable_statistics
                or self.merge_operator is not None)

    def __call__(self, options: int) -> None:
        lib = _library.lib()
        if self.block_cache is not None:
            table = _errors.need("shale_block_based_options_create", "DB(block_cache=...)")()
            try:
                lib.shale_block_based_options_set_block_cache(
                    table, self.block_cache._checked_handle())
                lib.shale_options_set_block_based_table_factory(options, table)
            finally:
                lib.shale_block_based_options_destroy(table)
        if self.prepare_for_bulk_load:
            _errors.need("shale_options_prepare_for_bulk_load", "DB(prepare_for_bulk_load=...)")(
                options)
        if self.optimize_for_point_lookup is not None:
            _errors.need("shale_options_optimize_for_point_lookup",
                         "DB(optimize_for_point_lookup=...)")(options,
                                                             self.optimize_for_point_lookup)
        if self.increase_parallelism is not None:
            _errors.need("shale_options_increase_parallelism",
                         "DB(increase_parallelism=...)")(options, self.increase_parallelism)
        if self.enable_statistics:
            _errors.need("shale_options_enable_statistics", "DB(enable_statistics=True)")(
                options)
        if self.merge_operator is not None:
            _errors.need("shale_mergeoperator_create", "a shale.MergeOperator")
            _merge.set_on_options(lib, options, self.merge_operator)


def _count(value: int, what: str, minimum: int) -> int:
    """`value` as an int of at least `minimum`; TypeError or ValueError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shale: {what} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"shale: {what} must be >= {minimum}, not {value}")
    return value

"""DB and Snapshot: the database handle of the binding and its point-in-time views."""

import ctypes
import os
import weakref

from . import _errors, _external, _library, _options
from ._batch import WriteBatch
from ._iterator import Iterator


# CompactRangeOptions::bottommost_level_compaction, in the C ABI's order (its int values).
_BOTTOMMOST = ("skip", "if_have_compaction_filter", "force", "force_optimized")


def destroy_db(path, **options):
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

    def __init__(self, db):
        self._lib = db._lib
        self._db = db
        self._handle = self._lib.shale_create_snapshot(db._checked_handle())
        self._iterators = weakref.WeakSet()

    def _handle_for(self, db):
        if db is not self._db:
            raise ValueError("shale: the snapshot belongs to another DB")
        if not self._handle:
            raise _errors.Error("shale: the snapshot is released")
        return self._handle

    def release(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if not handle:
            return
        for iterator in list(self._iterators):
            iterator.close()
        self._lib.shale_release_snapshot(self._db._handle, handle)
        self._db._snapshots.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __del__(self):
        self.release()


class DB:
    """A ShaleDB database in directory `path`, opened with `options` (RocksDB option names and
    value syntax, parsed by the engine: create_if_missing=True, write_buffer_size="64M",
    compression="kZSTD", block_based_table_factory={"block_size": "8K"}). For merge, name a
    built-in merge operator: merge_operator="uint64add" (8-byte little-endian integers,
    summed), "max", "stringappend" or "stringappend:<delimiter>", "sortedset64";
    max_successive_merges=N merges a key's operands at write time once N are stacked.

    Keys and values are bytes. Errors raise shale.Error (or a subclass) with the engine's
    message. Use it as a context manager, or call close(); closing also closes the DB's
    iterators and releases its snapshots. Methods may be called from several threads, but not
    concurrently with close().
    """

    def __init__(self, path, **options):
        self._lib = _library.lib()
        self._handle = None
        self._iterators = weakref.WeakSet()
        self._snapshots = weakref.WeakSet()
        self._loaders = weakref.WeakSet()  # BulkLoaders, which borrow the DB
        self.path = os.fspath(path)
        handle = _options.new_options(self._lib, options)
        try:
            self._handle = _errors.call(self._lib.shale_open, handle, os.fsencode(self.path))
        finally:
            self._lib.shale_options_destroy(handle)

    @property
    def closed(self):
        return not self._handle

    def _checked_handle(self):
        if not self._handle:
            raise _errors.Error(f"shale: the DB {self.path} is closed")
        return self._handle

    # ------------------------------------------------------------ Writes

    def _write(self, fn, args, sync, disable_wal):
        wo = self._lib.shale_writeoptions_create()
        try:
            self._lib.shale_writeoptions_set_sync(wo, bool(sync))
            self._lib.shale_writeoptions_disable_WAL(wo, bool(disable_wal))
            _errors.call(fn, self._checked_handle(), wo, *args)
        finally:
            self._lib.shale_writeoptions_destroy(wo)

    def put(self, key, value, *, sync=False, disable_wal=False):
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        self._write(self._lib.shale_put, (key, len(key), value, len(value)), sync, disable_wal)

    def delete(self, key, *, sync=False, disable_wal=False):
        key = _library.as_bytes(key, "key")
        self._write(self._lib.shale_delete, (key, len(key)), sync, disable_wal)

    def single_delete(self, key, *, sync=False, disable_wal=False):
        """Removes a key that was put at most once since its last deletion."""
        key = _library.as_bytes(key, "key")
        self._write(self._lib.shale_singledelete, (key, len(key)), sync, disable_wal)

    def delete_range(self, start, end, *, sync=False, disable_wal=False):
        """Deletes every key in [start, end)."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        self._write(self._lib.shale_delete_range, (start, len(start), end, len(end)), sync,
                    disable_wal)

    def merge(self, key, operand, *, sync=False, disable_wal=False):
        """Adds a merge operand for key: the DB's merge operator (the option merge_operator,
        e.g. "uint64add" or "stringappend:|") combines it with the key's value when the key is
        read, flushed or compacted. InvalidArgumentError when the DB has no merge operator; a
        malformed operand shows as CorruptionError when the key is read."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        merge = _errors.need("shale_merge", "DB.merge")
        self._write(merge, (key, len(key), operand, len(operand)), sync, disable_wal)

    def write(self, batch, *, sync=False, disable_wal=False):
        """Applies a WriteBatch atomically."""
        if not isinstance(batch, WriteBatch):
            raise TypeError(f"shale: write takes a WriteBatch, not {type(batch).__name__}")
        self._write(self._lib.shale_write, (batch._handle,), sync, disable_wal)

    # ------------------------------------------------------------ Reads

    def _read_options(self, snapshot=None, lower_bound=None, upper_bound=None,
                      verify_checksums=True, fill_cache=True):
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
        return ro

    def get(self, key, default=None, *, snapshot=None):
        """The value of key (bytes), or `default` when the key is absent."""
        key = _library.as_bytes(key, "key")
        ro = self._read_options(snapshot=snapshot)
        try:
            length = ctypes.c_size_t()
            ptr = _errors.call(self._lib.shale_get, self._checked_handle(), ro, key, len(key),
                               ctypes.byref(length))
        finally:
            self._lib.shale_readoptions_destroy(ro)
        if not ptr:
            return default
        return _library.take_string(ptr, length.value)

    def iterator(self, *, lower_bound=None, upper_bound=None, snapshot=None, reverse=False,
                 verify_checksums=True, fill_cache=True):
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

    def snapshot(self):
        """A Snapshot of the current state."""
        snapshot = Snapshot(self)
        self._snapshots.add(snapshot)
        return snapshot

    def latest_sequence_number(self):
        """The sequence number of the last write (each record of a batch takes one)."""
        return int(self._lib.shale_get_latest_sequence_number(self._checked_handle()))

    # ------------------------------------------------------------ Maintenance

    def flush(self, wait=True):
        """Flushes the memtables to table files (and waits for it unless wait=False)."""
        fo = self._lib.shale_flushoptions_create()
        try:
            self._lib.shale_flushoptions_set_wait(fo, bool(wait))
            _errors.call(self._lib.shale_flush, self._checked_handle(), fo)
        finally:
            self._lib.shale_flushoptions_destroy(fo)

    def compact_range(self, start=None, limit=None, *, exclusive=True, change_level=False,
                      target_level=-1, bottommost_level_compaction="if_have_compaction_filter"):
        """Flushes, then compacts the keys in [start, limit] and returns when done; None is an
        open end. With change_level the output moves to target_level (-1: the bottom level);
        bottommost_level_compaction is "skip", "if_have_compaction_filter", "force" or
        "force_optimized"; exclusive waits for automatic compactions to finish first. Like
        RocksDB's C API, reports no error (a failed compaction shows in later writes)."""
        start = None if start is None else _library.as_bytes(start, "start")
        limit = None if limit is None else _library.as_bytes(limit, "limit")
        try:
            bottommost = _BOTTOMMOST.index(bottommost_level_compaction)
        except ValueError:
            raise ValueError(f"shale: bottommost_level_compaction must be one of {_BOTTOMMOST}, "
                             f"not {bottommost_level_compaction!r}") from None
        handle = self._checked_handle()
        co = self._lib.shale_compactoptions_create()
        try:
            self._lib.shale_compactoptions_set_exclusive_manual_compaction(co, bool(exclusive))
            self._lib.shale_compactoptions_set_change_level(co, bool(change_level))
            self._lib.shale_compactoptions_set_target_level(co, int(target_level))
            self._lib.shale_compactoptions_set_bottommost_level_compaction(co, bottommost)
            self._lib.shale_compact_range_opt(handle, co, start, len(start or b""), limit,
                                              len(limit or b""))
        finally:
            self._lib.shale_compactoptions_destroy(co)

    def ingest_external_file(self, files, *, move_files=False, snapshot_consistency=True,
                             allow_global_seqno=True, allow_blocking_flush=True,
                             ingest_behind=False, verify_checksums_before_ingest=False,
                             write_global_seqno=False):
        """Links the table files `files` (paths written by shale.SstFileWriter) into the DB, all
        or none. Each file goes to the lowest level where it overlaps nothing. The options are
        RocksDB's IngestExternalFileOptions: move_files hard-links the files (copies across file
        systems) and removes the originals after success; allow_global_seqno=False fails
        instead of giving files that overlap the DB a new sequence number;
        allow_blocking_flush=False fails instead of flushing an overlapping memtable;
        ingest_behind puts the files below all data (needs allow_ingest_behind=True at open);
        verify_checksums_before_ingest reads every block first."""
        _external.ingest(self._lib, self._checked_handle(), files, {
            "move_files": move_files,
            "snapshot_consistency": snapshot_consistency,
            "allow_global_seqno": allow_global_seqno,
            "allow_blocking_flush": allow_blocking_flush,
            "ingest_behind": ingest_behind,
            "verify_checksums_before_ingest": verify_checksums_before_ingest,
            "write_global_seqno": write_global_seqno,
        })

    def create_checkpoint(self, checkpoint_dir, *, log_size_for_flush=0):
        """Makes an openable copy of the DB in `checkpoint_dir` (which must not exist; its
        parent must): table files hard-linked (copied across file systems) plus a fresh
        MANIFEST and CURRENT. With log_size_for_flush=0 the memtables are flushed first;
        above 0, WALs smaller than that many bytes are copied instead of flushing."""
        create = _errors.need("shale_checkpoint_object_create", "DB.create_checkpoint")
        make = _errors.need("shale_checkpoint_create", "DB.create_checkpoint")
        destroy = _errors.need("shale_checkpoint_object_destroy", "DB.create_checkpoint")
        checkpoint = _errors.call(create, self._checked_handle())
        try:
            _errors.call(make, checkpoint, os.fsencode(checkpoint_dir), int(log_size_for_flush))
        finally:
            destroy(checkpoint)

    def set_options(self, options):
        """Changes dynamic options of the open DB, all or none: a dict of RocksDB names to
        values ({"disable_auto_compactions": False, "write_buffer_size": "8M"}); values are
        written as in DB(...). Raises InvalidArgumentError naming an unknown, malformed or
        non-dynamic option."""
        if not isinstance(options, dict):
            raise TypeError(f"shale: set_options takes a dict, not {type(options).__name__}")
        names = [str(name).encode() for name in options]
        values = [_options.option_value(value).encode() for value in options.values()]
        count = len(names)
        _errors.call(self._lib.shale_set_options, self._checked_handle(), count,
                     (ctypes.c_char_p * count)(*names), (ctypes.c_char_p * count)(*values))

    def property(self, name):
        """A property as text ("shale.stats", "shale.num-files-at-level0", ...), or None
        when the engine does not know it."""
        ptr = self._lib.shale_property_value(self._checked_handle(), name.encode())
        text = _library.take_string(ptr)
        return None if text is None else text.decode("utf-8", "replace")

    def int_property(self, name):
        """A numeric property as an int, or None when unknown or not numeric."""
        value = ctypes.c_uint64()
        if self._lib.shale_property_int(self._checked_handle(), name.encode(),
                                        ctypes.byref(value)) != 0:
            return None
        return value.value

    # ------------------------------------------------------------ Lifetime

    def close(self):
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return f"<shale.DB {self.path!r}{' (closed)' if self.closed else ''}>"

"""DB and Snapshot: the database handle of the binding and its point-in-time views."""

from __future__ import annotations

import ctypes
import os
import weakref
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional,
                    Sequence, Tuple, TypeVar, Union, overload)

from . import _compaction_filter, _errors, _external, _library, _merge, _options, _progress
from ._batch import WriteBatch
from ._cache import Cache
from ._column_family import (DEFAULT_COLUMN_FAMILY_NAME, ColumnFamily, ColumnFamilyLike,
                             list_column_families)
from ._iterator import Iterator
from ._library import BytesLike
from ._compaction_filter import CompactionFilter
from ._merge import MergeOperator
from ._progress import ProgressCallback
from ._wal_iterator import WalIterator

if TYPE_CHECKING:
    from ._bulk_loader import BulkLoader

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_T = TypeVar("_T")
# DB(column_families=...): names, or each name with its options.
ColumnFamilies = Union[Iterable[str], Mapping[str, Mapping[str, "_options.OptionValue"]]]


class _ListColumnFamilies:
    """DB.list_column_families: on the class, a function of a path (the static form,
    shale.list_column_families); on a DB, the names of that DB's families."""

    @overload
    def __get__(self, obj: None, owner: type) -> Callable[..., List[str]]:
        ...

    @overload
    def __get__(self, obj: DB, owner: type) -> Callable[[], List[str]]:
        ...

    def __get__(self, obj: Optional[DB], owner: type) -> Callable[..., List[str]]:
        if obj is None:
            return list_column_families
        db = obj

        def names() -> List[str]:
            """The names of the DB's column families ("default" first, then in creation
            order), read from its MANIFEST."""
            db._checked_handle()
            return list_column_families(db.path)
        return names


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


def repair_db(path: PathLike, **options: _options.OptionValue) -> None:
    """Rebuilds the MANIFEST and CURRENT of the DB in directory `path` from its tables and WALs
    (RocksDB's RepairDB; doc/repair.md says what comes back). `options` apply to every column
    family found. Raises while the DB is open (its LOCK is held) and for a missing directory,
    which is not created."""
    lib = _library.lib()
    handle = _options.new_options(lib, options)
    try:
        _errors.call(lib.shale_repair_db, handle, os.fsencode(path))
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
      6. a MergeOperator given as merge_operator;
      7. compaction_filter=shale.CompactionFilter(...): a compaction filter written in Python
         (for the DB's families too), used until the DB is closed.
    So DB(p, prepare_for_bulk_load=True, write_buffer_size="64M") keeps the preset except its
    write buffer size.

    Column families: column_families=["a", "b"] opens the DB with those families, each with
    the DB's options; column_families={"a": {"write_buffer_size": "8M"}, "b": {}} gives a
    family its own options, applied over the DB's (keywords included: merge_operator=
    shale.MergeOperator(...) works per family). "default" is opened too, with the DB's options,
    when not named. Every family the DB has must be named (InvalidArgumentError naming the
    missing ones, as RocksDB); create_missing_column_families=True creates the named ones it
    lacks. Without column_families only "default" is opened (an error when the DB has other
    families). Every read, write and maintenance call takes cf=: a shale.ColumnFamily
    (db.get_column_family(name), db.create_column_family(...)) or a family's name; None is
    the default family. DB.list_column_families(path) lists a DB's families without opening it.

    Read-only: read_only=True opens an existing DB for reading only (RocksDB's
    OpenForReadOnly): no LOCK is taken, so another process may hold the DB open for writing;
    the DB is seen as of the open (its WALs replayed in memory); no file of the DB changes;
    create_if_missing is ignored (a missing DB raises InvalidArgumentError). column_families
    may then name a subset of the DB's families. Writes, flushes, compactions and family
    changes raise NotSupportedError ("Not supported operation in read only mode.").
    error_if_wal_file_exists=True (with read_only) raises CorruptionError when a WAL holds
    writes instead of replaying it.

    Secondary: secondary_path=... opens an existing DB as a secondary instance (RocksDB's
    OpenAsSecondary): as read_only (no LOCK, no file of the DB changes, a subset of the
    families may be named), but db.try_catch_up_with_primary() brings it up to the state the
    primary (another DB object or process writing the DB) has at that moment; iterators and
    snapshots taken before keep their view. secondary_path is the secondary's own directory
    (created if missing), where its info LOG goes. Writes raise NotSupportedError ("Not
    supported operation in secondary mode.").

    Keys and values are bytes. Errors raise shale.Error (or a subclass) with the engine's
    message. Use it as a context manager, or call close(); closing also closes the DB's
    iterators and releases its snapshots and column family handles. Methods may be called from
    several threads, but not concurrently with close().
    """

    list_column_families = _ListColumnFamilies()

    def __init__(self, path: PathLike, *, column_families: Optional[ColumnFamilies] = None,
                 block_cache: Optional[Cache] = None,
                 prepare_for_bulk_load: bool = False,
                 optimize_for_point_lookup: Optional[int] = None,
                 increase_parallelism: Optional[int] = None, enable_statistics: bool = False,
                 read_only: bool = False, error_if_wal_file_exists: bool = False,
                 compaction_filter: Optional[CompactionFilter] = None,
                 secondary_path: Optional[PathLike] = None,
                 **options: _options.OptionValue) -> None:
        self._lib = _library.lib()
        self._handle: Optional[int] = None
        # The C compaction filter the options borrow (c.h): destroyed after the DB is closed.
        self._compaction_filter: Optional[int] = None
        # The options the DB was opened with, kept while statistics are enabled: the C ABI
        # reads the statistics through them (shale_options_statistics_get_string).
        self._options: Optional[int] = None
        self._iterators: weakref.WeakSet[Iterator] = weakref.WeakSet()
        self._wal_iterators: weakref.WeakSet[WalIterator] = weakref.WeakSet()
        self._snapshots: weakref.WeakSet[Snapshot] = weakref.WeakSet()
        self._loaders: weakref.WeakSet[BulkLoader] = weakref.WeakSet()  # borrow the DB
        # Every column family handle made for this DB, live or dropped, by name (dropped ones
        # in _dropped): the DB frees them all before it closes (c.h: handles go first).
        self._families: Dict[str, ColumnFamily] = {}
        self._dropped: List[ColumnFamily] = []
        self.path: Union[str, bytes] = os.fspath(path)
        # The block cache, kept for the DB's life (the engine shares the cache itself anyway).
        self.block_cache: Optional[Cache] = block_cache
        merge_operator = options.get("merge_operator")
        if isinstance(merge_operator, MergeOperator):
            del options["merge_operator"]
        else:
            merge_operator = None
        if compaction_filter is not None:
            _errors.need("shale_compactionfilter_create", "DB(compaction_filter=...)")
            self._compaction_filter = _compaction_filter.create(self._lib, compaction_filter)
        prepare = _Prepare(block_cache, prepare_for_bulk_load, optimize_for_point_lookup,
                           increase_parallelism, enable_statistics, merge_operator,
                           self._compaction_filter)
        # What a family's options start from: the DB's (create_column_family and
        # column_families={name: {...}} apply theirs on top).
        self._family_base = (dict(options), block_cache, prepare_for_bulk_load,
                             optimize_for_point_lookup, increase_parallelism, merge_operator)
        if error_if_wal_file_exists and not read_only:
            raise ValueError("shale: error_if_wal_file_exists applies only with read_only=True")
        if secondary_path is not None and read_only:
            raise ValueError("shale: read_only and secondary_path exclude each other")
        secondary = None if secondary_path is None else os.fsencode(secondary_path)
        families = None if column_families is None else _family_list(column_families)
        handle = _options.new_options(self._lib, options, prepare if prepare.needed() else None)
        try:
            if families is None and secondary is not None:
                open_secondary = _errors.need("shale_open_as_secondary",
                                              "DB(secondary_path=...)")
                self._handle = _errors.call(open_secondary, handle, os.fsencode(path),
                                            secondary)
            elif families is None and read_only:
                open_ro = _errors.need("shale_open_for_read_only", "DB(read_only=True)")
                self._handle = _errors.call(open_ro, handle, os.fsencode(path),
                                            1 if error_if_wal_file_exists else 0)
            elif families is None:
                self._handle = _errors.call(self._lib.shale_open, handle, os.fsencode(path))
            else:
                self._handle = self._open_families(handle, families, read_only,
                                                   error_if_wal_file_exists, secondary)
        finally:
            if enable_statistics and self._handle:
                self._options = handle
            else:
                self._lib.shale_options_destroy(handle)
            if not self._handle:
                self._destroy_compaction_filter()
        if self._compaction_filter is not None:
            _merge.track(self)
        if merge_operator is not None or any(
                isinstance(o.get("merge_operator"), MergeOperator) for _, o in families or []):
            _merge.track(self)

    def _family_options(self, options: Mapping[str, _options.OptionValue]) -> int:
        """New shale_options_t for a family: the DB's options with `options` on top (the
        caller destroys it)."""
        base, block_cache, bulk, point_lookup, parallelism, merge_operator = self._family_base
        merged = dict(base)
        merged.update(options)
        own = merged.get("merge_operator")
        if isinstance(own, MergeOperator):
            del merged["merge_operator"]
            merge_operator = own
        elif "merge_operator" in options:
            merge_operator = None  # a built-in's name (or None) replaces the DB's operator
        prepare = _Prepare(block_cache, bulk, point_lookup, parallelism, False, merge_operator,
                           self._compaction_filter)
        return _options.new_options(self._lib, merged, prepare if prepare.needed() else None)

    def _open_families(self, db_options: int,
                       families: List[Tuple[str, Mapping[str, _options.OptionValue]]],
                       read_only: bool = False, error_if_wal_file_exists: bool = False,
                       secondary: Optional[bytes] = None) -> int:
        """shale_open_column_families (or, read_only, shale_open_for_read_only_column_families;
        with `secondary`, shale_open_as_secondary_column_families) with `families`; records
        their handles. Returns the DB's handle."""
        # The read-only function takes error_if_wal_file_exists before the errptr; the
        # secondary one takes the secondary path after the DB's.
        extra: Tuple[int, ...] = ()
        leading: Tuple[bytes, ...] = ()
        if secondary is not None:
            open_cf = _errors.need("shale_open_as_secondary_column_families",
                                   "DB(secondary_path=..., column_families=...)")
            leading = (secondary,)
        elif read_only:
            open_cf = _errors.need("shale_open_for_read_only_column_families",
                                   "DB(read_only=True, column_families=...)")
            extra = (1 if error_if_wal_file_exists else 0,)
        else:
            open_cf = _errors.need("shale_open_column_families", "DB(column_families=...)")
        count = len(families)
        option_handles: List[int] = []
        try:
            for _, family_options in families:
                option_handles.append(self._family_options(family_options))
            names = (ctypes.c_char_p * count)(*[name.encode("utf-8", "surrogateescape")
                                                for name, _ in families])
            handles = (ctypes.c_void_p * count)()
            db = _errors.call(open_cf, db_options, os.fsencode(self.path), *leading, count,
                              names, (ctypes.c_void_p * count)(*option_handles), handles,
                              *extra)
        finally:
            for option_handle in option_handles:
                self._lib.shale_options_destroy(option_handle)
        for i in range(count):
            family = ColumnFamily(self, int(handles[i] or 0))
            self._families[family.name] = family
        return int(db)

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return not self._handle

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error(f"shale: the DB {os.fsdecode(self.path)} is closed")
        return self._handle

    # ------------------------------------------------------------ Column families

    def _resolve(self, cf: ColumnFamilyLike) -> ColumnFamily:
        """The ColumnFamily for a cf= argument: a handle of this DB, or an open family's
        name."""
        if isinstance(cf, ColumnFamily):
            cf._handle_for(self)
            return cf
        if isinstance(cf, str):
            return self.get_column_family(cf)
        raise TypeError(f"shale: cf must be a shale.ColumnFamily or a family's name (str), not "
                        f"{type(cf).__name__}")

    def _family(self, cf: Optional[ColumnFamilyLike]) -> Optional[int]:
        """The C handle for a cf= argument, None for None (the calls without a family)."""
        return None if cf is None else self._resolve(cf)._handle_for(self)

    def get_column_family(self, name: str) -> ColumnFamily:
        """The handle of the open family `name` ("default" always works); KeyError when the DB
        has no such family open (not named at open, created or already dropped)."""
        self._checked_handle()
        family = self._families.get(name)
        if family is None and name == DEFAULT_COLUMN_FAMILY_NAME:
            get_default = _errors.need("shale_get_default_column_family_handle",
                                       "DB.default_column_family")
            family = ColumnFamily(self, int(get_default(self._handle)))
            self._families[name] = family
        if family is None:
            raise KeyError(f"shale: the DB {os.fsdecode(self.path)} has no open column family "
                           f"named {name!r} (open: {sorted(self._families)})")
        return family

    @property
    def default_column_family(self) -> ColumnFamily:
        """The handle of the "default" family (id 0)."""
        return self.get_column_family(DEFAULT_COLUMN_FAMILY_NAME)

    @property
    def column_families(self) -> Dict[str, ColumnFamily]:
        """The open families by name (a copy): those opened, created and not dropped."""
        self._checked_handle()
        self.get_column_family(DEFAULT_COLUMN_FAMILY_NAME)
        return dict(self._families)

    def create_column_family(self, name: str,
                             **options: _options.OptionValue) -> ColumnFamily:
        """Creates the family `name`, durably, with the DB's options and `options` (RocksDB
        names, as DB(...) takes them; merge_operator may be a shale.MergeOperator) on top, and
        returns its handle. InvalidArgumentError when the name is empty or in use, or an
        option is invalid."""
        if not isinstance(name, str):
            raise TypeError(f"shale: a column family's name is a str, not {type(name).__name__}")
        create = _errors.need("shale_create_column_family", "DB.create_column_family")
        handle = self._checked_handle()
        option_handle = self._family_options(options)
        try:
            cf = _errors.call(create, handle, option_handle,
                              name.encode("utf-8", "surrogateescape"))
        finally:
            self._lib.shale_options_destroy(option_handle)
        family = ColumnFamily(self, int(cf))
        self._families[family.name] = family
        if isinstance(options.get("merge_operator"), MergeOperator):
            _merge.track(self)
        return family

    def drop_column_family(self, cf: ColumnFamilyLike) -> None:
        """Drops the family (a handle or a name), durably: it is no longer listed or opened,
        writes to it raise InvalidArgumentError, and its files are deleted once no handle or
        iterator needs them. Its handle stays readable until the DB closes. The default family
        cannot be dropped (InvalidArgumentError)."""
        family = self._resolve(cf)
        drop = _errors.need("shale_drop_column_family", "DB.drop_column_family")
        _errors.call(drop, self._checked_handle(), family._handle_for(self))
        family.dropped = True
        if self._families.get(family.name) is family:
            del self._families[family.name]
        self._dropped.append(family)

    # ------------------------------------------------------------ Writes

    def _write(self, fn: Any, args: Tuple[Any, ...], sync: bool, disable_wal: bool) -> None:
        wo = self._lib.shale_writeoptions_create()
        try:
            self._lib.shale_writeoptions_set_sync(wo, bool(sync))
            self._lib.shale_writeoptions_disable_WAL(wo, bool(disable_wal))
            _errors.call(fn, self._checked_handle(), wo, *args)
        finally:
            self._lib.shale_writeoptions_destroy(wo)

    def _write_cf(self, plain: Any, cf_name: str, what: str, cf: Optional[ColumnFamilyLike],
                  args: Tuple[Any, ...], sync: bool, disable_wal: bool) -> None:
        """_write with `plain` (the default family), or the C function `cf_name` on cf."""
        family = self._family(cf)
        if family is None:
            self._write(plain, args, sync, disable_wal)
        else:
            self._write(_errors.need(cf_name, f"DB.{what}(cf=...)"), (family,) + args, sync,
                        disable_wal)

    def put(self, key: BytesLike, value: BytesLike, *, sync: bool = False,
            disable_wal: bool = False, cf: Optional[ColumnFamilyLike] = None) -> None:
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        self._write_cf(self._lib.shale_put, "shale_put_cf", "put", cf,
                       (key, len(key), value, len(value)), sync, disable_wal)

    def delete(self, key: BytesLike, *, sync: bool = False,
               disable_wal: bool = False, cf: Optional[ColumnFamilyLike] = None) -> None:
        key = _library.as_bytes(key, "key")
        self._write_cf(self._lib.shale_delete, "shale_delete_cf", "delete", cf, (key, len(key)),
                       sync, disable_wal)

    def single_delete(self, key: BytesLike, *, sync: bool = False,
                      disable_wal: bool = False, cf: Optional[ColumnFamilyLike] = None) -> None:
        """Removes a key that was put at most once since its last deletion."""
        key = _library.as_bytes(key, "key")
        self._write_cf(self._lib.shale_singledelete, "shale_singledelete_cf", "single_delete",
                       cf, (key, len(key)), sync, disable_wal)

    def delete_range(self, start: BytesLike, end: BytesLike, *, sync: bool = False,
                     disable_wal: bool = False, cf: Optional[ColumnFamilyLike] = None) -> None:
        """Deletes every key in [start, end)."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        self._write_cf(self._lib.shale_delete_range, "shale_delete_range_cf", "delete_range",
                       cf, (start, len(start), end, len(end)), sync, disable_wal)

    def merge(self, key: BytesLike, operand: BytesLike, *, sync: bool = False,
              disable_wal: bool = False, cf: Optional[ColumnFamilyLike] = None) -> None:
        """Adds a merge operand for key: the DB's merge operator (the option merge_operator,
        e.g. "uint64add" or "stringappend:|") combines it with the key's value when the key is
        read, flushed or compacted. InvalidArgumentError when the DB has no merge operator; a
        malformed operand shows as CorruptionError when the key is read."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        if cf is None:
            merge = _errors.need("shale_merge", "DB.merge")
            self._write(merge, (key, len(key), operand, len(operand)), sync, disable_wal)
        else:
            self._write_cf(None, "shale_merge_cf", "merge", cf,
                           (key, len(key), operand, len(operand)), sync, disable_wal)

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
    def get(self, key: BytesLike, *, snapshot: Optional[Snapshot] = None,
            cf: Optional[ColumnFamilyLike] = None) -> Optional[bytes]:
        ...

    @overload
    def get(self, key: BytesLike, default: _T, *, snapshot: Optional[Snapshot] = None,
            cf: Optional[ColumnFamilyLike] = None) -> Union[bytes, _T]:
        ...

    def get(self, key: BytesLike, default: Any = None, *,
            snapshot: Optional[Snapshot] = None, cf: Optional[ColumnFamilyLike] = None) -> Any:
        """The value of key (bytes) in the family cf (None: the default family), or `default`
        when the key is absent."""
        key = _library.as_bytes(key, "key")
        family = self._family(cf)
        get_cf = None if family is None else _errors.need("shale_get_cf", "DB.get(cf=...)")
        ro = self._read_options(snapshot=snapshot)
        try:
            length = ctypes.c_size_t()
            if family is None:
                ptr = _errors.call(self._lib.shale_get, self._checked_handle(), ro, key,
                                   len(key), ctypes.byref(length))
            else:
                ptr = _errors.call(get_cf, self._checked_handle(), ro, family, key, len(key),
                                   ctypes.byref(length))
        finally:
            self._lib.shale_readoptions_destroy(ro)
        value = _library.take_string(ptr, length.value)
        return default if value is None else value

    def multi_get(self, keys: Iterable[BytesLike], *,
                  snapshot: Optional[Snapshot] = None,
                  cf: Union[None, ColumnFamilyLike,
                            Sequence[Optional[ColumnFamilyLike]]] = None
                  ) -> List[Optional[bytes]]:
        """The values of `keys`, in order, all read at one snapshot (`snapshot`, or now): bytes,
        or None for a key that is absent. Raises the first key's error when a read fails.
        cf: the family of every key (None: the default family), or a list with each key's
        family (None entries: the default family), as long as `keys`; one snapshot covers
        them all."""
        key_list = [_library.as_bytes(key, "key") for key in keys]
        count = len(key_list)
        families: Optional[List[int]] = None
        if cf is not None:
            if isinstance(cf, (ColumnFamily, str)):
                per_key: List[Optional[ColumnFamilyLike]] = [cf] * count
            else:
                per_key = list(cf)
                if len(per_key) != count:
                    raise ValueError(f"shale: multi_get got {count} keys but {len(per_key)} "
                                     f"column families")
            families = [self._resolve(DEFAULT_COLUMN_FAMILY_NAME if f is None else f)
                        ._handle_for(self) for f in per_key]
        if families is None:
            multi_get = _errors.need("shale_multi_get", "DB.multi_get")
        else:
            multi_get = _errors.need("shale_multi_get_cf", "DB.multi_get(cf=...)")
        if count == 0:
            return []
        values = (ctypes.c_void_p * count)()
        value_sizes = (ctypes.c_size_t * count)()
        errors = (ctypes.c_void_p * count)()
        ro = self._read_options(snapshot=snapshot)
        try:
            if families is None:
                multi_get(self._checked_handle(), ro, count,
                          (ctypes.c_char_p * count)(*key_list),
                          (ctypes.c_size_t * count)(*map(len, key_list)), values, value_sizes,
                          errors)
            else:
                multi_get(self._checked_handle(), ro, (ctypes.c_void_p * count)(*families),
                          count, (ctypes.c_char_p * count)(*key_list),
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
                 fill_cache: bool = True, cf: Optional[ColumnFamilyLike] = None) -> Iterator:
        """An Iterator over the keys in [lower_bound, upper_bound) (None: unbounded) of the
        family cf (None: the default family) as of `snapshot` (None: now). reverse=True makes
        plain iteration go from the last key."""
        family = None if cf is None else self._resolve(cf)
        ro = self._read_options(snapshot, lower_bound, upper_bound, verify_checksums,
                                fill_cache)
        try:
            iterator = Iterator(self, ro, snapshot, reverse, family)
        finally:
            self._lib.shale_readoptions_destroy(ro)
        self._track_iterator(iterator, snapshot)
        return iterator

    def _track_iterator(self, iterator: Iterator, snapshot: Optional[Snapshot]) -> None:
        self._iterators.add(iterator)
        if snapshot is not None:
            snapshot._iterators.add(iterator)

    def iterators(self, cfs: Iterable[Optional[ColumnFamilyLike]], *,
                  lower_bound: Optional[BytesLike] = None,
                  upper_bound: Optional[BytesLike] = None,
                  snapshot: Optional[Snapshot] = None, reverse: bool = False,
                  verify_checksums: bool = True, fill_cache: bool = True) -> List[Iterator]:
        """One Iterator per family of `cfs` (None: the default family), in order, all at one
        sequence number (`snapshot`, or one taken for them all, RocksDB's NewIterators):
        together they show one consistent state of the DB. The other arguments are
        iterator()'s."""
        families = [self._resolve(DEFAULT_COLUMN_FAMILY_NAME if f is None else f)
                    for f in cfs]
        create = _errors.need("shale_create_iterators", "DB.iterators")
        count = len(families)
        if count == 0:
            return []
        handles = (ctypes.c_void_p * count)()
        ro = self._read_options(snapshot, lower_bound, upper_bound, verify_checksums,
                                fill_cache)
        try:
            _errors.call(create, self._checked_handle(), ro,
                         (ctypes.c_void_p * count)(*[f._handle_for(self) for f in families]),
                         handles, count)
        finally:
            self._lib.shale_readoptions_destroy(ro)
        result = [Iterator(self, None, snapshot, reverse, families[i], int(handles[i] or 0))
                  for i in range(count)]
        for iterator in result:
            self._track_iterator(iterator, snapshot)
        return result

    def snapshot(self) -> Snapshot:
        """A Snapshot of the current state."""
        snapshot = Snapshot(self)
        self._snapshots.add(snapshot)
        return snapshot

    def latest_sequence_number(self) -> int:
        """The sequence number of the last write (each record of a batch takes one)."""
        return int(self._lib.shale_get_latest_sequence_number(self._checked_handle()))

    def updates_since(self, sequence: int) -> WalIterator:
        """A WalIterator over the write batches from `sequence` on (0: from the first write),
        read back from the WAL files, as (sequence, data) pairs; iterating it again later polls
        for newer writes. Raises shale.Error "NotFound: Requested sequence not yet written in
        the db" for a sequence after latest_sequence_number(), and "NotFound: Requested
        sequence is older than the oldest WAL: ..." when the WALs holding it are gone: ShaleDB
        deletes a WAL once its memtables are flushed (it keeps no archive), so a replica must
        read often enough. Writes made with disable_wal are in no WAL: reading across them
        raises CorruptionError ("Gap in sequence numbers")."""
        wal_iterator = WalIterator(self, sequence)
        self._wal_iterators.add(wal_iterator)
        return wal_iterator

    # ------------------------------------------------------------ Maintenance

    def try_catch_up_with_primary(self) -> None:
        """A secondary instance (DB(path, secondary_path=...)) reads what the primary wrote
        since its open or last catch-up: reads started afterwards see the primary's state as of
        this call. On any other DB it raises NotSupportedError."""
        catch_up = _errors.need("shale_try_catch_up_with_primary",
                                "DB.try_catch_up_with_primary()")
        _errors.call(catch_up, self._checked_handle())

    def flush(self, wait: bool = True, *,
              cf: Union[None, ColumnFamilyLike, Sequence[Optional[ColumnFamilyLike]]] = None
              ) -> None:
        """Flushes the memtables of the family cf (None: the default family; a list: each of
        its families, None entries being the default one; with atomic_flush every family, in
        one MANIFEST write) to table files, and waits for it unless wait=False."""
        if cf is None or isinstance(cf, (ColumnFamily, str)):
            family = self._family(cf)
            families = None
        else:
            family = None
            families = [self._resolve(DEFAULT_COLUMN_FAMILY_NAME if f is None else f)
                        ._handle_for(self) for f in cf]
        flush_cf: Any = None
        if family is not None:
            flush_cf = _errors.need("shale_flush_cf", "DB.flush(cf=...)")
        elif families is not None:
            flush_cf = _errors.need("shale_flush_cfs", "DB.flush(cf=[...])")
        fo = self._lib.shale_flushoptions_create()
        try:
            self._lib.shale_flushoptions_set_wait(fo, bool(wait))
            if families is not None:
                count = len(families)
                _errors.call(flush_cf, self._checked_handle(), fo,
                             (ctypes.c_void_p * max(count, 1))(*families), count)
            elif family is None:
                _errors.call(self._lib.shale_flush, self._checked_handle(), fo)
            else:
                _errors.call(flush_cf, self._checked_handle(), fo, family)
        finally:
            self._lib.shale_flushoptions_destroy(fo)

    def compact_range(self, start: Optional[BytesLike] = None,
                      limit: Optional[BytesLike] = None, *, exclusive: bool = True,
                      change_level: bool = False, target_level: int = -1,
                      bottommost_level_compaction: str = "if_have_compaction_filter",
                      progress: Optional[ProgressCallback] = None,
                      progress_interval: float = _progress.DEFAULT_INTERVAL,
                      cf: Optional[ColumnFamilyLike] = None) -> None:
        """Flushes, then compacts the keys in [start, limit] of the family cf (None: the default
        family) and returns when done; None is an open end. With change_level the output moves to
        target_level (-1: the bottom level); bottommost_level_compaction is "skip",
        "if_have_compaction_filter", "force" or "force_optimized"; exclusive waits for automatic
        compactions to finish first. Like RocksDB's C API, reports no error (a failed compaction
        shows in later writes).

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
        family = self._family(cf)
        compact_cf: Any = None if family is None else _errors.need("shale_compact_range_cf_opt",
                                                              "DB.compact_range(cf=...)")
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
                if family is None:
                    self._lib.shale_compact_range_opt(handle, co, start_key,
                                                      len(start_key or b""), limit_key,
                                                      len(limit_key or b""))
                else:
                    compact_cf(handle, family, co, start_key, len(start_key or b""), limit_key,
                               len(limit_key or b""))
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
                             progress_interval: float = _progress.DEFAULT_INTERVAL,
                             cf: Optional[ColumnFamilyLike] = None) -> None:
        """Links the table files `files` (paths written by shale.SstFileWriter) into the family cf
        (None: the default family), all or none. Each file goes to the lowest level where it
        overlaps nothing. The options are RocksDB's IngestExternalFileOptions: move_files hard-links
        the files (copies across file systems) and removes the originals after success;
        allow_global_seqno=False fails instead of giving files that overlap the DB a new sequence
        number; allow_blocking_flush=False fails instead of flushing an overlapping memtable;
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
        }, rep, self._family(cf))

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

    def set_options(self, options: Mapping[str, _options.OptionValue], *,
                    cf: Optional[ColumnFamilyLike] = None) -> None:
        """Changes dynamic column-family options of the family cf (None: the default family),
        all or none: a dict of RocksDB names to values ({"disable_auto_compactions": False,
        "write_buffer_size": "8M"}); values are written as in DB(...). Raises
        InvalidArgumentError naming an unknown, malformed or non-dynamic option, or a DB
        option (those go to set_db_options)."""
        names, values = _option_arrays(options, "set_options")
        family = self._family(cf)
        count = len(names)
        if family is None:
            _errors.call(self._lib.shale_set_options, self._checked_handle(), count, names,
                         values)
        else:
            _errors.call(_errors.need("shale_set_options_cf", "DB.set_options(cf=...)"),
                         self._checked_handle(), family, count, names, values)

    def set_db_options(self, options: Mapping[str, _options.OptionValue]) -> None:
        """Changes dynamic DB options (max_background_jobs, max_total_wal_size, ...; those
        marked "Dynamic: yes (DB::SetDBOptions)"), all or none, as set_options does for a
        family's options (which this refuses)."""
        names, values = _option_arrays(options, "set_db_options")
        _errors.call(_errors.need("shale_set_db_options", "DB.set_db_options"),
                     self._checked_handle(), len(names), names, values)

    def property(self, name: str, *, cf: Optional[ColumnFamilyLike] = None) -> Optional[str]:
        """A property as text ("shale.stats", "shale.num-files-at-level0", ...), or None
        when the engine does not know it. The per-family ones (levels, memtables, keys,
        the stats reports) are those of cf (None: the default family)."""
        family = self._family(cf)
        if family is None:
            ptr = self._lib.shale_property_value(self._checked_handle(), name.encode())
        else:
            ptr = _errors.need("shale_property_value_cf", "DB.property(cf=...)")(
                self._checked_handle(), family, name.encode())
        text = _library.take_string(ptr)
        return None if text is None else text.decode("utf-8", "replace")

    def int_property(self, name: str, *,
                     cf: Optional[ColumnFamilyLike] = None) -> Optional[int]:
        """A numeric property as an int, or None when unknown or not numeric (per family as
        property())."""
        value = ctypes.c_uint64()
        family = self._family(cf)
        if family is None:
            status = self._lib.shale_property_int(self._checked_handle(), name.encode(),
                                                  ctypes.byref(value))
        else:
            status = _errors.need("shale_property_int_cf", "DB.int_property(cf=...)")(
                self._checked_handle(), family, name.encode(), ctypes.byref(value))
        if status != 0:
            return None
        return value.value

    def approximate_sizes(self, ranges: Iterable[Tuple[BytesLike, BytesLike]], *,
                          cf: Optional[ColumnFamilyLike] = None) -> List[int]:
        """The approximate bytes of table files holding each range [start, limit), in order,
        in the family cf (None: the default family) (DB::GetApproximateSizes: the memtables
        are not counted; flush() first to count recent writes). A range with limit <= start
        is 0."""
        pairs = [(_library.as_bytes(start, "start"), _library.as_bytes(limit, "limit"))
                 for start, limit in ranges]
        family = self._family(cf)
        if family is None:
            approximate_sizes = _errors.need("shale_approximate_sizes", "DB.approximate_sizes")
        else:
            sizes_cf = _errors.need("shale_approximate_sizes_cf", "DB.approximate_sizes(cf=...)")

            def approximate_sizes(db: int, *args: Any) -> None:
                sizes_cf(db, family, *args)
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

    def flush_wal(self, sync: bool = True) -> None:
        """With sync (the default), syncs the WAL: every write acknowledged before the call
        survives a machine crash once it returns (DB::FlushWAL). Without sync there is nothing
        to do: each write reaches the WAL file before it is acknowledged."""
        flush_wal = _errors.need("shale_flush_wal", "DB.flush_wal")
        _errors.call(flush_wal, self._checked_handle(), bool(sync))

    def disable_file_deletions(self) -> None:
        """Stops the DB from deleting the files it no longer needs (a compaction's inputs, old
        WALs, MANIFESTs and OPTIONS files), so that a copy of its directory can be taken file
        by file. Calls nest: each is undone by one enable_file_deletions()."""
        disable = _errors.need("shale_disable_file_deletions", "DB.disable_file_deletions")
        _errors.call(disable, self._checked_handle())

    def enable_file_deletions(self, force: bool = False) -> None:
        """Undoes one disable_file_deletions() (force=True: all of them); once deletions are
        enabled again, the files kept meanwhile are deleted before it returns."""
        enable = _errors.need("shale_enable_file_deletions", "DB.enable_file_deletions")
        _errors.call(enable, self._checked_handle(), bool(force))

    def delete_files_in_range(self, start: Optional[BytesLike] = None,
                              limit: Optional[BytesLike] = None, *,
                              cf: Optional[ColumnFamilyLike] = None) -> None:
        """Drops the table files of levels 1 and below whose keys all lie in [start, limit] of
        the family cf (None: an open end; cf None: the default family), for every reader at
        once, snapshots included; L0 files, files being compacted, files partly overlapping the
        range and the memtables keep theirs (DB::DeleteFilesInRange). A fast way to reclaim
        space, not a deletion of the range: as in RocksDB, older versions of dropped keys (and
        keys a dropped tombstone deleted) that a kept file holds become visible again."""
        start_key = None if start is None else _library.as_bytes(start, "start")
        limit_key = None if limit is None else _library.as_bytes(limit, "limit")
        handle = self._checked_handle()
        family = self._family(cf)
        if family is None:
            fn = _errors.need("shale_delete_file_in_range", "DB.delete_files_in_range")
            _errors.call(fn, handle, start_key, len(start_key or b""), limit_key,
                         len(limit_key or b""))
        else:
            fn = _errors.need("shale_delete_file_in_range_cf", "DB.delete_files_in_range(cf=...)")
            _errors.call(fn, handle, family, start_key, len(start_key or b""), limit_key,
                         len(limit_key or b""))

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
        for wal_iterator in list(self._wal_iterators):
            wal_iterator.close()
        for snapshot in list(self._snapshots):
            snapshot.release()
        # c.h: family handles are freed before the DB is closed.
        for family in list(self._families.values()) + self._dropped:
            family._destroy()
        self._families.clear()
        self._dropped.clear()
        handle, self._handle = self._handle, None
        self._lib.shale_close(handle)
        self._destroy_compaction_filter()

    def _destroy_compaction_filter(self) -> None:
        """Destroys the C compaction filter once the DB that borrowed it is closed."""
        compaction_filter = getattr(self, "_compaction_filter", None)
        self._compaction_filter = None
        if compaction_filter:
            self._lib.shale_compactionfilter_destroy(compaction_filter)

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
                 enable_statistics: bool, merge_operator: Optional[MergeOperator],
                 compaction_filter: Optional[int] = None) -> None:
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
        self.compaction_filter = compaction_filter  # a C handle the options borrow

    def needed(self) -> bool:
        return (self.block_cache is not None or self.prepare_for_bulk_load
                or self.optimize_for_point_lookup is not None
                or self.increase_parallelism is not None or self.enable_statistics
                or self.merge_operator is not None or self.compaction_filter is not None)

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
        if self.compaction_filter is not None:
            lib.shale_options_set_compaction_filter(options, self.compaction_filter)


def _count(value: int, what: str, minimum: int) -> int:
    """`value` as an int of at least `minimum`; TypeError or ValueError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shale: {what} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"shale: {what} must be >= {minimum}, not {value}")
    return value


def _family_list(column_families: ColumnFamilies
                 ) -> List[Tuple[str, Mapping[str, _options.OptionValue]]]:
    """DB(column_families=...) as (name, options) pairs, "default" first when not named."""
    if isinstance(column_families, (str, bytes)):
        raise TypeError("shale: column_families takes a list of names or a dict of name to "
                        "options, not one name")
    families: List[Tuple[str, Mapping[str, _options.OptionValue]]] = []
    if isinstance(column_families, Mapping):
        for name, family_options in column_families.items():
            if family_options is None:
                family_options = {}
            if not isinstance(family_options, Mapping):
                raise TypeError(f"shale: the options of column family {name!r} must be a dict, "
                                f"not {type(family_options).__name__}")
            families.append((name, family_options))
    else:
        families = [(name, {}) for name in column_families]
    for name, _ in families:
        if not isinstance(name, str):
            raise TypeError(f"shale: a column family's name is a str, not {type(name).__name__}")
    names = [name for name, _ in families]
    if len(set(names)) != len(names):
        raise ValueError(f"shale: column_families names a family twice: {names}")
    if DEFAULT_COLUMN_FAMILY_NAME not in names:
        families.insert(0, (DEFAULT_COLUMN_FAMILY_NAME, {}))
    return families


def _option_arrays(options: Mapping[str, _options.OptionValue], what: str) -> Tuple[Any, Any]:
    """The names and values of a set_options call as the C arrays the C ABI takes."""
    if not isinstance(options, Mapping):
        raise TypeError(f"shale: {what} takes a dict, not {type(options).__name__}")
    names = [str(name).encode() for name in options]
    values = [_options.option_value(value).encode() for value in options.values()]
    count = len(names)
    return (ctypes.c_char_p * count)(*names), (ctypes.c_char_p * count)(*values)

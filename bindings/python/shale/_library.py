"""Finding and loading libshale.so, and the ctypes prototypes of the C ABI (include/shale/c.h).

The library is located once, on first use (so that `import shale` never fails):
  1. the path in the environment variable SHALE_LIBRARY, if it is set (no fallback: a wrong
     path is an error, not a reason to load some other library);
  2. else the library shipped inside the package, shale/libshale.so, which `pip install` and
     wheels put there (pyproject.toml builds it with the project's CMake);
  3. else the in-tree build, <repository>/build/release/src/libshale.so, for the package used
     straight from the repository (PYTHONPATH=bindings/python).
When none works, LibraryNotFoundError names them.

Handles are passed as c_void_p; errors come back through a `char**` (c_void_p by reference)
that `call` turns into a shale.Error, freeing the message with shale_free.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import threading
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

# What the binding takes as a key or value: bytes, or a bytes-like object it copies.
BytesLike = Union[bytes, bytearray, memoryview]

ENV_VAR = "SHALE_LIBRARY"
PACKAGED_PATH = pathlib.Path(__file__).resolve().parent / "libshale.so"
IN_TREE_PATH = (pathlib.Path(__file__).resolve().parents[3]
                / "build" / "release" / "src" / "libshale.so")


class LibraryNotFoundError(OSError):
    """libshale.so could not be found or loaded."""


def find_library_path(environ: Optional[Mapping[str, str]] = None,
                      in_tree: Union[str, os.PathLike[str], None] = None,
                      packaged: Union[str, os.PathLike[str], None] = None) -> str:
    """The path of libshale.so to load, per the rules above; raises LibraryNotFoundError."""
    environ = os.environ if environ is None else environ
    in_tree = IN_TREE_PATH if in_tree is None else pathlib.Path(in_tree)
    packaged = PACKAGED_PATH if packaged is None else pathlib.Path(packaged)
    configured = environ.get(ENV_VAR)
    if configured:
        if os.path.isfile(configured):
            return configured
        raise LibraryNotFoundError(
            f"shale: {ENV_VAR}={configured!r} does not name a file; set {ENV_VAR} to the path "
            f"of libshale.so, or unset it to use the packaged library {packaged} or the "
            f"in-tree build {in_tree}")
    if packaged.is_file():
        return str(packaged)
    if in_tree.is_file():
        return str(in_tree)
    repository = in_tree.parents[3]  # <repo>/build/release/src/libshale.so
    if (repository / "include" / "shale" / "c.h").is_file():
        build_hint = ("build it (cmake --preset release && cmake --build --preset release "
                      "--target shale_shared), install the package (pip install "
                      "./bindings/python), or set")
    else:
        build_hint = ("this copy of the package was installed without its library: reinstall "
                      "it (pip install ./bindings/python from a ShaleDB checkout) or set")
    raise LibraryNotFoundError(
        f"shale: cannot find libshale.so: {ENV_VAR} is not set, the package holds no "
        f"{packaged}, and the in-tree build {in_tree} does not exist; {build_hint} {ENV_VAR} "
        f"to the path of libshale.so")


_handle = ctypes.c_void_p
_size = ctypes.c_size_t
_bytes = ctypes.c_char_p
_uchar = ctypes.c_ubyte
_int = ctypes.c_int
_u64 = ctypes.c_uint64
_errptr = ctypes.POINTER(ctypes.c_void_p)
_double = ctypes.c_double
_bytes_array = ctypes.POINTER(ctypes.c_char_p)
_size_array = ctypes.POINTER(_size)

# The callbacks of shale_mergeoperator_create (c.h), as ctypes function types. Every pointer
# is a c_void_p (an int, or None for NULL in arguments), read with ctypes.string_at; a returned
# value is the address of a malloc'd buffer the engine frees.
_void_p = ctypes.c_void_p
_void_p_array = ctypes.POINTER(ctypes.c_void_p)
DESTRUCTOR_FN = ctypes.CFUNCTYPE(None, _void_p)
FULL_MERGE_FN = ctypes.CFUNCTYPE(_void_p, _void_p, _void_p, _size, _void_p, _size,
                                 _void_p_array, _size_array, _int, ctypes.POINTER(_uchar),
                                 _size_array)
PARTIAL_MERGE_FN = ctypes.CFUNCTYPE(_void_p, _void_p, _void_p, _size, _void_p_array,
                                    _size_array, _int, ctypes.POINTER(_uchar), _size_array)
DELETE_VALUE_FN = ctypes.CFUNCTYPE(None, _void_p, _void_p, _size)
NAME_FN = ctypes.CFUNCTYPE(_void_p, _void_p)
# shale_compactionfilter_create's filter callback (c.h): state, level, key, key length, value,
# value length, &new_value, &new_value_length, &value_changed; returns non-zero to remove.
COMPACTION_FILTER_FN = ctypes.CFUNCTYPE(_uchar, _void_p, _int, _void_p, _size, _void_p, _size,
                                        _void_p_array, _size_array, ctypes.POINTER(_uchar))
# shale_progress_callback(void* arg, const shale_progress_t* progress), read with the
# shale_progress_* getters (shale/_progress.py).
PROGRESS_FN = ctypes.CFUNCTYPE(None, _void_p, _void_p)

# name: (restype, argtypes). Only what the binding uses; c.h has the rest.
_Prototypes = Dict[str, Tuple[Any, List[Any]]]
_PROTOTYPES: _Prototypes = {
    "shale_free": (None, [ctypes.c_void_p]),
    "shale_open": (_handle, [_handle, _bytes, _errptr]),
    "shale_close": (None, [_handle]),
    "shale_destroy_db": (None, [_handle, _bytes, _errptr]),
    "shale_repair_db": (None, [_handle, _bytes, _errptr]),
    "shale_options_create": (_handle, []),
    "shale_options_destroy": (None, [_handle]),
    "shale_get_options_from_string": (None, [_handle, _bytes, _handle, _errptr]),
    "shale_writeoptions_create": (_handle, []),
    "shale_writeoptions_destroy": (None, [_handle]),
    "shale_writeoptions_set_sync": (None, [_handle, _uchar]),
    "shale_writeoptions_disable_WAL": (None, [_handle, _int]),
    "shale_put": (None, [_handle, _handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_delete": (None, [_handle, _handle, _bytes, _size, _errptr]),
    "shale_singledelete": (None, [_handle, _handle, _bytes, _size, _errptr]),
    "shale_delete_range": (None, [_handle, _handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_write": (None, [_handle, _handle, _handle, _errptr]),
    "shale_writebatch_create": (_handle, []),
    "shale_writebatch_destroy": (None, [_handle]),
    "shale_writebatch_clear": (None, [_handle]),
    "shale_writebatch_count": (_int, [_handle]),
    "shale_writebatch_put": (None, [_handle, _bytes, _size, _bytes, _size]),
    "shale_writebatch_delete": (None, [_handle, _bytes, _size]),
    "shale_writebatch_delete_range": (None, [_handle, _bytes, _size, _bytes, _size]),
    "shale_readoptions_create": (_handle, []),
    "shale_readoptions_destroy": (None, [_handle]),
    "shale_readoptions_set_snapshot": (None, [_handle, _handle]),
    "shale_readoptions_set_verify_checksums": (None, [_handle, _uchar]),
    "shale_readoptions_set_fill_cache": (None, [_handle, _uchar]),
    "shale_readoptions_set_iterate_lower_bound": (None, [_handle, _bytes, _size]),
    "shale_readoptions_set_iterate_upper_bound": (None, [_handle, _bytes, _size]),
    # Returns a malloc'd buffer: c_void_p, so that it can be freed.
    "shale_get": (ctypes.c_void_p, [_handle, _handle, _bytes, _size,
                                    ctypes.POINTER(_size), _errptr]),
    "shale_create_snapshot": (_handle, [_handle]),
    "shale_release_snapshot": (None, [_handle, _handle]),
    "shale_create_iterator": (_handle, [_handle, _handle]),
    "shale_iter_destroy": (None, [_handle]),
    "shale_iter_valid": (_uchar, [_handle]),
    "shale_iter_seek_to_first": (None, [_handle]),
    "shale_iter_seek_to_last": (None, [_handle]),
    "shale_iter_seek": (None, [_handle, _bytes, _size]),
    "shale_iter_seek_for_prev": (None, [_handle, _bytes, _size]),
    "shale_iter_next": (None, [_handle]),
    "shale_iter_prev": (None, [_handle]),
    "shale_iter_key": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "shale_iter_value": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "shale_iter_get_error": (None, [_handle, _errptr]),
    "shale_flushoptions_create": (_handle, []),
    "shale_flushoptions_destroy": (None, [_handle]),
    "shale_flushoptions_set_wait": (None, [_handle, _uchar]),
    "shale_flush": (None, [_handle, _handle, _errptr]),
    "shale_get_latest_sequence_number": (_u64, [_handle]),
    "shale_compact_range": (None, [_handle, _bytes, _size, _bytes, _size]),
    "shale_compactoptions_create": (_handle, []),
    "shale_compactoptions_destroy": (None, [_handle]),
    "shale_compactoptions_set_exclusive_manual_compaction": (None, [_handle, _uchar]),
    "shale_compactoptions_set_change_level": (None, [_handle, _uchar]),
    "shale_compactoptions_set_target_level": (None, [_handle, _int]),
    "shale_compactoptions_set_bottommost_level_compaction": (None, [_handle, _uchar]),
    "shale_compact_range_opt": (None, [_handle, _handle, _bytes, _size, _bytes, _size]),
    "shale_set_options": (None, [_handle, _int, ctypes.POINTER(_bytes),
                                 ctypes.POINTER(_bytes), _errptr]),
    "shale_property_value": (ctypes.c_void_p, [_handle, _bytes]),
    "shale_property_int": (_int, [_handle, _bytes, ctypes.POINTER(_u64)]),
    "shale_sstfilewriter_create": (_handle, [_handle]),
    "shale_sstfilewriter_open": (None, [_handle, _bytes, _errptr]),
    "shale_sstfilewriter_put": (None, [_handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_sstfilewriter_delete": (None, [_handle, _bytes, _size, _errptr]),
    "shale_sstfilewriter_merge": (None, [_handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_sstfilewriter_finish": (None, [_handle, _errptr]),
    "shale_sstfilewriter_destroy": (None, [_handle]),
    "shale_ingestexternalfileoptions_create": (_handle, []),
    "shale_ingestexternalfileoptions_destroy": (None, [_handle]),
    "shale_ingestexternalfileoptions_set_move_files": (None, [_handle, _uchar]),
    "shale_ingest_external_file": (None, [_handle, ctypes.POINTER(_bytes), _size, _handle,
                                          _errptr]),
}

# Functions that a newer libshale.so exports and an older one may lack: bound when present,
# looked up with optional(); the binding raises NotSupportedError naming one that is missing
# only when a caller needs it.
_OPTIONAL_PROTOTYPES: _Prototypes = {
    "shale_sstfilewriter_delete_range": (None, [_handle, _bytes, _size, _bytes, _size,
                                                _errptr]),
    "shale_ingestexternalfileoptions_set_snapshot_consistency": (None, [_handle, _uchar]),
    "shale_ingestexternalfileoptions_set_allow_global_seqno": (None, [_handle, _uchar]),
    "shale_ingestexternalfileoptions_set_allow_blocking_flush": (None, [_handle, _uchar]),
    "shale_ingestexternalfileoptions_set_ingest_behind": (None, [_handle, _uchar]),
    "shale_ingestexternalfileoptions_set_verify_checksums_before_ingest": (None,
                                                                           [_handle, _uchar]),
    "shale_ingestexternalfileoptions_set_write_global_seqno": (None, [_handle, _uchar]),
    "shale_get_updates_since": (_handle, [_handle, _u64, _errptr]),
    "shale_wal_iter_valid": (_uchar, [_handle]),
    "shale_wal_iter_next": (None, [_handle]),
    "shale_wal_iter_status": (None, [_handle, _errptr]),
    "shale_wal_iter_get_batch": (_handle, [_handle, ctypes.POINTER(_u64)]),
    "shale_wal_iter_destroy": (None, [_handle]),
    "shale_writebatch_data": (ctypes.c_void_p, [_handle, ctypes.POINTER(_size)]),
    "shale_checkpoint_object_create": (_handle, [_handle, _errptr]),
    "shale_checkpoint_create": (None, [_handle, _bytes, _u64, _errptr]),
    "shale_checkpoint_object_destroy": (None, [_handle]),
    "shale_bulkloader_options_create": (_handle, []),
    "shale_bulkloader_options_destroy": (None, [_handle]),
    "shale_bulkloader_options_set_memory_budget": (None, [_handle, _u64]),
    "shale_bulkloader_options_set_threads": (None, [_handle, _int]),
    "shale_bulkloader_options_set_temp_dir": (None, [_handle, _bytes]),
    "shale_bulkloader_options_set_target_file_size": (None, [_handle, _u64]),
    "shale_bulkloader_options_set_compression": (None, [_handle, _int]),
    "shale_bulkloader_options_set_max_open_files": (None, [_handle, _int]),
    "shale_bulkloader_options_set_column_family": (None, [_handle, _handle]),
    "shale_bulkloader_create": (_handle, [_handle, _handle, _errptr]),
    "shale_bulkloader_add": (None, [_handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_bulkloader_finish": (None, [_handle, _errptr]),
    "shale_bulkloader_destroy": (None, [_handle]),
    "shale_merge": (None, [_handle, _handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_writebatch_merge": (None, [_handle, _bytes, _size, _bytes, _size]),
    # Reads and maintenance (DB.multi_get, approximate_sizes, resume).
    "shale_multi_get": (None, [_handle, _handle, _size, _bytes_array, _size_array,
                               ctypes.POINTER(ctypes.c_void_p), _size_array,
                               ctypes.POINTER(ctypes.c_void_p)]),
    "shale_approximate_sizes": (None, [_handle, _int, _bytes_array, _size_array, _bytes_array,
                                       _size_array, ctypes.POINTER(_u64), _errptr]),
    "shale_resume": (None, [_handle, _errptr]),
    # The presets and statistics of Options (DB keywords).
    "shale_options_prepare_for_bulk_load": (None, [_handle]),
    "shale_options_optimize_for_point_lookup": (None, [_handle, _u64]),
    "shale_options_increase_parallelism": (None, [_handle, _int]),
    "shale_options_enable_statistics": (None, [_handle]),
    "shale_options_statistics_get_string": (ctypes.c_void_p, [_handle]),
    # The block cache (shale.Cache) and the table options that carry it into Options.
    "shale_lru_cache_options_create": (_handle, []),
    "shale_lru_cache_options_destroy": (None, [_handle]),
    "shale_lru_cache_options_set_capacity": (None, [_handle, _size]),
    "shale_lru_cache_options_set_num_shard_bits": (None, [_handle, _int]),
    "shale_lru_cache_options_set_strict_capacity_limit": (None, [_handle, _uchar]),
    "shale_lru_cache_options_set_high_pri_pool_ratio": (None, [_handle, _double]),
    "shale_cache_create_lru_opts": (_handle, [_handle]),
    "shale_cache_destroy": (None, [_handle]),
    "shale_cache_set_capacity": (None, [_handle, _size]),
    "shale_cache_get_capacity": (_size, [_handle]),
    "shale_cache_get_usage": (_size, [_handle]),
    "shale_cache_get_pinned_usage": (_size, [_handle]),
    "shale_cache_get_occupancy_count": (_size, [_handle]),
    "shale_block_based_options_create": (_handle, []),
    "shale_block_based_options_destroy": (None, [_handle]),
    "shale_block_based_options_set_block_cache": (None, [_handle, _handle]),
    "shale_options_set_block_based_table_factory": (None, [_handle, _handle]),
    # Merge operators with Python callbacks (shale.MergeOperator).
    "shale_mergeoperator_create": (_handle, [ctypes.c_void_p, DESTRUCTOR_FN, FULL_MERGE_FN,
                                             PARTIAL_MERGE_FN, DELETE_VALUE_FN, NAME_FN]),
    "shale_mergeoperator_destroy": (None, [_handle]),
    "shale_options_set_merge_operator": (None, [_handle, _handle]),
    # Compaction filters with Python callbacks (shale.CompactionFilter).
    "shale_compactionfilter_create": (_handle, [ctypes.c_void_p, DESTRUCTOR_FN,
                                                COMPACTION_FILTER_FN, NAME_FN]),
    "shale_compactionfilter_destroy": (None, [_handle]),
    "shale_options_set_compaction_filter": (None, [_handle, _handle]),
    # Progress reports of long operations (shale.Progress, the progress= keywords).
    "shale_progress_operation": (_bytes, [_handle]),
    "shale_progress_stage": (_bytes, [_handle]),
    "shale_progress_bytes_done": (_u64, [_handle]),
    "shale_progress_bytes_total": (_u64, [_handle]),
    "shale_progress_entries_done": (_u64, [_handle]),
    "shale_progress_entries_total": (_u64, [_handle]),
    "shale_progress_elapsed_seconds": (_double, [_handle]),
    "shale_progress_bytes_per_second": (_double, [_handle]),
    "shale_progress_eta_seconds": (_double, [_handle]),
    "shale_progress_fraction": (_double, [_handle]),
    "shale_progress_finished": (_uchar, [_handle]),
    "shale_compactoptions_set_progress": (None, [_handle, PROGRESS_FN, _void_p, _double,
                                                 _errptr]),
    "shale_ingestexternalfileoptions_set_progress": (None, [_handle, PROGRESS_FN, _void_p,
                                                            _double, _errptr]),
    "shale_bulkloader_options_set_progress": (None, [_handle, PROGRESS_FN, _void_p, _double,
                                                     _errptr]),
    "shale_checkpoint_create_with_progress": (None, [_handle, _bytes, _u64, PROGRESS_FN,
                                                     _void_p, _double, _errptr]),
    "shale_verify_checksum": (None, [_handle, _errptr]),
    # DB.flush_wal, DB.disable_file_deletions, DB.enable_file_deletions.
    "shale_flush_wal": (None, [_handle, _uchar, _errptr]),
    "shale_disable_file_deletions": (None, [_handle, _errptr]),
    "shale_enable_file_deletions": (None, [_handle, _uchar, _errptr]),
    "shale_delete_file_in_range": (None, [_handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_delete_file_in_range_cf": (None, [_handle, _handle, _bytes, _size, _bytes, _size,
                                             _errptr]),
    "shale_verify_checksum_with_progress": (None, [_handle, PROGRESS_FN, _void_p, _double,
                                                   _errptr]),
    # Column families (shale.ColumnFamily, the cf= keywords).
    "shale_open_column_families": (_handle, [_handle, _bytes, _int, _bytes_array,
                                             _void_p_array, _void_p_array, _errptr]),
    # Read-only opens (DB(path, read_only=True)).
    "shale_open_for_read_only": (_handle, [_handle, _bytes, _uchar, _errptr]),
    "shale_open_for_read_only_column_families": (_handle, [_handle, _bytes, _int, _bytes_array,
                                                           _void_p_array, _void_p_array,
                                                           _uchar, _errptr]),
    # Secondary instances (DB(path, secondary_path=...), db.try_catch_up_with_primary()).
    "shale_open_as_secondary": (_handle, [_handle, _bytes, _bytes, _errptr]),
    "shale_open_as_secondary_column_families": (_handle, [_handle, _bytes, _bytes, _int,
                                                          _bytes_array, _void_p_array,
                                                          _void_p_array, _errptr]),
    "shale_try_catch_up_with_primary": (None, [_handle, _errptr]),
    "shale_list_column_families": (_void_p_array, [_handle, _bytes, _size_array, _errptr]),
    "shale_list_column_families_destroy": (None, [_void_p_array, _size]),
    "shale_create_column_family": (_handle, [_handle, _handle, _bytes, _errptr]),
    "shale_drop_column_family": (None, [_handle, _handle, _errptr]),
    "shale_get_default_column_family_handle": (_handle, [_handle]),
    "shale_column_family_handle_destroy": (None, [_handle]),
    "shale_column_family_handle_get_id": (ctypes.c_uint32, [_handle]),
    "shale_column_family_handle_get_name": (ctypes.c_void_p, [_handle, _size_array]),
    "shale_put_cf": (None, [_handle, _handle, _handle, _bytes, _size, _bytes, _size, _errptr]),
    "shale_delete_cf": (None, [_handle, _handle, _handle, _bytes, _size, _errptr]),
    "shale_singledelete_cf": (None, [_handle, _handle, _handle, _bytes, _size, _errptr]),
    "shale_delete_range_cf": (None, [_handle, _handle, _handle, _bytes, _size, _bytes, _size,
                                     _errptr]),
    "shale_merge_cf": (None, [_handle, _handle, _handle, _bytes, _size, _bytes, _size,
                              _errptr]),
    "shale_writebatch_put_cf": (None, [_handle, _handle, _bytes, _size, _bytes, _size]),
    "shale_writebatch_delete_cf": (None, [_handle, _handle, _bytes, _size]),
    "shale_writebatch_singledelete": (None, [_handle, _bytes, _size]),
    "shale_writebatch_singledelete_cf": (None, [_handle, _handle, _bytes, _size]),
    "shale_writebatch_delete_range_cf": (None, [_handle, _handle, _bytes, _size, _bytes,
                                                _size]),
    "shale_writebatch_merge_cf": (None, [_handle, _handle, _bytes, _size, _bytes, _size]),
    "shale_get_cf": (ctypes.c_void_p, [_handle, _handle, _handle, _bytes, _size, _size_array,
                                       _errptr]),
    "shale_multi_get_cf": (None, [_handle, _handle, _void_p_array, _size, _bytes_array,
                                  _size_array, _void_p_array, _size_array, _void_p_array]),
    "shale_create_iterator_cf": (_handle, [_handle, _handle, _handle]),
    "shale_create_iterators": (None, [_handle, _handle, _void_p_array, _void_p_array, _size,
                                      _errptr]),
    "shale_flush_cf": (None, [_handle, _handle, _handle, _errptr]),
    "shale_flush_cfs": (None, [_handle, _handle, _void_p_array, _int, _errptr]),
    "shale_compact_range_cf_opt": (None, [_handle, _handle, _handle, _bytes, _size, _bytes,
                                          _size]),
    "shale_property_value_cf": (ctypes.c_void_p, [_handle, _handle, _bytes]),
    "shale_property_int_cf": (_int, [_handle, _handle, _bytes, ctypes.POINTER(_u64)]),
    "shale_approximate_sizes_cf": (None, [_handle, _handle, _int, _bytes_array, _size_array,
                                          _bytes_array, _size_array, ctypes.POINTER(_u64),
                                          _errptr]),
    "shale_ingest_external_file_cf": (None, [_handle, _handle, ctypes.POINTER(_bytes), _size,
                                             _handle, _errptr]),
    "shale_set_options_cf": (None, [_handle, _handle, _int, ctypes.POINTER(_bytes),
                                    ctypes.POINTER(_bytes), _errptr]),
    "shale_set_db_options": (None, [_handle, _int, ctypes.POINTER(_bytes),
                                    ctypes.POINTER(_bytes), _errptr]),
}

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """The loaded library with its prototypes set; loads it on the first call."""
    global _lib
    with _lock:
        if _lib is None:
            path = find_library_path()
            try:
                loaded = ctypes.CDLL(path)
            except OSError as e:
                raise LibraryNotFoundError(f"shale: cannot load {path}: {e}") from e
            for name, (restype, argtypes) in _PROTOTYPES.items():
                fn = getattr(loaded, name)
                fn.restype = restype
                fn.argtypes = argtypes
            for name, (restype, argtypes) in _OPTIONAL_PROTOTYPES.items():
                fn = getattr(loaded, name, None)  # ctypes: AttributeError when not exported
                if fn is not None:
                    fn.restype = restype
                    fn.argtypes = argtypes
            _lib = loaded
        return _lib


def optional(name: str) -> Any:
    """The optional C function `name` (see _OPTIONAL_PROTOTYPES), or None when the loaded
    library does not export it."""
    if name not in _OPTIONAL_PROTOTYPES:
        raise KeyError(f"shale: {name} is not an optional C function of the binding")
    return getattr(lib(), name, None)


def library_path() -> str:
    """The path of the loaded library (loading it if needed), for messages."""
    return str(lib()._name)


def take_string(ptr: Optional[int], length: Optional[int] = None) -> Optional[bytes]:
    """Copies a malloc'd buffer from the library into bytes and frees it (None for NULL)."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr, length) if length is not None else ctypes.string_at(ptr)
    finally:
        lib().shale_free(ptr)


def as_bytes(value: object, what: str) -> bytes:
    """`value` as bytes: bytes as is, bytearray and memoryview copied; anything else (str
    included: keys and values are bytes, never text) is a TypeError naming `what`."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"shale: {what} must be bytes, not {type(value).__name__}")

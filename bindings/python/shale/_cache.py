"""Cache: a block cache that several DBs can share (c.h's shale_cache_*, shale/cache.h).

    cache = shale.Cache(256 << 20)
    a = shale.DB("/tmp/a", create_if_missing=True, block_cache=cache)
    b = shale.DB("/tmp/b", create_if_missing=True, block_cache=cache)
    cache.usage  # bytes held for both
"""

from __future__ import annotations

from typing import Optional

from . import _errors

# The C functions a Cache uses (bound by _library when the library exports them).
_FUNCTIONS = ("shale_lru_cache_options_create", "shale_lru_cache_options_destroy",
              "shale_lru_cache_options_set_capacity", "shale_lru_cache_options_set_num_shard_bits",
              "shale_lru_cache_options_set_strict_capacity_limit",
              "shale_lru_cache_options_set_high_pri_pool_ratio", "shale_cache_create_lru_opts",
              "shale_cache_destroy", "shale_cache_set_capacity", "shale_cache_get_capacity",
              "shale_cache_get_usage", "shale_cache_get_pinned_usage",
              "shale_cache_get_occupancy_count")


class Cache:
    """An LRU cache of table blocks with a byte capacity, sharded, with a high-priority pool
    for index and filter blocks. Give it to DB(..., block_cache=cache) to make DBs share it
    (without it each DB has its own 8 MiB cache).

    capacity: bytes (0 keeps nothing). num_shard_bits: 2^n shards, at most 19; -1 (default)
    picks a count so that each shard holds at least 512 KiB, at most 64 shards.
    strict_capacity_limit: fail inserts rather than exceed the capacity (reads then go
    uncached). high_pri_pool_ratio: the share of the capacity reserved for index and filter
    blocks, in [0, 1]. ValueError names an argument out of range.

    The engine's cache lives as long as a DB uses it, even after close(); close() (or garbage
    collection) frees only this handle, after which the accessors raise. Thread-safe.
    """

    def __init__(self, capacity: int, *, num_shard_bits: int = -1,
                 strict_capacity_limit: bool = False, high_pri_pool_ratio: float = 0.5) -> None:
        self._handle: Optional[int] = None
        capacity = _nonnegative(capacity, "capacity")
        if not -1 <= int(num_shard_bits) < 20:
            raise ValueError(f"shale: Cache num_shard_bits must be in [-1, 19], not "
                             f"{num_shard_bits!r}")
        if not 0.0 <= float(high_pri_pool_ratio) <= 1.0:
            raise ValueError(f"shale: Cache high_pri_pool_ratio must be in [0, 1], not "
                             f"{high_pri_pool_ratio!r}")
        self._lib = _errors.need_all(_FUNCTIONS, "shale.Cache")
        options = self._lib.shale_lru_cache_options_create()
        try:
            self._lib.shale_lru_cache_options_set_capacity(options, capacity)
            self._lib.shale_lru_cache_options_set_num_shard_bits(options, int(num_shard_bits))
            self._lib.shale_lru_cache_options_set_strict_capacity_limit(
                options, bool(strict_capacity_limit))
            self._lib.shale_lru_cache_options_set_high_pri_pool_ratio(
                options, float(high_pri_pool_ratio))
            handle = self._lib.shale_cache_create_lru_opts(options)
        finally:
            self._lib.shale_lru_cache_options_destroy(options)
        if not handle:  # the checks above should have caught it
            raise ValueError("shale: Cache: the engine refused the cache options")
        self._handle = handle

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error("shale: the Cache is closed")
        return self._handle

    @property
    def capacity(self) -> int:
        """The capacity in bytes."""
        return int(self._lib.shale_cache_get_capacity(self._checked_handle()))

    def set_capacity(self, capacity: int) -> None:
        """Changes the capacity; shrinking evicts entries not in use until usage fits."""
        self._lib.shale_cache_set_capacity(self._checked_handle(),
                                           _nonnegative(capacity, "capacity"))

    @property
    def usage(self) -> int:
        """Bytes of every entry held (pinned or not)."""
        return int(self._lib.shale_cache_get_usage(self._checked_handle()))

    @property
    def pinned_usage(self) -> int:
        """Bytes of the entries in use right now (by readers or pinned by tables)."""
        return int(self._lib.shale_cache_get_pinned_usage(self._checked_handle()))

    @property
    def occupancy_count(self) -> int:
        """The number of entries held."""
        return int(self._lib.shale_cache_get_occupancy_count(self._checked_handle()))

    def close(self) -> None:
        """Frees this handle; DBs using the cache keep it. Idempotent."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.shale_cache_destroy(handle)

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __repr__(self) -> str:
        if not self._handle:
            return "<shale.Cache (closed)>"
        return f"<shale.Cache capacity={self.capacity} usage={self.usage}>"


def _nonnegative(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"shale: Cache {what} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"shale: Cache {what} must be >= 0, not {value}")
    return value

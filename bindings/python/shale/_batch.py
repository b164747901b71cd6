"""WriteBatch: updates that DB.write applies atomically, in order."""

from __future__ import annotations

from typing import Optional

from . import _errors, _library
from ._column_family import ColumnFamily
from ._library import BytesLike


def _family(cf: Optional[ColumnFamily], what: str) -> Optional[int]:
    """The C handle of `cf` for a batch update (None: the default family's update)."""
    if cf is None:
        return None
    if not isinstance(cf, ColumnFamily):
        raise TypeError(f"shale: WriteBatch.{what}'s cf must be a shale.ColumnFamily (a batch "
                        f"is not bound to a DB, so a name cannot be looked up), not "
                        f"{type(cf).__name__}")
    return cf._checked_handle()


class WriteBatch:
    """A list of puts, merges, deletes and range deletes; DB.write applies all of them or none.

    Every update takes cf=, a shale.ColumnFamily (None: the default family): one batch may
    span families, and is still applied atomically. DB.write fails, writing nothing, when a
    family of the batch has been dropped meanwhile.

    The batch copies keys and values as they are added. An update the engine cannot hold (a key
    over shale.MAX_KEY_SIZE, a value over shale.MAX_VALUE_SIZE, or one that would take the
    batch past shale.MAX_WRITE_BATCH_SIZE) makes DB.write raise. Not thread-safe: use one batch
    from one thread at a time.
    """

    def __init__(self) -> None:
        self._lib = _library.lib()
        self._handle: Optional[int] = self._lib.shale_writebatch_create()

    def put(self, key: BytesLike, value: BytesLike, *,
            cf: Optional[ColumnFamily] = None) -> None:
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        family = _family(cf, "put")
        if family is None:
            self._lib.shale_writebatch_put(self._handle, key, len(key), value, len(value))
        else:
            _errors.need("shale_writebatch_put_cf", "WriteBatch.put(cf=...)")(
                self._handle, family, key, len(key), value, len(value))

    def delete(self, key: BytesLike, *, cf: Optional[ColumnFamily] = None) -> None:
        key = _library.as_bytes(key, "key")
        family = _family(cf, "delete")
        if family is None:
            self._lib.shale_writebatch_delete(self._handle, key, len(key))
        else:
            _errors.need("shale_writebatch_delete_cf", "WriteBatch.delete(cf=...)")(
                self._handle, family, key, len(key))

    def single_delete(self, key: BytesLike, *, cf: Optional[ColumnFamily] = None) -> None:
        """Removes a key that was put at most once since its last deletion (see
        DB.single_delete)."""
        key = _library.as_bytes(key, "key")
        family = _family(cf, "single_delete")
        if family is None:
            _errors.need("shale_writebatch_singledelete", "WriteBatch.single_delete")(
                self._handle, key, len(key))
        else:
            _errors.need("shale_writebatch_singledelete_cf", "WriteBatch.single_delete(cf=...)")(
                self._handle, family, key, len(key))

    def delete_range(self, start: BytesLike, end: BytesLike, *,
                     cf: Optional[ColumnFamily] = None) -> None:
        """Deletes every key in [start, end)."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        family = _family(cf, "delete_range")
        if family is None:
            self._lib.shale_writebatch_delete_range(self._handle, start, len(start), end,
                                                    len(end))
        else:
            _errors.need("shale_writebatch_delete_range_cf", "WriteBatch.delete_range(cf=...)")(
                self._handle, family, start, len(start), end, len(end))

    def merge(self, key: BytesLike, operand: BytesLike, *,
              cf: Optional[ColumnFamily] = None) -> None:
        """A merge operand for key (see DB.merge); DB.write fails, writing nothing, when the
        family has no merge operator."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        family = _family(cf, "merge")
        if family is None:
            merge = _errors.need("shale_writebatch_merge", "WriteBatch.merge")
            merge(self._handle, key, len(key), operand, len(operand))
        else:
            _errors.need("shale_writebatch_merge_cf", "WriteBatch.merge(cf=...)")(
                self._handle, family, key, len(key), operand, len(operand))

    def clear(self) -> None:
        """Removes every update (and forgets an update the batch could not hold)."""
        self._lib.shale_writebatch_clear(self._handle)

    def __len__(self) -> int:
        """The number of updates."""
        return int(self._lib.shale_writebatch_count(self._handle))

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.shale_writebatch_destroy(handle)

"""WriteBatch: updates that DB.write applies atomically, in order."""

from __future__ import annotations

from typing import Optional

from . import _errors, _library
from ._library import BytesLike


class WriteBatch:
    """A list of puts, merges, deletes and range deletes; DB.write applies all of them or none.

    The batch copies keys and values as they are added. An update the engine cannot hold (a key
    over shale.MAX_KEY_SIZE, a value over shale.MAX_VALUE_SIZE, or one that would take the
    batch past shale.MAX_WRITE_BATCH_SIZE) makes DB.write raise. Not thread-safe: use one batch
    from one thread at a time.
    """

    def __init__(self) -> None:
        self._lib = _library.lib()
        self._handle: Optional[int] = self._lib.shale_writebatch_create()

    def put(self, key: BytesLike, value: BytesLike) -> None:
        key = _library.as_bytes(key, "key")
        value = _library.as_bytes(value, "value")
        self._lib.shale_writebatch_put(self._handle, key, len(key), value, len(value))

    def delete(self, key: BytesLike) -> None:
        key = _library.as_bytes(key, "key")
        self._lib.shale_writebatch_delete(self._handle, key, len(key))

    def delete_range(self, start: BytesLike, end: BytesLike) -> None:
        """Deletes every key in [start, end)."""
        start = _library.as_bytes(start, "start")
        end = _library.as_bytes(end, "end")
        self._lib.shale_writebatch_delete_range(self._handle, start, len(start), end, len(end))

    def merge(self, key: BytesLike, operand: BytesLike) -> None:
        """A merge operand for key (see DB.merge); DB.write fails, writing nothing, when the
        DB has no merge operator."""
        key = _library.as_bytes(key, "key")
        operand = _library.as_bytes(operand, "operand")
        merge = _errors.need("shale_writebatch_merge", "WriteBatch.merge")
        merge(self._handle, key, len(key), operand, len(operand))

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

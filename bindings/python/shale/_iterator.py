"""Iterator: an ordered scan over a DB, as of one snapshot."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Optional, Tuple

from . import _errors, _library
from ._library import BytesLike

if TYPE_CHECKING:
    from ._column_family import ColumnFamily
    from ._db import DB, Snapshot


class Iterator:
    """An ordered view of the DB's keys (made by DB.iterator), as of its snapshot.

    Position it with seek_to_first / seek_to_last / seek / seek_for_prev, then move with
    next / prev while valid(); key() and value() return copies (bytes). Or iterate it:
    `for key, value in it` starts at the first key (the last with reverse=True) unless a seek
    came first, in which case it starts at the key sought.

    It raises shale.Error when the engine reports an error. It borrows its DB: closing the DB
    (or releasing the snapshot it reads) closes the iterator. Not thread-safe.
    """

    def __init__(self, db: DB, read_options: Optional[int], snapshot: Optional[Snapshot],
                 reverse: bool, cf: Optional[ColumnFamily] = None,
                 handle: Optional[int] = None) -> None:
        """An iterator over `cf` (None: the default family) made with `read_options`, or,
        when `handle` is given, the wrapper of that C iterator (DB.iterators makes several at
        once), which it then owns."""
        self._lib = _library.lib()
        self._db = db
        self._snapshot = snapshot
        self._reverse = reverse
        # The family's handle must outlive the C iterator: keep the family.
        self._cf = cf
        if handle is None:
            if cf is None:
                handle = self._lib.shale_create_iterator(db._checked_handle(), read_options)
            else:
                create = _errors.need("shale_create_iterator_cf", "DB.iterator(cf=...)")
                handle = create(db._checked_handle(), read_options, cf._handle_for(db))
        self._handle: Optional[int] = handle
        # Whether a seek has positioned it, and whether the current entry is still to be
        # returned by __next__.
        self._positioned = False
        self._pending = False

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error("shale: the iterator is closed")
        return self._handle

    def _moved(self) -> None:
        self._positioned = True
        self._pending = True

    def seek_to_first(self) -> None:
        self._lib.shale_iter_seek_to_first(self._checked_handle())
        self._moved()

    def seek_to_last(self) -> None:
        self._lib.shale_iter_seek_to_last(self._checked_handle())
        self._moved()

    def seek(self, key: BytesLike) -> None:
        """Positions at the first key >= key."""
        key = _library.as_bytes(key, "key")
        self._lib.shale_iter_seek(self._checked_handle(), key, len(key))
        self._moved()

    def seek_for_prev(self, key: BytesLike) -> None:
        """Positions at the last key <= key."""
        key = _library.as_bytes(key, "key")
        self._lib.shale_iter_seek_for_prev(self._checked_handle(), key, len(key))
        self._moved()

    def next(self) -> None:
        self._lib.shale_iter_next(self._checked_handle())
        self._pending = True

    def prev(self) -> None:
        self._lib.shale_iter_prev(self._checked_handle())
        self._pending = True

    def valid(self) -> bool:
        return bool(self._lib.shale_iter_valid(self._checked_handle()))

    def _bytes(self, fn: Any, what: str) -> bytes:
        length = ctypes.c_size_t()
        ptr = fn(self._checked_handle(), ctypes.byref(length))
        if not ptr:
            raise _errors.Error(f"shale: no {what}: the iterator is not at a key")
        return ctypes.string_at(ptr, length.value)

    def key(self) -> bytes:
        return self._bytes(self._lib.shale_iter_key, "key")

    def value(self) -> bytes:
        return self._bytes(self._lib.shale_iter_value, "value")

    def check_error(self) -> None:
        """Raises the error that stopped the iterator, if any (running off the end is none)."""
        _errors.call(self._lib.shale_iter_get_error, self._checked_handle())

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Tuple[bytes, bytes]:
        if not self._positioned:
            self.seek_to_last() if self._reverse else self.seek_to_first()
        elif not self._pending and self.valid():
            self.prev() if self._reverse else self.next()
        self._pending = False
        if not self.valid():
            self.check_error()
            raise StopIteration
        return self.key(), self.value()

    def close(self) -> None:
        """Destroys the iterator (also done when it is garbage-collected)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.shale_iter_destroy(handle)
            self._db._iterators.discard(self)

    def __enter__(self) -> Iterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

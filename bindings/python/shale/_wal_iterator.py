"""WalIterator: the writes of a DB read back from its write-ahead logs (DB.updates_since)."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Optional, Tuple

from . import _errors, _library

if TYPE_CHECKING:
    from ._db import DB

_FUNCTIONS = ("shale_get_updates_since", "shale_wal_iter_valid", "shale_wal_iter_next",
              "shale_wal_iter_status", "shale_wal_iter_get_batch", "shale_wal_iter_destroy",
              "shale_writebatch_data")


class WalIterator:
    """The write batches from a sequence number on, in order (made by DB.updates_since; the
    engine's DB::GetUpdatesSince, RocksDB's GetUpdatesSince), for replication.

    Iterating yields (sequence, data) pairs: the batch's first sequence number and its
    serialized contents (RocksDB's WriteBatch layout: a 12-byte header with the sequence and
    the record count, then the records). The first pair is the batch that holds the sequence
    asked for (it may start before it); each next one starts where the previous one ended.
    Iteration stops at the end of what is written so far; iterating again later polls, and
    yields the batches written since.

    It raises shale.Error when a sequence it needs is in no WAL (CorruptionError "Gap in
    sequence numbers": a flush deleted the WAL before it was read, or the writes were made
    with disable_wal) or a WAL is damaged. It borrows its DB: closing the DB closes it. Not
    thread-safe.
    """

    def __init__(self, db: DB, sequence: int) -> None:
        self._lib = _errors.need_all(_FUNCTIONS, "DB.updates_since")
        self._db = db
        self._handle: Optional[int] = _errors.call(self._lib.shale_get_updates_since,
                                                   db._checked_handle(), sequence)
        # The current batch is still to be returned by __next__ (true until the first one).
        self._pending = True

    def _checked_handle(self) -> int:
        if not self._handle:
            raise _errors.Error("shale: the WAL iterator is closed")
        return self._handle

    def __iter__(self) -> WalIterator:
        return self

    def __next__(self) -> Tuple[int, bytes]:
        handle = self._checked_handle()
        if not self._pending:
            self._lib.shale_wal_iter_next(handle)
        self._pending = False
        if not self._lib.shale_wal_iter_valid(handle):
            _errors.call(self._lib.shale_wal_iter_status, handle)
            raise StopIteration
        sequence = ctypes.c_uint64()
        batch = self._lib.shale_wal_iter_get_batch(handle, ctypes.byref(sequence))
        try:
            size = ctypes.c_size_t()
            data = self._lib.shale_writebatch_data(batch, ctypes.byref(size))
            return sequence.value, ctypes.string_at(data, size.value)
        finally:
            self._lib.shale_writebatch_destroy(batch)

    def close(self) -> None:
        """Destroys the iterator (also done when it is garbage-collected)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.shale_wal_iter_destroy(handle)
            self._db._wal_iterators.discard(self)

    def __enter__(self) -> WalIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

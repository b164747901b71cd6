"""ColumnFamily: a handle of one column family of an open DB, and listing a DB's families."""

from __future__ import annotations

import ctypes
import os
import weakref
from typing import TYPE_CHECKING, List, Optional, Union

from . import _errors, _library, _options

if TYPE_CHECKING:
    from ._db import DB, PathLike

DEFAULT_COLUMN_FAMILY_NAME = "default"


class ColumnFamily:
    """A column family of an open DB: a keyspace with its own memtables, table files and
    options, sharing the DB's WAL (a WriteBatch spanning families is atomic), snapshots and
    sequence numbers. Made by DB(path, column_families=...), DB.create_column_family and
    DB.default_column_family / DB.get_column_family; pass it as cf= to any read, write or
    maintenance call, and to WriteBatch methods.

    .name is the family's name, .id its id (0 for "default", never reused in a DB), .dropped
    whether DB.drop_column_family dropped it (reads still see its data then; writes raise
    InvalidArgumentError). The handle belongs to its DB, which frees it when closed: using it
    after that raises shale.Error. Thread-safe, as the DB.
    """

    def __init__(self, db: DB, handle: int) -> None:
        self._lib = _library.lib()
        # Weak: the DB owns its families' handles (and frees them in close()); a family must not
        # keep a DB it outlives from being closed by garbage collection.
        self._db = weakref.ref(db)
        self._handle: Optional[int] = handle
        length = ctypes.c_size_t()
        name = _library.take_string(
            _errors.need("shale_column_family_handle_get_name", "ColumnFamily.name")(
                handle, ctypes.byref(length)), length.value)
        self.name: str = (name or b"").decode("utf-8", "surrogateescape")
        self.id: int = int(_errors.need("shale_column_family_handle_get_id",
                                        "ColumnFamily.id")(handle))
        self.dropped = False

    def _handle_for(self, db: DB) -> int:
        """The C handle, checked to belong to `db` and to be alive."""
        if not self._handle:
            raise _errors.Error(f"shale: the column family {self.name!r} is closed (its DB "
                                f"was closed)")
        if self._db() is not db:
            raise ValueError(f"shale: the column family {self.name!r} belongs to another DB")
        return self._handle

    def _checked_handle(self) -> int:
        """The C handle (for WriteBatch, which is not bound to a DB), checked to be alive."""
        if not self._handle:
            raise _errors.Error(f"shale: the column family {self.name!r} is closed (its DB "
                                f"was closed)")
        return self._handle

    def _destroy(self) -> None:
        """Frees the C handle (the DB calls this before closing)."""
        handle, self._handle = self._handle, None
        if handle:
            self._lib.shale_column_family_handle_destroy(handle)

    def __repr__(self) -> str:
        state = " (dropped)" if self.dropped else "" if self._handle else " (closed)"
        return f"<shale.ColumnFamily {self.name!r} id={self.id}{state}>"


# What the binding takes where it needs a family of an open DB: a handle, or a family's name.
ColumnFamilyLike = Union[ColumnFamily, str]


def list_column_families(path: PathLike, **options: _options.OptionValue) -> List[str]:
    """The names of the column families of the DB in directory `path`, read from its MANIFEST
    without opening it (so also while it is open): "default" first, then in creation order.
    Raises shale.Error (IOError when there is no DB there)."""
    lib = _library.lib()
    list_fn = _errors.need("shale_list_column_families", "list_column_families")
    destroy = _errors.need("shale_list_column_families_destroy", "list_column_families")
    handle = _options.new_options(lib, options)
    try:
        count = ctypes.c_size_t()
        names = _errors.call(list_fn, handle, os.fsencode(path), ctypes.byref(count))
    finally:
        lib.shale_options_destroy(handle)
    try:
        return [ctypes.string_at(names[i]).decode("utf-8", "surrogateescape")
                for i in range(count.value)]
    finally:
        destroy(names, count.value)

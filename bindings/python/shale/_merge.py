"""MergeOperator: a merge operator written in Python, for DB(..., merge_operator=op), over c.h's
shale_mergeoperator_create (the built-in operators are named by string instead:
merge_operator="uint64add").

    class Counter(shale.MergeOperator):
        name = "example.Counter"
        def full_merge(self, key, existing_value, operands):
            return str(int(existing_value or b"0") + sum(map(int, operands))).encode()
        def partial_merge(self, key, operands):
            return str(sum(map(int, operands))).encode()

How the callbacks reach Python: the engine holds C function pointers to four module-level
ctypes thunks (full merge, partial merge, name, destructor), made once and never freed, and a
`state` that is an integer key into _LIVE, the operators the engine holds. Each DB opened with
an operator gets its own C operator (and key), which the engine releases with the destructor
when the DB and its options are gone; the destructor then drops the key. So a MergeOperator
stays alive while a DB uses it, and no thunk is ever freed while the engine may call it.

The engine calls the callbacks from its own threads (flushes and compactions) as well as from
the reading thread; ctypes takes the GIL for each call. A DB that uses a Python operator is
closed at interpreter exit (atexit), before the interpreter stops running Python code.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import threading
import weakref
from typing import TYPE_CHECKING, Dict, List, Optional

from . import _library

if TYPE_CHECKING:
    from ._db import DB

_log = logging.getLogger("shale")

# libc's malloc: the engine frees a returned value with free() (c.h: delete_value is NULL).
_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]


class MergeOperator:
    """Base class of merge operators written in Python: subclass it, set `name` (recorded in
    the DB's OPTIONS file; reopen the DB with an operator of the same behaviour) and override
    full_merge, and partial_merge if operands can be combined without the base value.

    full_merge(key, existing_value, operands) returns the key's new value (bytes) from its
    existing value (None when it has none) and its operands, oldest first. Returning None or
    raising is a failure, never a silent drop: a read of the key raises CorruptionError, and a
    flush or compaction that needs the merge stops the DB's background writes (see
    DB.resume); the exception is logged to the "shale" logger.

    partial_merge(key, operands) combines two or more consecutive operands (oldest first) into
    one with the same effect, or returns None when it cannot (the operands are then kept). Not
    overriding it means operands are never combined early.

    Thread-safety: the engine calls both from several threads at once (readers, flushes,
    compactions), each under the GIL; keep the methods free of unguarded shared state. One
    operator may serve several DBs.
    """

    name: str = "python.MergeOperator"

    def full_merge(self, key: bytes, existing_value: Optional[bytes],
                   operands: List[bytes]) -> Optional[bytes]:
        raise NotImplementedError(f"{type(self).__name__}.full_merge")

    def partial_merge(self, key: bytes, operands: List[bytes]) -> Optional[bytes]:
        return None


class _Registered:
    """What the engine holds for one C operator: the Python operator and its name as a C
    string (the name callback returns a pointer into it)."""

    def __init__(self, operator: MergeOperator) -> None:
        self.operator = operator
        self.name = ctypes.create_string_buffer(str(operator.name).encode())


# The operators the engine holds, by the `state` key given to it. Guarded by _LOCK.
_LIVE: Dict[int, _Registered] = {}
_LOCK = threading.Lock()
_next_key = 1  # guarded by _LOCK; 0 is never a key (state NULL would come back as None)


def _lookup(state: Optional[int]) -> _Registered:
    with _LOCK:
        return _LIVE[state or 0]


def _returned(value: Optional[bytes], success: ctypes._Pointer[ctypes.c_ubyte],
              new_value_length: ctypes._Pointer[ctypes.c_size_t]) -> Optional[int]:
    """Hands `value` to the engine as a malloc'd buffer; None is a failure."""
    if value is None:
        success[0] = 0
        new_value_length[0] = 0
        return None
    if not isinstance(value, bytes):
        value = _library.as_bytes(value, "the merge result")
    new_value_length[0] = len(value)
    success[0] = 1
    if not value:
        return None  # an empty value (c.h: a returned buffer may be NULL)
    buffer = _libc.malloc(len(value))
    if not buffer:
        raise MemoryError("shale: malloc failed for a merge result")
    ctypes.memmove(buffer, value, len(value))
    return int(buffer)


def _operands(operands: ctypes._Pointer[ctypes.c_void_p],
              lengths: ctypes._Pointer[ctypes.c_size_t], count: int) -> List[bytes]:
    return [ctypes.string_at(operands[i] or 0, lengths[i]) if lengths[i] else b""
            for i in range(count)]


def _full_merge(state: Optional[int], key: Optional[int], key_length: int,
                existing: Optional[int], existing_length: int,
                operands: ctypes._Pointer[ctypes.c_void_p],
                lengths: ctypes._Pointer[ctypes.c_size_t], count: int,
                success: ctypes._Pointer[ctypes.c_ubyte],
                new_value_length: ctypes._Pointer[ctypes.c_size_t]) -> Optional[int]:
    try:
        operator = _lookup(state).operator
        key_bytes = ctypes.string_at(key or 0, key_length) if key_length else b""
        if existing is None:
            existing_value = None
        else:
            existing_value = ctypes.string_at(existing, existing_length) if existing_length \
                else b""
        result = operator.full_merge(key_bytes, existing_value,
                                     _operands(operands, lengths, count))
        if result is None:
            _log.error("shale: %s.full_merge returned None for key %r: the merge fails",
                       type(operator).__name__, key_bytes)
        return _returned(result, success, new_value_length)
    except BaseException:
        _log.exception("shale: a merge operator's full_merge raised; the merge fails")
        success[0] = 0
        new_value_length[0] = 0
        return None


def _partial_merge(state: Optional[int], key: Optional[int], key_length: int,
                   operands: ctypes._Pointer[ctypes.c_void_p],
                   lengths: ctypes._Pointer[ctypes.c_size_t], count: int,
                   success: ctypes._Pointer[ctypes.c_ubyte],
                   new_value_length: ctypes._Pointer[ctypes.c_size_t]) -> Optional[int]:
    try:
        operator = _lookup(state).operator
        key_bytes = ctypes.string_at(key or 0, key_length) if key_length else b""
        return _returned(operator.partial_merge(key_bytes, _operands(operands, lengths, count)),
                         success, new_value_length)
    except BaseException:
        _log.exception("shale: a merge operator's partial_merge raised; operands kept")
        success[0] = 0
        new_value_length[0] = 0
        return None


def _name(state: Optional[int]) -> Optional[int]:
    try:
        return ctypes.addressof(_lookup(state).name)
    except BaseException:
        _log.exception("shale: no merge operator for its name callback")
        return None


def _destructor(state: Optional[int]) -> None:
    with _LOCK:
        _LIVE.pop(state or 0, None)


# The thunks the engine calls: module-level, so they live as long as the interpreter.
_FULL_MERGE = _library.FULL_MERGE_FN(_full_merge)
_PARTIAL_MERGE = _library.PARTIAL_MERGE_FN(_partial_merge)
_NAME = _library.NAME_FN(_name)
_DESTRUCTOR = _library.DESTRUCTOR_FN(_destructor)
# NULL function pointers (ctypes refuses None for a function-pointer argument).
_NO_PARTIAL_MERGE = _library.PARTIAL_MERGE_FN()
_NO_DELETE_VALUE = _library.DELETE_VALUE_FN()  # the engine free()s our malloc'd values


def set_on_options(lib: ctypes.CDLL, options_handle: int, operator: MergeOperator) -> None:
    """Gives `operator` to a shale_options_t: a new C operator that the options (and the DB
    opened with them) share; it is released, and its _LIVE entry dropped, when they are gone."""
    if not isinstance(operator, MergeOperator):
        raise TypeError(f"shale: merge_operator must be a built-in's name (str) or a "
                        f"shale.MergeOperator, not {type(operator).__name__}")
    global _next_key
    overrides_partial = type(operator).partial_merge is not MergeOperator.partial_merge
    with _LOCK:
        key = _next_key
        _next_key += 1
        _LIVE[key] = _Registered(operator)
    handle = lib.shale_mergeoperator_create(
        key, _DESTRUCTOR, _FULL_MERGE, _PARTIAL_MERGE if overrides_partial else _NO_PARTIAL_MERGE,
        _NO_DELETE_VALUE, _NAME)
    if not handle:
        with _LOCK:
            _LIVE.pop(key, None)
        raise MemoryError("shale: shale_mergeoperator_create failed")
    try:
        lib.shale_options_set_merge_operator(options_handle, handle)
    finally:
        lib.shale_mergeoperator_destroy(handle)  # the options keep their share


# DBs opened with a Python operator: closed at exit, while callbacks can still run.
_DBS_WITH_CALLBACKS: "weakref.WeakSet[DB]" = weakref.WeakSet()


def track(db: DB) -> None:
    _DBS_WITH_CALLBACKS.add(db)


@atexit.register
def _close_at_exit() -> None:
    # Closing runs the last flushes and compactions (which may merge); freeing the options
    # the DB kept releases the C operator, so the destructor runs now and not at teardown.
    for db in list(_DBS_WITH_CALLBACKS):
        db.close()
        db._free_options()

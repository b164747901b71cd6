"""CompactionFilter: a compaction filter written in Python, for DB(..., compaction_filter=f),
over c.h's shale_compactionfilter_create.

    class DropExpired(shale.CompactionFilter):
        name = "example.DropExpired"
        def filter(self, level, key, value):
            if key.startswith(b"tmp:"):
                return True           # remove the entry
            if value == b"old":
                return b"new"         # keep it with another value
            return None               # keep it as it is

When it is called (shale/compaction_filter.h): during compactions only, never flushes, for the
newest value of each key a compaction rewrites; a removal is a deletion marker (older versions
stay hidden), whatever snapshots exist. Merge operands are not filtered.

How the callback reaches Python: one module-level ctypes thunk, made once and never freed, and a
`state` that is an integer key into _LIVE. A DB opened with a filter gets its own C filter,
which the options borrow (c.h); the DB destroys it after it is closed, and the destructor drops
the key. A changed value is handed to the engine in a buffer kept in _BUFFERS, by the calling OS
thread's id, until that thread's next call (the engine copies it when the callback returns). Not
in a threading.local: the compaction threads are not Python threads, and ctypes gives each of
their calls a fresh thread state, whose locals are cleared when the callback returns, which
would free the buffer before the engine copies it.

The engine calls the callback from its compaction threads, several at once; ctypes takes the
GIL for each call. A DB that uses a Python filter is closed at interpreter exit (atexit, shared
with merge operators).
"""

from __future__ import annotations

import ctypes
import logging
import threading
from typing import Dict, Optional, Union

from . import _library

_log = logging.getLogger("shale")


class CompactionFilter:
    """Base class of compaction filters written in Python: subclass it, set `name` (for the
    info LOG) and override filter(level, key, value), which returns True to remove the entry,
    bytes to keep it with that value instead, or None / False to keep it unchanged. An
    exception keeps the entry unchanged (it is logged to the "shale" logger).

    Thread-safety: the engine calls filter from several compaction threads at once, each under
    the GIL; keep it free of unguarded shared state.
    """

    name: str = "python.CompactionFilter"

    def filter(self, level: int, key: bytes, value: bytes) -> Union[bool, bytes, None]:
        raise NotImplementedError(f"{type(self).__name__}.filter")


class _Registered:
    """What the engine holds for one C filter: the Python filter and its name as a C string
    (the name callback returns a pointer into it)."""

    def __init__(self, compaction_filter: CompactionFilter) -> None:
        self.filter = compaction_filter
        self.name = ctypes.create_string_buffer(str(compaction_filter.name).encode())


# The filters the engine holds, by the `state` key given to it. Guarded by _LOCK.
_LIVE: Dict[int, _Registered] = {}
_LOCK = threading.Lock()
_next_key = 1  # guarded by _LOCK; 0 is never a key (state NULL would come back as None)
# The last changed value handed to the engine by each OS thread (see the module docstring), by
# threading.get_ident(). Guarded by _LOCK. One buffer per compaction thread id, replaced on its
# next call: bounded by the number of thread ids the engine's threads have had.
_BUFFERS: Dict[int, ctypes.Array[ctypes.c_char]] = {}


def _lookup(state: Optional[int]) -> _Registered:
    with _LOCK:
        return _LIVE[state or 0]


def _filter(state: Optional[int], level: int, key: Optional[int], key_length: int,
            value: Optional[int], value_length: int,
            new_value: ctypes._Pointer[ctypes.c_void_p],
            new_value_length: ctypes._Pointer[ctypes.c_size_t],
            value_changed: ctypes._Pointer[ctypes.c_ubyte]) -> int:
    try:
        registered = _lookup(state)
        key_bytes = ctypes.string_at(key or 0, key_length) if key_length else b""
        value_bytes = ctypes.string_at(value or 0, value_length) if value_length else b""
        verdict = registered.filter.filter(level, key_bytes, value_bytes)
        if verdict is True:
            return 1
        if verdict is None or verdict is False:
            return 0
        changed = _library.as_bytes(verdict, "a compaction filter's new value")
        buffer = ctypes.create_string_buffer(changed, len(changed) or 1)
        with _LOCK:
            _BUFFERS[threading.get_ident()] = buffer  # kept until this thread's next call
        new_value[0] = ctypes.addressof(buffer)
        new_value_length[0] = len(changed)
        value_changed[0] = 1
        return 0
    except BaseException:
        _log.exception("shale: a compaction filter raised; the entry is kept unchanged")
        return 0


def _name(state: Optional[int]) -> Optional[int]:
    try:
        return ctypes.addressof(_lookup(state).name)
    except BaseException:
        _log.exception("shale: no compaction filter for its name callback")
        return None


def _destructor(state: Optional[int]) -> None:
    with _LOCK:
        _LIVE.pop(state or 0, None)


# The thunks the engine calls: module-level, so they live as long as the interpreter.
_FILTER = _library.COMPACTION_FILTER_FN(_filter)
_NAME = _library.NAME_FN(_name)
_DESTRUCTOR = _library.DESTRUCTOR_FN(_destructor)


def create(lib: ctypes.CDLL, compaction_filter: CompactionFilter) -> int:
    """A new C filter for `compaction_filter`; the caller destroys it with
    shale_compactionfilter_destroy once no DB uses it."""
    if not isinstance(compaction_filter, CompactionFilter):
        raise TypeError(f"shale: compaction_filter must be a shale.CompactionFilter, not "
                        f"{type(compaction_filter).__name__}")
    global _next_key
    with _LOCK:
        key = _next_key
        _next_key += 1
        _LIVE[key] = _Registered(compaction_filter)
    handle = lib.shale_compactionfilter_create(key, _DESTRUCTOR, _FILTER, _NAME)
    if not handle:
        with _LOCK:
            _LIVE.pop(key, None)
        raise MemoryError("shale: shale_compactionfilter_create failed")
    return int(handle)

"""The exceptions of the binding. Each carries the engine's message (Status::ToString(), such
as "IO error: /tmp/db/LOCK: ...") as its str() and as `.message`."""

from __future__ import annotations

import ctypes
from typing import Any, Iterable, Tuple, Type

from . import _library


class Error(Exception):
    """An error reported by ShaleDB."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgumentError(Error):
    """Bad options, a bad argument, or a knob the engine does not support yet."""


class IOError(Error, OSError):  # noqa: A001 - plyvel's name; also an OSError
    """A file operation failed (including a DB directory locked by another open DB)."""


class CorruptionError(Error):
    """Stored data failed a checksum or could not be decoded."""


class NotSupportedError(Error):
    """The engine does not implement the operation (yet)."""


# Status::ToString() prefixes (src/util/status.cc) and the exception each one raises.
_BY_PREFIX: Tuple[Tuple[str, Type[Error]], ...] = (
    ("Invalid argument", InvalidArgumentError),
    ("IO error", IOError),
    ("Corruption", CorruptionError),
    ("Not implemented", NotSupportedError),
)


def error_for(message: str) -> Error:
    """The exception for an engine message."""
    for prefix, cls in _BY_PREFIX:
        if message.startswith(prefix):
            return cls(message)
    return Error(message)


def call(fn: Any, *args: Any) -> Any:
    """Calls a C ABI function whose last parameter is `char** errptr`; raises on error."""
    err = ctypes.c_void_p()
    result = fn(*args, ctypes.byref(err))
    if err.value:
        message = (_library.take_string(err.value) or b"").decode("utf-8", "replace")
        raise error_for(message)
    return result


def need(name: str, what: str) -> Any:
    """The optional C function `name`, or NotSupportedError saying that `what` needs it and the
    loaded library does not export it (a libshale.so older than the binding)."""
    fn = _library.optional(name)
    if fn is None:
        raise NotSupportedError(
            f"shale: {what} needs the C function {name}, which {_library.library_path()} does "
            f"not export; rebuild libshale.so from a newer ShaleDB")
    return fn


def need_all(names: Iterable[str], what: str) -> ctypes.CDLL:
    """The loaded library, after checking that it exports every optional function of `names`
    (NotSupportedError naming the first missing one, as need())."""
    for name in names:
        need(name, what)
    return _library.lib()

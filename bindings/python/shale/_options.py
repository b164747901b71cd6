"""Options as the engine's options string: the binding passes RocksDB option names and values
through shale_get_options_from_string, so the engine parses and validates them."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Mapping, Optional

from . import _errors

# What an option's value may be in DB(...), set_options and SstFileWriter: text in the options
# syntax, a number, a bool, None (nullptr) or a dict of nested options.
OptionValue = Any


def option_value(value: OptionValue) -> str:
    """One value in the options-string syntax: booleans as true/false, dicts in braces, None
    as nullptr (merge_operator=None: no operator), text holding ';' in braces (so that
    merge_operator="stringappend:;" keeps its delimiter)."""
    if value is None:
        return "nullptr"
    if isinstance(value, str) and ";" in value:
        return "{" + value + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + options_string(value) + "}"
    return str(value)


def options_string(options: Mapping[str, OptionValue]) -> str:
    """{"write_buffer_size": 1 << 20, "block_based_table_factory": {"block_size": "8K"}} as
    the engine's options string "write_buffer_size=1048576;block_based_table_factory={...}"."""
    return ";".join(f"{name}={option_value(value)}" for name, value in options.items())


def new_options(lib: ctypes.CDLL, options: Mapping[str, OptionValue],
                prepare: Optional[Callable[[int], None]] = None) -> int:
    """A new shale_options_t with `options` (RocksDB names) applied; the caller destroys it.
    `prepare`, when given, is called first on the fresh options (the C setters the options
    string cannot express: presets, a shared block cache, statistics), so that the named
    options are applied over what it set."""
    base = lib.shale_options_create()
    try:
        if prepare is not None:
            prepare(base)
    except BaseException:
        lib.shale_options_destroy(base)
        raise
    if not options:
        return int(base)
    out = lib.shale_options_create()
    try:
        _errors.call(lib.shale_get_options_from_string, base,
                     options_string(options).encode(), out)
    except BaseException:
        lib.shale_options_destroy(out)
        raise
    finally:
        lib.shale_options_destroy(base)
    return int(out)

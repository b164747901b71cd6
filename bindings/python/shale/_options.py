"""Options as the engine's options string: the binding passes RocksDB option names and values
through shale_get_options_from_string, so the engine parses and validates them."""

from . import _errors


def option_value(value):
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


def options_string(options):
    """{"write_buffer_size": 1 << 20, "block_based_table_factory": {"block_size": "8K"}} as
    the engine's options string "write_buffer_size=1048576;block_based_table_factory={...}"."""
    return ";".join(f"{name}={option_value(value)}" for name, value in options.items())


def new_options(lib, options):
    """A new shale_options_t with `options` (RocksDB names) applied; the caller destroys it."""
    base = lib.shale_options_create()
    if not options:
        return base
    out = lib.shale_options_create()
    try:
        _errors.call(lib.shale_get_options_from_string, base,
                     options_string(options).encode(), out)
    except BaseException:
        lib.shale_options_destroy(out)
        raise
    finally:
        lib.shale_options_destroy(base)
    return out

"""Progress of long operations (include/shale/progress.h, c.h's shale_progress_*): the Progress
report handed to a Python callback, and the adapter that turns such a callback into the C
callback a compaction, an ingestion, a checkpoint or a bulk load's finish reports to.

    def show(p: shale.Progress) -> None:
        eta = "?" if p.eta_seconds is None else f"{p.eta_seconds:.0f} s"
        print(f"{p.operation} {p.stage}: {100 * p.fraction:.0f}%, {eta} left")

    db.compact_range(progress=show, progress_interval=5)

How a report reaches Python: each operation gets its own _Reporter, which owns a ctypes thunk
(a PROGRESS_FN) over its report method. The engine holds the thunk's C function pointer only in
the options of that operation (or of that BulkLoader), so the _Reporter is kept referenced
until those options and the call that uses them are gone: for the whole call, and for a
BulkLoader as long as the loader lives. The engine calls the thunk from one of the operation's
threads -- the caller's or a background thread -- and ctypes takes the GIL for it; it never
calls it twice at once for one operation.

An exception raised by the user's callback cannot cross the C frames of the engine: the
_Reporter records the first one, stops calling the callback, lets the operation run to its
end, and raises the exception after the operation returns (raise_pending). When the operation
itself fails, its error is raised instead and the callback's exception is logged to the
"shale" logger.
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import math
import numbers
from typing import Any, Callable, Optional

from . import _errors, _library

_log = logging.getLogger("shale")

# The default of every progress_interval keyword (seconds), as for the C++ options.
DEFAULT_INTERVAL = 1.0


@dataclasses.dataclass(frozen=True)
class Progress:
    """How far a long operation has got, as reported to a `progress=` callback (a copy of the
    engine's shale::Progress; immutable, safe to keep after the callback returns).

    operation: what runs: "compact_range", "ingest", "checkpoint", "bulk_load" or "verify".
    stage: the step it is in where it has several ("merge_runs", "write_tables", "ingest" for
    a bulk load; "copy" or "link" for an ingestion and a checkpoint), else "".
    bytes_done / bytes_total, entries_done / entries_total: work done and the total expected
    (bytes of input; entries, or files for an ingestion, a checkpoint and a verification). A
    total is an estimate made at the start and may not be reached (a compaction drops
    overwritten entries); 0 when not known.
    elapsed_seconds: wall-clock seconds since the operation started.
    bytes_per_second: bytes_done / elapsed_seconds.
    eta_seconds: estimated seconds left at the rate so far; None when not known yet (nothing
    done or no total); 0.0 in the final report.
    fraction: done over total in [0, 1]; 1.0 once finished; 0.0 when no total is known.
    finished: True in the last report of the operation (sent once, after the work ended,
    whether it succeeded or failed).
    """
    operation: str
    stage: str
    bytes_done: int
    bytes_total: int
    entries_done: int
    entries_total: int
    elapsed_seconds: float
    bytes_per_second: float
    eta_seconds: Optional[float]
    fraction: float
    finished: bool


# What a progress= keyword takes: a callable given each Progress; its return value is ignored.
ProgressCallback = Callable[[Progress], Any]

_GETTERS = ("shale_progress_operation", "shale_progress_stage", "shale_progress_bytes_done",
            "shale_progress_bytes_total", "shale_progress_entries_done",
            "shale_progress_entries_total", "shale_progress_elapsed_seconds",
            "shale_progress_bytes_per_second", "shale_progress_eta_seconds",
            "shale_progress_fraction", "shale_progress_finished")


def _read(lib: ctypes.CDLL, handle: int) -> Progress:
    """The Progress of a shale_progress_t* (valid only during the C callback)."""
    eta = float(lib.shale_progress_eta_seconds(handle))
    return Progress(
        operation=(lib.shale_progress_operation(handle) or b"").decode("utf-8", "replace"),
        stage=(lib.shale_progress_stage(handle) or b"").decode("utf-8", "replace"),
        bytes_done=int(lib.shale_progress_bytes_done(handle)),
        bytes_total=int(lib.shale_progress_bytes_total(handle)),
        entries_done=int(lib.shale_progress_entries_done(handle)),
        entries_total=int(lib.shale_progress_entries_total(handle)),
        elapsed_seconds=float(lib.shale_progress_elapsed_seconds(handle)),
        bytes_per_second=float(lib.shale_progress_bytes_per_second(handle)),
        eta_seconds=None if eta < 0 or math.isnan(eta) else eta,
        fraction=float(lib.shale_progress_fraction(handle)),
        finished=bool(lib.shale_progress_finished(handle)))


def check_interval(interval: float, what: str) -> float:
    """`interval` (progress_interval=) as a float: TypeError unless it is a real number,
    InvalidArgumentError (as the C setters return) when it is negative or NaN. `what` names the
    call, for the message."""
    if isinstance(interval, bool) or not isinstance(interval, numbers.Real):
        raise TypeError(f"shale: {what}: progress_interval must be a number of seconds, not "
                        f"{type(interval).__name__}")
    seconds = float(interval)
    if math.isnan(seconds) or seconds < 0:
        raise _errors.InvalidArgumentError(
            f"shale: {what}: progress_interval must be a number of seconds >= 0, not {interval!r}")
    return seconds


class _Reporter:
    """The C callback of one operation, over the user's Python callback; see the module
    docstring for its lifetime and how it handles the callback's exceptions.

    Thread-safety: the engine calls report() from one thread at a time per operation (c.h's
    guarantee), under the GIL; the operation's caller reads the recorded exception only after
    the C call returned. So the fields need no lock.
    """

    def __init__(self, callback: ProgressCallback, interval: float, what: str) -> None:
        self.callback = callback
        self.interval = interval
        self.what = what
        # The getters, checked when the reporter is made (not in the engine's thread).
        self._lib = _errors.need_all(_GETTERS, what)
        # The first exception the callback raised; once set, the callback is not called again.
        self.error: Optional[BaseException] = None
        # The C function pointer the engine holds (see the module docstring for its lifetime).
        self.thunk = _library.PROGRESS_FN(self._report)

    def _report(self, arg: Optional[int], handle: Optional[int]) -> None:
        if self.error is not None or not handle:
            return
        try:
            self.callback(_read(self._lib, handle))
        except BaseException as e:  # noqa: B902 - even KeyboardInterrupt: raised afterwards
            self.error = e

    def set_on(self, setter: Any, handle: int) -> None:
        """Calls a C setter (options, callback, arg, interval_seconds, errptr) for this
        reporter; raises the setter's error (InvalidArgumentError for a bad interval)."""
        _errors.call(setter, handle, self.thunk, None, self.interval)

    def raise_pending(self, operation_failed: bool = False) -> None:
        """Raises the callback's recorded exception, once; with operation_failed (the
        operation raises its own error) logs it instead."""
        error, self.error = self.error, None
        if error is None:
            return
        if operation_failed:
            _log.error("shale: %s: the progress callback raised", self.what, exc_info=error)
            return
        raise error


def reporter(progress: Optional[ProgressCallback], interval: float,
             what: str) -> Optional[_Reporter]:
    """A _Reporter for the `progress=` and `progress_interval=` keywords of `what` (e.g.
    "DB.compact_range"), or None when there is no callback. Checks both keywords (TypeError for
    a callback that is not callable; see check_interval) even without a callback."""
    seconds = check_interval(interval, what)
    if progress is None:
        return None
    if not callable(progress):
        raise TypeError(f"shale: {what}: progress must be a callable taking a shale.Progress, "
                        f"not {type(progress).__name__}")
    return _Reporter(progress, seconds, what)


class Reporting:
    """Runs one operation with an optional _Reporter: a context manager that raises the
    callback's exception after the block when the block succeeded (and logs it when the block
    raised its own error).

        with Reporting(rep):
            ...the C call...
    """

    def __init__(self, rep: Optional[_Reporter]) -> None:
        self.reporter = rep

    def __enter__(self) -> Optional[_Reporter]:
        return self.reporter

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException],
                 tb: object) -> None:
        if self.reporter is not None:
            self.reporter.raise_pending(operation_failed=exc_type is not None)

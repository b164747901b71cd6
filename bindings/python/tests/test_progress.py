"""Progress reports of long operations from Python (shale.Progress, the progress= and
progress_interval= keywords): compact_range, ingest_external_file with copy and with move,
create_checkpoint and a BulkLoader's finish; an exception raised by the callback (raised after
the operation, whose effect is there); bad keywords; the callback's lifetime.

The tests skip when the loaded library does not export the progress functions yet."""

import gc
import logging
import math
import os

import pytest

import shale
from shale import _library, _progress


@pytest.fixture(autouse=True)
def _needs_progress():
    for name in ("shale_progress_operation", "shale_compactoptions_set_progress",
                 "shale_ingestexternalfileoptions_set_progress",
                 "shale_bulkloader_options_set_progress",
                 "shale_checkpoint_create_with_progress"):
        if _library.optional(name) is None:
            pytest.skip(f"{_library.library_path()} does not export {name} yet")


@pytest.fixture
def quiet_db(db_path):
    """A DB without automatic compactions, so the tables a test flushes stay in L0."""
    with shale.DB(db_path, create_if_missing=True, disable_auto_compactions=True) as opened:
        yield opened


def _flush_tables(db, tables=4, keys=5000, value=b"v" * 64):
    """Writes `tables` tables whose keys interleave (so compacting them merges them): the first
    into the bottom level (a flush into an empty DB overlaps nothing), the others into L0."""
    for t in range(tables):
        for i in range(keys):
            db.put(b"k%08d" % (i * tables + t), value)
        db.flush()
    assert db.int_property("shale.num-files-at-level0") == tables - 1


def _sst(path, prefix, count, value=b"w" * 200):
    with shale.SstFileWriter() as writer:
        writer.open(path)
        for i in range(count):
            writer.put(prefix + b"%08d" % i, value)
        return writer.finish()


def _check_sequence(reports, operation):
    """What every operation's reports share: the operation's name, counts that only grow,
    totals known, and exactly one final report, the last one, complete."""
    assert reports, "no progress report"
    assert all(isinstance(r, shale.Progress) for r in reports)
    assert {r.operation for r in reports} == {operation}
    assert [r.finished for r in reports] == [False] * (len(reports) - 1) + [True]
    for before, after in zip(reports, reports[1:]):
        assert after.bytes_done >= before.bytes_done
        assert after.entries_done >= before.entries_done
        assert after.elapsed_seconds >= before.elapsed_seconds
    for r in reports:
        assert 0.0 <= r.fraction <= 1.0
        assert r.eta_seconds is None or r.eta_seconds >= 0
        assert r.bytes_total > 0 and r.entries_total > 0
    final = reports[-1]
    assert final.fraction == 1.0 and final.eta_seconds == 0.0


# ------------------------------------------------------------------ The operations


def test_compact_range_reports_growing_progress_and_one_final_report(quiet_db):
    _flush_tables(quiet_db, keys=8000)
    reports = []
    quiet_db.compact_range(progress=reports.append, progress_interval=0)
    assert quiet_db.int_property("shale.num-files-at-level0") == 0
    _check_sequence(reports, "compact_range")
    # 32,000 entries counted in batches of 4096 (about 8), from the subcompactions' threads,
    # each skipping its report while another thread's runs: several reports before the final.
    assert len(reports) >= 3
    assert reports[0].fraction < reports[-2].fraction
    final = reports[-1]
    assert final.entries_total == 32000 and final.entries_done == 32000
    assert final.bytes_done > 32000 * 64
    assert final.bytes_per_second > 0 and final.stage == ""


def test_compact_range_progress_with_the_default_interval_sends_the_final_report(quiet_db):
    _flush_tables(quiet_db, tables=2, keys=1000)
    reports = []
    quiet_db.compact_range(progress=reports.append)  # 1 s: this compaction takes less
    assert reports and reports[-1].finished
    assert reports[-1].entries_done == 2000


@pytest.mark.parametrize("move_files, stage", [(False, "copy"), (True, "link")])
def test_ingestion_reports_the_files_brought_in(tmp_path, db, move_files, stage):
    infos = [_sst(tmp_path / f"{n}.sst", b"x%d" % n, 5000) for n in range(3)]
    total = sum(info.file_size for info in infos)
    reports = []
    db.ingest_external_file([info.path for info in infos], move_files=move_files,
                            progress=reports.append, progress_interval=0)
    _check_sequence(reports, "ingest")
    assert {r.stage for r in reports} == {stage}
    assert len(reports) >= 4  # a report per file at least, then the final one
    final = reports[-1]
    assert (final.bytes_done, final.bytes_total) == (total, total)
    assert (final.entries_done, final.entries_total) == (3, 3)
    assert db.get(b"x2%08d" % 4999) == b"w" * 200
    assert all(os.path.exists(info.path) != move_files for info in infos)


def test_checkpoint_reports_the_files_it_links(tmp_path, quiet_db):
    _flush_tables(quiet_db, tables=3, keys=1000)
    quiet_db.put(b"unflushed", b"1")
    reports = []
    quiet_db.create_checkpoint(tmp_path / "checkpoint", progress=reports.append,
                               progress_interval=0)
    _check_sequence(reports, "checkpoint")
    final = reports[-1]
    assert final.entries_done == final.entries_total >= 4  # 3 tables and the flushed memtable
    assert final.bytes_done == final.bytes_total
    assert {r.stage for r in reports[:-1]} <= {"link", "copy"}
    with shale.DB(str(tmp_path / "checkpoint")) as copy:
        assert copy.get(b"unflushed") == b"1"
        assert copy.get(b"k%08d" % 2999) == b"v" * 64


def test_bulk_load_with_a_small_budget_reports_its_stages(db):
    reports = []
    with shale.BulkLoader(db, memory_budget=64 << 10, progress=reports.append,
                          progress_interval=0) as loader:
        for i in range(20000):
            loader.add(b"k%08d" % ((i * 7919) % 20000), b"v" * 40)
        assert reports == []  # finish reports, add does not
        loader.finish()
    _check_sequence(reports, "bulk_load")
    stages = [r.stage for r in reports]
    # The budget spills sorted runs, merged before the tables are written and ingested.
    assert {"merge_runs", "write_tables", "ingest"} <= set(stages)
    assert stages.index("merge_runs") < stages.index("write_tables") < stages.index("ingest")
    assert stages[-1] == "ingest"
    assert reports[-1].bytes_done == reports[-1].bytes_total
    assert db.get(b"k%08d" % 19999) == b"v" * 40


def test_the_bulk_loader_keeps_its_callback_alive(db):
    """The engine holds the C thunk from BulkLoader(...) to finish(): the loader keeps it even
    when the caller keeps no reference to the callback."""
    seen = []
    loader = shale.BulkLoader(db, progress=lambda p: seen.append(p.finished),
                              progress_interval=0)
    gc.collect()
    loader.add(b"a", b"1")
    loader.finish()
    loader.close()
    assert seen and seen[-1] is True


def test_progress_is_an_immutable_value():
    p = shale.Progress(operation="ingest", stage="copy", bytes_done=1, bytes_total=2,
                       entries_done=0, entries_total=1, elapsed_seconds=0.5,
                       bytes_per_second=2.0, eta_seconds=None, fraction=0.5, finished=False)
    with pytest.raises(AttributeError):
        p.bytes_done = 2  # type: ignore[misc]
    assert p == shale.Progress(**{**p.__dict__})


# ------------------------------------------------------------------ A callback that raises


class _Boom(Exception):
    pass


def _raising_on(call_number, calls):
    """A callback that counts its calls in `calls` and raises _Boom on the call_number'th."""
    def callback(progress):
        calls.append(progress)
        if len(calls) == call_number:
            raise _Boom(f"report {call_number}")
    return callback


def test_an_exception_in_the_callback_is_raised_after_the_compaction_completes(quiet_db):
    _flush_tables(quiet_db)
    calls = []
    with pytest.raises(_Boom, match="report 2"):
        quiet_db.compact_range(progress=_raising_on(2, calls), progress_interval=0)
    assert len(calls) == 2  # not called again after it raised
    assert quiet_db.int_property("shale.num-files-at-level0") == 0  # the compaction ran
    assert quiet_db.get(b"k%08d" % 19999) == b"v" * 64


@pytest.mark.parametrize("move_files", [False, True])
def test_an_exception_in_the_final_report_is_raised_after_ingestion(tmp_path, db, move_files):
    info = _sst(tmp_path / "a.sst", b"a", 10)

    def raise_at_the_end(progress):
        if progress.finished:
            raise _Boom("final")

    with pytest.raises(_Boom, match="final"):
        db.ingest_external_file([info.path], move_files=move_files,
                                progress=raise_at_the_end, progress_interval=0)
    assert db.get(b"a%08d" % 9) == b"w" * 200


def test_an_exception_in_the_callback_is_raised_by_bulk_load_finish(db):
    calls = []
    loader = shale.BulkLoader(db, memory_budget=64 << 10, progress=_raising_on(1, calls),
                              progress_interval=0)
    loader.add_all((b"k%05d" % i, b"v" * 40) for i in range(5000))
    with pytest.raises(_Boom):
        loader.finish()
    assert len(calls) == 1
    assert db.get(b"k04999") == b"v" * 40  # the load completed
    loader.close()


def test_an_exception_in_the_callback_is_raised_after_the_checkpoint(tmp_path, db):
    db.put(b"k", b"v")
    with pytest.raises(_Boom):
        db.create_checkpoint(tmp_path / "cp", progress=_raising_on(1, []), progress_interval=0)
    with shale.DB(str(tmp_path / "cp")) as copy:
        assert copy.get(b"k") == b"v"


def test_keyboard_interrupt_in_the_callback_is_raised_afterwards(quiet_db):
    _flush_tables(quiet_db, tables=2, keys=100)

    def interrupt(progress):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        quiet_db.compact_range(progress=interrupt, progress_interval=0)
    assert quiet_db.int_property("shale.num-files-at-level0") == 0


def test_when_the_operation_fails_its_error_wins_and_the_callback_error_is_logged(
        tmp_path, db, caplog):
    (tmp_path / "cp").mkdir()
    with caplog.at_level(logging.ERROR, logger="shale"):
        with pytest.raises(shale.InvalidArgumentError, match="exists"):
            db.create_checkpoint(tmp_path / "cp", progress=_raising_on(1, []),
                                 progress_interval=0)
    assert "progress callback raised" in caplog.text and "_Boom" in caplog.text


# ------------------------------------------------------------------ Bad keywords


@pytest.mark.parametrize("interval", [-1, -0.5, math.nan])
def test_a_negative_or_nan_interval_is_invalid(tmp_path, db, interval):
    def ignore(p):
        pass

    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        db.compact_range(progress=ignore, progress_interval=interval)
    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        db.compact_range(progress_interval=interval)  # checked without a callback too
    info = _sst(tmp_path / "a.sst", b"a", 1)
    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        db.ingest_external_file([info.path], progress=ignore, progress_interval=interval)
    assert db.get(b"a00000000") is None  # nothing ingested
    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        db.create_checkpoint(tmp_path / "cp", progress=ignore, progress_interval=interval)
    assert not (tmp_path / "cp").exists()
    with pytest.raises(shale.InvalidArgumentError, match="progress_interval"):
        shale.BulkLoader(db, progress=ignore, progress_interval=interval)


def test_the_c_setters_refuse_a_negative_interval(db):
    """The engine's own check, behind the binding's: the C setter returns InvalidArgument."""
    rep = _progress._Reporter(lambda p: None, -1.0, "test")
    lib = _library.lib()
    options = lib.shale_compactoptions_create()
    try:
        with pytest.raises(shale.InvalidArgumentError, match="interval"):
            rep.set_on(_library.optional("shale_compactoptions_set_progress"), options)
    finally:
        lib.shale_compactoptions_destroy(options)


def test_bad_callback_and_interval_types(db):
    with pytest.raises(TypeError, match="progress must be a callable"):
        db.compact_range(progress=42)
    with pytest.raises(TypeError, match="progress_interval must be a number"):
        db.compact_range(progress=print, progress_interval="1s")
    with pytest.raises(TypeError, match="progress_interval must be a number"):
        db.compact_range(progress=print, progress_interval=True)

"""DB.updates_since: the WAL iterator (DB::GetUpdatesSince) yields every batch written, in
order, as (sequence, data) pairs, polls for later writes, and raises instead of skipping what
no WAL holds any more."""

import struct
import time

import pytest

import shale


def _header(data):
    """The (sequence, count) of a serialized batch."""
    return struct.unpack("<QI", data[:12])


def _write(db, model, *keys, disable_wal=False):
    batch = shale.WriteBatch()
    for key in keys:
        batch.put(key, b"v-" + key)
    db.write(batch, disable_wal=disable_wal)
    if not disable_wal:
        model.append((db.latest_sequence_number() - len(keys) + 1, len(keys)))


def test_yields_every_batch_in_order_and_polls(db):
    model = []
    _write(db, model, b"a", b"b")
    _write(db, model, b"c")
    _write(db, model, b"d", b"e", b"f")
    with db.updates_since(0) as updates:
        got = list(updates)
        assert [(seq, _header(data)) for seq, data in got] == \
            [(seq, (seq, count)) for seq, count in model]
        assert b"v-c" in got[1][1]
        assert list(updates) == []  # nothing new yet
        _write(db, model, b"g")
        assert [seq for seq, _ in updates] == [model[-1][0]]
    # From the middle of the third batch (sequences 4..6): that batch first.
    assert [seq for seq, _ in db.updates_since(5)] == [4, 7]


def test_errors(db):
    model = []
    with pytest.raises(shale.Error, match="Requested sequence not yet written in the db"):
        db.updates_since(1)
    _write(db, model, b"a")
    _write(db, model, b"hidden", disable_wal=True)
    _write(db, model, b"b")
    updates = db.updates_since(1)
    assert next(updates)[0] == 1
    with pytest.raises(shale.CorruptionError, match="Gap in sequence numbers"):
        next(updates)
    updates.close()
    db.flush()
    _write(db, model, b"c")
    # The flush deletes the old WAL just after it returns: wait for that (at most 20 s).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            db.updates_since(1).close()
        except shale.Error:
            break
        time.sleep(0.001)
    with pytest.raises(shale.Error, match="older than the oldest WAL"):
        db.updates_since(1)
    assert [seq for seq, _ in db.updates_since(db.latest_sequence_number())] == [model[-1][0]]


def test_closed_with_the_db(db_path):
    db = shale.DB(db_path, create_if_missing=True)
    db.put(b"k", b"v")
    updates = db.updates_since(1)
    db.close()
    with pytest.raises(shale.Error, match="closed"):
        next(updates)

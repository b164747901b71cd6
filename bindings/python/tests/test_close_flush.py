"""What close() does with the writes still in memtables (issue 20: avoid_flush_during_shutdown,
RocksDB's name). By default close() flushes them, so the DB directory keeps no WAL bytes for
the next open to replay; with avoid_flush_during_shutdown=True (a keyword of DB, or changed on
the open DB by set_db_options) the logged writes stay in the WAL. The writes are there after a
reopen either way."""

import glob
import os
from typing import Any, Dict

import pytest

import shale


def wal_bytes(path: str) -> int:
    return sum(os.path.getsize(name) for name in glob.glob(os.path.join(path, "*.log")))


@pytest.mark.parametrize("how", ["default", "keyword", "set_db_options"])
def test_close_flushes_unless_asked_not_to(db_path: str, how: str) -> None:
    keywords: Dict[str, Any] = {"avoid_flush_during_shutdown": True} if how == "keyword" else {}
    with shale.DB(db_path, create_if_missing=True, **keywords) as db:
        db.put(b"k", b"v")
        if how == "set_db_options":
            db.set_db_options({"avoid_flush_during_shutdown": True})
    if how == "default":
        assert wal_bytes(db_path) == 0
    else:
        assert wal_bytes(db_path) > 0
    with shale.DB(db_path) as db:
        assert db.get(b"k") == b"v"


def test_the_option_reaches_the_options_file(db_path: str) -> None:
    with shale.DB(db_path, create_if_missing=True, avoid_flush_during_shutdown=True):
        pass
    [options_file] = sorted(glob.glob(os.path.join(db_path, "OPTIONS-*")))[-1:]
    with open(options_file) as f:
        assert "  avoid_flush_during_shutdown=true\n" in f.read()
    with pytest.raises(shale.InvalidArgumentError, match="avoid_flush_during_shutdown"):
        shale.DB(db_path, avoid_flush_during_shutdown="sometimes")

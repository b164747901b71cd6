"""Fixtures of the binding's tests. The library comes from SHALE_LIBRARY or the in-tree build
(see shale/_library.py); the ctest `capi_python` sets SHALE_LIBRARY and PYTHONPATH."""

import pytest

import shale


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "db")


@pytest.fixture
def db(db_path):
    with shale.DB(db_path, create_if_missing=True, write_buffer_size=4 << 20) as opened:
        yield opened

"""Compression from Python (issue 24): every codec the engine builds (Snappy, zlib, LZ4, LZ4HC,
zstd) is accepted by its RocksDB name for the DB, the bottommost level, SstFileWriter and
BulkLoader, and the data reads back after flush, compaction and reopen; RocksDB's bzip2 and
xpress are refused with InvalidArgumentError naming the type and the supported ones."""

import pytest

import shale

CODECS = ["kSnappyCompression", "kZlibCompression", "kLZ4Compression", "kLZ4HCCompression",
          "kZSTD"]


@pytest.mark.parametrize("codec", CODECS)
def test_db_round_trip(tmp_path, codec):
    path = str(tmp_path / "db")
    model = {b"k%05d" % i: b"value-%d-" % i + b"x" * 90 for i in range(3000)}
    with shale.DB(path, create_if_missing=True, compression=codec,
                  bottommost_compression=codec, write_buffer_size="64K") as db:
        for key, value in model.items():
            db.put(key, value)
        db.flush()
        db.compact_range()
    with shale.DB(path, compression=codec, bottommost_compression=codec) as db:
        assert dict(db.iterator()) == model


@pytest.mark.parametrize("codec", ["kBZip2Compression", "kXpressCompression"])
def test_unbuilt_codecs_are_refused(tmp_path, codec):
    with pytest.raises(shale.InvalidArgumentError, match=f"{codec}") as info:
        shale.DB(str(tmp_path / "db"), create_if_missing=True, compression=codec)
    assert "kZlibCompression" in str(info.value)  # says which are supported


@pytest.mark.parametrize("codec", CODECS)
def test_sst_file_writer_compresses(tmp_path, codec):
    pairs = [(b"key%06d" % i, b"x" * 200) for i in range(500)]
    sizes = {}
    for name in ("kNoCompression", codec):
        with shale.SstFileWriter(compression=name) as writer:
            writer.open(tmp_path / f"{name}.sst")
            for key, value in pairs:
                writer.put(key, value)
            sizes[name] = writer.finish().file_size
    assert sizes[codec] * 3 < sizes["kNoCompression"]


@pytest.mark.parametrize("codec", CODECS)
def test_bulk_loader_takes_the_codec(db, codec):
    if shale._library.optional("shale_bulkloader_create") is None:
        pytest.skip("the library has no shale_bulkloader_create")
    model = {b"k%05d" % i: b"v" * 50 for i in range(2000)}
    with shale.BulkLoader(db, compression=codec) as loader:
        for key, value in model.items():
            loader.add(key, value)
        loader.finish()
    assert dict(db.iterator()) == model

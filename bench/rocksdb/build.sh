#!/usr/bin/env bash
# bench/rocksdb/build.sh: builds the benchmark opponent, a Release db_bench and librocksdb of
# RocksDB 11.8.1, and prints the folder it installed them in.
#
#   bench/rocksdb/build.sh [--prefix DIR] [--jobs N] [--nice] [--check]
#
# The source is the RocksDB tree that the crates.io package librocksdb-sys 0.19.0+11.8.1 carries
# (under its rocksdb/ folder), fetched with cargo through a throwaway crate. It is built with
# RocksDB's own CMake in Release (gflags, zstd, lz4, snappy, jemalloc; no tests, no tools but
# db_bench) and installed under DIR (default ~/.cache/shale/rocksdb-11.8.1):
#   DIR/bin/db_bench, DIR/lib/librocksdb.so*, DIR/include/rocksdb/
# db_bench finds librocksdb beside it or in ../lib ($ORIGIN run path), so DIR can move.
# A finished build is reused: the script only prints DIR when DIR/.complete exists.
# The build takes about 25 minutes of both cores; --nice runs it at the lowest CPU priority.
# --check builds nothing: it prints DIR when the build is there, else exits with status 1.
set -euo pipefail

VERSION=11.8.1
CRATE_VERSION="0.19.0+${VERSION}"
PREFIX="${HOME}/.cache/shale/rocksdb-${VERSION}"
JOBS="$(nproc)"
NICE=()
CHECK=0
while (($#)); do
  case "$1" in
    --prefix) PREFIX="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --nice) NICE=(nice -n 19); shift ;;
    --check) CHECK=1; shift ;;
    *) echo "usage: bench/rocksdb/build.sh [--prefix DIR] [--jobs N] [--nice] [--check]" >&2
       exit 2 ;;
  esac
done

if [ -f "$PREFIX/.complete" ] && [ -x "$PREFIX/bin/db_bench" ]; then
  echo "$PREFIX"
  exit 0
fi
if [ "$CHECK" = 1 ]; then
  echo "RocksDB ${VERSION} is not built in $PREFIX (run bench/rocksdb/build.sh)" >&2
  exit 1
fi

PACKAGES=(cmake ninja-build g++ cargo libgflags-dev libzstd-dev liblz4-dev libsnappy-dev
          libjemalloc-dev zlib1g-dev libbz2-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# cargo may come from rustup rather than Debian: only install it when no cargo is on PATH.
if command -v cargo >/dev/null; then
  missing=("${missing[@]/cargo}")
fi
if [ -n "${missing[*]// /}" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "== installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends ${missing[*]} >&2
fi

work="$PREFIX.build"
mkdir -p "$work"

# 1. The source: cargo fetches the crate into its registry; find the tree there.
if [ ! -f "$work/src/CMakeLists.txt" ]; then
  fetcher="$work/fetch"
  mkdir -p "$fetcher/src"
  cat > "$fetcher/Cargo.toml" <<TOML
[package]
name = "shale-rocksdb-fetch"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
librocksdb-sys = "=${CRATE_VERSION}"
TOML
  echo 'fn main() {}' > "$fetcher/src/main.rs"
  echo "== fetching librocksdb-sys ${CRATE_VERSION} with cargo" >&2
  (cd "$fetcher" && cargo fetch >&2)
  crate_dir="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"librocksdb-sys-${CRATE_VERSION}" | head -n 1)"
  grep -q "ROCKSDB_MAJOR ${VERSION%%.*}" "$crate_dir/rocksdb/include/rocksdb/version.h" || {
    echo "error: $crate_dir/rocksdb is not RocksDB ${VERSION}" >&2; exit 1; }
  rm -rf "$work/src"
  cp -a "$crate_dir/rocksdb" "$work/src"
fi

# 2. Configure and build with RocksDB's own CMake.
echo "== building RocksDB ${VERSION} (Release, db_bench and librocksdb) in $work/build" >&2
"${NICE[@]}" cmake -S "$work/src" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DWITH_GFLAGS=ON -DWITH_ZSTD=ON -DWITH_LZ4=ON -DWITH_SNAPPY=ON -DWITH_JEMALLOC=ON \
  -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF \
  -DPORTABLE=0 -DFAIL_ON_WARNINGS=OFF -DROCKSDB_BUILD_SHARED=ON \
  '-DCMAKE_BUILD_RPATH=$ORIGIN:$ORIGIN/../lib' >&2
"${NICE[@]}" cmake --build "$work/build" -j "$JOBS" --target db_bench rocksdb-shared >&2

# 3. Install what the benchmarks use.
mkdir -p "$PREFIX/bin" "$PREFIX/lib" "$PREFIX/include"
cp "$work/build/db_bench" "$PREFIX/bin/db_bench"
cp -a "$work/build"/librocksdb.so* "$PREFIX/lib/"
rm -rf "$PREFIX/include/rocksdb"
cp -a "$work/src/include/rocksdb" "$PREFIX/include/rocksdb"
"$PREFIX/bin/db_bench" --version >&2 || true
touch "$PREFIX/.complete"
echo "$PREFIX"

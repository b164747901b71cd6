#!/usr/bin/env bash
# usage: run_consumer_test.sh BUILD_DIR PROJECT_DIR WORK_DIR [SANITIZERS]
set -euo pipefail
build_dir="$1"; project="$2"; work="$3"; sanitize="${4:-}"
san_flags=""
if [ -n "$sanitize" ]; then san_flags="-fsanitize=$sanitize"; fi
export CXXFLAGS="$san_flags" LDFLAGS="$san_flags"
rm -rf "$work"; mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null

for kind in shared static; do
  use_static=OFF; [ "$kind" = static ] && use_static=ON
  cmake -S "$project" -B "$work/$kind" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        -DSHALE_USE_STATIC="$use_static" >/dev/null
  cmake --build "$work/$kind" >/dev/null
  deps="$(ldd "$work/$kind/consumer")"  # (not piped into grep -q: pipefail + SIGPIPE)
  if [ "$kind" = shared ]; then
    # The shared consumer must really use libshale.so.
    [[ "$deps" == *libshale.so* ]] || { echo "not linked to libshale.so"; exit 1; }
  else
    if [[ "$deps" == *libshale.so* ]]; then echo "static consumer uses libshale.so"; exit 1; fi
  fi
  LD_LIBRARY_PATH="$prefix/lib" "$work/$kind/consumer" "$work/db-$kind"
done

# pkg-config, static and shared.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
g++ -std=c++20 $san_flags "$project/main.cc" -o "$work/pc-shared" $(pkg-config --cflags --libs shale)
LD_LIBRARY_PATH="$prefix/lib" "$work/pc-shared" "$work/db-pc-shared"
g++ -std=c++20 $san_flags "$project/main.cc" -o "$work/pc-static" $(pkg-config --cflags shale) \
    -Wl,-Bstatic -lshale -Wl,-Bdynamic $(pkg-config --libs --static shale | sed 's/-lshale//')
"$work/pc-static" "$work/db-pc-static"

# RocksDB's C API: shale-rocksdb.pc gives the installed header and lib/shale-rocksdb/librocksdb.so
# with an rpath, so the program loads that library (not a RocksDB of the system) without
# LD_LIBRARY_PATH. --no-as-needed: the program calls no function, yet must load the library.
cc -std=c99 $san_flags "$project/rocksdb_main.c" -o "$work/pc-rocksdb" -Wl,--no-as-needed \
   $(pkg-config --cflags --libs shale-rocksdb)
loaded="$(ldd "$work/pc-rocksdb" | awk '$1 == "librocksdb.so" { print $3 }')"
want="$(realpath "$prefix")/lib/shale-rocksdb/librocksdb.so"
if [ -z "$loaded" ] || [ "$(realpath "$loaded")" != "$want" ]; then
  echo "pc-rocksdb loads librocksdb.so from '$loaded', not $want"; exit 1
fi
"$work/pc-rocksdb"
echo "install_consumer: OK (shared, static, pkg-config shared and static, shale-rocksdb)"

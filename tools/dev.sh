#!/usr/bin/env bash
# The README's commands. Each installs whatever Debian packages are missing, configures and
# builds with the CMake preset, then:
#   tools/dev.sh run    builds Release and runs the main job: shale_bench (db_bench's benchmarks)
#                       on 1M keys in a temp directory
#   tools/dev.sh test   builds Release and runs the whole test suite (ctest), then builds the
#                       libFuzzer targets (clang, ASan+UBSan) and runs each for a short fixed time,
#                       then the whole suite under ASan+UBSan, then the clang-14 TSan build of
#                       everything with -Wthread-safety -Werror (the lock annotations are checked
#                       there) and the concurrency tests under TSan
# Safe to run again: installed packages and an existing build directory are reused.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ make pkg-config python3 python3-pip python3-venv python3-pytest
          libzstd-dev libxxhash-dev libabsl-dev libgtest-dev libbenchmark-dev libjemalloc-dev
          liblz4-dev libsnappy-dev librocksdb-dev zlib1g-dev
          clang-14 libclang-rt-14-dev)

# The tests that exercise threads against each other: what `test` runs under TSan.
TSAN_TESTS=(db_concurrency_test lru_cache_test table_cache_test bulk_test db_checkpoint_test
            db_ingest_test db_block_cache_test db_merge_test db_close_race_test
            db_point_in_time_test db_column_family_race_test db_super_version_cache_test
            lru_cache_clock_test)

install_missing_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then return; fi
  echo "== installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  local preset="$1"
  echo "== configuring and building (preset: $preset)"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
}

# What a Python user does: `pip install ./bindings/python` into a fresh virtual environment (the
# package builds libshale.so with the project's CMake and carries it), then the binding's tests
# run against the installed package, from outside the tree, with SHALE_LIBRARY unset.
test_python_package() {
  echo "== installing the Python package into a fresh venv and running its tests against it"
  local venv repo="$PWD"
  venv="$(mktemp -d "${TMPDIR:-/tmp}/shale-venv.XXXXXX")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "./bindings/python[test]"
  (cd "$venv" && env -u SHALE_LIBRARY -u PYTHONPATH SHALE_EXPECT_INSTALLED=1 \
     "$venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/bindings/python/tests")
  rm -rf "$venv"
}

cmd="${1:-}"
case "$cmd" in
  run)
    install_missing_packages
    build release
    workdir="$(mktemp -d "${TMPDIR:-/tmp}/shale-run.XXXXXX")"
    trap 'rm -rf "$workdir"' EXIT
    echo "== running shale_bench in $workdir (1M keys: fill, read, scan; then the DB's stats)"
    ./build/release/tools/shale_bench/shale_bench --db="$workdir/db" --num=1000000 \
      --benchmarks=fillseq,fillrandom,overwrite,readrandom,readseq,readreverse,stats,levelstats
    ;;
  test)
    install_missing_packages
    preset="${2:-release}"
    build "$preset"
    echo "== running the test suite (preset: $preset)"
    ctest --preset "$preset" -j "$(nproc)"
    if [ "$preset" = release ]; then
      test_python_package
      cmake --preset fuzz -DSHALE_FUZZ_SECONDS="${SHALE_FUZZ_SECONDS:-10}" >/dev/null
      build fuzz
      echo "== running the fuzz targets (${SHALE_FUZZ_SECONDS:-10} s each)"
      ctest --preset fuzz
      build asan
      echo "== running the whole test suite under ASan+UBSan"
      ctest --preset asan -j "$(nproc)"
      # The whole tree is built here, not only TSAN_TESTS: this clang build is where
      # -Wthread-safety -Werror checks every annotated lock (CMakePresets.json, tsan).
      echo "== building everything with clang-14 -Wthread-safety -Werror (TSan), running the concurrency tests under TSan"
      build tsan
      ctest --preset tsan -j "$(nproc)" -R "^($(IFS='|'; echo "${TSAN_TESTS[*]}"))\$"
    fi
    ;;
  *)
    echo "usage: tools/dev.sh run | test [release|debug|asan|tsan]" >&2
    exit 2
    ;;
esac

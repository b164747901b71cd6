#!/usr/bin/env python3
"""Checks ShaleDB's include layering against src/LAYERS, the one list of the module layers.

src/LAYERS says what each line means (`layer`, `allow`, `public-only`, `client`); in short:
  1. A file under src/<folder>/ may include "<other>/..." only when <other> is its own folder, a
     folder of a lower rank, or a folder of the same rank named by an `allow <folder> <other>`
     line. "shale/..." (the public headers) is always allowed; includes whose first path part is
     not a src/ folder (abseil, zstd, system headers) are not this script's business, except
     that nothing may include a test-only helper (a path found under test/ and not under src/).
  2. A `public-only` folder (src/capi) includes only "shale/...", its own folder and <system>
     headers; "rocksdb/..." (include/shale-rocksdb, RocksDB's C API) counts as public too.
  3. A header under include/shale/ or include/shale-rocksdb/ may include only the standard
     library and "shale/...".
  4. Every folder under src/ that holds sources must be on a `layer` line, so a new folder cannot
     slip past the check.
  5. A `client` directory (tools/, bench/) may include src/ folders up to the rank it names, and
     no test-only helper.
  6. doc/architecture.md's module table (rows "| `<folder>/` | <rank> | ...") lists exactly the
     folders of src/LAYERS with their ranks, so the description cannot drift from the list.

Usage: check_layering.py [--root DIR]   check the tree (default: the repository holding this file)
       check_layering.py --self-test    check that the checker rejects known-bad trees
Exit status 0 when clean, 1 with one "file:line: message" per violation otherwise.
"""

import argparse
import os
import re
import sys
import tempfile

LAYERS_FILE = os.path.join("src", "LAYERS")
DOC_FILE = os.path.join("doc", "architecture.md")

# C++ standard library headers, plus the C headers (for c.h, which must compile as C).
STD_HEADERS = frozenset("""
algorithm any array atomic barrier bit bitset cassert ccomplex cctype cerrno cfenv cfloat
charconv chrono cinttypes ciso646 climits clocale cmath codecvt compare complex concepts
condition_variable coroutine csetjmp csignal cstdalign cstdarg cstdbool cstddef cstdint cstdio
cstdlib cstring ctgmath ctime cuchar cwchar cwctype deque exception execution expected filesystem
format forward_list fstream functional future initializer_list iomanip ios iosfwd iostream
istream iterator latch limits list locale map memory memory_resource mutex new numbers numeric
optional ostream queue random ranges ratio regex scoped_allocator semaphore set shared_mutex
source_location span sstream stack stdexcept stop_token streambuf string string_view
syncstream system_error thread tuple type_traits typeindex typeinfo unordered_map unordered_set
utility valarray variant vector version
assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h math.h
setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h
stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h
""".split())

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
DOC_ROW_RE = re.compile(r"^\|\s*`([A-Za-z0-9_]+)/`\s*\|\s*(\d+)\s*\|")
SOURCE_SUFFIXES = (".h", ".cc")


class Layers:
    """The parsed src/LAYERS: ranks, allowed same-rank pairs, public-only folders, clients."""

    def __init__(self):
        self.groups = []          # one list of folders per rank, bottom to top
        self.rank = {}            # folder -> rank
        self.allowed = set()      # (from folder, to folder) of one rank
        self.public_only = set()  # folders that include only the public headers
        self.clients = {}         # directory -> (highest rank it may include, that folder)

    def order(self):
        return " -> ".join(", ".join(group) for group in self.groups)


def read_layers(root):
    """Parses root/src/LAYERS; returns (Layers, list of violation strings)."""
    layers = Layers()
    errors = []
    path = os.path.join(root, LAYERS_FILE)
    if not os.path.exists(path):
        return layers, [f"{LAYERS_FILE}:1: missing; it lists the module layers"]
    deferred = []  # lines that name folders, checked once every `layer` line is read
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            where = f"{LAYERS_FILE}:{number}:"
            kind, args = words[0], words[1:]
            if kind == "layer":
                if not args:
                    errors.append(f"{where} a layer line names no folder")
                for folder in args:
                    if folder in layers.rank:
                        errors.append(f"{where} {folder} is already on a layer line")
                    else:
                        layers.rank[folder] = len(layers.groups)
                layers.groups.append(args)
            elif kind in ("allow", "public-only", "client"):
                deferred.append((where, kind, args))
            else:
                errors.append(f"{where} unknown line kind {kind!r} (layer, allow, public-only, "
                              "client)")
    for where, kind, args in deferred:
        if kind == "allow":
            if len(args) != 2:
                errors.append(f"{where} allow takes two folders: allow <from> <to>")
            elif any(a not in layers.rank for a in args):
                errors.append(f"{where} allow names a folder on no layer line: {' '.join(args)}")
            elif layers.rank[args[0]] != layers.rank[args[1]] or args[0] == args[1]:
                errors.append(f"{where} allow is for two folders of one rank; {args[0]} and "
                              f"{args[1]} are not")
            else:
                layers.allowed.add((args[0], args[1]))
        elif kind == "public-only":
            if len(args) != 1 or args[0] not in layers.rank:
                errors.append(f"{where} public-only takes one folder of a layer line")
            else:
                layers.public_only.add(args[0])
        else:  # client
            if len(args) != 2 or args[1] not in layers.rank:
                errors.append(f"{where} client takes a directory and a folder of a layer line")
            else:
                layers.clients[args[0]] = (layers.rank[args[1]], args[1])
    return layers, errors


def includes(path):
    """Yields (line number, delimiter, included path) for each #include in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if m:
                yield number, m.group(1), m.group(2).strip()


def source_files(top):
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def is_test_helper(root, target):
    """True when an include names a test-only helper: found under test/, not under src/."""
    return target.startswith("testutil/") or (
        os.path.exists(os.path.join(root, "test", target)) and
        not os.path.exists(os.path.join(root, "src", target)))


def is_rocksdb_c_header(root, target):
    """True for the public header of RocksDB's C API (include/shale-rocksdb/rocksdb/...), which
    src/rocksdb_capi implements: public like "shale/..."."""
    return target.startswith("rocksdb/") and os.path.exists(
        os.path.join(root, "include", "shale-rocksdb", target))


def check_src(root, layers):
    """Rules 1, 2 and 4 over root/src; returns a list of violation strings."""
    src = os.path.join(root, "src")
    order = layers.order()
    errors = []
    unranked = set()
    for path in source_files(src):
        rel = os.path.relpath(path, root)
        parts = os.path.relpath(path, src).split(os.sep)
        if len(parts) < 2:
            continue  # a file directly in src/ belongs to no layer
        folder = parts[0]
        if folder not in layers.rank:
            if folder not in unranked:  # once per folder
                unranked.add(folder)
                errors.append(f"{rel}:1: src/{folder}/ is not in the layer order; add it to a "
                              f"layer line of {LAYERS_FILE} (order: {order})")
            continue
        for number, delim, target in includes(path):
            if delim != '"' or "/" not in target:
                continue
            where = f'{rel}:{number}: #include "{target}":'
            top = target.split("/", 1)[0]
            if is_test_helper(root, target):
                errors.append(f"{where} src/ may not include a test-only helper")
            elif top == "shale" or top == folder or is_rocksdb_c_header(root, target):
                continue
            elif folder in layers.public_only:
                errors.append(f"{where} src/{folder}/ includes only the public headers "
                              f'("shale/...") and its own folder ({LAYERS_FILE}: public-only)')
            elif top not in layers.rank:
                continue
            elif layers.rank[top] > layers.rank[folder]:
                errors.append(f"{where} src/{folder}/ may not include src/{top}/, which is above "
                              f"it in the layer order ({order})")
            elif layers.rank[top] == layers.rank[folder] and (folder, top) not in layers.allowed:
                errors.append(f"{where} src/{folder}/ may not include src/{top}/, a folder of the "
                              f"same rank, unless {LAYERS_FILE} has `allow {folder} {top}`")
    return errors


def check_clients(root, layers):
    """Rule 5 over each client directory; returns a list of violation strings."""
    errors = []
    for client, (limit, limit_folder) in sorted(layers.clients.items()):
        for path in source_files(os.path.join(root, client)):
            rel = os.path.relpath(path, root)
            for number, delim, target in includes(path):
                if delim != '"' or "/" not in target:
                    continue
                where = f'{rel}:{number}: #include "{target}":'
                top = target.split("/", 1)[0]
                if is_test_helper(root, target):
                    errors.append(f"{where} {client}/ may not include a test-only helper")
                elif top in layers.rank and layers.rank[top] > limit:
                    errors.append(f"{where} {client}/ may include src/ folders up to "
                                  f"{limit_folder}/'s rank only; src/{top}/ is above it (use the "
                                  f"public API; {LAYERS_FILE}: client {client} {limit_folder})")
    return errors


def check_public(root):
    """Rule 3 over root/include/shale and root/include/shale-rocksdb (RocksDB's C API, which
    includes nothing but the standard library); returns a list of violation strings."""
    errors = []
    paths = [*source_files(os.path.join(root, "include", "shale")),
             *source_files(os.path.join(root, "include", "shale-rocksdb"))]
    for path in paths:
        rel = os.path.relpath(path, root)
        for number, delim, target in includes(path):
            if target.startswith("shale/") or (delim == "<" and target in STD_HEADERS):
                continue
            shown = f"<{target}>" if delim == "<" else f'"{target}"'
            errors.append(f"{rel}:{number}: #include {shown}: public headers may include only the "
                          f'standard library and "shale/..."')
    return errors


def check_doc(root, layers):
    """Rule 6: doc/architecture.md's module table against src/LAYERS."""
    path = os.path.join(root, DOC_FILE)
    if not os.path.exists(path):
        return [f"{DOC_FILE}:1: missing; it describes every folder of {LAYERS_FILE}"]
    errors = []
    seen = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = DOC_ROW_RE.match(line)
            if not m:
                continue
            folder, rank = m.group(1), int(m.group(2))
            seen[folder] = number
            if folder not in layers.rank:
                errors.append(f"{DOC_FILE}:{number}: src/{folder}/ is on no layer line of "
                              f"{LAYERS_FILE}")
            elif rank != layers.rank[folder]:
                errors.append(f"{DOC_FILE}:{number}: src/{folder}/ has rank "
                              f"{layers.rank[folder]} in {LAYERS_FILE}, not {rank}")
    for folder in layers.rank:
        if folder not in seen:
            errors.append(f"{DOC_FILE}:1: the module table has no row for src/{folder}/ "
                          f"(\"| `{folder}/` | {layers.rank[folder]} | ...\")")
    return errors


def check(root):
    layers, errors = read_layers(root)
    if errors:
        return errors
    return (check_src(root, layers) + check_public(root) + check_clients(root, layers) +
            check_doc(root, layers))


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


SELF_TEST_LAYERS = """# a small layer list
layer util
layer base
layer fs compression   # two folders of one rank
layer table cache
layer db options
layer capi
allow cache table
public-only capi
client tools table
client bench table
"""

SELF_TEST_DOC = "".join(f"| `{folder}/` | {rank} | what it owns | what it includes |\n"
                        for rank, group in enumerate(["util", "base", "fs compression",
                                                      "table cache", "db options", "capi"])
                        for folder in group.split())


def expect_violations(failures, what, found, expected):
    """expected: {"file:line:" prefix: count}; each must match exactly, and nothing else."""
    for where, count in expected.items():
        hits = [e for e in found if e.startswith(where)]
        if len(hits) != count:
            failures.append(f"{what}: expected {count} violation(s) at {where}, got {hits}")
    if len(found) != sum(expected.values()):
        failures.append(f"{what}: expected {sum(expected.values())} violations, got "
                        f"{len(found)}:\n  " + "\n  ".join(found))


def self_test():
    """Builds small trees with known violations and checks that exactly those are reported."""
    failures = []
    with tempfile.TemporaryDirectory() as root:
        write(root, LAYERS_FILE, SELF_TEST_LAYERS)
        write(root, DOC_FILE, "# Architecture\n\n| folder | rank | owns | includes |\n|---|---|---|"
              "---|\n" + SELF_TEST_DOC)
        # Test-only helpers, which nothing outside test/ may include.
        write(root, "test/testutil/status_matchers.h", "// a test helper\n")
        write(root, "test/db/iterator_walk.h", "// a test helper beside the db tests\n")
        # Allowed: own folder, lower folders, an allowed same-rank pair, public headers,
        # third-party headers; a public-only folder on public headers; clients within their
        # limit.
        write(root, "src/util/ok.h", '#include "util/coding.h"\n#include <string>\n')
        write(root, "src/db/ok.cc", '#include "db/x.h"\n#include "table/t.h"\n'
                                    '#include "util/coding.h"\n#include "shale/db.h"\n'
                                    '#include "absl/strings/str_cat.h"\n')
        write(root, "src/compression/ok.cc", '#include "base/key.h"\n')
        write(root, "src/cache/ok.cc", '  #  include "table/block.h"\n')
        write(root, "src/capi/ok.cc", '#include "capi/c_handles.h"\n#include "shale/c.h"\n'
                                      "#include <memory>\n")
        write(root, "include/shale/ok.h", '#include <cstdint>\n#include "shale/status.h"\n'
                                          "#include <stddef.h>\n")
        write(root, "tools/cli/ok.cc", '#include "shale/db.h"\n#include "table/t.h"\n'
                                       '#include "util/random.h"\n#include "absl/flags/flag.h"\n'
                                       '#include "local.h"\n')
        write(root, "bench/ok.cc", '#include "base/key.h"\n#include "benchmark/benchmark.h"\n')
        clean = check(root)
        if clean:
            failures.append("a clean tree was rejected:\n  " + "\n  ".join(clean))

        # Each bad file must produce one violation naming its file and line.
        bad = {
            "src/util/bad.h": ('#include <vector>\n#include "db/db_impl.h"\n', 2),  # upwards
            "src/base/bad.cc": ('#include "capi/c.cc"\n', 1),                   # upwards
            "src/fs/bad.cc": ('#include "compression/codec.h"\n', 1),           # same rank
            "src/table/bad.cc": ('#include "cache/lru_cache.h"\n', 1),          # pair's reverse
            "src/newfolder/x.h": ("// a folder with no rank\n", 1),
            "src/db/bad.cc": ('#include "testutil/status_matchers.h"\n', 1),    # test helper
            "src/capi/bad.cc": ('#include "shale/c.h"\n#include "db/db_impl.h"\n', 2),
            "src/capi/bad2.cc": ('#include "absl/strings/str_cat.h"\n', 1),     # public-only
            "include/shale/bad.h": ('#include "absl/strings/string_view.h"\n', 1),
            "include/shale/bad2.h": ("#include <zstd.h>\n", 1),
            "tools/cli/bad.cc": ('#include "db/db_impl.h"\n', 1),              # above the limit
            "tools/cli/bad2.cc": ('#include "db/iterator_walk.h"\n', 1),       # test helper
            "bench/bad.cc": ('#include "options/options_sanitize.h"\n', 1),
        }
        for rel, (text, _) in bad.items():
            write(root, rel, text)
        expect_violations(failures, "bad files", check(root),
                          {f"{rel}:{line}:": 1 for rel, (_, line) in bad.items()})

    # A module table that drifted from the layer list: a missing row, a wrong rank, a stray row.
    with tempfile.TemporaryDirectory() as root:
        write(root, LAYERS_FILE, SELF_TEST_LAYERS)
        drifted = SELF_TEST_DOC.replace("| `capi/` | 5 |", "| `capi/` | 4 |")
        drifted = drifted.replace("| `db/` | 4 | what it owns | what it includes |\n", "")
        write(root, DOC_FILE, "intro\n" + drifted + "| `gone/` | 2 | x | y |\n")
        lines = ("intro\n" + drifted).count("\n")
        expect_violations(failures, "drifted doc", check(root),
                          {f"{DOC_FILE}:{lines}:": 1, f"{DOC_FILE}:{lines + 1}:": 1,
                           f"{DOC_FILE}:1: the module table has no row for src/db/": 1})

    # A layer list with mistakes: each bad line is reported with its number.
    with tempfile.TemporaryDirectory() as root:
        write(root, LAYERS_FILE, SELF_TEST_LAYERS + "layer util\nallow fs table\nallow db\n"
              "public-only nowhere\nclient tools\nrank db 3\n")
        first = SELF_TEST_LAYERS.count("\n") + 1
        expect_violations(failures, "bad layer list", check(root),
                          {f"{LAYERS_FILE}:{first + i}:": 1 for i in range(6)})

    for f in failures:
        print(f"self-test FAILED: {f}", file=sys.stderr)
    if not failures:
        print("check_layering self-test passed")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root (default: the one holding this script)")
    parser.add_argument("--self-test", action="store_true",
                        help="check that the checker rejects known violations")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    errors = check(args.root)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layering violation(s)", file=sys.stderr)
        return 1
    print("layering OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

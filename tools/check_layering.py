#!/usr/bin/env python3
"""Checks ShaleDB's include layering (DESIGN.md section 3).

Rules:
  1. A file under src/<folder>/ may include "<other>/..." only when <other> is the same folder or
     a folder of the same or a lower rank in LAYERS below. Includes of "shale/..." (the public
     headers) are always allowed; includes whose first path part is not a src/ folder (abseil,
     zstd, system headers) are not this script's business.
  2. A header under include/shale/ may include only the standard library and "shale/...".
  3. Every folder under src/ that holds sources must have a rank here, so a new folder cannot
     slip past the check.

Usage: check_layering.py [--root DIR]   check the tree (default: the repository holding this file)
       check_layering.py --self-test    check that the checker rejects known-bad trees
Exit status 0 when clean, 1 with one "file:line: message" per violation otherwise.
"""

import argparse
import os
import re
import sys
import tempfile

# Bottom to top; folders in one tuple share a rank and may include each other.
LAYERS = (
    ("util",),
    ("base",),
    ("merge",),
    ("fs", "compression"),
    ("wal", "memtable", "table", "cache", "iterator"),
    ("version",),
    ("compaction",),
    ("db", "options", "stats", "bulk"),
    ("capi",),
)
RANK = {folder: rank for rank, group in enumerate(LAYERS) for folder in group}
LAYER_ORDER = " -> ".join(", ".join(group) for group in LAYERS)

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
SOURCE_SUFFIXES = (".h", ".cc")


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


def check_src(root):
    """Rule 1 and 3 over root/src; returns a list of violation strings."""
    src = os.path.join(root, "src")
    errors = []
    unranked = set()
    for path in source_files(src):
        rel = os.path.relpath(path, root)
        parts = os.path.relpath(path, src).split(os.sep)
        if len(parts) < 2:
            continue  # a file directly in src/ belongs to no layer
        folder = parts[0]
        if folder not in RANK:
            if folder not in unranked:  # once per folder
                unranked.add(folder)
                errors.append(f"{rel}:1: src/{folder}/ is not in the layer order; add it to "
                              f"LAYERS in tools/check_layering.py (order: {LAYER_ORDER})")
            continue
        for number, delim, target in includes(path):
            if delim != '"' or "/" not in target:
                continue
            top = target.split("/", 1)[0]
            if top == "shale" or top == folder or top not in RANK:
                continue
            if RANK[top] > RANK[folder]:
                errors.append(f'{rel}:{number}: #include "{target}": src/{folder}/ may not include '
                              f"src/{top}/, which is above it in the layer order ({LAYER_ORDER})")
    return errors


def check_public(root):
    """Rule 2 over root/include/shale; returns a list of violation strings."""
    errors = []
    for path in source_files(os.path.join(root, "include", "shale")):
        rel = os.path.relpath(path, root)
        for number, delim, target in includes(path):
            if target.startswith("shale/") or (delim == "<" and target in STD_HEADERS):
                continue
            shown = f"<{target}>" if delim == "<" else f'"{target}"'
            errors.append(f"{rel}:{number}: #include {shown}: public headers may include only the "
                          f'standard library and "shale/..."')
    return errors


def check(root):
    return check_src(root) + check_public(root)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test():
    """Builds small trees with known violations and checks that exactly those are reported."""
    failures = []
    with tempfile.TemporaryDirectory() as root:
        # Allowed: own folder, lower folders, same rank, public headers, third-party headers.
        write(root, "src/util/ok.h", '#include "util/coding.h"\n#include <string>\n')
        write(root, "src/db/ok.cc", '#include "db/x.h"\n#include "version/v.h"\n'
                                    '#include "util/coding.h"\n#include "shale/db.h"\n'
                                    '#include "absl/strings/str_cat.h"\n')
        write(root, "src/compression/ok.cc", '#include "fs/file.h"\n')
        write(root, "src/table/ok.cc", '  #  include "cache/cache.h"\n')
        write(root, "include/shale/ok.h", '#include <cstdint>\n#include "shale/status.h"\n'
                                          "#include <stddef.h>\n")
        clean = check(root)
        if clean:
            failures.append("a clean tree was rejected:\n  " + "\n  ".join(clean))

        # Each bad file must produce one violation naming its file and line.
        bad = {
            "src/util/bad.h": '#include <vector>\n#include "db/db_impl.h"\n',
            "src/fs/bad.cc": '#include "wal/log_writer.h"\n',
            "src/version/bad.cc": '#include "capi/c.cc"\n',
            "src/newfolder/x.h": "// a folder with no rank\n",
            "include/shale/bad.h": '#include "absl/strings/string_view.h"\n',
            "include/shale/bad2.h": "#include <zstd.h>\n",
        }
        expected_lines = {"src/util/bad.h": 2}
        for rel, text in bad.items():
            write(root, rel, text)
        found = check(root)
        for rel in bad:
            where = f"{rel}:{expected_lines.get(rel, 1)}:"
            hits = [e for e in found if e.startswith(where)]
            if len(hits) != 1:
                failures.append(f"expected one violation at {where}, got {hits}")
        if len(found) != len(bad):
            failures.append(f"expected {len(bad)} violations, got {len(found)}:\n  " +
                            "\n  ".join(found))
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

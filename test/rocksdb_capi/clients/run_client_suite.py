#!/usr/bin/env python3
"""Runs a RocksDB client's own, unmodified test suite against ShaleDB's librocksdb.so (issue 24).

  run_client_suite.py grocksdb  --lib-dir DIR --include-dir DIR --work-dir DIR
  run_client_suite.py rockstore --lib-dir DIR --work-dir DIR
  run_client_suite.py example   --lib-dir DIR --include-dir DIR --work-dir DIR

grocksdb: Go's RocksDB binding, v1.7.14 (pinned by grocksdb/go.mod and go.sum). Its test binary
is built with `go test -c` against our header (CGO_CFLAGS=-I<include-dir>) and our library
(CGO_LDFLAGS=-L<lib-dir> plus an rpath), checked to load our library and not a RocksDB of the
system, and then each of its tests runs in a process of its own (one crash cannot hide the rest).

rockstore: a Python package that loads librocksdb.so by name through cffi, version 0.2.0. Its
source distribution (with its tests) is downloaded into a fresh venv, and each of its tests runs
in a pytest process of its own with LD_LIBRARY_PATH=<lib-dir>.

example: bindings/examples/grocksdb (our program a user copies) is built the same way and run
once; it checks what it wrote itself.

Each suite has a list of the tests expected to fail (<suite>/expected_failures.txt: the test's
name, then the ShaleDB feature it needs). The run prints every test's result and
`N passed, N failed`, and exits 1 when a test fails that is not on the list or a test on the list
passes (the list is stale: take it off), 77 (ctest's skip code) when the suite's language or its
packages cannot be had on this machine, 0 otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
TEST_TIMEOUT_SECONDS = 300


def read_expected_failures(suite):
    """{test name: the feature it needs} from <suite>/expected_failures.txt ('#' comments; none
    for the example, which must pass)."""
    expected = {}
    if suite == "example":
        return expected
    with open(os.path.join(HERE, suite, "expected_failures.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, need = line.partition(" ")
                expected[name] = need.strip()
    return expected


def run(argv, **kwargs):
    """subprocess.run with text output captured (stdout and stderr together)."""
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          **kwargs)


def check_links_ours(binary, lib_dir, env):
    """Exits 1 unless `binary` resolves librocksdb.so to lib_dir (not a RocksDB of the system)."""
    out = run(["ldd", binary], env=env).stdout
    m = re.search(r"librocksdb\.so\S*\s+=>\s+(\S+)", out)
    if not m or os.path.dirname(os.path.realpath(m.group(1))) != os.path.realpath(lib_dir):
        print(f"FAILED: {binary} does not load {lib_dir}/librocksdb.so:\n{out}")
        sys.exit(1)


def go_environment(args):
    """The environment that builds a cgo program against our header and library."""
    lib_dir = os.path.realpath(args.lib_dir)
    return dict(os.environ, CGO_ENABLED="1", GOTOOLCHAIN="local", GOFLAGS="-mod=mod",
                CGO_CFLAGS=f"-I{os.path.realpath(args.include_dir)}",
                CGO_LDFLAGS=f"-L{lib_dir} -Wl,-rpath,{lib_dir}")


def go_or_skip():
    """The go command; exits with the skip code when Go is missing."""
    go = shutil.which("go")
    if go is None:
        print("SKIPPED: Go is not installed (the grocksdb suites need it)")
        sys.exit(SKIP)
    return go


def fail_or_skip_build(what, built):
    """Exits: 77 when the Go module proxy is unreachable, 1 otherwise."""
    if re.search(r"dial tcp|no such host|connection refused|i/o timeout", built.stdout):
        print("SKIPPED: the Go module proxy cannot be reached:\n" + built.stdout[-2000:])
        sys.exit(SKIP)
    print(f"FAILED: {what}:\n" + built.stdout[-8000:])
    sys.exit(1)


def example_tests(args, work):
    """Builds bindings/examples/grocksdb; returns ([its name], runner)."""
    go = go_or_skip()
    source = os.path.join(HERE, "..", "..", "..", "bindings", "examples", "grocksdb")
    module = os.path.join(work, "module")
    shutil.rmtree(module, ignore_errors=True)
    shutil.copytree(source, module)
    env = go_environment(args)
    binary = os.path.join(work, "grocksdb-example")
    built = run([go, "build", "-o", binary, "."], cwd=module, env=env)
    if built.returncode != 0:
        fail_or_skip_build("go build bindings/examples/grocksdb", built)
    check_links_ours(binary, os.path.realpath(args.lib_dir), env)

    def run_one(name, scratch):
        return run([binary, os.path.join(scratch, "example")], cwd=scratch, env=env,
                   timeout=TEST_TIMEOUT_SECONDS)
    return ["bindings/examples/grocksdb"], run_one


def grocksdb_tests(args, work):
    """Builds grocksdb's test binary; returns (list of test names, runner of one test)."""
    go = go_or_skip()
    module = os.path.join(work, "module")
    shutil.rmtree(module, ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "grocksdb"), module,
                    ignore=shutil.ignore_patterns("expected_failures.txt"))
    lib_dir = os.path.realpath(args.lib_dir)
    env = go_environment(args)
    binary = os.path.join(work, "grocksdb.test")
    print(f"building grocksdb v1.7.14's tests against {lib_dir}/librocksdb.so", flush=True)
    built = run([go, "test", "-c", "-o", binary, "github.com/linxGnu/grocksdb"], cwd=module,
                env=env)
    if built.returncode != 0:
        fail_or_skip_build("go test -c github.com/linxGnu/grocksdb", built)
    check_links_ours(binary, lib_dir, env)
    listed = run([binary, "-test.list", "."], env=env)
    names = [n for n in listed.stdout.split() if n.startswith(("Test", "Example"))]

    def run_one(name, scratch):
        return run([binary, "-test.run", f"^{name}$", "-test.count=1", "-test.v"], cwd=scratch,
                   env=dict(env, TMPDIR=scratch), timeout=TEST_TIMEOUT_SECONDS)
    return names, run_one


def rockstore_tests(args, work):
    """Installs rockstore 0.2.0 and its test tools in a venv; returns (test ids, runner)."""
    venv = os.path.join(work, "venv")
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        made = run([sys.executable, "-m", "venv", venv])
        if made.returncode != 0:
            print("SKIPPED: python3 -m venv failed (python3-venv missing?):\n" + made.stdout)
            sys.exit(SKIP)
    python = os.path.join(venv, "bin", "python")
    pip = [python, "-m", "pip", "-q", "--disable-pip-version-check"]
    sdist_dir = os.path.join(work, "sdist")
    shutil.rmtree(sdist_dir, ignore_errors=True)
    for step in (pip + ["install", "cffi", "pytest"],
                 pip + ["download", "--no-deps", "--no-binary", ":all:", "-d", sdist_dir,
                        "rockstore==0.2.0"]):
        done = run(step)
        if done.returncode != 0:
            print("SKIPPED: PyPI cannot be reached:\n" + done.stdout[-2000:])
            sys.exit(SKIP)
    archive = os.path.join(sdist_dir, "rockstore-0.2.0.tar.gz")
    shutil.unpack_archive(archive, sdist_dir)
    source = os.path.join(sdist_dir, "rockstore-0.2.0")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.realpath(args.lib_dir))
    env.pop("PYTHONPATH", None)
    # The package finds the library as `librocksdb.so`, first in <its project>/lib and libs: make
    # sure neither exists, so what it loads is the one LD_LIBRARY_PATH names.
    for sub in ("lib", "libs"):
        if os.path.exists(os.path.join(source, sub)):
            print(f"FAILED: {source}/{sub} exists; rockstore would load a library from it")
            sys.exit(1)
    collected = run([python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                     "tests"], cwd=source, env=env)
    names = [line.strip() for line in collected.stdout.splitlines() if "::" in line]
    probe = run([python, "-c", "import ctypes; ctypes.CDLL('librocksdb.so'); "
                 "print(open('/proc/self/maps').read())"], env=env)
    if os.path.realpath(args.lib_dir) not in probe.stdout:
        print("FAILED: librocksdb.so does not resolve to " + args.lib_dir)
        sys.exit(1)

    def run_one(name, scratch):
        return run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", name], cwd=source,
                   env=dict(env, TMPDIR=scratch), timeout=TEST_TIMEOUT_SECONDS)
    return names, run_one


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", choices=("grocksdb", "rockstore", "example"))
    p.add_argument("--lib-dir", required=True, help="folder of ShaleDB's librocksdb.so")
    p.add_argument("--include-dir", help="folder holding rocksdb/c.h (grocksdb)")
    p.add_argument("--work-dir", required=True, help="scratch folder (kept between runs)")
    p.add_argument("--filter", help="run only the tests whose name contains this")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.lib_dir, "librocksdb.so")):
        print(f"FAILED: no librocksdb.so in {args.lib_dir}")
        return 1
    os.makedirs(args.work_dir, exist_ok=True)
    expected = read_expected_failures(args.suite)
    suites = {"grocksdb": grocksdb_tests, "rockstore": rockstore_tests,
              "example": example_tests}
    names, run_one = suites[args.suite](args, args.work_dir)
    if not names:
        print("FAILED: the suite lists no tests")
        return 1
    if args.filter:
        names = [n for n in names if args.filter in n]
    unknown = sorted(set(expected) - set(names)) if not args.filter else []
    passed, failed, surprises = [], [], []
    for name in names:
        scratch = tempfile.mkdtemp(prefix="client-test-", dir=args.work_dir)
        try:
            result = run_one(name, scratch)
            ok, output = result.returncode == 0, result.stdout
        except subprocess.TimeoutExpired as e:
            ok, output = False, f"timed out after {TEST_TIMEOUT_SECONDS} s\n{e.output or ''}"
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        (passed if ok else failed).append(name)
        if ok and name in expected:
            surprises.append(name)
            print(f"PASS (listed as failing: take it off expected_failures.txt) {name}")
        elif ok:
            print(f"PASS {name}")
        elif name in expected:
            print(f"FAIL (expected: needs {expected[name]}) {name}")
        else:
            surprises.append(name)
            print(f"FAIL {name}\n" + "\n".join("    " + line for line in
                                               output.strip().splitlines()[-40:]))
    print(f"{args.suite}: {len(passed)} passed, {len(failed)} failed "
          f"({len([n for n in failed if n in expected])} of them expected)")
    for name in unknown:
        print(f"expected_failures.txt names a test the suite does not have: {name}")
    return 1 if surprises or unknown else 0


if __name__ == "__main__":
    sys.exit(main())

"""Finding libshale.so, and loading it with dlopen into a process without jemalloc."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import shale
from shale import _library


def test_env_var_naming_a_missing_file_is_an_error_naming_all_three(tmp_path):
    env = {"SHALE_LIBRARY": str(tmp_path / "nope.so")}
    with pytest.raises(shale.LibraryNotFoundError) as e:
        _library.find_library_path(env, tmp_path / "in-tree.so", tmp_path / "packaged.so")
    assert "SHALE_LIBRARY" in str(e.value)
    assert str(tmp_path / "nope.so") in str(e.value)
    assert str(tmp_path / "in-tree.so") in str(e.value)
    assert str(tmp_path / "packaged.so") in str(e.value)


def test_no_env_var_no_packaged_library_and_no_in_tree_build_is_an_error_naming_them(tmp_path):
    with pytest.raises(shale.LibraryNotFoundError) as e:
        _library.find_library_path({}, tmp_path / "in-tree.so", tmp_path / "packaged.so")
    assert "SHALE_LIBRARY" in str(e.value)
    assert str(tmp_path / "in-tree.so") in str(e.value)
    assert str(tmp_path / "packaged.so") in str(e.value)


def test_env_var_wins_then_the_packaged_library_then_the_in_tree_build(tmp_path):
    lib = tmp_path / "libshale.so"
    lib.write_bytes(b"")
    packaged = tmp_path / "packaged.so"
    in_tree = tmp_path / "in-tree.so"
    in_tree.write_bytes(b"")
    assert _library.find_library_path({}, in_tree, packaged) == str(in_tree)
    packaged.write_bytes(b"")
    assert _library.find_library_path({}, in_tree, packaged) == str(packaged)
    assert (_library.find_library_path({"SHALE_LIBRARY": str(lib)}, in_tree, packaged)
            == str(lib))


def test_the_packaged_path_is_beside_the_package_and_the_in_tree_path_is_build_release_src():
    assert _library.PACKAGED_PATH == pathlib.Path(shale.__file__).resolve().parent / "libshale.so"
    parts = _library.IN_TREE_PATH.parts
    assert parts[-4:] == ("build", "release", "src", "libshale.so")


@pytest.mark.skipif(os.environ.get("SHALE_EXPECT_INSTALLED") != "1",
                    reason="only when testing an installed package (tools/dev.sh test does)")
def test_an_installed_package_loads_its_own_library_without_any_variable():
    """What `pip install ./bindings/python` promises: the package in site-packages carries
    libshale.so and uses it with SHALE_LIBRARY unset."""
    assert "site-packages" in shale.__file__
    assert "SHALE_LIBRARY" not in os.environ
    assert _library.library_path() == str(_library.PACKAGED_PATH)
    assert _library.PACKAGED_PATH.is_file()


def test_the_package_declares_its_type_hints():
    """PEP 561: shale/py.typed marks the package as typed, in the tree and in an installed
    package (the wheel carries it: tools/dev.sh test runs this against the installed one)."""
    assert (pathlib.Path(shale.__file__).parent / "py.typed").is_file()


def test_the_package_type_checks_under_mypy_strict(tmp_path, monkeypatch):
    """The type hints hold: mypy --strict on the package as Python finds it. For an installed
    package mypy reads it from site-packages, which it does only when py.typed is there. Needs
    mypy (the package's `test` extra installs it); skipped without it."""
    api = pytest.importorskip("mypy.api")
    package_dir = pathlib.Path(shale.__file__).resolve().parent
    if "site-packages" not in package_dir.parts:
        monkeypatch.setenv("MYPYPATH", str(package_dir.parent))  # the tree
    monkeypatch.chdir(tmp_path)
    stdout, stderr, status = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"),
                                      "--python-executable", sys.executable, "-p", "shale"])
    assert status == 0, stdout + stderr


def _run_python(code, env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=60)


def _clean_env(**extra):
    """An environment with nothing that could preload an allocator."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra)
    return env


def test_opening_a_db_without_the_library_fails_clearly(tmp_path):
    code = """
        import sys, shale
        try:
            shale.DB(%r, create_if_missing=True)
        except shale.LibraryNotFoundError as e:
            print(e)
            sys.exit(3)
    """ % str(tmp_path / "db")
    result = _run_python(code, _clean_env(PYTHONPATH=os.path.dirname(shale.__path__[0]),
                                          SHALE_LIBRARY=str(tmp_path / "missing.so")))
    assert result.returncode == 3, result.stderr
    assert "SHALE_LIBRARY" in result.stdout and "missing.so" in result.stdout


def test_dlopen_into_a_plain_python_uses_the_malloc_fallback(tmp_path):
    """The dlopen trap (issue 5): Debian's libjemalloc cannot be dlopen'ed, so libshale must
    load into a process without it and report the fallback allocator."""
    code = """
        import ctypes, sys
        lib = ctypes.CDLL(sys.argv[1])
        lib.shale_options_create.restype = ctypes.c_void_p
        lib.shale_open.restype = ctypes.c_void_p
        lib.shale_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        lib.shale_options_set_create_if_missing.argtypes = [ctypes.c_void_p, ctypes.c_ubyte]
        lib.shale_options_destroy.argtypes = [ctypes.c_void_p]
        lib.shale_property_value.restype = ctypes.c_void_p
        lib.shale_property_value.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.shale_free.argtypes = [ctypes.c_void_p]
        lib.shale_close.argtypes = [ctypes.c_void_p]
        opts = lib.shale_options_create()
        lib.shale_options_set_create_if_missing(opts, 1)
        err = ctypes.c_void_p()
        db = lib.shale_open(opts, sys.argv[2].encode(), ctypes.byref(err))
        lib.shale_options_destroy(opts)
        assert db and not err.value, ctypes.string_at(err.value)
        ptr = lib.shale_property_value(db, b"shale.memtable-allocator")
        print(ctypes.string_at(ptr).decode())
        lib.shale_free(ptr)
        lib.shale_close(db)
        print("jemalloc mapped:", "jemalloc" in open("/proc/self/maps").read())
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), _library.find_library_path(),
         str(tmp_path / "db")], env=_clean_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "malloc" in result.stdout
    assert "jemalloc-arena" not in result.stdout
    assert "jemalloc mapped: False" in result.stdout

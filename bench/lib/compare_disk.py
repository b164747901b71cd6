"""The sequential write bandwidth of the disk under bench/compare's work directory, with dd.

measure() writes `mib` MiB of zeros in 1 MiB blocks to <dir>/dd.tmp with O_DIRECT (the device's
own rate, past the page cache), or, where the file system refuses O_DIRECT, through the page
cache with one fdatasync at the end (conv=fdatasync, counted in dd's time); then removes the
file. The figure is MiB/s, the unit of the tools' "MB/s" (bytes / 1048576 / seconds), so user
data rates and this bandwidth compare directly.

Not thread-safe; run it while nothing else writes to the disk (bench/compare runs it before the
first step).
"""

import os
import subprocess

import compare_parse

DD_FILE = "dd.tmp"
_MODES = (("oflag=direct", "O_DIRECT"), ("conv=fdatasync", "page cache + fdatasync"))


def measure(work_dir, mib, timeout=600):
    """{"mb_per_sec", "bytes", "seconds", "mode", "command"} of one dd run, or
    {"error": message} when neither mode worked."""
    path = os.path.join(work_dir, DD_FILE)
    error = "dd did not run"
    env = dict(os.environ, LC_ALL="C")
    for flag, mode in _MODES:
        argv = ["dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={mib}", flag]
        os.sync()
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        except (OSError, subprocess.TimeoutExpired) as e:
            error = f"{' '.join(argv)}: {e}"
            continue
        finally:
            _remove(path)
        parsed = compare_parse.parse_dd(p.stderr)
        if p.returncode == 0 and parsed is not None and parsed["seconds"] > 0:
            return {"mb_per_sec": parsed["bytes"] / 1048576.0 / parsed["seconds"],
                    "bytes": parsed["bytes"], "seconds": parsed["seconds"], "mode": mode,
                    "command": " ".join(argv)}
        error = f"{' '.join(argv)}: exit {p.returncode}: " + \
            compare_parse.failure_message(p.stderr)
    return {"error": error}


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass

"""What a comparison was run on: the commit, the machine, the engines; and the report's header.

commit() and describe() read git and /proc; the formatting functions are pure.
"""

import os
import shutil
import subprocess

import compare_report


def commit(repo):
    """`git rev-parse --short HEAD`, marked when tracked files have uncommitted changes."""
    def git(*args):
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else None
    head = git("rev-parse", "--short", "HEAD")
    if head is None:
        return "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" (+ uncommitted changes)" if dirty else "")


def _first_match(path, prefix):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def load_average():
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _mount_device(path):
    """The device of the mount holding `path` (longest matching mount point)."""
    best, device = "", None
    try:
        with open("/proc/mounts", encoding="utf-8") as f:
            for line in f:
                dev, mnt = line.split()[:2]
                if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
                    best, device = mnt, dev
    except OSError:
        pass
    return device


def describe(work_dir):
    """nproc, CPU model, RAM, disk free on work_dir, and the load average now."""
    mem_kib = _first_match("/proc/meminfo", "MemTotal:")
    usage = shutil.disk_usage(work_dir)
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": _first_match("/proc/cpuinfo", "model name") or "unknown CPU",
        "ram_bytes": int(mem_kib.split()[0]) * 1024 if mem_kib else None,
        "disk_dir": work_dir,
        "disk_device": _mount_device(work_dir),
        "disk_free_bytes": usage.free,
        "disk_total_bytes": usage.total,
        "kernel": os.uname().release,
        "load_before": load_average(),
    }


def tool_version(binary):
    """The version `binary --version` prints ("db_bench version 11.8.1" -> "11.8.1"), or None
    when it prints none (or cannot run)."""
    try:
        p = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = (p.stdout + p.stderr).split()
    if p.returncode != 0 or "version" not in words:
        return None
    i = words.index("version")
    return words[i + 1] if i + 1 < len(words) else None


def engine_info(engines, runs):
    """Per engine: binary, version (the engine's own, e.g. from db_bench --version, else from
    its runs' banners) and how it was built."""
    info = []
    for e in engines:
        version = e.version or next((r.get("version") for r in runs
                                     if r["engine"] == e.name and r.get("version")), None)
        info.append({"name": e.name, "binary": e.binary, "version": version or "unknown",
                     "build": e.build or e.key})
    return info


def step_json(step):
    return {"name": step.name, "kind": step.kind, "benchmarks": list(step.benchmarks),
            "rocksdb_benchmarks": list(step.benchmarks_for("rocksdb")), "flags": step.flags,
            "engine_flags": step.engine_flags, "rocksdb_tool": step.rocksdb_tool or None,
            "use_existing_db": step.existing, "until_compacted": step.until_compacted,
            "shaledb_only": step.shaledb_only}


def _gib(n):
    return "?" if n is None else f"{n / (1 << 30):.1f} GiB"


def _load(v):
    return "?" if v is None else f"{v:.2f}"


def header_lines(context, info, flags):
    """The lines printed above the table (also the Markdown header's content)."""
    m = context["machine"]
    rounds = context["repeat"]
    engines = " vs ".join(f"{e['name']} {e['version']} ({e['binary']}, {e['build']})"
                          for e in info)
    return [
        f"Suite: {context['suite']} ({context['num']:,} keys, {rounds} round"
        f"{'s' if rounds > 1 else ''}); commit {context['commit']}; {context['date']}",
        f"Machine: {m['nproc']} CPUs ({m['cpu']}), {_gib(m['ram_bytes'])} RAM, "
        f"{_gib(m['disk_free_bytes'])} free of {_gib(m['disk_total_bytes'])} on {m['disk_dir']} "
        f"({m['disk_device'] or '?'}); load average {_load(m['load_before'])} before, "
        f"{_load(m.get('load_after'))} after",
        f"Engines: {engines}",
        "Flags (both engines): " + " ".join(f"--{k}={v}" for k, v in flags.items()),
    ]


def markdown(context, info, flags, rows, notes, have_rocksdb, compaction_rows=(), extra=()):
    """A section for bench/RESULTS.md: header bullets, the table (and the compaction table when
    there are compaction rows, then each block of `extra`: Markdown text), numbered notes."""
    lines = [f"### `{context['suite']}` suite: commit {context['commit']}, {context['date']}", ""]
    lines.extend(f"- {h}" for h in header_lines(context, info, flags)[1:])
    lines.append(f"- Command: `{context['command']}`")
    lines.append("")
    lines.append(compare_report.format_markdown_table(rows, have_rocksdb))
    lines.append("")
    if compaction_rows:
        lines.append(compare_report.format_compaction_markdown(compaction_rows, have_rocksdb))
        lines.append("")
    for block in extra:
        lines.append(block)
        lines.append("")
    lines.extend(f"{i}. {n}" for i, n in enumerate(notes, 1))
    return "\n".join(lines) + "\n"

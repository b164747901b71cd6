#!/usr/bin/env python3
"""Crash-test driver for ShaleDB: runs tools/shale_stress in crash loops.

Modes:
  kill        (default) each cycle starts shale_stress on the same DB and expected state,
              kills it with SIGKILL at a random time in --kill_after MIN..MAX seconds, then
              runs `shale_stress --verify_only`, which reopens the DB and checks every key
              against the expected state (see tools/shale_stress/expected_state.h).
  power_loss  each cycle runs `shale_stress --power_loss` for a random duration in
              --kill_after: the tool runs the DB on the fault-injecting file system, cuts the
              power at a random time, drops unsynced data and verifies with the power-loss
              rules (tools/shale_stress/durability.h).
  whitebox    kills at chosen points inside the engine (RocksDB's kill_random_test): each
              cycle arms one kill point, or a group of them ("manifest.*"), with odds 1 in N
              through the environment variable SHALE_KILL_POINTS (src/util/kill_point.h, whose
              kKillPoints list this driver reads), runs shale_stress until the point kills it
              (SIGKILL, after the line "kill point <name> hit") or, failing that, until a kill
              -9 at a random time in --kill_after, then verifies as kill mode does. N is how
              often the point is reached (estimated from the earlier cycles) in a time drawn up
              to --kill_after's MAX, or 1 in 15% of the cycles, so kills land from the first
              reach to late in the run. Points are armed evenly (least armed first); a quarter
              of the cycles arm a group. --kill_point narrows the choice. The summary counts
              the cycles each point was armed in and killed at.

Options are fixed per DB (saved next to the expected state by shale_stress); every
--reseed_every cycles the DB and its expected state are wiped and a new options seed drawn,
so one run covers several option sets. The workload seed changes every cycle.
Column families: the option sets take turns, from a random start, through the shapes of
FAMILY_SHAPES -- one family; --column_families=3; --column_families=3 --atomic_flush -- so any
two consecutive sets include one with families (shale_stress checks that a batch across
families is all or nothing after every crash, and flushes families one at a time).
--column_families N [--atomic_flush] fixes the shape of every set instead.

Stops at the first failure: prints the cycle, the command and the end of its logs, exit 1.
Exit 0 when every cycle verified; 2 on a usage error. Prints a summary: cycles, kills,
verified keys, failures, per option set.

  test/crash/crash_test.py --stress build/release/tools/shale_stress/shale_stress \
      --db /tmp/crashdb --cycles 200 --kill_after 5..15
  test/crash/crash_test.py --stress build/release/tools/shale_stress/shale_stress \
      --db /tmp/wb --mode whitebox --cycles 60 --kill_after 3..6 --reseed_every 10
  (reproduce one window: add --kill_point flush.table_synced:1)
"""

import argparse
import collections
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

KILL_POINT_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "..", "..", "src", "util", "kill_point.h")
KILL_POINT_ENV = "SHALE_KILL_POINTS"
KILL_POINT_LINE = re.compile(r"kill point (\S+) hit")
# About how many times a second shale_stress reaches a point (the low end of what a few
# option sets showed), by name prefix, first match: the first guess, which the cycles then
# correct (Driver.point_rate); the rates vary tenfold and more with the options.
# A cycle arms odds of about rate * t for a t drawn in (0, MAX of --kill_after), so that the
# kills spread over the run. manifest.new_synced is reached once per Open (and when a
# MANIFEST rolls over).
KILL_POINT_RATES = [("wal.switch", 60), ("wal.", 20000), ("flush.", 100), ("compaction.", 30),
                    ("manifest.new_synced", 1), ("manifest.", 150), ("ingest.", 30)]
KILL_POINT_DEFAULT_RATE = 30
# The share of cycles armed with odds 1: death at the first time the point is reached (often
# while the process opens the DB and recovers).
KILL_POINT_FIRST_SHARE = 0.15
# Groups a cycle may arm whole (their points are reached about equally often).
KILL_POINT_GROUPS = ["flush.*", "compaction.*", "manifest.*", "ingest.*"]
# The column-family shapes the option sets take turns through: shale_stress flags.
FAMILY_SHAPES = [[], ["--column_families=3"], ["--column_families=3", "--atomic_flush"]]


def parse_range(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*\.\.\s*([0-9.]+)\s*", text)
    if not m or float(m.group(1)) > float(m.group(2)):
        raise argparse.ArgumentTypeError("want MIN..MAX seconds, e.g. 5..15, got %r" % text)
    return float(m.group(1)), float(m.group(2))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--stress", required=True, help="the shale_stress binary")
    p.add_argument("--db", required=True, help="DB directory (wiped at the start)")
    p.add_argument("--cycles", type=int, default=20)
    p.add_argument("--kill_after", type=parse_range, default=(5.0, 8.0),
                   help="MIN..MAX seconds: when to kill (kill) or how long to run (power_loss)")
    p.add_argument("--mode", choices=["kill", "power_loss", "whitebox"], default="kill")
    p.add_argument("--seed", type=int, default=None, help="driver seed (default: from time)")
    p.add_argument("--reseed_every", type=int, default=10,
                   help="wipe the DB and draw new options every N cycles")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--max_key", type=int, default=10000)
    p.add_argument("--log_dir", default=None, help="per-cycle logs (default: <db>.logs)")
    p.add_argument("--stress_arg", action="append", default=[],
                   help="extra flag passed to shale_stress (repeatable)")
    p.add_argument("--column_families", type=int, default=None,
                   help="use N families in every option set (default: the sets take turns "
                        "through 1, 3, and 3 with atomic_flush)")
    p.add_argument("--atomic_flush", action="store_true",
                   help="with --column_families: atomic_flush in every option set")
    p.add_argument("--kill_point", action="append", default=[],
                   help="whitebox: arm only PATTERN[:N] (a point, or a prefix ending in *; "
                        "repeatable: each cycle picks one; default odds drawn per cycle)")
    try:
        args = p.parse_args()
    except SystemExit as e:
        sys.exit(EXIT_USAGE if e.code else EXIT_OK)
    if (args.cycles < 1 or args.reseed_every < 1 or
            (args.column_families is not None and args.column_families < 1) or
            (args.atomic_flush and args.column_families is None)):
        p.print_usage()
        sys.exit(EXIT_USAGE)
    return args


class Driver:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed if args.seed is not None else int(time.time() * 1000) % (1 << 31)
        self.rng = random.Random(self.seed)
        self.expected_dir = args.db + ".expected"
        self.log_dir = args.log_dir or args.db + ".logs"
        self.options_seed = None
        if args.column_families is not None:
            self.shapes = [["--column_families=%d" % args.column_families] +
                           (["--atomic_flush"] if args.atomic_flush else [])]
        else:
            self.shapes = FAMILY_SHAPES
        self.next_shape = self.rng.randrange(len(self.shapes))
        self.shape = []  # the flags of the current option set's families
        self.option_sets = {}  # options summary -> {"cycles", "kills", "keys"}
        self.current_options = "?"
        self.kills = 0
        self.verified_keys = 0
        self.cycles_done = 0
        self.kill_points = []  # whitebox: the names in kKillPoints
        self.armed = collections.Counter()  # whitebox: point name -> cycles it was armed in
        self.hits = collections.Counter()  # whitebox: point name -> cycles it killed
        self.timer_kills = 0
        # whitebox, per point name: seconds of running armed, each divided by the odds (the
        # expected kills per reach), and the kills there: their ratio estimates the rate.
        self.exposure = collections.Counter()
        self.exits = 0

    def base_cmd(self):
        return [self.args.stress, "--db=" + self.args.db,
                "--expected_dir=" + self.expected_dir,
                "--threads=%d" % self.args.threads, "--max_key=%d" % self.args.max_key,
                ] + self.shape + self.args.stress_arg

    def wipe(self):
        for d in (self.args.db, self.expected_dir):
            shutil.rmtree(d, ignore_errors=True)
        self.options_seed = self.rng.randrange(1, 1 << 31)
        self.shape = self.shapes[self.next_shape % len(self.shapes)]
        self.next_shape += 1

    def log_path(self, cycle, what):
        return os.path.join(self.log_dir, "cycle%04d-%s.log" % (cycle, what))

    def note_output(self, path):
        """Reads a log: the option summary and the verified key count."""
        with open(path, errors="replace") as f:
            text = f.read()
        m = re.search(r"^options: (style=.*)$", text, re.M)
        if m:
            self.current_options = m.group(1)
        keys = re.findall(r"^verify \([a-z-]+ rules\): keys=(\d+)", text, re.M)
        return text, (int(keys[-1]) if keys else 0)

    def fail(self, cycle, cmd, logs, reason=None):
        print("\nFAILURE in cycle %d (driver seed %d, options seed %d)" %
              (cycle, self.seed, self.options_seed))
        if reason:
            print("reason: " + reason)
        print("command: " + " ".join(cmd))
        for path in logs:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
            print("---- %s (last 60 lines)" % path)
            print("\n".join(lines[-60:]))
        self.summary(failures=1)
        sys.exit(EXIT_FAILURE)

    def record(self, keys, killed):
        s = self.option_sets.setdefault(self.current_options,
                                        {"cycles": 0, "kills": 0, "keys": 0})
        s["cycles"] += 1
        s["kills"] += 1 if killed else 0
        s["keys"] += keys
        self.kills += 1 if killed else 0
        self.verified_keys += keys
        self.cycles_done += 1

    def run_logged(self, cmd, path, kill_after=None, env=None, shown=None):
        """Runs cmd (in env, default this process's) with its output in path; kills it with
        SIGKILL after kill_after seconds. Returns (exit status, killed)."""
        with open(path, "w") as log:
            log.write("$ " + " ".join(shown or cmd) + "\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
            try:
                rc = proc.wait(timeout=kill_after)
                return rc, False
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return -signal.SIGKILL, True

    def kill_cycle(self, cycle):
        lo, hi = self.args.kill_after
        kill_at = self.rng.uniform(lo, hi)
        cmd = self.base_cmd() + ["--seed=%d" % self.workload_seed(),
                                 "--duration=%.0f" % (hi + 60)]
        run_log = self.log_path(cycle, "run")
        rc, killed = self.run_logged(cmd, run_log, kill_after=kill_at)
        self.note_output(run_log)
        if not killed and rc != EXIT_OK:
            self.fail(cycle, cmd, [run_log])
        vcmd = self.base_cmd() + ["--verify_only"]
        verify_log = self.log_path(cycle, "verify")
        rc, _ = self.run_logged(vcmd, verify_log, kill_after=600)
        _, keys = self.note_output(verify_log)
        if rc != EXIT_OK:
            self.fail(cycle, vcmd, [run_log, verify_log])
        self.record(keys, killed)
        print("cycle %d: %s after %.1f s, verified %d keys [%s]" %
              (cycle, "killed" if killed else "exited", kill_at, keys, self.current_options))

    def power_loss_cycle(self, cycle):
        lo, hi = self.args.kill_after
        duration = self.rng.uniform(lo, hi)
        cmd = self.base_cmd() + ["--seed=%d" % self.workload_seed(), "--power_loss",
                                 "--duration=%.1f" % duration]
        log = self.log_path(cycle, "power_loss")
        rc, _ = self.run_logged(cmd, log, kill_after=duration + 600)
        _, keys = self.note_output(log)
        if rc != EXIT_OK:
            self.fail(cycle, cmd, [log])
        self.record(keys, True)
        print("cycle %d: power loss within %.1f s, verified %d keys [%s]" %
              (cycle, duration, keys, self.current_options))

    def workload_seed(self):
        # The first run of a fresh DB draws its options from --seed: use the options seed.
        if not os.path.exists(os.path.join(self.expected_dir, "OPTIONS")):
            return self.options_seed
        return self.rng.randrange(1, 1 << 31)

    def summary(self, failures):
        print("\n==== crash test summary (mode %s, driver seed %d)" % (self.args.mode, self.seed))
        print("cycles=%d kills=%d verified_keys=%d failures=%d" %
              (self.cycles_done, self.kills, self.verified_keys, failures))
        for opts, s in self.option_sets.items():
            print("  cycles=%d kills=%d verified_keys=%d  %s" %
                  (s["cycles"], s["kills"], s["keys"], opts))
        if self.args.mode == "whitebox":
            print("kill points: %d cycles killed at a point, %d by the timer, %d exited" %
                  (sum(self.hits.values()), self.timer_kills, self.exits))
            for name in self.kill_points:
                print("  %-28s armed in %3d cycles, hit in %3d" %
                      (name, self.armed[name], self.hits[name]))

    def run(self):
        if self.args.mode == "whitebox":
            return self.whitebox()
        os.makedirs(self.log_dir, exist_ok=True)
        print("crash test: mode %s, %d cycles, driver seed %d, logs in %s" %
              (self.args.mode, self.args.cycles, self.seed, self.log_dir))
        for cycle in range(self.args.cycles):
            if cycle % self.args.reseed_every == 0:
                self.wipe()
            if self.args.mode == "kill":
                self.kill_cycle(cycle)
            else:
                self.power_loss_cycle(cycle)
        self.summary(failures=0)
        return EXIT_OK

    def whitebox(self):
        if not os.path.exists(KILL_POINT_HEADER):
            print("whitebox: the engine has no kill points (src/util/kill_point.h is missing); "
                  "skipped, nothing run")
            return EXIT_OK
        self.kill_points = read_kill_points(KILL_POINT_HEADER)
        if not self.kill_points:
            print("whitebox: no kKillPoints list found in %s" % KILL_POINT_HEADER)
            return EXIT_USAGE
        for text in self.args.kill_point:
            pattern, _, odds = text.partition(":")
            if (not any(pattern_matches(pattern, n) for n in self.kill_points) or
                    (odds and (not odds.isdigit() or int(odds) < 1))):
                print("crash_test.py: --kill_point %r: want NAME[:N] or PREFIX*[:N], N >= 1, "
                      "matching one of: %s" % (text, " ".join(self.kill_points)),
                      file=sys.stderr)
                return EXIT_USAGE
        os.makedirs(self.log_dir, exist_ok=True)
        print("crash test: mode whitebox, %d cycles, driver seed %d, logs in %s, %d kill points" %
              (self.args.cycles, self.seed, self.log_dir, len(self.kill_points)))
        for cycle in range(self.args.cycles):
            if cycle % self.args.reseed_every == 0:
                self.wipe()
            self.whitebox_cycle(cycle)
        self.summary(failures=0)
        return EXIT_OK

    def pick_kill_target(self):
        """The (pattern, odds) armed in this cycle."""
        odds = ""
        if self.args.kill_point:
            pattern, _, odds = self.rng.choice(self.args.kill_point).partition(":")
        elif self.rng.random() < 0.25:
            groups = [g for g in KILL_POINT_GROUPS
                      if any(pattern_matches(g, n) for n in self.kill_points)]
            pattern = self.rng.choice(groups)
        else:
            # The points armed least so far, so that a campaign covers them evenly.
            fewest = min(self.armed[n] for n in self.kill_points)
            pattern = self.rng.choice([n for n in self.kill_points if self.armed[n] == fewest])
        if odds:
            return pattern, int(odds)
        rate = sum(self.point_rate(n) for n in self.kill_points if pattern_matches(pattern, n))
        if self.rng.random() < KILL_POINT_FIRST_SHARE:
            return pattern, 1
        return pattern, max(1, int(round(rate * self.rng.uniform(0, self.args.kill_after[1]))))

    def point_rate(self, name):
        """Reaches per second: the Poisson estimate hits / sum(seconds / odds) over the cycles
        the point was armed in (a timer kill counts its seconds, no hit), with the default rate
        as one prior hit."""
        prior = default_point_rate(name)
        return (self.hits[name] + 1) / (self.exposure[name] + 1.0 / prior)

    def whitebox_cycle(self, cycle):
        lo, hi = self.args.kill_after
        kill_at = self.rng.uniform(lo, hi)
        pattern, odds = self.pick_kill_target()
        spec = "%s:%d" % (pattern, odds)
        env = dict(os.environ)
        env[KILL_POINT_ENV] = spec
        cmd = self.base_cmd() + ["--seed=%d" % self.workload_seed(),
                                 "--duration=%.0f" % (hi + 60)]
        shown = ["%s=%s" % (KILL_POINT_ENV, spec)] + cmd
        run_log = self.log_path(cycle, "run")
        start = time.monotonic()
        rc, timer = self.run_logged(cmd, run_log, kill_after=kill_at, env=env, shown=shown)
        seconds = time.monotonic() - start
        text, _ = self.note_output(run_log)
        hits = KILL_POINT_LINE.findall(text)
        for name in self.kill_points:
            if pattern_matches(pattern, name):
                self.armed[name] += 1
                self.exposure[name] += seconds / odds
        if hits:
            stray = [h for h in hits if not pattern_matches(pattern, h)]
            if stray:
                self.fail(cycle, shown, [run_log],
                          "killed at %s, which %s does not arm" % (stray[0], spec))
            if rc != -signal.SIGKILL:
                self.fail(cycle, shown, [run_log],
                          "kill point %s hit but the exit status is %d, not SIGKILL" %
                          (hits[0], rc))
        elif not timer and rc == -signal.SIGKILL:
            self.fail(cycle, shown, [run_log],
                      "died by SIGKILL with no kill point line and not by the timer")
        elif not timer and rc != EXIT_OK:
            self.fail(cycle, shown, [run_log], "exit status %d" % rc)
        vcmd = self.base_cmd() + ["--verify_only"]
        verify_log = self.log_path(cycle, "verify")
        venv = {k: v for k, v in os.environ.items() if k != KILL_POINT_ENV}
        rc, _ = self.run_logged(vcmd, verify_log, kill_after=600, env=venv)
        _, keys = self.note_output(verify_log)
        if rc != EXIT_OK:
            self.fail(cycle, vcmd, [run_log, verify_log],
                      "verification after %s" % ("kill point " + hits[0] if hits else
                                                 "a timer kill" if timer else "a clean exit"))
        if hits:
            self.hits[hits[0]] += 1
            outcome = "kill point %s hit" % hits[0]
        elif timer:
            self.timer_kills += 1
            outcome = "not hit, killed after %.1f s" % kill_at
        else:
            self.exits += 1
            outcome = "not hit, exited"
        self.record(keys, bool(hits) or timer)
        print("cycle %d: armed %s: %s, verified %d keys [%s]" %
              (cycle, spec, outcome, keys, self.current_options))


def read_kill_points(header):
    """The point names of kKillPoints in src/util/kill_point.h, in their order."""
    with open(header) as f:
        text = f.read()
    m = re.search(r"kKillPoints\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    return re.findall(r'\{"([a-z0-9_.]+)",', m.group(1)) if m else []


def pattern_matches(pattern, name):
    """SHALE_KILL_POINTS matching: a name, or a prefix ending in '*'."""
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def default_point_rate(name):
    """The first guess of how many times a second shale_stress reaches the point."""
    for prefix, rate in KILL_POINT_RATES:
        if name.startswith(prefix):
            return rate
    return KILL_POINT_DEFAULT_RATE


def main():
    args = parse_args()
    if not os.access(args.stress, os.X_OK):
        print("crash_test.py: --stress %s is not an executable" % args.stress, file=sys.stderr)
        return EXIT_USAGE
    return Driver(args).run()


if __name__ == "__main__":
    sys.exit(main())

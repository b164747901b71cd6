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
  whitebox    kills at chosen points inside the engine (flush, compaction, MANIFEST write,
              WAL switch). Needs kill points in the engine (src/util/kill_point.h); without
              them the mode says so and exits 0 having run nothing.

Options are fixed per DB (saved next to the expected state by shale_stress); every
--reseed_every cycles the DB and its expected state are wiped and a new options seed drawn,
so one run covers several option sets. The workload seed changes every cycle.

Stops at the first failure: prints the cycle, the command and the end of its logs, exit 1.
Exit 0 when every cycle verified; 2 on a usage error. Prints a summary: cycles, kills,
verified keys, failures, per option set.

  test/crash/crash_test.py --stress build/release/tools/shale_stress/shale_stress \
      --db /tmp/crashdb --cycles 200 --kill_after 5..15
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


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
    try:
        args = p.parse_args()
    except SystemExit as e:
        sys.exit(EXIT_USAGE if e.code else EXIT_OK)
    if args.cycles < 1 or args.reseed_every < 1:
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
        self.option_sets = {}  # options summary -> {"cycles", "kills", "keys"}
        self.current_options = "?"
        self.kills = 0
        self.verified_keys = 0
        self.cycles_done = 0

    def base_cmd(self):
        return [self.args.stress, "--db=" + self.args.db,
                "--expected_dir=" + self.expected_dir,
                "--threads=%d" % self.args.threads, "--max_key=%d" % self.args.max_key,
                ] + self.args.stress_arg

    def wipe(self):
        for d in (self.args.db, self.expected_dir):
            shutil.rmtree(d, ignore_errors=True)
        self.options_seed = self.rng.randrange(1, 1 << 31)

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

    def fail(self, cycle, cmd, logs):
        print("\nFAILURE in cycle %d (driver seed %d, options seed %d)" %
              (cycle, self.seed, self.options_seed))
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

    def run_logged(self, cmd, path, kill_after=None):
        """Runs cmd with its output in path; kills it with SIGKILL after kill_after seconds.
        Returns (exit status, killed)."""
        with open(path, "w") as log:
            log.write("$ " + " ".join(cmd) + "\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
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
        header = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "..", "..", "src", "util", "kill_point.h")
        if not os.path.exists(header):
            print("whitebox: the engine has no kill points (src/util/kill_point.h is missing); "
                  "skipped, nothing run")
            return EXIT_OK
        print("whitebox: src/util/kill_point.h exists but this driver does not drive it yet; "
              "skipped, nothing run")
        return EXIT_OK


def main():
    args = parse_args()
    if not os.access(args.stress, os.X_OK):
        print("crash_test.py: --stress %s is not an executable" % args.stress, file=sys.stderr)
        return EXIT_USAGE
    return Driver(args).run()


if __name__ == "__main__":
    sys.exit(main())

#!/bin/sh
# Runs db_full_disk_test on a real full disk: mounts an 8 MiB tmpfs, points SHALE_SMALL_FS_DIR at
# it, runs the test binary given as $1 and unmounts. Needs root (mount); otherwise, or when the
# mount is refused (an unprivileged container), it prints why and exits 77, which ctest reports
# as skipped (SKIP_RETURN_CODE).
set -u
binary="$1"
if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED: not root, cannot mount a small tmpfs for the full-disk test"
  exit 77
fi
dir=$(mktemp -d /tmp/shale_full_disk.XXXXXX) || exit 1
if ! mount -t tmpfs -o size=8m tmpfs "$dir" 2>/dev/null; then
  echo "SKIPPED: mounting a tmpfs at $dir was refused (no CAP_SYS_ADMIN?)"
  rmdir "$dir"
  exit 77
fi
SHALE_SMALL_FS_DIR="$dir" "$binary"
rc=$?
umount "$dir" && rmdir "$dir"
exit $rc

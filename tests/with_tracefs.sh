#!/bin/sh
# with_tracefs.sh COMMAND [ARGS...] -- runs COMMAND where shim's BPF thread identity can
# attach if this machine allows it, leaving the machine as it was.
#
# BPF thread identity attaches to the sched/sched_switch tracepoint, which needs tracefs
# mounted. Where it is mounted already, or this is not root, or util-linux's unshare is
# missing, COMMAND simply runs (and shim says why it has no BPF, if it has none). As root
# without tracefs, COMMAND runs in a private mount namespace (unshare -m makes its mounts
# private) in which tracefs is mounted; the mount goes away with the namespace. A mount
# that fails leaves COMMAND to run without it: the tests check both outcomes. So does a
# namespace that cannot be made (in a chroot, whose root is no mount point, unshare
# cannot make / private).
if [ -d /sys/kernel/tracing/events ] || [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
    exec "$@"
fi
if ! unshare -m true 2>/dev/null; then
    exec "$@"
fi
exec unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; exec "$@"' sh "$@"

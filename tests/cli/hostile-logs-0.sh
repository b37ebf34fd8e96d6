#!/bin/sh
# tests/cli/hostile-logs.sh, rows 0, 0+2, ...: the two halves run side by side
HOSTILE_SHARD=0/2 exec "${SHELL:-/bin/sh}" "$TS_SRCDIR/cli/hostile-logs.sh" "$@"

#!/bin/sh
# tests/cli/hostile-logs.sh, rows 1, 1+2, ...: the two halves run side by side
HOSTILE_SHARD=1/2 exec "${SHELL:-/bin/sh}" "$TS_SRCDIR/cli/hostile-logs.sh" "$@"

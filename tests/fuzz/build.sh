#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the libFuzzer targets with clang against the library sources directly (not
# through automake, so no ./configure is needed):
#
#	tests/fuzz/build.sh [OUTDIR]	default: $KMODTOP_FUZZ_OUT or $TMPDIR/kmodtop-fuzz
#
# CC and EXTRA_CFLAGS may be set. The binaries are OUTDIR/fuzz-*, one per
# tests/fuzz/fuzz-*.c. Debian 12 needs clang and libclang-rt-14-dev (libFuzzer and the
# sanitizer runtimes; clang only recommends it).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-${KMODTOP_FUZZ_OUT:-${TMPDIR:-/tmp}/kmodtop-fuzz}}
CC=${CC:-clang}

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "build.sh: $CC not found (Debian: apt-get install -y clang libclang-rt-14-dev)" >&2
	exit 1
fi

DEP_CFLAGS=
DEP_LIBS=
for pc in libkmod libelf liblzma libzstd zlib json-c libbpf libtracecmd libtraceevent libtracefs; do
	if pkg-config --exists "$pc" 2>/dev/null; then
		DEP_CFLAGS="$DEP_CFLAGS $(pkg-config --cflags "$pc")"
		DEP_LIBS="$DEP_LIBS $(pkg-config --libs "$pc")"
	else
		case $pc in
		zlib) DEP_LIBS="$DEP_LIBS -lz" ;;
		json-c) DEP_LIBS="$DEP_LIBS -ljson-c" ;;
		*) DEP_LIBS="$DEP_LIBS -l${pc#lib}" ;;
		esac
	fi
done

# -D_GNU_SOURCE and PACKAGE_VERSION stand in for config.h
CFLAGS="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined -D_GNU_SOURCE \
	-DFUZZ_DIR=\"$here\" \
	-DPACKAGE_VERSION=\"fuzz\" -Wall -Wextra -Wno-unused-parameter -I$top/src \
	$DEP_CFLAGS ${EXTRA_CFLAGS:-}"

# the library: every source but the command layer and the terminal
cd "$top/src"
LIB_SOURCES=$(ls util/*.c sources/*.c sources/*/*.c session/*.c ledger/*.c cost/*.c ci/*.c output/*.c views/*.c \
	views/top/*.c | grep -v -e '^views/top/loop\.c$' -e '^views/top/term-curses\.c$')
cd "$here"
TARGETS=$(ls fuzz-*.c | sed 's/\.c$//')

mkdir -p "$out/obj"
objs=
stale=
newest_h=$(ls -t $(find "$top/src" -name '*.h') | head -n 1)
for s in $LIB_SOURCES; do
	o="$out/obj/$(echo "$s" | tr / -).o"
	if [ ! -f "$o" ] || [ "$top/src/$s" -nt "$o" ] || [ "$0" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
		stale="$stale $s"
	fi
	objs="$objs $o"
done
# instrumented for coverage and the sanitizers, but without libFuzzer's main();
# FUZZ_JOBS (default 2) at a time
export CC CFLAGS top out
# shellcheck disable=SC2016,SC2086
[ -z "$stale" ] || printf '%s\n' $stale | xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c \
	'$CC $CFLAGS -fsanitize=fuzzer-no-link,address,undefined -c "$top/src/$1" \
		-o "$out/obj/$(echo "$1" | tr / -).o"' sh {}
rm -f "$out/libkmodtop-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libkmodtop-fuzz.a" $objs

export DEP_LIBS here
# shellcheck disable=SC2016,SC2086
printf '%s\n' $TARGETS | xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c \
	'echo "  CC       $out/$1" &&
	$CC $CFLAGS -fsanitize=fuzzer,address,undefined "$here/$1.c" \
		"$out/libkmodtop-fuzz.a" $DEP_LIBS -o "$out/$1"' sh {}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the libFuzzer targets with clang against the library sources directly (not
# through automake, so no ./configure is needed):
#
#	tests/fuzz/build.sh [OUTDIR]	default: $KMODTOP_FUZZ_OUT or $TMPDIR/kmodtop-fuzz
#
# CC and EXTRA_CFLAGS may be set. The binaries are OUTDIR/fuzz-*.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-${KMODTOP_FUZZ_OUT:-${TMPDIR:-/tmp}/kmodtop-fuzz}}
CC=${CC:-clang}

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "build.sh: $CC not found (Debian: apt-get install -y clang)" >&2
	exit 1
fi

if pkg-config --exists zlib 2>/dev/null; then
	ZLIB_CFLAGS=$(pkg-config --cflags zlib)
	ZLIB_LIBS=$(pkg-config --libs zlib)
else
	ZLIB_CFLAGS=
	ZLIB_LIBS=-lz
fi

# cost/modfile.c: xz, zstd and ELF besides zlib
for pc in liblzma libzstd libelf; do
	if pkg-config --exists "$pc" 2>/dev/null; then
		ZLIB_CFLAGS="$ZLIB_CFLAGS $(pkg-config --cflags "$pc")"
		ZLIB_LIBS="$ZLIB_LIBS $(pkg-config --libs "$pc")"
	else
		ZLIB_LIBS="$ZLIB_LIBS -l${pc#lib}"
	fi
done

# -D_GNU_SOURCE stands in for config.h's AC_USE_SYSTEM_EXTENSIONS
CFLAGS="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined -D_GNU_SOURCE \
	-Wall -Wextra -Wno-unused-parameter -I$top/src $ZLIB_CFLAGS ${EXTRA_CFLAGS:-}"

LIB_SOURCES="
	util/kt-err.c util/root.c util/linereader.c util/parse-num.c util/escape.c
	util/version.c
	sources/proc-modules.c sources/vmallocinfo.c sources/meminfo.c sources/tainted.c
	sources/modstats.c sources/kconfig.c
	cost/loadpath.c cost/modmem.c cost/modfile.c"

TARGETS="fuzz-proc-modules fuzz-vmallocinfo fuzz-modstats fuzz-kconfig fuzz-meminfo
	fuzz-modfile"

mkdir -p "$out/obj"
objs=
for s in $LIB_SOURCES; do
	o="$out/obj/$(echo "$s" | tr / -).o"
	# instrumented for coverage and the sanitizers, but without libFuzzer's main()
	$CC $CFLAGS -fsanitize=fuzzer-no-link,address,undefined -c "$top/src/$s" -o "$o"
	objs="$objs $o"
done

for t in $TARGETS; do
	echo "  CC       $out/$t"
	$CC $CFLAGS -fsanitize=fuzzer,address,undefined "$here/$t.c" $objs $ZLIB_LIBS \
		-o "$out/$t"
done

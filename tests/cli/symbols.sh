#!/bin/sh
# kmodtop links libtracefs, libtraceevent, libtracecmd, libkmod, json-c, liblzma, libzstd,
# zlib, libelf and libbpf: a function it defined in one of their namespaces would
# interpose on the library's own callers of that name (kmodtop once had its own
# tracefs_instance_free() with another signature). Neither the binary nor the archive
# the tests and benchmarks link defines one.
. "$TS_SRCDIR/lib/ts.sh"
ts_init symbols
ts_need nm

T=$TS_TMP
ARCHIVE=$TS_BUILDDIR/../src/libkmodtop.a
# the built binary itself: $KMODTOP may be a wrapper (check-valgrind runs it under valgrind)
BINARY=$TS_BUILDDIR/../src/kmodtop
PREFIXES='tracefs_|tep_|tracecmd_|kbuffer_|kmod_|json_|lzma_|ZSTD_|deflate|inflate|gz[a-z0-9]+$|elf_|elf32_|elf64_|gelf_|btf_|bpf_|libbpf_'

# defined_in FILE: the symbols FILE defines (text, data, bss, read-only) in those namespaces
defined_in() {
	nm --defined-only "$1" 2>/dev/null | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' |
		grep -E "^($PREFIXES)" | LC_ALL=C sort -u
}

for f in "$BINARY" "$ARCHIVE"; do
	if [ ! -f "$f" ]; then
		ts_fail "$f: not built"
		continue
	fi
	# the file has symbols at all: a stripped or empty one would pass for nothing
	if [ "$(nm --defined-only "$f" 2>/dev/null | grep -c ' [Tt] ')" -lt 100 ]; then
		ts_fail "$f: nm lists almost no functions"
		continue
	fi
	defined_in "$f" >"$T/defined"
	if [ -s "$T/defined" ]; then
		ts_fail "$(basename "$f") defines names of linked libraries: $(tr '\n' ' ' <"$T/defined")"
	else
		ts_ok "$(basename "$f"): no function in a linked library's namespace"
	fi
done

# the check itself finds one: an object that defines tracefs_instance_free
if command -v cc >/dev/null 2>&1; then
	printf 'void tracefs_instance_free(void *p) { (void)p; }\nint kt_x(void) { return 0; }\n' >"$T/x.c"
	if cc -c -o "$T/x.o" "$T/x.c" 2>/dev/null; then
		defined_in "$T/x.o" >"$T/x.defined"
		ts_check "the check finds a defined tracefs_ function" grep -qx tracefs_instance_free "$T/x.defined"
	fi
fi
ts_finalize

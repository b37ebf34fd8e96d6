#!/bin/sh
# The boot capture through the real binary: boot-setup's command line carries the
# probes its kernel's BTF lays out (from sys/kernel/btf/vmlinux, or from a boot image
# compressed with xz, gzip or zstd), its grub drop-in gives GRUB that command line back
# word for word, --remove only deletes kmodtop's own file; report --boot reads the
# root's global trace and kernel log when its command line set the capture up, says
# so, names the modules loaded before the capture began, and finds boot bundles by
# boot id, newest first.
. "$TS_SRCDIR/lib/ts.sh"
ts_init boot
ts_need jq python3

FX=$FIXTURES/debian-6.12-xz
BTF=$TS_SRCDIR/fuzz/seeds/btf/layout-6.12.btf
REL=6.12.118+deb12-amd64

# --- boot-setup ----------------------------------------------------------------------
R=$TS_TMP/root
mkdir -p "$R/sys/kernel/btf" "$R/proc/sys/kernel" "$R/etc/default" "$R/boot"
cp "$BTF" "$R/sys/kernel/btf/vmlinux"
echo "$REL" >"$R/proc/sys/kernel/osrelease"
ts_run --root "$R" boot-setup --cmdline
ts_expect_rc 0 "boot-setup --cmdline" && cp "$TS_TMP/out" "$TS_TMP/cmdline"
[ "$(wc -l <"$TS_TMP/cmdline")" = 1 ] || ts_fail "--cmdline: not one line"
ts_ok
CMD=$(cat "$TS_TMP/cmdline")
# the layout's offsets (file: f_inode 40, f_path 64; dentry: d_name 32), from its BTF, as
# print-setup has them but for the separators: ',' for ' ', ';' between probes
for w in 'kprobe_event=p:kmodtop/kmodtop_kread,kernel_read_file,size=+80(+40($arg1)):s64,id=$arg2:s32,path=+0(+40(+72($arg1))):string;' \
	';p:kmodtop/kmodtop_name,find_module_all,name=+0($arg1):string' \
	'trace_event=module:module_load,module:module_free,module:module_request,syscalls:sys_enter_finit_module,' \
	' trace_buf_size=1024K' ' trace_options=nooverwrite' ' trace_clock=global'; do
	case $CMD in *"$w"*) ts_ok ;; *) ts_fail "--cmdline lacks $w: $CMD" ;; esac
done
# the same probes as record --print-setup of the same root
ts_run --root "$R" record --print-setup
python3 - "$TS_TMP/out" "$TS_TMP/cmdline" <<'EOF' || ts_fail "boot-setup and print-setup place different probes"
import re, sys
script, cmdline = (open(p).read() for p in sys.argv[1:3])
setup = [(e, f, a.replace('\\$', '$'))
         for e, f, a in re.findall(r'p:\$G/(kmodtop_\w+) (\S+) ([^"\n]*)"', script)]
kp = re.search(r'kprobe_event=(\S+)', cmdline).group(1)
boot = [tuple([p.split(',')[0].split('/')[1], p.split(',')[1], ' '.join(p.split(',')[2:])])
        for p in kp.split(';')]
if not setup or sorted(setup) != sorted(boot):
    print('print-setup', setup, 'boot-setup', boot)
    sys.exit(1)
EOF
ts_ok

# the BTF of an installed kernel that is not running: from its boot image, in the
# compressed ELF after the setup code (a made-up one here: an ELF with a .BTF section)
python3 - "$BTF" "$TS_TMP" <<'EOF' || ts_fail "cannot make the test images"
import gzip, lzma, struct, sys
btf = open(sys.argv[1], 'rb').read()
names = b'\0.BTF\0.shstrtab\0'
off_btf = 64
off_str = off_btf + len(btf)
off_sh = (off_str + len(names) + 7) & ~7
ehdr = b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8)
ehdr += struct.pack('<HHIQQQIHHHHHH', 2, 62, 1, 0, 0, off_sh, 0, 64, 0, 0, 64, 3, 2)
sh = bytes(64)
sh += struct.pack('<IIQQQQIIQQ', 1, 1, 0, 0, off_btf, len(btf), 0, 0, 4, 0)
sh += struct.pack('<IIQQQQIIQQ', 6, 3, 0, 0, off_str, len(names), 0, 0, 1, 0)
elf = ehdr + btf + names
elf += bytes(off_sh - len(elf)) + sh
open(sys.argv[2] + '/vmlinux', 'wb').write(elf)
# "setup code" with a false xz magic in it, then the payload
setup = b'MZ' + bytes(500) + b'\xfd7zXZ\x00 not a stream' + bytes(100)
open(sys.argv[2] + '/vmlinuz.xz', 'wb').write(
    setup + lzma.compress(elf, filters=[{'id': lzma.FILTER_X86}, {'id': lzma.FILTER_LZMA2}]) + bytes(64))
open(sys.argv[2] + '/vmlinuz.gz', 'wb').write(setup + gzip.compress(elf) + bytes(64))
EOF
images="xz gz"
if command -v zstd >/dev/null; then
	{ head -c 300 /dev/zero; zstd -q -19 -c "$TS_TMP/vmlinux"; } >"$TS_TMP/vmlinuz.zst"
	images="$images zst"
fi
for z in $images; do
	ts_run --root "$R" --kernel-release 6.12.999 boot-setup --cmdline --vmlinuz "$TS_TMP/vmlinuz.$z"
	ts_expect_rc 0 "boot-setup --vmlinuz ($z)"
	cmp -s "$TS_TMP/out" "$TS_TMP/cmdline" || ts_fail "--vmlinuz ($z): not the command line of the same BTF"
done
# another release than the root's: its /boot/vmlinuz-RELEASE
cp "$TS_TMP/vmlinuz.xz" "$R/boot/vmlinuz-6.12.999"
ts_run --root "$R" --kernel-release 6.12.999 boot-setup -j
ts_expect_rc 0 "boot-setup --kernel-release"
[ "$(jq -r .btf "$TS_TMP/out")" = "$R/boot/vmlinuz-6.12.999" ] ||
	ts_fail "--kernel-release: BTF not from the boot image: $(jq -r .btf "$TS_TMP/out")"
[ "$(jq -r .cmdline "$TS_TMP/out")" = "$CMD" ] || ts_fail "--kernel-release: another command line"
# the probes left out, an array saying why (this BTF has no execmem_alloc)
jq -e '.missing_probes | type == "array" and length == 1 and (.[0].why | startswith("kmodtop_layout on execmem_alloc(): "))' \
	"$TS_TMP/out" >/dev/null || ts_fail "-j: missing_probes: $(jq -c .missing_probes "$TS_TMP/out")"
ts_run --root "$R" --kernel-release 6.12.998 boot-setup
ts_expect_rc 1 "boot-setup, a release without its image"
grep -F "boot/vmlinuz-6.12.998" "$TS_TMP/err" >/dev/null || ts_fail "no image: not named: $(cat "$TS_TMP/err")"
# hostile images: cut short, garbage, no BTF
head -c 700 "$TS_TMP/vmlinuz.xz" >"$TS_TMP/cut"
head -c 100000 /dev/urandom >"$TS_TMP/garbage"
for f in cut garbage; do
	ts_run --root "$R" --kernel-release x boot-setup --vmlinuz "$TS_TMP/$f"
	ts_expect_rc 1 "--vmlinuz $f"
	grep -F "$TS_TMP/$f" "$TS_TMP/err" >/dev/null || ts_fail "--vmlinuz $f: file not named"
	grep -q 'Segmentation\|Aborted' "$TS_TMP/err" && ts_fail "--vmlinuz $f: crashed"
done
python3 -c "
import gzip, sys
e = bytearray(open(sys.argv[1], 'rb').read()); e[e.find(b'.BTF')+1:e.find(b'.BTF')+4] = b'XXX'
open(sys.argv[2], 'wb').write(gzip.compress(bytes(e)))" "$TS_TMP/vmlinux" "$TS_TMP/nobtf.gz"
ts_run --root "$R" --kernel-release x boot-setup --vmlinuz "$TS_TMP/nobtf.gz"
ts_expect_rc 1 "--vmlinuz without .BTF"
grep -F "CONFIG_DEBUG_INFO_BTF" "$TS_TMP/err" >/dev/null || ts_fail "no .BTF: not said: $(cat "$TS_TMP/err")"

# --- without tracefs --------------------------------------------------------------------
# boot-setup and record --print-setup are for machines without kmodtop, where tracefs is
# often not mounted: the running system's answer or an error, never a signal. In a mount
# namespace of its own, an empty /sys/kernel hides every tracefs; without one (no user
# namespaces), the system as it is.
no_tracefs() {
	if unshare -rm true 2>/dev/null; then
		unshare -rm sh -c 'mount -t tmpfs none /sys/kernel && exec "$0" "$@"' "$KMODTOP" "$@" \
			>"$TS_TMP/out" 2>"$TS_TMP/err"
	else
		"$KMODTOP" "$@" >"$TS_TMP/out" 2>"$TS_TMP/err"
	fi
	TS_RC=$?
}
for c in boot-setup 'record --print-setup'; do
	# shellcheck disable=SC2086
	no_tracefs $c
	TS_CHECKS=$((TS_CHECKS + 1))
	[ "$TS_RC" -le 1 ] || ts_fail "$c without tracefs: exit status $TS_RC"
done

# --- the grub drop-in ----------------------------------------------------------------------
ts_run --root "$R" boot-setup --apply
ts_expect_rc 0 "boot-setup --apply"
D=$R/etc/default/grub.d/kmodtop.cfg
grep -F "wrote $D" "$TS_TMP/out" >/dev/null || ts_fail "--apply does not say what it wrote"
# sh sources it (as grub-mkconfig does); GRUB then reads the words with its own quoting:
# single quotes keep ';' and '$'. Unquoted the GRUB way, they are the command line.
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
. "$D"
python3 - "$GRUB_CMDLINE_LINUX_DEFAULT" "$CMD" <<'EOF' || ts_fail "grub drop-in: GRUB would not pass the command line"
import shlex, sys
words = shlex.split(sys.argv[1], posix=True)   # GRUB's single quotes, as sh's
want = ['quiet', 'splash'] + sys.argv[2].split()
if words != want:
    print('GRUB sees', words, '\nwanted   ', want)
    sys.exit(1)
unquoted = [w for w in sys.argv[1].split(' ') if ';' in w or '$' in w]
if any(not (w.startswith("'") and w.endswith("'")) for w in unquoted):
    print("a word with ';' or '$' outside single quotes:", unquoted)
    sys.exit(1)
EOF
ts_ok
if command -v grub-script-check >/dev/null; then
	printf 'menuentry x {\n\tlinux /vmlinuz root=/dev/sda1 ro %s\n}\n' "$GRUB_CMDLINE_LINUX_DEFAULT" >"$TS_TMP/grub.cfg"
	ts_check "grub-script-check accepts the drop-in's linux line" grub-script-check "$TS_TMP/grub.cfg"
fi
ts_run --root "$R" boot-setup --apply
grep -F "replaced $D" "$TS_TMP/out" >/dev/null || ts_fail "--apply again: not 'replaced'"
ts_run --root "$R" boot-setup --remove
ts_expect_rc 0 "--remove"
[ -e "$D" ] && ts_fail "--remove left the drop-in"
ts_run --root "$R" boot-setup --remove
ts_expect_rc 0 "--remove, nothing there"
echo 'GRUB_TIMEOUT=3' >"$D"
ts_run --root "$R" boot-setup --remove
ts_expect_rc 1 "--remove of a file kmodtop did not write"
[ "$(cat "$D")" = GRUB_TIMEOUT=3 ] || ts_fail "--remove touched a foreign drop-in"
# --apply keeps to the same rule
ts_run --root "$R" boot-setup --apply
ts_expect_rc 1 "--apply over a file kmodtop did not write"
grep -F "not written by kmodtop" "$TS_TMP/err" >/dev/null || ts_fail "--apply over a foreign drop-in: not said"
[ "$(cat "$D")" = GRUB_TIMEOUT=3 ] || ts_fail "--apply replaced a foreign drop-in"
rm "$D"
# update-grub sources the drop-in as root: no release that makes a line of its own
for rel in "$(printf '%s\nGRUB_TIMEOUT=0' "$REL")" "$REL\$(id)" "$REL;id" "../$REL" ''; do
	ts_run --root "$R" --kernel-release "$rel" boot-setup --apply --vmlinuz "$TS_TMP/vmlinuz.xz"
	ts_expect_rc 2 "--apply with --kernel-release '$rel'"
	[ -e "$D" ] && ts_fail "--apply with --kernel-release '$rel' wrote the drop-in" && rm "$D"
done
rm -rf "$R/etc/default"
ts_run --root "$R" boot-setup --apply
ts_expect_rc 1 "--apply without /etc/default"
ts_run boot-setup --apply --remove
ts_expect_rc 2 "--apply with --remove"
ts_run boot-setup extra
ts_expect_rc 2 "boot-setup with an argument"

# --- report --boot --------------------------------------------------------------------------
B=$TS_TMP/boot
cp -a "$FX" "$B"
printf 'BOOT_IMAGE=/vmlinuz console=ttyS0 %s\n' "$CMD" >"$B/proc/cmdline"
ts_run --root "$FX" report --no-log -j
cp "$TS_TMP/out" "$TS_TMP/plain.json"
ts_run --root "$B" report --boot -j
ts_expect_rc 0 "report --boot" && cp "$TS_TMP/out" "$TS_TMP/boot.json"
jq -e '.boot.source | startswith("kernel command line")' "$TS_TMP/boot.json" >/dev/null ||
	ts_fail "report --boot: source not said"
jq -e '.boot.trace == "sys/kernel/tracing/trace" and .boot.log == "capture/kmsg.raw"' \
	"$TS_TMP/boot.json" >/dev/null || ts_fail "report --boot: not the root's trace and log"
# the same attempts as the trace read plainly; the first one is the first attempt's time
a=$(jq -c '[.attempts[] | [.module, .syscall, .ret]]' "$TS_TMP/boot.json")
b=$(jq -c '[.attempts[] | [.module, .syscall, .ret]]' "$TS_TMP/plain.json")
[ -n "$a" ] && [ "$a" != '[]' ] && [ "$a" = "$b" ] || ts_fail "report --boot: other attempts than the trace's"
jq -e '.boot.first_attempt_s == ([.attempts[].start] | min) and .boot.first_event_s <= .boot.first_attempt_s' \
	"$TS_TMP/boot.json" >/dev/null || ts_fail "report --boot: first attempt time"
jq -e '.boot.untraced_modules_count == 0' "$TS_TMP/boot.json" >/dev/null ||
	ts_fail "report --boot: a module untraced in a complete capture"
ts_ok
# --- the kernel log from journald's copy: a root without a log of kmodtop's own ----------
J=$TS_TMP/journal-root
cp -a "$B" "$J"
rm -f "$J/capture/kmsg.raw" "$J/capture/dmesg.txt"
mkdir -p "$J/var/log/journal" "$J/proc/sys/kernel/random"
echo 01234567-89ab-cdef-0123-456789abcdef >"$J/proc/sys/kernel/random/boot_id"
# a journalctl that gives the fixture's kernel log in the export format, as journald
# keeps it: its own timestamps, no sequence numbers, text with control bytes binary
cat >"$TS_TMP/journalctl" <<JEOF
#!/usr/bin/env python3
import struct, sys
want = ["--directory=$J/var/log/journal", "-k", "-b", "0123456789abcdef0123456789abcdef",
        "-o", "export"]
if sys.argv[1:7] != want:
    sys.stderr.write("journalctl: unexpected %r\n" % sys.argv[1:])
    sys.exit(1)
out = sys.stdout.buffer
for line in open("$FX/capture/kmsg.raw", "rb"):
    if line.startswith(b" "):
        continue
    head, _, msg = line.rstrip(b"\n").partition(b";")
    pri, seq, usec = head.split(b",")[:3]
    raw = bytearray()
    i = 0
    while i < len(msg):
        if msg[i:i + 2] == b"\\\\x":
            raw.append(int(msg[i + 2:i + 4], 16))
            i += 4
        else:
            raw.append(msg[i])
            i += 1
    out.write(b"__MONOTONIC_TIMESTAMP=9%s\n_SOURCE_MONOTONIC_TIMESTAMP=%s\n" % (usec, usec))
    out.write(b"PRIORITY=%d\nSYSLOG_FACILITY=%d\n_TRANSPORT=kernel\n" % (int(pri) & 7, int(pri) >> 3))
    if any(c < 32 or c == 127 for c in raw):
        out.write(b"MESSAGE\n" + struct.pack("<Q", len(raw)) + bytes(raw) + b"\n")
    else:
        out.write(b"MESSAGE=" + bytes(raw) + b"\n")
    out.write(b"\n")
JEOF
chmod +x "$TS_TMP/journalctl"
export KMODTOP_JOURNALCTL="$TS_TMP/journalctl"
ts_run --root "$J" report --boot -j
ts_expect_rc 0 "report --boot with the journal's log"
jq -e '.boot.log == "journalctl -k -b 0123456789abcdef0123456789abcdef"' "$TS_TMP/out" >/dev/null ||
	ts_fail "report --boot: the journal not named as the log: $(jq -c .boot "$TS_TMP/out")"
for k in attempts findings; do
	[ "$(jq -c ".$k" "$TS_TMP/out")" = "$(jq -c ".$k" "$TS_TMP/boot.json")" ] ||
		ts_fail "report --boot: .$k from the journal differ from kmsg.raw's"
done
# no journal of that boot (journalctl fails): no log, no error
echo 01234567-89ab-cdef-0123-000000000000 >"$J/proc/sys/kernel/random/boot_id"
ts_run --root "$J" report --boot -j
ts_expect_rc 0 "report --boot, the journal without that boot"
jq -e '.boot.log == null' "$TS_TMP/out" >/dev/null || ts_fail "no journal: a log named"
# a journalctl that prints something else: no log, no crash
printf '#!/bin/sh\necho "<html>"\necho "{\\"MESSAGE\\": 1}"\n' >"$TS_TMP/journalctl"
echo 01234567-89ab-cdef-0123-456789abcdef >"$J/proc/sys/kernel/random/boot_id"
ts_run --root "$J" report --boot -j
ts_expect_rc 0 "report --boot, journalctl prints no export"
jq -e '.boot.log == null' "$TS_TMP/out" >/dev/null || ts_fail "garbage journal: a log named"
grep -F "journalctl -k -b 01234567-89ab-cdef-0123-456789abcdef: not the journal's export format" \
	"$TS_TMP/err" >/dev/null || ts_fail "garbage journal: no warning: $(cat "$TS_TMP/err")"
# no journalctl at all: said, not "kernel log: none" alone
export KMODTOP_JOURNALCTL="$TS_TMP/no-such-journalctl"
ts_run --root "$J" report --boot
ts_expect_rc 0 "report --boot, no journalctl"
grep -F "journalctl -k -b 01234567-89ab-cdef-0123-456789abcdef: No such file or directory: this boot's kernel log is not read" \
	"$TS_TMP/err" >/dev/null || ts_fail "no journalctl: no warning: $(cat "$TS_TMP/err")"
unset KMODTOP_JOURNALCTL
# --- the buffer's setup changed since boot: said -----------------------------------------
mkdir -p "$J/sys/kernel/tracing/events/module/module_load"
echo 0 >"$J/sys/kernel/tracing/events/module/module_load/enable"
printf 'print-parent\noverwrite\n' >"$J/sys/kernel/tracing/trace_options"
ts_run --root "$J" report --boot -j
jq -e '.boot.buffer_changed == "module:module_load is disabled, overwrite is on"' "$TS_TMP/out" \
	>/dev/null || ts_fail "changed buffer not said: $(jq -c .boot "$TS_TMP/out")"
ts_run --root "$J" report --boot
grep -F 'changed since boot:' "$TS_TMP/out" >/dev/null || ts_fail "changed buffer: text"
jq -e '.boot.buffer_changed == null' "$TS_TMP/boot.json" >/dev/null ||
	ts_fail "a buffer said changed when it was not"
ts_ok

# the capture began after vfat was loaded: its modprobe (and the fat it pulled in) is not
# in the trace, stack frames included
awk '/modprobe-294 / { drop = 1; next } /^ +=> / && drop { next } { drop = 0 } !/vfat/' \
	"$FX/sys/kernel/tracing/trace" >"$B/sys/kernel/tracing/trace"
ts_run --root "$B" report --boot -j
grep -q 'malformed\|without a' "$TS_TMP/err" && ts_fail "the cut trace is not clean: $(head -2 "$TS_TMP/err")"
jq -e '[.boot_untraced_modules[].module] | sort == ["fat", "vfat"]' \
	"$TS_TMP/out" >/dev/null || ts_fail "report --boot: vfat not named as loaded before the capture: $(jq -c .boot "$TS_TMP/out")"
ts_run --root "$B" report --boot
grep -F 'loaded before the capture began:' "$TS_TMP/out" | grep -F vfat >/dev/null ||
	ts_fail "report --boot text: the untraced module not named"
ts_ok
# a boot whose command line set nothing up, and no bundle: said, exit 1
echo 'BOOT_IMAGE=/vmlinuz quiet' >"$B/proc/cmdline"
ts_run --root "$B" report --boot
ts_expect_rc 1 "report --boot without a capture"
grep -F 'boot-setup' "$TS_TMP/err" >/dev/null || ts_fail "no capture: the way to one not said"
ID=$(cat "$B/proc/sys/kernel/random/boot_id" 2>/dev/null || echo 11111111-2222-3333-4444-555555555555)
mkdir -p "$B/proc/sys/kernel/random" && echo "$ID" >"$B/proc/sys/kernel/random/boot_id"
# this boot's bundle where the recording wrote it, not (yet) moved to /var/lib/kmodtop;
# a .partial there is still being written, and is none
R=$B/run/kmodtop/boot-$(echo "$ID" | tr -d -)
mkdir -p "$R.partial"
ts_run --root "$B" report --boot
ts_expect_rc 1 "report --boot with a bundle still being written in /run"
cp -a "$FX" "$R" && rm -rf "$R/var"
ts_run --root "$B" report --boot -j
ts_expect_rc 0 "report --boot from this boot's bundle in /run"
jq -e --arg r "$R" '.boot.source == "kmodtop-boot.service bundle" and (.kernel.root | endswith($r))' \
	"$TS_TMP/out" >/dev/null || ts_fail "the bundle in /run: $(jq -c '[.boot, .kernel.root]' "$TS_TMP/out")"
rm -rf "$B/run/kmodtop"
# the bundles of kmodtop-boot.service: this boot's by its id, earlier ones newest first
L=$B/var/lib/kmodtop
mkdir -p "$L"
# this boot's as systemd names it (%b: no dashes), the earlier ones as /proc has them
for id in "$(echo "$ID" | tr -d -)" aaaaaaaa-0000-0000-0000-000000000001 aaaaaaaa-0000-0000-0000-000000000002; do
	cp -a "$FX" "$L/boot-$id"
	rm -rf "$L/boot-$id/var"
done
echo 'hidden-in-the-newest' >"$L/boot-aaaaaaaa-0000-0000-0000-000000000002/proc/sys/kernel/osrelease"
touch -d '2026-01-01' "$L/boot-aaaaaaaa-0000-0000-0000-000000000001"
touch -d '2026-02-01' "$L/boot-aaaaaaaa-0000-0000-0000-000000000002"
ts_run --root "$B" report --boot -j
ts_expect_rc 0 "report --boot from this boot's bundle"
jq -e --arg id "$ID" '.boot.source == "kmodtop-boot.service bundle" and
	(.boot.boot_id | gsub("-"; "")) == ($id | gsub("-"; ""))' \
	"$TS_TMP/out" >/dev/null || ts_fail "this boot's bundle: $(jq -c .boot "$TS_TMP/out")"
# names that are no boot id (an escape sequence, a record left .partial, a file) are
# not bundles
mkdir -p "$L/boot-$(printf '\033[31m')aaaaaaaa-0000-0000-0000-000000000003" \
	"$L/boot-aaaaaaaa-0000-0000-0000-000000000004.partial"
: >"$L/boot-aaaaaaaa-0000-0000-0000-000000000005"
touch -d '2026-03-01' "$L"/boot-*
touch -d '2026-01-01' "$L/boot-aaaaaaaa-0000-0000-0000-000000000001"
touch -d '2026-02-01' "$L/boot-aaaaaaaa-0000-0000-0000-000000000002"
touch -d '2026-01-15' "$L/boot-$(echo "$ID" | tr -d -)"
ts_run --root "$B" report --boot=-1 -j
jq -e '.boot.boot_id == "aaaaaaaa-0000-0000-0000-000000000002" and .kernel.release == "hidden-in-the-newest"' \
	"$TS_TMP/out" >/dev/null || ts_fail "--boot=-1: not the newest earlier bundle: $(jq -c .boot "$TS_TMP/out")"
ts_run --root "$B" report --boot=-2 -j
jq -e '.boot.boot_id == "aaaaaaaa-0000-0000-0000-000000000001"' "$TS_TMP/out" >/dev/null ||
	ts_fail "--boot=-2: not the older bundle"
ts_run --root "$B" report --boot=-3
ts_expect_rc 1 "--boot=-3: no such boot"
ts_run --root "$B" report --boot=2
ts_expect_rc 2 "--boot=2"
ts_run --root "$B" report --boot --trace /dev/null
ts_expect_rc 2 "--boot with --trace"

ts_finalize

#!/bin/sh
# kmodtop ci on log formats people paste: kernel lines with neither timestamps nor a
# banner are read (one boot without times), not refused; journal and syslog months in
# any case and the common locales; each input's rendering and what told it, in text
# and JSON; a bare vmap failure counts. Line shapes from real reports (cited per file).
. "$TS_SRCDIR/lib/ts.sh"
ts_init ci-formats
ts_need jq

T=$TS_TMP
get() { jq -r "$2" "$T/$1.json"; }
ci_json() {	# NAME RC [ARGS...]: ci -j on $T/NAME.txt, kept as $T/NAME.json
	name=$1 rc=$2
	shift 2
	ts_run ci -j "$@" "$T/$name.txt"
	ts_expect_rc "$rc" "$name" && cp "$T/out" "$T/$name.json"
}

# a console paste: https://github.com/obilaniu/libpfc/issues/8 (its timestamp cut, as
# printk.time=0 or dmesg -t print it)
cat >"$T/paste.txt" <<'X'
do_init_module: 'pfc'->init suspiciously returned 1, it should follow 0/-E convention
               do_init_module: loading module anyway...
X
ci_json paste 0
[ "$(get paste '.result')" = pass ] || ts_fail "paste: result $(get paste '.result')"
[ "$(get paste '[.findings[] | .class + ":" + .module] | join(",")')" = init-bad-return:pfc ] ||
	ts_fail "paste: findings $(get paste '[.findings[].class] | join(",")')"
[ "$(get paste '.inputs[0].format_detail')" = plain ] || ts_fail "paste: format_detail"
[ "$(get paste '.inputs[0].format')" = kernel-log-plain ] || ts_fail "paste: format"
[ "$(get paste '.boots | length')" = 1 ] || ts_fail "paste: not one boot"

# a bare vmap failure (mm/vmalloc.c alloc_vmap_area(), no task line after it), with and
# without the kernel's time: a failure all the same
printf 'vmap allocation for size 4198400 failed: use vmalloc=<size> to increase size\n' >"$T/vmap.txt"
printf '[  912.345678] vmap allocation for size 4198400 failed: use vmalloc=<size> to increase size\n' >"$T/vmap-t.txt"
for v in vmap vmap-t; do
	ci_json "$v" 1 --fail-on=failures
	[ "$(get "$v" '[.findings[] | select(.class == "vmap-failed")] | length')" = 1 ] ||
		ts_fail "$v: no vmap-failed finding"
	[ "$(get "$v" '.findings[0].group')" = failures ] || ts_fail "$v: not a failure"
done

# journal months in any case and locale: Polish "cze" from
# https://github.com/ARCHLabs/Archlabs-Iso/issues/123 ("cze 24 12:31:58 arch-pc
# systemd-modules-load[168]: ..."), Spanish/Italian "mar" from the issue's field logs,
# German "Mär", French "févr.", upper case; the kernel's lines of the same shape
i=0
for mon in cze mar MAR Mär févr. sty Okt dic; do
	i=$((i + 1))
	printf '%s 24 12:31:5%d arch-pc kernel: vboxguest: Unknown symbol vbox_foo (err -2)\n' \
		"$mon" "$((i % 10))" >"$T/month$i.txt"
	ci_json "month$i" 0
	[ "$(get "month$i" '.inputs[0].format_detail')" = journal-short ] ||
		ts_fail "month '$mon': format_detail $(get "month$i" '.inputs[0].format_detail')"
	[ "$(get "month$i" '.totals.failed')" = 1 ] || ts_fail "month '$mon': not one failed load"
done
# a word that is no month makes no journal line: the kernel's message is read all the
# same, as a line without a time it knows
printf 'foo 24 12:31:58 arch-pc kernel: vboxguest: Unknown symbol vbox_foo (err -2)\n' >"$T/nomonth.txt"
ci_json nomonth 0
[ "$(get nomonth '.inputs[0].format_detail')" = plain ] || ts_fail "nomonth: format_detail"

# loaders' lines alone are something to analyse (the issue's "mar 29 ... [766]")
printf "mar 29 18:37:56 host systemd-modules-load[766]: Failed to insert module 'kdbus': Function not implemented\n" \
	>"$T/loader.txt"
ci_json loader 0
[ "$(get loader '.findings[0].module')" = kdbus ] || ts_fail "loader: no kdbus finding"
[ "$(get loader '.inputs[0].format_detail')" = journal-short ] || ts_fail "loader: format_detail"

# another program's journal line is no kernel message, whatever it says
printf 'mar 29 18:37:56 host foo[12]: bar: Unknown symbol baz (err -2)\n' >"$T/other.txt"
ci_json other 4
# text that holds no kernel line is still nothing to analyse
printf 'hello\nUnknown symbol, said the man\n' >"$T/prose.txt"
ci_json prose 4

# each rendering named, and why (shapes as kernel, util-linux and journalctl print them)
L='nvidia: Unknown symbol drm_foo (err -2)'
printf '[    0.000000] Linux version 6.1.0 (x@y) #1\n[   12.345678] %s\n' "$L" >"$T/r-dmesg.txt"
printf 'U-Boot 2020.01\nStarting kernel ...\n[    0.000000] Linux version 6.1.0 (x@y) #1\n[   12.345678] %s\n' "$L" >"$T/r-console.txt"
printf '[Wed Dec  2 13:01:21 2026] %s\n' "$L" >"$T/r-ctime.txt"
printf 'Dec  2 13:01:21 host kernel: [   12.345678] %s\n' "$L" >"$T/r-syslog.txt"
printf '[   12.345678] host kernel: %s\n' "$L" >"$T/r-mono.txt"
printf '2026-12-02T13:01:21+0000 host kernel: %s\n' "$L" >"$T/r-iso.txt"
printf '3,339,12345678,-;%s\n' "$L" >"$T/r-kmsg.txt"
for r in dmesg:dmesg console:console ctime:dmesg-T syslog:syslog mono:journal-monotonic \
	iso:journal-iso kmsg:kmsg; do
	f=r-${r%%:*} want=${r#*:}
	ci_json "$f" 0
	[ "$(get "$f" '.inputs[0].format_detail')" = "$want" ] ||
		ts_fail "$f: format_detail $(get "$f" '.inputs[0].format_detail'), not $want"
	[ -n "$(get "$f" '.inputs[0].format_reason')" ] || ts_fail "$f: no format_reason"
done
# the text report shows them too
ts_run ci "$T/r-syslog.txt"
ts_expect_rc 0 "syslog text"
grep -q "syslog .*rsyslog kern.log" "$T/out" || ts_fail "text report: no format and reason"
# one kernel line a paste split over two physical lines, read joined only into a whole
# wording; the evidence is the line where the message starts. A quoted-printable soft
# break (nouveau list, 2020-01-12), after a run of records the needle filter counts at once:
cat >"$T/qp.txt" <<'X'
[    0.000000] Linux version 5.3.0-26-generic (buildd@lgw01-amd64-013)
[   10.985669] wl: loading out-of-tree module taints kernel.
[   10.985676] Disabling lock debugging due to kernel taint
[   10.985677] Disabling lock debugging due to kernel taint
[   11.001237] wl: module verification failed: signature and/or required ke=
y missing - tainting kernel
[   11.018273] mc: Linux media interface: v0.10
X
ci_json qp 0
[ "$(get qp '[.findings[] | select(.class == "signature-missing") | .module + ":" + (.evidence[0].lines[0][0] | tostring)] | join(",")')" = wl:5 ] ||
	ts_fail "qp: $(get qp '[.findings[] | .class + ":" + .module] | join(",")')"
# a time alone on its line, the message on the next (ubuntuforums, rt3562sta), where
# the filter sees only the second half; lines wrapped by a mail client after the module's
# name (linux-media, dw2102); an Outlook-quoted vermagic line (LKML, tifm) in a paste
cat >"$T/split.txt" <<'X'
[    0.000000] Linux version 2.6.31-22-generic
[   21.000000] usb 1-1: new high speed USB device
[   21.512617] 
rt3562sta: module license 'unspecified' taints kernel.
[   21.515709] ===> rt2860_probe
X
ci_json split 0
[ "$(get split '[.findings[] | .class + ":" + .module + ":" + (.evidence[0].lines[0][0] | tostring)] | join(",")')" = taint:rt3562sta:4 ] ||
	ts_fail "split: $(get split '[.findings[] | .class + ":" + .module] | join(",")')"
cat >"$T/wrap.txt" <<'X'
   Jun 30 22:03:47 mythmk2 kernel: [264566.557116] dvb_usb_dw2102:
disagrees about version of symbol dvb_usb_device_init
   Jun 30 22:03:47 mythmk2 kernel: [264566.557127] dvb_usb_dw2102:
Unknown symbol dvb_usb_device_init
X
ci_json wrap 0
[ "$(get wrap '[.findings[] | .class + ":" + (.evidence[0].lines[0][0] | tostring)] | sort | join(",")')" = symbol-version:1,unknown-symbol:3 ] ||
	ts_fail "wrap: $(get wrap '[.findings[] | .class] | join(",")')"
cat >"$T/quote.txt" <<'X'
>> It results in the following errors:-
>> tifm: version magic '2.6.10 686 REGPARM gcc-3.3' should be '2.6.10
>REGPARM gcc-3.4'
X
ci_json quote 0
[ "$(get quote '[.findings[] | .class + ":" + .module] | join(",")')" = vermagic:tifm ] ||
	ts_fail "quote: $(get quote '[.findings[] | .class] | join(",")') ($(get quote .result))"
# two unrelated lines make no finding: a record and a line after it, two records (each
# starts a line of its own), prose and a line
cat >"$T/nojoin.txt" <<'X'
[    0.000000] Linux version 6.1.0
[    2.000000] usb 1-1: new high-speed USB device number 2 using ehci-pci
disagrees about version of symbol foo
[    2.100000] snd_hda_intel:
[    2.200000] disagrees about version of symbol foo
I see this for module bar:
Unknown symbol baz
X
ci_json nojoin 0
[ "$(get nojoin '.findings | length')" = 0 ] ||
	ts_fail "nojoin: $(get nojoin '[.findings[] | .class] | join(",")')"
# kernel/module_signing.c's line of a key the kernel lacks (ubuntuforums, 2014): a kernel
# line of no finding, read, not refused
cat >"$T/modkey.txt" <<'X'
Request for unknown module key 'Magrathea: Glacier signing key: 5682f337b8a0a17eef58c6ac5e9a85712c9208df' err -11
X
ci_json modkey 0
[ "$(get modkey '.result') $(get modkey '.findings | length')" = "pass 0" ] ||
	ts_fail "modkey: $(get modkey '.result')"
# JSON spread over lines: util-linux's dmesg --json ({"dmesg": [...]}, one key a line as
# its ul_jsonwrt writes it) and journalctl -o json-pretty; each record's line is its
# message key's; a document cut short is said, not a crash
cat >"$T/dmesgjson.txt" <<'X'
{
   "dmesg": [
      {
         "pri": 5,
         "time":     0.000000,
         "msg": "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12) #1 SMP"
      },{
         "pri": 3,
         "time":     5.123456,
         "msg": "nvidia: Unknown symbol drm_open (err -2)"
      },{"pri": 4, "time": 6.0, "msg": "x: loading out-of-tree module taints kernel."}
   ]
}
X
ci_json dmesgjson 0
[ "$(get dmesgjson '.inputs[0].format + " " + .inputs[0].format_detail')" = "kernel-log-json dmesg-json" ] ||
	ts_fail "dmesg --json: format $(get dmesgjson '.inputs[0].format')"
[ "$(get dmesgjson '[.findings[] | .class + ":" + .module + ":" + (.first_line|tostring)] | sort | join(",")')" = "taint:x:11,unknown-symbol:nvidia:10" ] ||
	ts_fail "dmesg --json: findings $(get dmesgjson '[.findings[] | .class + ":" + (.first_line|tostring)] | join(",")')"
[ "$(get dmesgjson '.boots | length') $(get dmesgjson '.boots[0].release')" = "1 6.1.0-18-amd64" ] ||
	ts_fail "dmesg --json: boots"
printf '\t"__CURSOR" : "s=1",\n\t"_TRANSPORT" : "kernel",\n\t"MESSAGE" : "nvidia: Unknown symbol drm_open (err -2)"\n' >"$T/entry"
{ echo '{'; cat "$T/entry"; echo '}'; echo '{'; printf '\t"SYSLOG_IDENTIFIER" : "systemd-modules-load",\n\t"MESSAGE" : "Failed to insert module '"'vboxdrv'"': Exec format error"\n}\n'; echo '{'; cat "$T/entry"; } >"$T/jpretty.txt"
ci_json jpretty 0
[ "$(get jpretty '.inputs[0].format_detail')" = journal-json-pretty ] || ts_fail "json-pretty: format"
[ "$(get jpretty '[.findings[] | .class + ":" + .module + ":" + (.first_line|tostring)] | sort | join(",")')" = "modprobe-error:vboxdrv:8,unknown-symbol:nvidia:4" ] ||
	ts_fail "json-pretty: findings $(get jpretty '[.findings[] | .class + ":" + (.first_line|tostring)] | join(",")')"
[ "$(get jpretty '.inputs[0].skipped_lines')" = 1 ] || ts_fail "json-pretty: the entry cut short is not said"
# hostile dmesg --json records: an escape sequence in a name is shown escaped, a NUL in a
# message is a damaged record, said and skipped; garbage after a "{" is said, not a crash
printf '{\n "dmesg": [\n  {"pri": 3, "time": 1.0, "msg": "ev\\u001b[31mil: Unknown symbol x (err -2)"},\n  {"pri": 3, "time": 2.0, "msg": "nul\\u0000x: Unknown symbol y (err -2)"}\n ]\n}\n' >"$T/hostilejson.txt"
ts_run ci "$T/hostilejson.txt"
ts_expect_rc 0 "hostile dmesg --json"
grep -q "$(printf '\033')" "$T/out" && ts_fail "hostile dmesg --json: a raw escape in the output"
grep -q 'ev\\x1b\[31mil' "$T/out" || ts_fail "hostile dmesg --json: the name not shown escaped"
grep -q "hostilejson.txt':4: a NUL byte in a record's message" "$T/err" ||
	ts_fail "hostile dmesg --json: the NUL not said"
grep -q ' nul ' "$T/out" && ts_fail "hostile dmesg --json: a finding from the damaged record"
{ echo '{'; awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", int(rand() * 256) }'; } >"$T/garbagejson.txt"
ts_run ci "$T/garbagejson.txt"
[ "$TS_RC" -le 4 ] || ts_fail "garbage after '{': exit $TS_RC"
grep -q "garbagejson.txt':1: a JSON object cut short" "$T/err" || ts_fail "garbage after '{': not said"
# a log with timestamps and, quoted after it untimed, a kernel wording naming its module
# (tests/corpus 585): a kernel line of that log, which stays a log with timestamps; other
# untimed text that names no module stays text
cat >"$T/quoted.txt" <<'X'
[    0.000000] Linux version 5.19.0-1-default (geeko@buildhost) (gcc) #1 SMP
[    1.000000] zram: Added device: zram0
the reporter wrote:
> zram: module verification failed: signature and/or required key missing - tainting kernel
> module verification failed: signature and/or required key missing
X
ci_json quoted 0
[ "$(get quoted '[.findings[] | .class + ":" + .module + ":" + (.first_line|tostring)] | join(",")')" = "signature-missing:zram:4" ] ||
	ts_fail "quoted: findings $(get quoted '[.findings[] | .class + ":" + (.first_line|tostring)] | join(",")')"
[ "$(get quoted '.inputs[0].format')" = kernel-log-text ] || ts_fail "quoted: format $(get quoted '.inputs[0].format')"
ts_finalize

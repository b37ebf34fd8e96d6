/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/linereader.h"
#include "util/macro.h"
#include "util/parse-num.h"
#include "text.h"


/* TASK_COMM_LEN is 16 with the NUL; allow one more byte of slack for other printers. */
#define COMM_MAX 16
/* Longest line the parser keeps; the same bound as linereader's default. */
#define LINE_MAX_LEN LINEREADER_DEFAULT_MAX
/*
 * How many events wait for their stack trace. A stack entry follows its event in the
 * same CPU buffer, so in the merged output only other CPUs' events with timestamps in
 * between can come first: 3 lines at most in the captures. 64 is plenty.
 */
#define PENDING_MAX 64
/* CPUs whose latest pending event is tracked by number (others are searched for) */
#define CPU_LAST_MAX 512
/*
 * A module request's name is printed as it is, so a name with a newline in it (the
 * "hdaudio:v...\n" snd_hda_codec asks for) breaks its line: the rest follows on lines
 * of their own. A request name fits in MODULE_NAME_LEN bytes, so a few short lines.
 */
#define JOIN_LINES_MAX 8
#define JOIN_LEN_MAX 4096

static const char request_without_wait[] = "module_request without name or wait=";

static const char *const kind_names[KTRACE_EV__MAX] = {
	[KTRACE_EV_UNKNOWN] = "unknown",
	[KTRACE_EV_MODULE_REQUEST] = "module_request",
	[KTRACE_EV_MODULE_LOAD] = "module_load",
	[KTRACE_EV_MODULE_FREE] = "module_free",
	[KTRACE_EV_MODULE_GET] = "module_get",
	[KTRACE_EV_MODULE_PUT] = "module_put",
	[KTRACE_EV_SYS_ENTER_FINIT_MODULE] = "sys_enter_finit_module",
	[KTRACE_EV_SYS_EXIT_FINIT_MODULE] = "sys_exit_finit_module",
	[KTRACE_EV_SYS_ENTER_INIT_MODULE] = "sys_enter_init_module",
	[KTRACE_EV_SYS_EXIT_INIT_MODULE] = "sys_exit_init_module",
	[KTRACE_EV_SYS_ENTER_DELETE_MODULE] = "sys_enter_delete_module",
	[KTRACE_EV_SYS_EXIT_DELETE_MODULE] = "sys_exit_delete_module",
	[KTRACE_EV_SCHED_PROCESS_FORK] = "sched_process_fork",
	[KTRACE_EV_SCHED_PROCESS_EXEC] = "sched_process_exec",
	[KTRACE_EV_SCHED_PROCESS_EXIT] = "sched_process_exit",
	[KTRACE_EV_TASK_RENAME] = "task_rename",
	[KTRACE_EV_MARKER] = "tracing_mark_write",
	[KTRACE_EV_ALLOC_VMAP_AREA] = "alloc_vmap_area",
	[KTRACE_EV_ALLOC_VMAP_AREA_KPROBE] = "alloc_vmap_area_kprobe",
	[KTRACE_EV_FREE_VMAP_AREA_NOFLUSH] = "free_vmap_area_noflush",
	[KTRACE_EV_PURGE_VMAP_AREA_LAZY] = "purge_vmap_area_lazy",
	[KTRACE_EV_PROBE_KREAD] = "kmodtop_kread",
	[KTRACE_EV_PROBE_NAME] = "kmodtop_name",
	[KTRACE_EV_PROBE_LAYOUT] = "kmodtop_layout",
	[KTRACE_EV_KPROBE] = "kprobe",
	[KTRACE_EV_STACK] = "stack",
	[KTRACE_EV_LOST] = "lost",
};

const char *ktrace_event_kind_name(enum ktrace_event_kind kind)
{
	if ((unsigned int)kind >= KTRACE_EV__MAX)
		return "invalid";
	return kind_names[kind];
}

/* --- small helpers on [s, end) ranges --------------------------------------------- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* [s, end); empty when trimming met in the middle (" \t": spaces skipped, tabs trimmed) */
static struct ktrace_str mkstr(const char *s, const char *end)
{
	return (struct ktrace_str){ .s = s, .len = end > s ? (size_t)(end - s) : 0 };
}

static bool str_is(struct ktrace_str a, const char *lit)
{
	size_t n = strlen(lit);

	return a.len == n && memcmp(a.s, lit, n) == 0;
}

static bool starts_with(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

static const char *skip_spaces(const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	return s;
}

static const char *rtrim(const char *s, const char *end)
{
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

/* First occurrence of @lit in [s, end), or NULL. */
static const char *find(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	/* memchr() to each candidate for the first byte, then compare the rest */
	while (s && (size_t)(end - s) >= n) {
		s = memchr(s, lit[0], (size_t)(end - s) - n + 1);
		if (!s)
			return NULL;
		if (memcmp(s + 1, lit + 1, n - 1) == 0)
			return s;
		s++;
	}
	return NULL;
}

/* Last occurrence of @lit in [s, end), or NULL. */
static const char *rfind(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	const char *p;

	if ((size_t)(end - s) < n)
		return NULL;
	for (p = end - n;; p--) {
		if (memcmp(p, lit, n) == 0)
			return p;
		if (p == s)
			return NULL;
	}
}

/*
 * Numbers are parsed in place; a token of 32 bytes or more is refused as it was when
 * tokens were copied into a 32-byte buffer for parse-num.
 */
#define TOKEN_MAX 32

static int num_u64(const char *s, const char *end, int base, uint64_t *ret)
{
	size_t n = (size_t)(end - s);

	if (n == 0 || n >= TOKEN_MAX)
		return -EINVAL;
	return parse_u64_n(s, n, base, ret);
}

/* "0x..." is hex, anything else decimal: never octal, unlike strtoull base 0. */
static int num_auto(const char *s, const char *end, uint64_t *ret)
{
	if (starts_with(s, end, "0x") || starts_with(s, end, "0X"))
		return num_u64(s + 2, end, 16, ret);
	return num_u64(s, end, 10, ret);
}

static int num_i64(const char *s, const char *end, int64_t *ret)
{
	size_t n = (size_t)(end - s);

	if (n == 0 || n >= TOKEN_MAX)
		return -EINVAL;
	return parse_i64_n(s, n, 10, ret);
}

static int num_int(const char *s, const char *end, int *ret)
{
	int64_t v;
	int r = num_i64(s, end, &v);

	if (r < 0)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

static const char *token_end(const char *s, const char *end)
{
	while (s < end && *s != ' ' && *s != ',' && *s != ')')
		s++;
	return s;
}

/*
 * Finds argument @key written "key=value" or "key: value" at a word boundary, searching
 * from @s on. *ret_colon tells which: tracefs prints syscall arguments as "fd: 1a" in
 * unprefixed hex, everything else is "key=value".
 */
static bool find_arg(const char *s, const char *end, const char *key,
		     struct ktrace_str *ret_val, bool *ret_colon, const char **ret_next)
{
	size_t n = strlen(key);
	const char *p;

	for (p = s; (size_t)(end - p) > n; p++) {
		const char *v;
		bool colon;

		p = memchr(p, key[0], (size_t)(end - p) - n);
		if (!p)
			break;
		if (memcmp(p + 1, key + 1, n - 1) != 0)
			continue;
		if (p > s && p[-1] != ' ' && p[-1] != ',' && p[-1] != '(')
			continue;
		if (p[n] == '=') {
			v = p + n + 1;
			colon = false;
		} else if (p[n] == ':' && (size_t)(end - p) > n + 1 && p[n + 1] == ' ') {
			v = p + n + 2;
			colon = true;
		} else {
			continue;
		}
		*ret_val = mkstr(v, token_end(v, end));
		if (ret_colon)
			*ret_colon = colon;
		if (ret_next)
			*ret_next = ret_val->s + ret_val->len;
		return true;
	}
	return false;
}

static int arg_u64(const char *s, const char *end, const char *key, uint64_t *ret,
		   const char **next)
{
	struct ktrace_str v;
	bool colon;

	if (!find_arg(s, end, key, &v, &colon, next))
		return -ENOENT;
	if (colon)
		return num_u64(v.s, v.s + v.len, 16, ret);
	return num_auto(v.s, v.s + v.len, ret);
}

void ktrace_sym_split(const char *s, size_t len, struct ktrace_sym *ret)
{
	const char *end = rtrim(s, s + len), *p, *br;

	s = skip_spaces(s, end);
	memset(ret, 0, sizeof(*ret));
	ret->text = mkstr(s, end);
	ret->module = mkstr(end, end);
	/* %pS appends " [module]" for module text */
	if (end > s && end[-1] == ']') {
		br = rfind(s, end, " [");
		if (br) {
			ret->module = mkstr(br + 2, end - 1);
			end = br;
		}
	}
	for (p = s; p < end; p++)
		if (*p == '+' || *p == ' ' || *p == '(')
			break;
	ret->sym = mkstr(s, p);
}

/* --- the context columns ---------------------------------------------------------- */

/* "SECONDS[.FRACTION]" followed by ':' */
static int parse_timestamp(const char *s, const char *end, struct ktrace_event *ev)
{
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t sec, frac = 0;
	unsigned int digits = 0, i;

	if (dot) {
		if (num_u64(s, dot, 10, &sec) < 0 || !is_digit(*s))
			return -EINVAL;
		digits = (unsigned int)(end - dot - 1);
		if (digits == 0 || digits > 9 || num_u64(dot + 1, end, 10, &frac) < 0 ||
		    !is_digit(dot[1]))
			return -EINVAL;
		if (sec > UINT64_MAX / 1000000000ull - 1)
			return -ERANGE;
		for (i = digits; i < 9; i++)
			frac *= 10;
		ev->ts_ns = sec * 1000000000ull + frac;
		ev->ts = (double)sec + (double)frac / 1e9;
	} else {
		/* counter clocks (trace_clock=counter, x86-tsc) print a bare "%12llu" */
		if (!is_digit(*s) || num_u64(s, end, 10, &sec) < 0)
			return -EINVAL;
		ev->ts_ns = sec;
		ev->ts = (double)sec;
	}
	ev->ts_digits = digits;
	return 0;
}

/*
 * From just past the dash of "comm-PID": "PID +[(TGID) +][CPU] +[FLAGS +]TS:".
 * Returns the start of the body, or NULL.
 */
static const char *parse_after_comm(const char *p, const char *end,
				    struct ktrace_event *ev)
{
	const char *q = p, *tok, *tend;

	while (q < end && is_digit(*q))
		q++;
	if (q == p || q >= end || *q != ' ' || num_int(p, q, &ev->pid) < 0)
		return NULL;
	q = skip_spaces(q, end);
	ev->tgid = -1;
	if (q < end && *q == '(') {
		/* record-tgid: "(%7d) ", or "(-------) " when the tgid is not known */
		const char *t;

		q = skip_spaces(q + 1, end);
		t = q;
		if (q < end && *q == '-') {
			while (q < end && *q == '-')
				q++;
		} else {
			while (q < end && is_digit(*q))
				q++;
			if (num_int(t, q, &ev->tgid) < 0)
				return NULL;
		}
		if (q >= end || *q != ')')
			return NULL;
		q = skip_spaces(q + 1, end);
	}
	if (q >= end || *q != '[')
		return NULL;
	tok = ++q;
	while (q < end && is_digit(*q))
		q++;
	{
		uint64_t cpu;

		if (q >= end || *q != ']' || num_u64(tok, q, 10, &cpu) < 0 ||
		    cpu > 1u << 20)
			return NULL;
		ev->cpu = (unsigned int)cpu;
	}
	q++;
	if (q >= end || *q != ' ')
		return NULL;
	q = skip_spaces(q, end);
	tok = q;
	while (q < end && *q != ' ')
		q++;
	tend = q;
	ev->flags = mkstr(tok, tok);
	if (tend == tok)
		return NULL;
	if (tend[-1] != ':') {
		/* irq-info flags: 4 characters before 5.x, 5 with migrate-disable */
		if (tend - tok > 8)
			return NULL;
		ev->flags = mkstr(tok, tend);
		q = skip_spaces(q, end);
		tok = q;
		while (q < end && *q != ' ')
			q++;
		tend = q;
		if (tend == tok || tend[-1] != ':')
			return NULL;
	}
	if (parse_timestamp(tok, tend - 1, ev) < 0)
		return NULL;
	/* "TS: body": exactly one space after the colon */
	if (q < end && *q == ' ')
		q++;
	return q;
}

/*
 * The comm is printed "%16s" and may hold spaces and dashes, so the PID is the last
 * "-digits" within 16 bytes of the comm's start after which the rest of the context
 * parses. Trying from the right also keeps a dash inside the comm ("kworker/u8:1-32",
 * "a-1") from being taken for the separator.
 */
static const char *parse_context(const char *line, const char *end,
				 struct ktrace_event *ev)
{
	const char *s = skip_spaces(line, end), *d, *last;
	size_t span = (size_t)(end - s);

	if (span == 0)
		return NULL;
	last = s + (span > COMM_MAX ? COMM_MAX : span - 1);
	for (d = last;; d--) {
		if (*d == '-') {
			const char *body = parse_after_comm(d + 1, end, ev);

			if (body) {
				ev->comm = mkstr(s, d);
				return body;
			}
		}
		if (d == s)
			break;
	}
	return NULL;
}

/* --- event bodies ----------------------------------------------------------------- */

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '_' || c == '.' || c == '/' || c == '+' || c == '-';
}

static int decode_module_request(struct ktrace_event *ev, const char *f, const char *end,
				 const char **what)
{
	struct ktrace_module_request *r = &ev->module_request;
	const char *w, *cs, *v;

	/* "%s wait=%d call_site=%ps": the alias comes first, so search from the right */
	end = rtrim(f, end);
	w = rfind(f, end, " wait=");
	if (!w || w == f) {
		*what = request_without_wait;
		return -EINVAL;
	}
	r->name = mkstr(f, w);
	v = w + 6;
	cs = find(v, end, " call_site=");
	if (!cs) {
		*what = "module_request without call_site=";
		return -EINVAL;
	}
	if (cs - v != 1 || (*v != '0' && *v != '1')) {
		*what = "module_request wait= is not 0 or 1";
		return -EINVAL;
	}
	r->wait = *v == '1';
	ktrace_sym_split(cs + 11, (size_t)(end - cs - 11), &r->call_site);
	return 0;
}

static int decode_module_load(struct ktrace_event *ev, const char *f, const char *end,
			      const char **what)
{
	struct ktrace_module_load *m = &ev->module_load;
	const char *sp;

	/* "%s %s": name, then taint letters; untainted loads end in "name " */
	end = rtrim(f, end);
	/* end >= f always; the test tells gcc 12 so (-Wstringop-overread otherwise) */
	sp = end > f ? memchr(f, ' ', (size_t)(end - f)) : NULL;
	m->name = mkstr(f, sp ? sp : end);
	m->taints = sp ? mkstr(skip_spaces(sp, end), end) : mkstr(end, end);
	if (m->name.len == 0) {
		*what = "module event without a module name";
		return -EINVAL;
	}
	if (ev->kind == KTRACE_EV_MODULE_FREE && sp) {
		*what = "module_free with text after the name";
		return -EINVAL;
	}
	return 0;
}

static int decode_module_refcnt(struct ktrace_event *ev, const char *f, const char *end,
				const char **what)
{
	struct ktrace_module_refcnt *m = &ev->module_refcnt;
	const char *cs, *rc;

	/* "%s call_site=%ps refcnt=%d" */
	end = rtrim(f, end);
	cs = find(f, end, " call_site=");
	rc = rfind(f, end, " refcnt=");
	if (!cs || cs == f || !rc || rc < cs) {
		*what = "module_get/put without name, call_site= or refcnt=";
		return -EINVAL;
	}
	m->name = mkstr(f, cs);
	ktrace_sym_split(cs + 11, (size_t)(rc - cs - 11), &m->call_site);
	if (num_int(rc + 8, end, &m->refcnt) < 0) {
		*what = "module_get/put refcnt= is not a number";
		return -EINVAL;
	}
	return 0;
}

/* "0xfffffffffffffff8" (tracefs, trace-cmd), "-8" or "18446744073709551608" (raw) */
static int decode_ret(const char *s, const char *end, int64_t *ret)
{
	uint64_t v;

	end = rtrim(s, end);
	s = skip_spaces(s, end);
	if (s < end && *s == '-')
		return num_i64(s, end, ret);
	if (num_auto(s, end, &v) < 0)
		return -EINVAL;
	/* unsigned long of a negative long; a 32-bit kernel prints 8 hex digits */
	if (v > (uint64_t)INT64_MAX)
		*ret = (int64_t)(v - UINT64_MAX - 1);
	else if (v <= UINT32_MAX && v >= UINT32_MAX - 4094)
		*ret = (int64_t)v - ((int64_t)UINT32_MAX + 1);
	else
		*ret = (int64_t)v;
	return 0;
}

static int decode_sys_exit(struct ktrace_event *ev, const char *f, const char *end,
			   const char **what)
{
	struct ktrace_str v;

	/* raw output (trace-cmd -R, perf) has "__syscall_nr=313 ret=-17" */
	if (find_arg(f, end, "ret", &v, NULL, NULL)) {
		f = v.s;
		end = v.s + v.len;
	}
	if (decode_ret(f, end, &ev->sys_exit.ret) < 0) {
		*what = "syscall return value is not a number";
		return -EINVAL;
	}
	return 0;
}

static int decode_sys_enter(struct ktrace_event *ev, const char *f, const char *end,
			    const char **what)
{
	const char *p = f;
	uint64_t v = 0;
	int r;

	/* in argument order, each search going on after the previous value */
	switch (ev->kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
		r = arg_u64(p, end, "fd", &v, &p);
		ev->finit_module.fd = (int)(uint32_t)v;
		if (r >= 0)
			r = arg_u64(p, end, "uargs", &ev->finit_module.uargs, &p);
		if (r >= 0)
			r = arg_u64(p, end, "flags", &v, &p);
		ev->finit_module.flags = (unsigned int)v;
		break;
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
		r = arg_u64(p, end, "umod", &ev->init_module.umod, &p);
		if (r >= 0)
			r = arg_u64(p, end, "len", &ev->init_module.len, &p);
		if (r >= 0)
			r = arg_u64(p, end, "uargs", &ev->init_module.uargs, &p);
		break;
	default:
		r = arg_u64(p, end, "name_user", &ev->delete_module.name_user, &p);
		if (r >= 0)
			r = arg_u64(p, end, "flags", &v, &p);
		ev->delete_module.flags = (unsigned int)v;
		break;
	}
	if (r == -ENOENT) {
		*what = "syscall entry is missing an argument";
		return -EINVAL;
	}
	if (r < 0) {
		*what = "syscall argument is not a hex number";
		return -EINVAL;
	}
	return 0;
}

static int decode_sched_fork(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	struct ktrace_sched_fork *k = &ev->fork;
	const char *cc, *pid, *cpid;

	/* "comm=%s pid=%d child_comm=%s child_pid=%d"; comms may hold spaces */
	end = rtrim(f, end);
	cc = find(f, end, " child_comm=");
	if (!starts_with(f, end, "comm=") || !cc)
		goto bad;
	pid = rfind(f, cc, " pid=");
	cpid = rfind(cc, end, " child_pid=");
	if (!pid || !cpid)
		goto bad;
	k->comm = mkstr(f + 5, pid);
	k->child_comm = mkstr(cc + 12, cpid);
	if (num_int(pid + 5, cc, &k->pid) < 0 ||
	    num_int(cpid + 11, end, &k->child_pid) < 0)
		goto bad;
	return 0;
bad:
	*what = "malformed sched_process_fork fields";
	return -EINVAL;
}

static int decode_sched_exec(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	struct ktrace_sched_exec *x = &ev->exec;
	const char *pid, *old;

	/* "filename=%s pid=%d old_pid=%d" */
	end = rtrim(f, end);
	old = rfind(f, end, " old_pid=");
	if (!starts_with(f, end, "filename=") || !old)
		goto bad;
	pid = rfind(f, old, " pid=");
	if (!pid)
		goto bad;
	x->filename = mkstr(f + 9, pid);
	if (num_int(pid + 5, old, &x->pid) < 0 || num_int(old + 9, end, &x->old_pid) < 0)
		goto bad;
	return 0;
bad:
	*what = "malformed sched_process_exec fields";
	return -EINVAL;
}

static int decode_sched_exit(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	struct ktrace_sched_exit *x = &ev->exit;
	const char *pid, *prio;

	/* "comm=%s pid=%d prio=%d", 6.10+ " group_dead=%s" after it; comm may hold spaces */
	end = rtrim(f, end);
	prio = rfind(f, end, " prio=");
	if (!starts_with(f, end, "comm=") || !prio)
		goto bad;
	pid = rfind(f, prio, " pid=");
	if (!pid)
		goto bad;
	x->comm = mkstr(f + 5, pid);
	if (num_int(pid + 5, prio, &x->pid) < 0)
		goto bad;
	return 0;
bad:
	*what = "malformed sched_process_exit fields";
	return -EINVAL;
}

static int decode_task_rename(struct ktrace_event *ev, const char *f, const char *end,
			      const char **what)
{
	struct ktrace_task_rename *t = &ev->rename;
	const char *oc, *ov, *nc, *oa;

	/*
	 * "pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd"; 6.13 dropped "pid=" (it is
	 * always the current task). Comms may hold spaces and "=".
	 */
	end = rtrim(f, end);
	oa = rfind(f, end, " oom_score_adj=");
	if (!oa)
		oa = end;
	t->pid = ev->pid;
	if (starts_with(f, end, "oldcomm=")) {
		ov = f + 8;
	} else {
		oc = find(f, end, " oldcomm=");
		if (!oc || !starts_with(f, end, "pid=") || num_int(f + 4, oc, &t->pid) < 0)
			goto bad;
		ov = oc + 9;
	}
	/* as for sched_process_fork: the new name, the one that counts, may hold anything */
	nc = find(ov, oa, " newcomm=");
	if (!nc)
		goto bad;
	t->oldcomm = mkstr(ov, nc);
	t->newcomm = mkstr(nc + 9, oa);
	return 0;
bad:
	*what = "malformed task_rename fields";
	return -EINVAL;
}

static void decode_marker(struct ktrace_event *ev, const char *f, const char *end)
{
	struct ktrace_marker *m = &ev->marker;

	m->text = mkstr(f, end);
	m->step = mkstr(end, end);
	if (starts_with(f, end, "STEP "))
		m->step = mkstr(skip_spaces(f + 5, end), rtrim(f + 5, end));
}


/*
 * No vmap area is larger than the kernel half of a 57-bit (5-level paging) address
 * space: a bigger size is a damaged line, and would wrap the sums it goes into.
 */
static bool vmap_size_possible(uint64_t size)
{
	return size <= UINT64_C(1) << 56;
}

void ktrace_marker_set(struct ktrace_event *ev, const char *text, size_t len)
{
	ev->kind = KTRACE_EV_MARKER;
	decode_marker(ev, text, text + len);
}

bool ktrace_vmap_size_possible(uint64_t size)
{
	return vmap_size_possible(size);
}

static int decode_vmap_alloc(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	struct ktrace_vmap_alloc *a = &ev->vmap_alloc;
	uint64_t failed;

	/* "va_start: %lu size=%lu align=%lu vstart=0x%lx vend=0x%lx failed=%d" (6.2+) */
	if (!starts_with(f, end, "va_start: ") && !starts_with(f, end, "va_start=")) {
		*what = "alloc_vmap_area without va_start";
		return -EINVAL;
	}
	{
		const char *v = skip_spaces(f + 9, end);

		if (num_auto(v, token_end(v, end), &a->addr) < 0)
			goto bad;
	}
	if (arg_u64(f, end, "size", &a->size, NULL) < 0 ||
	    arg_u64(f, end, "align", &a->align, NULL) < 0 ||
	    arg_u64(f, end, "vstart", &a->vstart, NULL) < 0 ||
	    arg_u64(f, end, "vend", &a->vend, NULL) < 0 ||
	    arg_u64(f, end, "failed", &failed, NULL) < 0 || failed > 1)
		goto bad;
	a->failed = failed;
	a->has_result = a->has_align = a->has_range = true;
	/* an area that got its space fits in the range it was asked in */
	if (!vmap_size_possible(a->size) ||
	    (!a->failed && (a->vend < a->vstart || a->size > a->vend - a->vstart))) {
		*what = "alloc_vmap_area size larger than its range";
		return -EINVAL;
	}
	return 0;
bad:
	*what = "malformed alloc_vmap_area fields";
	return -EINVAL;
}

static int decode_vmap_free(struct ktrace_event *ev, const char *f, const char *end,
			    const char **what)
{
	struct ktrace_vmap_free *v = &ev->vmap_free;

	/* "va_start=0x%lx nr_lazy=%lu nr_lazy_max=%lu" */
	if (arg_u64(f, end, "va_start", &v->addr, NULL) < 0 ||
	    arg_u64(f, end, "nr_lazy", &v->nr_lazy, NULL) < 0 ||
	    arg_u64(f, end, "nr_lazy_max", &v->nr_lazy_max, NULL) < 0) {
		*what = "malformed free_vmap_area_noflush fields";
		return -EINVAL;
	}
	return 0;
}

static int decode_vmap_purge(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	struct ktrace_vmap_purge *v = &ev->vmap_purge;
	uint64_t n;

	/* "start=0x%lx end=0x%lx num_purged=%u" */
	if (arg_u64(f, end, "start", &v->start, NULL) < 0 ||
	    arg_u64(f, end, "end", &v->end, NULL) < 0 ||
	    arg_u64(f, end, "num_purged", &n, NULL) < 0 || n > UINT32_MAX) {
		*what = "malformed purge_vmap_area_lazy fields";
		return -EINVAL;
	}
	v->npurged = (unsigned int)n;
	return 0;
}

/*
 * Probe events print "(%pS) args" ("(sym+0x0/0x880) size=20480"); kretprobes
 * "(caller+0x../0x.. <- func) args"; trace-cmd may show the bare address.
 */
static int decode_kprobe(struct ktrace_event *ev, const char *f, const char *end,
			 const char **what)
{
	struct ktrace_kprobe *k = &ev->kprobe;
	const char *close = memchr(f, ')', (size_t)(end - f)), *in = f + 1, *ret;
	bool is_return;

	if (!close) {
		*what = "probe event without a closing parenthesis";
		return -EINVAL;
	}
	ev->kind = KTRACE_EV_KPROBE;
	ret = find(in, close, " <- ");
	is_return = ret != NULL;
	if (ret)
		in = ret + 4;
	ktrace_sym_split(in, (size_t)(close - in), &k->probe);
	k->args = mkstr(skip_spaces(close + 1, end), rtrim(close + 1, end));
	if (is_return)
		return 0;
	if (str_is(k->probe.sym, "alloc_vmap_area") ||
	    find(ev->name.s, ev->name.s + ev->name.len, "alloc_vmap_area")) {
		struct ktrace_vmap_alloc a = {0};
		const char *as = k->args.s, *ae = k->args.s + k->args.len;
		int r;

		/* only what the probe definition fetched: size at least (size=%si:u64) */
		r = arg_u64(as, ae, "size", &a.size, NULL);
		if (r < 0) {
			if (r == -ENOENT)
				*what = "alloc_vmap_area probe without size=";
			else
				*what = "alloc_vmap_area probe size= is not a number";
			return -EINVAL;
		}
		if (!vmap_size_possible(a.size)) {
			*what = "alloc_vmap_area probe size= too large";
			return -EINVAL;
		}
		a.has_align = arg_u64(as, ae, "align", &a.align, NULL) >= 0;
		a.has_range = arg_u64(as, ae, "vstart", &a.vstart, NULL) >= 0 &&
			      arg_u64(as, ae, "vend", &a.vend, NULL) >= 0;
		ev->kind = KTRACE_EV_ALLOC_VMAP_AREA_KPROBE;
		ev->vmap_alloc = a;
	}
	return 0;
}

/*
 * "key=\"text\"" as the kernel prints a :string fetch arg, at the end of the fields:
 * the text runs to the last quote of the line, so a file name holding quotes or
 * "key=" cannot shift what comes before it. -ENOENT when absent, -EINVAL when the
 * kernel could not fetch it ("key=(fault)").
 */
static int arg_last_string(const char *s, const char *end, const char *key,
			   struct ktrace_str *ret, const char **ret_start)
{
	struct ktrace_str v;
	const char *q;

	if (!find_arg(s, end, key, &v, NULL, NULL))
		return -ENOENT;
	if (v.len == 0 || v.s[0] != '"')
		return -EINVAL;
	end = rtrim(v.s, end);
	q = end - 1;
	if (q <= v.s || *q != '"')
		return -EINVAL;
	*ret = mkstr(v.s + 1, q);
	if (ret_start)
		*ret_start = v.s - strlen(key) - 1;
	return 0;
}

/* after the "(sym+0x4/0x330)" or "(ffffffff8b0b2474)" of a probe event */
static const char *probe_fields(const char *f, const char *end)
{
	const char *close;

	f = skip_spaces(f, end);
	if (f >= end || *f != '(')
		return NULL;
	close = memchr(f, ')', (size_t)(end - f));
	return close ? skip_spaces(close + 1, end) : NULL;
}

static int decode_probe_kread(struct ktrace_event *ev, const char *f, const char *end,
			      const char **what)
{
	struct ktrace_probe_kread *k = &ev->probe_kread;
	const char *a = probe_fields(f, end), *path_at = end;
	uint64_t v;
	int r;

	if (!a) {
		*what = "kmodtop_kread without its probe location";
		return -EINVAL;
	}
	k->id = -1;
	k->path = mkstr(end, end);
	r = arg_last_string(a, end, "path", &k->path, &path_at);
	if (r == -EINVAL)
		k->path = mkstr(end, end);
	/* the numbers come before the string: never read them out of a file name */
	if (arg_u64(a, path_at, "size", &v, NULL) < 0 || v > INT64_MAX) {
		*what = "kmodtop_kread size= missing or not a size";
		return -EINVAL;
	}
	k->size = (int64_t)v;
	{
		struct ktrace_str idv;

		if (find_arg(a, path_at, "id", &idv, NULL, NULL) &&
		    num_i64(idv.s, idv.s + idv.len, &k->id) < 0) {
			*what = "kmodtop_kread id= is not a number";
			return -EINVAL;
		}
	}
	return 0;
}

static int decode_probe_name(struct ktrace_event *ev, const char *f, const char *end,
			     const char **what)
{
	const char *a = probe_fields(f, end);

	if (!a || arg_last_string(a, end, "name", &ev->probe_name.name, NULL) < 0 ||
	    !ev->probe_name.name.len) {
		*what = "kmodtop_name without a name=\"...\"";
		return -EINVAL;
	}
	return 0;
}

static int decode_probe_layout(struct ktrace_event *ev, const char *f, const char *end,
			       const char **what)
{
	const char *a = probe_fields(f, end);

	if (!a || arg_u64(a, end, "size", &ev->probe_layout.size, NULL) < 0 ||
	    !ktrace_vmap_size_possible(ev->probe_layout.size)) {
		*what = "kmodtop_layout size= missing or not a size";
		return -EINVAL;
	}
	return 0;
}

static const struct {
	const char *name;
	enum ktrace_event_kind kind;
} event_names[] = {
	{ "kmodtop_kread", KTRACE_EV_PROBE_KREAD },
	{ "kmodtop_name", KTRACE_EV_PROBE_NAME },
	{ "kmodtop_layout", KTRACE_EV_PROBE_LAYOUT },
	{ "module_request", KTRACE_EV_MODULE_REQUEST },
	{ "module_load", KTRACE_EV_MODULE_LOAD },
	{ "module_free", KTRACE_EV_MODULE_FREE },
	{ "module_get", KTRACE_EV_MODULE_GET },
	{ "module_put", KTRACE_EV_MODULE_PUT },
	{ "sys_enter_finit_module", KTRACE_EV_SYS_ENTER_FINIT_MODULE },
	{ "sys_exit_finit_module", KTRACE_EV_SYS_EXIT_FINIT_MODULE },
	{ "sys_enter_init_module", KTRACE_EV_SYS_ENTER_INIT_MODULE },
	{ "sys_exit_init_module", KTRACE_EV_SYS_EXIT_INIT_MODULE },
	{ "sys_enter_delete_module", KTRACE_EV_SYS_ENTER_DELETE_MODULE },
	{ "sys_exit_delete_module", KTRACE_EV_SYS_EXIT_DELETE_MODULE },
	{ "sched_process_fork", KTRACE_EV_SCHED_PROCESS_FORK },
	{ "sched_process_exec", KTRACE_EV_SCHED_PROCESS_EXEC },
	{ "sched_process_exit", KTRACE_EV_SCHED_PROCESS_EXIT },
	{ "task_rename", KTRACE_EV_TASK_RENAME },
	{ "tracing_mark_write", KTRACE_EV_MARKER },
	{ "alloc_vmap_area", KTRACE_EV_ALLOC_VMAP_AREA },
	{ "free_vmap_area_noflush", KTRACE_EV_FREE_VMAP_AREA_NOFLUSH },
	{ "purge_vmap_area_lazy", KTRACE_EV_PURGE_VMAP_AREA_LAZY },
};

/* tracefs names the syscall, not the event: "sys_finit_module(", "sys_finit_module ->" */
static const struct {
	const char *name;
	enum ktrace_event_kind enter, exit;
} syscall_names[] = {
	{ "sys_finit_module", KTRACE_EV_SYS_ENTER_FINIT_MODULE,
	  KTRACE_EV_SYS_EXIT_FINIT_MODULE },
	{ "sys_init_module", KTRACE_EV_SYS_ENTER_INIT_MODULE,
	  KTRACE_EV_SYS_EXIT_INIT_MODULE },
	{ "sys_delete_module", KTRACE_EV_SYS_ENTER_DELETE_MODULE,
	  KTRACE_EV_SYS_EXIT_DELETE_MODULE },
};

static int decode_fields(struct ktrace_event *ev, const char *f, const char *end,
			 const char **what)
{
	switch (ev->kind) {
	case KTRACE_EV_MODULE_REQUEST:
		return decode_module_request(ev, f, end, what);
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		return decode_module_load(ev, f, end, what);
	case KTRACE_EV_MODULE_GET:
	case KTRACE_EV_MODULE_PUT:
		return decode_module_refcnt(ev, f, end, what);
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
	case KTRACE_EV_SYS_ENTER_DELETE_MODULE:
		return decode_sys_enter(ev, f, end, what);
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
	case KTRACE_EV_SYS_EXIT_DELETE_MODULE:
		return decode_sys_exit(ev, f, end, what);
	case KTRACE_EV_SCHED_PROCESS_FORK:
		return decode_sched_fork(ev, f, end, what);
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		return decode_sched_exec(ev, f, end, what);
	case KTRACE_EV_SCHED_PROCESS_EXIT:
		return decode_sched_exit(ev, f, end, what);
	case KTRACE_EV_TASK_RENAME:
		return decode_task_rename(ev, f, end, what);
	case KTRACE_EV_MARKER:
		decode_marker(ev, f, end);
		return 0;
	case KTRACE_EV_ALLOC_VMAP_AREA:
		if (f < end && *f == '(')
			return decode_kprobe(ev, f, end, what);
		return decode_vmap_alloc(ev, f, end, what);
	case KTRACE_EV_FREE_VMAP_AREA_NOFLUSH:
		return decode_vmap_free(ev, f, end, what);
	case KTRACE_EV_PURGE_VMAP_AREA_LAZY:
		return decode_vmap_purge(ev, f, end, what);
	case KTRACE_EV_PROBE_KREAD:
		return decode_probe_kread(ev, f, end, what);
	case KTRACE_EV_PROBE_NAME:
		return decode_probe_name(ev, f, end, what);
	case KTRACE_EV_PROBE_LAYOUT:
		return decode_probe_layout(ev, f, end, what);
	case KTRACE_EV_UNKNOWN:
		if (f < end && *f == '(' && memchr(f, ')', (size_t)(end - f))) {
			ev->kind = KTRACE_EV_KPROBE;
			return decode_kprobe(ev, f, end, what);
		}
		return 0;
	default:
		return 0;
	}
}

static int parse_body(const char *b, const char *end, struct ktrace_event *ev,
		      const char **what)
{
	const char *n = b, *after;
	struct ktrace_str name;
	size_t i;

	ev->format = KTRACE_FMT_EITHER;
	if (starts_with(b, end, "<stack trace>") ||
	    starts_with(b, end, "<user stack trace>")) {
		ev->kind = KTRACE_EV_STACK;
		ev->format = KTRACE_FMT_TRACE;
		ev->user_stack = b[1] == 'u';
		ev->name = mkstr(b, rtrim(b, end));
		return 0;
	}
	/* names may carry "system:" ("module:module_load: x"); a ':' + space ends them */
	while (n < end &&
	       (is_name_char(*n) || (*n == ':' && n + 1 < end && is_name_char(n[1]))))
		n++;
	name = mkstr(b, n);
	after = n;

	for (i = 0; i < ARRAY_SIZE(syscall_names) && name.len; i++) {
		if (!str_is(name, syscall_names[i].name))
			continue;
		if (after < end && *after == '(') {
			const char *close = end;

			while (close > after && close[-1] != ')')
				close--;
			if (close == after) {
				*what = "syscall entry without a closing parenthesis";
				return -EINVAL;
			}
			ev->kind = syscall_names[i].enter;
			ev->format = KTRACE_FMT_TRACE;
			ev->name = name;
			ev->fields = mkstr(after + 1, close - 1);
			return decode_sys_enter(ev, after + 1, close - 1, what);
		}
		if (starts_with(after, end, " -> ")) {
			ev->kind = syscall_names[i].exit;
			ev->format = KTRACE_FMT_TRACE;
			ev->name = name;
			ev->fields = mkstr(after + 4, end);
			return decode_sys_exit(ev, after + 4, end, what);
		}
	}

	if (name.len == 0 || after >= end || *after != ':' ||
	    (after + 1 < end && after[1] != ' ')) {
		/* function tracer lines ("fn <-parent"), trace_printk text: kept raw */
		ev->kind = KTRACE_EV_UNKNOWN;
		ev->name = mkstr(b, b);
		ev->fields = mkstr(b, end);
		return 0;
	}

	ev->name = name;
	{
		const char *colon = memrchr(name.s, ':', name.len);

		if (colon) {
			ev->system = mkstr(name.s, colon);
			ev->name = mkstr(colon + 1, name.s + name.len);
		}
	}
	after++;
	/* tracefs prints one space; trace-cmd pads the name to 20 columns */
	if (after + 1 < end && after[0] == ' ' && after[1] == ' ')
		ev->format = KTRACE_FMT_TRACE_CMD;
	if (after < end && *after == ' ')
		after++;

	ev->kind = KTRACE_EV_UNKNOWN;
	for (i = 0; i < ARRAY_SIZE(event_names); i++)
		if (str_is(ev->name, event_names[i].name)) {
			ev->kind = event_names[i].kind;
			break;
		}
	/* the marker is the ip symbol, "tracing_mark_write+0x5c/0xa0" with sym-offset */
	if (starts_with(ev->name.s, ev->name.s + ev->name.len, "tracing_mark_write+"))
		ev->kind = KTRACE_EV_MARKER;
	if (ev->kind == KTRACE_EV_MARKER) {
		ev->format = KTRACE_FMT_TRACE;
	} else {
		after = skip_spaces(after, end);
		if (ev->kind >= KTRACE_EV_SYS_ENTER_FINIT_MODULE &&
		    ev->kind <= KTRACE_EV_SYS_EXIT_DELETE_MODULE)
			ev->format = KTRACE_FMT_TRACE_CMD;
	}

	if (str_is(ev->name, "kernel_stack") || str_is(ev->name, "user_stack")) {
		/* trace-cmd: "kernel_stack:         <stack trace >" */
		ev->kind = KTRACE_EV_STACK;
		ev->format = KTRACE_FMT_TRACE_CMD;
		ev->user_stack = ev->name.s[0] == 'u';
		ev->fields = mkstr(after, end);
		return 0;
	}
	if (str_is(ev->name, "print")) {
		/* trace-cmd shows ftrace:print as "print: tracing_mark_write: text" */
		const char *sep = find(after, end, ": ");

		ev->format = KTRACE_FMT_TRACE_CMD;
		if (sep) {
			ev->kind = KTRACE_EV_MARKER;
			ev->fields = mkstr(after, end);
			decode_marker(ev, sep + 2, end);
			return 0;
		}
	}
	ev->fields = mkstr(after, end);
	return decode_fields(ev, after, end, what);
}

/*
 * "CPU:%d [LOST %lu EVENTS]" and, when the ring buffer iterator only knows that the
 * writer passed it, "CPU:%d [LOST EVENTS]" (kernel/trace/trace.c print_trace_line);
 * "CPU:%d [%lld EVENTS DROPPED]" and "[EVENTS DROPPED]" (trace-cmd).
 */
static int parse_cpu_line(const char *s, const char *end, struct ktrace_line *l,
			  const char **what)
{
	const char *p = s + 4, *q = p, *b;
	uint64_t v;

	while (q < end && is_digit(*q))
		q++;
	if (q == p || num_u64(p, q, 10, &v) < 0 || v > 1u << 20 ||
	    !starts_with(q, end, " ["))
		goto bad;
	l->ev.cpu = (unsigned int)v;
	l->ev.pid = -1;
	l->ev.tgid = -1;
	b = q + 2;
	end = rtrim(b, end);
	if (starts_with(b, end, "SUBBUFFER START]")) {
		l->kind = KTRACE_LINE_HEADER;
		return 0;
	}
	l->kind = KTRACE_LINE_EVENT;
	l->ev.kind = KTRACE_EV_LOST;
	l->ev.fields = mkstr(b, end);
	if (starts_with(b, end, "LOST ")) {
		const char *e = find(b, end, " EVENTS]");

		l->ev.format = KTRACE_FMT_TRACE;
		if (e == b + 4 && e + 8 == end) {
			l->ev.lost.uncounted = true;
			return 0;
		}
		if (!e || num_u64(b + 5, e, 10, &l->ev.lost.count) < 0)
			goto bad;
		return 0;
	}
	l->ev.format = KTRACE_FMT_TRACE_CMD;
	if (starts_with(b, end, "EVENTS DROPPED]")) {
		l->ev.lost.uncounted = true;
		return 0;
	}
	{
		const char *e = find(b, end, " EVENTS DROPPED]");

		if (!e || num_u64(b, e, 10, &l->ev.lost.count) < 0)
			goto bad;
	}
	return 0;
bad:
	*what = "malformed CPU: line";
	return -EINVAL;
}

static void parse_header(const char *s, const char *end, struct ktrace_line *l)
{
	const char *p;
	uint64_t v, w;

	l->kind = KTRACE_LINE_HEADER;
	/* "# entries-in-buffer/entries-written: 1695/1695   #P:2" */
	p = find(s, end, "entries-in-buffer/entries-written: ");
	if (p) {
		const char *a = p + 35, *slash = memchr(a, '/', (size_t)(end - a)), *sp;

		if (slash) {
			sp = slash + 1;
			while (sp < end && is_digit(*sp))
				sp++;
			if (num_u64(a, slash, 10, &v) >= 0 &&
			    num_u64(slash + 1, sp, 10, &w) >= 0 && v <= INT64_MAX &&
			    w <= INT64_MAX) {
				l->entries = (int64_t)v;
				l->written = (int64_t)w;
			}
		}
	}
	p = find(s, end, "#P:");
	if (p)
		p += 3;
	else if (starts_with(s, end, "cpus="))
		p = s + 5;
	if (p) {
		const char *q = p;

		while (q < end && is_digit(*q))
			q++;
		if (num_u64(p, q, 10, &v) >= 0 && v <= 1u << 20)
			l->ncpus = (int)v;
	}
}

int ktrace_parse_line(const char *line, size_t len, struct ktrace_line *ret_line,
		       const char **reterr_what)
{
	struct ktrace_line l = { .ncpus = -1, .entries = -1, .written = -1 };
	const char *end = line + len, *s, *body;
	int r;

	if (len && line[len - 1] == '\r')
		end--;
	if (memchr(line, '\0', (size_t)(end - line))) {
		*reterr_what = "line contains a NUL byte";
		return -EINVAL;
	}
	s = skip_spaces(line, end);
	/* headers start in column 0; a comm can begin with '#' but is padded to 16 */
	if (s == end || line[0] == '#') {
		parse_header(line, end, &l);
		*ret_line = l;
		return 0;
	}
	if (starts_with(line, end, "CPU:")) {
		r = parse_cpu_line(line, end, &l, reterr_what);
		if (r < 0)
			return r;
		*ret_line = l;
		return 0;
	}
	body = parse_context(line, end, &l.ev);
	if (body) {
		l.kind = KTRACE_LINE_EVENT;
		r = parse_body(body, end, &l.ev, reterr_what);
		if (r < 0)
			return r;
		*ret_line = l;
		return 0;
	}
	/* tracefs indents frames (" => fn"), trace-cmd does not ("=> fn (addr)") */
	if (starts_with(s, end, "=> ")) {
		l.kind = KTRACE_LINE_FRAME;
		ktrace_sym_split(s + 3, (size_t)(end - s - 3), &l.frame.fn);
		if (l.frame.fn.text.len == 0) {
			*reterr_what = "empty stack frame";
			return -EINVAL;
		}
		*ret_line = l;
		return 0;
	}
	/* trace-cmd report's first line, and what it logs to stderr around it */
	if (starts_with(line, end, "cpus=") || starts_with(line, end, "version = ") ||
	    (starts_with(line, end, "CPU ") && find(line, end, " is empty"))) {
		parse_header(line, end, &l);
		*ret_line = l;
		return 0;
	}
	*reterr_what = "not a trace line (no TASK-PID [CPU] TIMESTAMP:)";
	return -EINVAL;
}

bool ktrace_line_time(const char *line, size_t len, uint64_t *ret_ns, bool *ret_decoded)
{
	struct ktrace_line l;
	struct ktrace_event ev = { 0 };
	const char *what;

	*ret_decoded = false;
	if (ktrace_parse_line(line, len, &l, &what) == 0) {
		if (l.kind != KTRACE_LINE_EVENT || l.ev.kind == KTRACE_EV_LOST)
			return false;
		*ret_ns = l.ev.ts_ns;
		*ret_decoded = true;
		return true;
	}
	/* a known event whose fields do not decode (a request cut by its name's newline) */
	if (memchr(line, '\0', len) || !parse_context(line, line + len, &ev))
		return false;
	*ret_ns = ev.ts_ns;
	return true;
}

/* --- the push parser ---------------------------------------------------------------- */

struct frame_ref {
	size_t off, len;	/* into pending.fbuf */
	bool user;
};

struct pending {
	char *line;		/* the event line; ev's strings point into it */
	size_t line_cap;
	struct ktrace_event ev;
	unsigned int lineno;
	bool complete;		/* a later event on the same CPU arrived */
	/* known event with bad fields: swallow its stack, emit nothing */
	bool drop;
	struct frame_ref *refs;
	size_t n_refs, refs_cap;
	char *fbuf;
	size_t flen, fcap;
	struct ktrace_frame *frames;
	size_t frames_cap;
};

struct ktrace_parser {
	char *path;
	struct ktrace_parser_ops ops;
	void *userdata;
	struct pending ring[PENDING_MAX];
	size_t head, count;
	/* where " => " lines go: a ring index, or -1 (none yet), or -2 (orphan block) */
	int frame_target;
	bool frame_user;
	unsigned int lineno;
	struct ktrace_stats stats;
	char *scratch;		/* the line being parsed */
	int cpu_last[CPU_LAST_MAX];	/* ring index + 1 of each CPU's latest entry */
	size_t scratch_cap;
	/* a module request whose name ran onto the next lines: its lines so far, joined */
	char *held;
	size_t held_len, held_cap;
	unsigned int held_lineno, held_lines;
};

int ktrace_parser_new(const char *path, const struct ktrace_parser_ops *ops,
		       void *userdata, struct ktrace_parser **ret_parser)
{
	struct ktrace_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->path = strdup(path ? path : "");
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	if (ops)
		p->ops = *ops;
	p->userdata = userdata;
	p->frame_target = -1;
	p->stats.ncpus = -1;
	p->stats.entries = p->stats.written = -1;
	*ret_parser = p;
	return 0;
}

struct ktrace_parser *ktrace_parser_free(struct ktrace_parser *p)
{
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < PENDING_MAX; i++) {
		free(p->ring[i].line);
		free(p->ring[i].refs);
		free(p->ring[i].fbuf);
		free(p->ring[i].frames);
	}
	free(p->scratch);
	free(p->held);
	free(p->path);
	free(p);
	return NULL;
}

const struct ktrace_stats *ktrace_parser_stats(const struct ktrace_parser *p)
{
	return &p->stats;
}

static int release_held(struct ktrace_parser *p);

static void report(struct ktrace_parser *p, unsigned int lineno, const char *what)
{
	struct kt_err err;

	if (!p->ops.bad_line)
		return;
	kt_err_set(&err, p->path, lineno, what);
	p->ops.bad_line(p->userdata, &err);
}

static void bad_line(struct ktrace_parser *p, const char *what)
{
	p->stats.malformed++;
	report(p, p->lineno, what);
}

void ktrace_parser_set_line(struct ktrace_parser *p, unsigned int lineno)
{
	p->lineno = lineno ? lineno - 1 : 0;
}

int ktrace_parser_skip_line(struct ktrace_parser *p, const char *what)
{
	/* the held request goes through first; only -ENOMEM could fail it, and it is lost */
	(void)release_held(p);
	p->lineno++;
	p->stats.lines++;
	p->frame_target = -2;	/* frames after a lost line have lost their event */
	bad_line(p, what);
	return 0;
}

static int emit_head(struct ktrace_parser *p)
{
	struct pending *e = &p->ring[p->head];
	size_t i;
	int r = 0;

	if (p->frame_target == (int)p->head)
		p->frame_target = -2;
	p->head = (p->head + 1) % PENDING_MAX;
	p->count--;
	if (e->drop)
		return 0;

	if (e->n_refs > e->frames_cap) {
		struct ktrace_frame *nf = realloc(e->frames, e->n_refs * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		e->frames = nf;
		e->frames_cap = e->n_refs;
	}
	for (i = 0; i < e->n_refs; i++) {
		ktrace_sym_split(e->fbuf + e->refs[i].off, e->refs[i].len,
				  &e->frames[i].fn);
		e->frames[i].user = e->refs[i].user;
	}
	e->ev.frames = e->n_refs ? e->frames : NULL;
	e->ev.n_frames = e->n_refs;
	/* held back for its stack frames: its own line, not the parser's current one */
	e->ev.line = e->lineno;

	p->stats.events++;
	p->stats.by_kind[e->ev.kind]++;
	if (e->ev.kind == KTRACE_EV_UNKNOWN)
		p->stats.unknown++;
	if (e->ev.kind == KTRACE_EV_LOST) {
		p->stats.lost_events += e->ev.lost.count;
		p->stats.lost_uncounted += e->ev.lost.uncounted;
	}
	if (p->ops.event)
		r = p->ops.event(p->userdata, &e->ev);
	return r < 0 ? r : 0;
}

/* Takes the line into p->scratch, where it is parsed once and, if queued, kept. */
static int take_line(struct ktrace_parser *p, const char *line, size_t len)
{
	if (len + 1 > p->scratch_cap) {
		char *nl = realloc(p->scratch, len + 1);

		if (!nl)
			return -ENOMEM;
		p->scratch = nl;
		p->scratch_cap = len + 1;
	}
	memcpy(p->scratch, line, len);
	p->scratch[len] = '\0';
	return 0;
}

/*
 * Queues an event parsed from p->scratch: the scratch buffer becomes the entry's line
 * (the entry's old buffer the next scratch), so the record outlives the caller's line
 * without a second parse. A @drop entry (known event, bad fields) only has its context,
 * to swallow the stack frames that follow it.
 */
static int queue_event(struct ktrace_parser *p, const struct ktrace_event *ev, bool drop)
{
	struct pending *e;
	size_t idx, i, cap;
	char *buf;
	int r = 0;

	if (p->count == PENDING_MAX)
		r = emit_head(p);
	idx = (p->head + p->count) % PENDING_MAX;
	e = &p->ring[idx];
	buf = e->line;
	cap = e->line_cap;
	e->line = p->scratch;
	e->line_cap = p->scratch_cap;
	p->scratch = buf;
	p->scratch_cap = cap;
	e->ev = *ev;
	e->lineno = p->lineno;
	e->complete = e->ev.kind == KTRACE_EV_LOST;
	e->drop = drop;
	e->n_refs = 0;
	e->flen = 0;

	/*
	 * A new event ends the previous one's chance to get a stack on this CPU. Only the
	 * CPU's latest entry can still be waiting; below CPU_LAST_MAX it is remembered, so
	 * a ring full of other CPUs' events is not searched.
	 */
	if (e->ev.cpu < CPU_LAST_MAX) {
		int j = p->cpu_last[e->ev.cpu] - 1;

		if (j >= 0 && (size_t)j != idx &&
		    ((size_t)j + PENDING_MAX - p->head) % PENDING_MAX < p->count &&
		    p->ring[j].ev.cpu == e->ev.cpu)
			p->ring[j].complete = true;
		p->cpu_last[e->ev.cpu] = (int)idx + 1;
	} else {
		for (i = 0; i < p->count; i++) {
			struct pending *o = &p->ring[(p->head + i) % PENDING_MAX];

			if (o->ev.cpu == e->ev.cpu)
				o->complete = true;
		}
	}
	p->count++;
	p->frame_target = -1;
	return r;
}

static int flush_complete(struct ktrace_parser *p)
{
	int r = 0, k;

	while (p->count && p->ring[p->head].complete) {
		k = emit_head(p);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

static void attach_stack(struct ktrace_parser *p, const struct ktrace_event *st)
{
	size_t i;

	p->frame_user = st->user_stack;
	for (i = p->count; i-- > 0;) {
		size_t idx = (p->head + i) % PENDING_MAX;
		struct pending *o = &p->ring[idx];

		if (o->ev.cpu != st->cpu || o->ev.kind == KTRACE_EV_LOST)
			continue;
		if (o->complete || o->ev.pid != st->pid)
			break;
		p->frame_target = (int)idx;
		if (!o->drop)
			p->stats.stacks++;
		return;
	}
	p->frame_target = -2;
	p->stats.orphan_stacks++;
	report(p, p->lineno, "stack trace with no event before it on its CPU");
}

static int add_frame(struct ktrace_parser *p, const struct ktrace_frame *fr)
{
	struct pending *e = &p->ring[p->frame_target];
	size_t len = fr->fn.text.len;

	if (e->drop)
		return 0;
	if (e->n_refs == e->refs_cap) {
		size_t ncap = e->refs_cap ? e->refs_cap * 2 : 16;
		struct frame_ref *nr = realloc(e->refs, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		e->refs = nr;
		e->refs_cap = ncap;
	}
	if (e->flen + len > e->fcap) {
		size_t ncap = e->fcap ? e->fcap : 256;
		char *nb;

		while (ncap < e->flen + len)
			ncap *= 2;
		nb = realloc(e->fbuf, ncap);
		if (!nb)
			return -ENOMEM;
		e->fbuf = nb;
		e->fcap = ncap;
	}
	memcpy(e->fbuf + e->flen, fr->fn.text.s, len);
	e->refs[e->n_refs].off = e->flen;
	e->refs[e->n_refs].len = len;
	e->refs[e->n_refs].user = p->frame_user;
	e->n_refs++;
	e->flen += len;
	p->stats.frames++;
	return 0;
}

static int hold_append(struct ktrace_parser *p, const char *line, size_t len, bool first)
{
	size_t need = p->held_len + !first + len;

	if (need > p->held_cap) {
		char *nb = realloc(p->held, need);

		if (!nb)
			return -ENOMEM;
		p->held = nb;
		p->held_cap = need;
	}
	if (!first)
		p->held[p->held_len++] = '\n';
	memcpy(p->held + p->held_len, line, len);
	p->held_len += len;
	p->held_lines++;
	return 0;
}

static int feed_line(struct ktrace_parser *p, const char *line, size_t len, bool may_hold);

/* The held lines go through as one line (an event, or a bad line), as of their first line */
static int release_held(struct ktrace_parser *p)
{
	unsigned int now = p->lineno;
	int r;

	if (!p->held_lines)
		return 0;
	p->held_lines = 0;
	p->lineno = p->held_lineno;
	r = feed_line(p, p->held, p->held_len, false);
	p->lineno = now;
	return r;
}

/*
 * A line after a held request: the rest of its name and its fields when it is no line of
 * its own (" wait=1 call_site=..."). 1: taken; 0: not, the held lines went through.
 */
static int continue_held(struct ktrace_parser *p, const char *line, size_t len)
{
	struct ktrace_line l;
	struct ktrace_event ev = { 0 };
	const char *what;
	int r;

	if (len > JOIN_LEN_MAX || p->held_len + 1 + len > JOIN_LEN_MAX ||
	    ktrace_parse_line(line, len, &l, &what) == 0 || memchr(line, '\0', len) ||
	    parse_context(line, line + len, &ev)) {
		r = release_held(p);
		return r < 0 ? r : 0;
	}
	r = hold_append(p, line, len, false);
	if (r < 0)
		return r;
	if (ktrace_parse_line(p->held, p->held_len, &l, &what) < 0 &&
	    what == request_without_wait && p->held_lines < JOIN_LINES_MAX)
		return 1;	/* more of the name to come */
	r = release_held(p);
	return r < 0 ? r : 1;
}

int ktrace_parser_feed(struct ktrace_parser *p, const char *line, size_t len)
{
	int r;

	p->lineno++;
	p->stats.lines++;
	if (p->held_lines) {
		r = continue_held(p, line, len);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return feed_line(p, line, len, true);
}

static int feed_line(struct ktrace_parser *p, const char *line, size_t len, bool may_hold)
{
	struct ktrace_line l;
	const char *what;
	int r, k;

	if (len > LINE_MAX_LEN) {
		p->frame_target = -2;
		bad_line(p, "line too long");
		return 0;
	}
	r = take_line(p, line, len);
	if (r < 0)
		return r;
	line = p->scratch;
	r = ktrace_parse_line(line, len, &l, &what);
	if (r < 0 && may_hold && what == request_without_wait && len <= JOIN_LEN_MAX) {
		p->held_len = p->held_lines = 0;
		p->held_lineno = p->lineno;
		return hold_append(p, line, len, true);
	}
	if (r < 0) {
		struct ktrace_event ev = {0};
		const char *end = line + len;

		/*
		 * A known event whose fields do not decode still has a good context:
		 * queue it as a dropped entry so its stack frames go with it.
		 */
		if (!memchr(line, '\0', len) && parse_context(line, end, &ev)) {
			bad_line(p, what);
			r = queue_event(p, &ev, true);
			k = flush_complete(p);
			return r < 0 ? r : k;
		}
		p->frame_target = -2;
		bad_line(p, what);
		return 0;
	}

	switch (l.kind) {
	case KTRACE_LINE_HEADER:
		p->stats.header_lines++;
		if (l.ncpus >= 0)
			p->stats.ncpus = l.ncpus;
		if (l.entries >= 0) {
			p->stats.entries = l.entries;
			p->stats.written = l.written;
		}
		return 0;
	case KTRACE_LINE_FRAME:
		if (p->frame_target == -1) {
			bad_line(p, "stack frame without a <stack trace> line");
			return 0;
		}
		if (p->frame_target == -2)
			return 0;	/* its stack header was already reported */
		return add_frame(p, &l.frame);
	case KTRACE_LINE_EVENT:
		break;
	}

	if (l.ev.kind == KTRACE_EV_STACK) {
		attach_stack(p, &l.ev);
		return 0;
	}
	r = queue_event(p, &l.ev, false);
	k = flush_complete(p);
	return r < 0 ? r : k;
}

int ktrace_parser_flush_older(struct ktrace_parser *p, double age)
{
	double newest = -INFINITY;

	for (size_t i = 0; i < p->count; i++) {
		const struct pending *o = &p->ring[(p->head + i) % PENDING_MAX];

		if (o->ev.ts > newest)
			newest = o->ev.ts;
	}
	for (size_t i = 0; i < p->count; i++) {
		struct pending *o = &p->ring[(p->head + i) % PENDING_MAX];

		if (o->ev.ts < newest - age)
			o->complete = true;
	}
	return flush_complete(p);
}

int ktrace_parser_finish(struct ktrace_parser *p)
{
	int r = release_held(p), k;

	p->frame_target = -1;
	while (p->count) {
		k = emit_head(p);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

DEFINE_LINEREADER_SINK(text_sink, struct ktrace_parser, ktrace_parser, "event handler failed");

int ktrace_text_read_file(FILE *f, const char *path,
			   const struct ktrace_parser_ops *ops, void *userdata,
			   struct ktrace_stats *ret_stats, struct kt_err *reterr)
{
	struct ktrace_parser *p;
	int r;

	r = ktrace_parser_new(path, ops, userdata, &p);
	if (r < 0)
		return r;
	r = linereader_feed(f, path, LINE_MAX_LEN, &text_sink, p, reterr);
	if (r >= 0 && ret_stats)
		*ret_stats = p->stats;
	ktrace_parser_free(p);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "ledger.h"
#include "klog-findings.h"
#include "proctab.h"

/*
 * A waiter of 6.5+ idempotent finit_module() is woken when its leader finishes:
 * its exit follows the leader's by scheduling latency only.
 */
#define WAITER_EXIT_SLACK 0.010
/*
 * With vmap allocations traced, a finit_module of 6.5+ that allocated nothing and
 * returned what an overlapping, allocating call of the same file returned cannot be
 * anything but its waiter: the timing need not be tight. Entry and exit timestamps
 * on two CPUs (or in two trace buffers of one run) disagree by microseconds, under
 * emulation by milliseconds, and the leader is whoever reaches idempotent() first,
 * after the entry event.
 */
#define WAITER_START_SLACK_MEASURED 0.005
#define WAITER_EXIT_SLACK_MEASURED 0.100
/* A log line belongs to a call if printed inside it (plus printk/trace clock skew). */
#define KLOG_SLACK 0.002
/* The longest run of equal log lines one entry holds (struct ledger.klog_runs) */
#define KLOG_RUN_SPAN 1.0
/* kmod's fallback: init_module right after its finit_module failed with ENOEXEC */
#define FALLBACK_GAP 2.0
/* The kernel starts modprobe for a request at once; allow a loaded machine */
#define REQUEST_TO_MODPROBE 30.0
/*
 * Live mode: the trace and the kernel log reach kmodtop within this of their
 * timestamps, and the waiter and log slacks are far below it. An attempt this far in
 * the past (plus FALLBACK_GAP for an ENOEXEC finit_module) can no longer change.
 */
#define SETTLE_SLACK 1.0
/* Where look-backs by time scan an order that is time order give or take this */
#define ORDER_SLACK 1.0

struct open_call {
	int pid;
	size_t attempt;
};

/* PID_MAX_LIMIT of 64-bit Linux: pids below it take a bit each once forgotten */
#define PID_BITS (1u << 22)

/*
 * Each pid's first attempt, while kept, by its number in the trace (n_forgotten + its
 * index): open addressing on pid, with deletion, so that forgetting rebases nothing and
 * makes no table anew (a new one each time left the heap in pieces)
 */
struct first_slot {
	size_t attempt;
	int pid;
	bool used;
};

struct first_table {
	struct first_slot *slots;
	size_t cap, n;			/* cap: a power of two, or 0 */
};

struct gone_pid {
	int pid;
	long request;			/* its first attempt's, -1: none */
};

struct live_event {
	double ts;
	size_t prev, next;		/* the module's events before and after, or SIZE_MAX */
	uint32_t name;			/* its entry in the names, LIVE_NAME_FAR: not kept */
	bool live;
};

/* A name entry past what live_event.name holds: its events are never forgotten */
#define LIVE_NAME_FAR UINT32_MAX

/* A module's load and free events, so that a lookup reads that module's only */
struct live_name {
	size_t first, last;		/* SIZE_MAX: none */
	bool ordered;			/* in time order: look back from the last */
};

/* A name kept once; when it is a module's, its load and free events */
struct name_entry {
	char *s;
	struct live_name live;
	double hold;			/* forget_live_events(): keep the last event at or
					 * before this, and the later ones */
};

struct priv {
	struct open_call *open;
	size_t n_open, cap_open;
	size_t cap_attempts, cap_requests, cap_steps, cap_klog;
	struct live_event *live;
	size_t n_live, cap_live;
	size_t live_prune_at;		/* forget_live_events() when n_live reaches it */
	/* names, each kept once: attempts, requests and module events point at them */
	struct name_entry *names;
	size_t n_names, cap_names;
	struct hindex *name_idx;
	struct proctab *procs;
	struct first_table firsts;
	/*
	 * The pids whose first attempt was forgotten (ledger_forget_settled()): a later
	 * attempt of theirs is not their first, and follows that first's autoload request.
	 * A bit per pid below PID_BITS, the others (and those with a request) in @gone.
	 */
	uint64_t *gone_bits;
	struct gone_pid *gone;
	size_t n_gone, cap_gone;
	struct hindex *gone_idx;
	/* a time that is not a finite number was seen: look-backs may reach anything */
	bool keep_all;
	double longest;			/* the longest complete call (NaN: infinite) */
	size_t n_req_resolved;		/* requests [0, n) asked resolve_alias() */
	uint64_t live_named_settled;
	/*
	 * A task_rename was seen: the trace has the events that name tasks (fork, rename,
	 * and exec through its rename), and what they say is exact. The comm printed on
	 * a line is not: tracefs looks it up in its pid cache when the line is read, which
	 * can be before the rename reached it (trace_pipe, live) or after the pid was
	 * reused. Without task_rename a fork's name would miss every prctl() after it.
	 */
	bool names_exact;
	/* find_waiters()'s index, kept between settles: fresh large blocks fault in anew */
	struct by_end *wi_idx, *wi_tmp;
	size_t *wi_pos;
	size_t cap_wi_idx, cap_wi_tmp, cap_wi_pos;
};

static const char *const outcome_names[_OUTCOME_MAX] = {
	[OUTCOME_LOADED] = "loaded",
	[OUTCOME_DUP_LIVE] = "duplicate-live",
	[OUTCOME_DUP_CONCURRENT] = "duplicate-concurrent",
	[OUTCOME_WAITER] = "idempotent-waiter",
	[OUTCOME_MISSING_DEP] = "missing-dependency",
	[OUTCOME_BAD_FORMAT] = "bad-format",
	[OUTCOME_FALLBACK] = "userspace-decompression-fallback",
	[OUTCOME_SIG_REJECTED] = "signature-rejected",
	[OUTCOME_INIT_FAILED] = "init-failed",
	[OUTCOME_DENIED] = "denied",
	[OUTCOME_OTHER_ERROR] = "other-error",
	[OUTCOME_INCOMPLETE] = "incomplete",
	[OUTCOME_INTERRUPTED] = "interrupted",
};

const char *attempt_outcome_name(enum attempt_outcome o)
{
	return o < _OUTCOME_MAX ? outcome_names[o] : "?";
}

/* include/linux/errno.h: never seen by userspace, but the exit tracepoint sees them */
#define KERNEL_ERESTARTSYS 512
#define KERNEL_ERESTARTNOINTR 513
#define KERNEL_ERESTARTNOHAND 514
#define KERNEL_ERESTART_RESTARTBLOCK 516

const char *attempt_errno_name(int err, char buf[ATTEMPT_ERRNO_NAME_MAX])
{
	static const char *const internal[] = {
		[512 - 512] = "ERESTARTSYS",	[513 - 512] = "ERESTARTNOINTR",
		[514 - 512] = "ERESTARTNOHAND",	[515 - 512] = "ENOIOCTLCMD",
		[516 - 512] = "ERESTART_RESTARTBLOCK", [517 - 512] = "EPROBE_DEFER",
		[518 - 512] = "EOPENSTALE",	[519 - 512] = "ENOPARAM",
		[521 - 512] = "EBADHANDLE",	[522 - 512] = "ENOTSYNC",
		[523 - 512] = "EBADCOOKIE",	[524 - 512] = "ENOTSUPP",
		[525 - 512] = "ETOOSMALL",	[526 - 512] = "ESERVERFAULT",
		[527 - 512] = "EBADTYPE",	[528 - 512] = "EJUKEBOX",
		[529 - 512] = "EIOCBQUEUED",	[530 - 512] = "ERECALLCONFLICT",
		[531 - 512] = "ENOGRACE",
	};
	const char *n = NULL;

	if (err >= 512 && err - 512 < (int)ARRAY_SIZE(internal))
		n = internal[err - 512];
	else if (err > 0 && err < 512)
		n = strerrorname_np(err);
	if (n)
		return n;
	snprintf(buf, ATTEMPT_ERRNO_NAME_MAX, "errno-%d", err);
	return buf;
}

bool attempt_errno_interrupted(int err)
{
	return err == EINTR || err == KERNEL_ERESTARTSYS || err == KERNEL_ERESTARTNOINTR ||
	       err == KERNEL_ERESTARTNOHAND || err == KERNEL_ERESTART_RESTARTBLOCK;
}

const char *name_source_name(enum name_source s)
{
	static const char *const n[_NAME_MAX] = {
		[NAME_NONE] = "none",
		[NAME_MODULE_LOAD] = "module_load",
		[NAME_LEADER] = "leader",
		[NAME_FALLBACK_PAIR] = "fallback-pair",
		[NAME_KLOG] = "kernel-log",
		[NAME_SIZE] = "file-size",
		[NAME_LIVE] = "live",
		[NAME_PROBE] = "kprobe-name",
		[NAME_PROBE_FILE] = "kprobe-file",
	};
	return s < _NAME_MAX ? n[s] : "?";
}

const char *vmap_class_name(enum vmap_class c)
{
	static const char *const n[_VMAP_MAX] = {
		[VMAP_KREAD] = "kread",
		[VMAP_DECOMPRESS] = "decompress",
		[VMAP_LAYOUT] = "layout",
		[VMAP_USER_COPY] = "user-copy",
		[VMAP_OTHER_LOAD] = "other-load",
	};
	return c < _VMAP_MAX ? n[c] : "?";
}

static bool sym_is(const struct ktrace_frame *f, const char *name)
{
	size_t n = strlen(name);

	return f->fn.sym.len == n && memcmp(f->fn.sym.s, name, n) == 0;
}

int vmap_class_from_frames(const struct ktrace_frame *frames, size_t n)
{
	/* top-down: the first load-path function under the allocator decides */
	for (size_t i = 0; i < n; i++) {
		const struct ktrace_frame *f = &frames[i];

		if (f->user)
			break;
		if (sym_is(f, "module_decompress") || sym_is(f, "module_extend_max_pages"))
			return VMAP_DECOMPRESS;
		if (sym_is(f, "kernel_read_file") || sym_is(f, "kernel_read_file_from_fd"))
			return VMAP_KREAD;
		if (sym_is(f, "module_alloc") || sym_is(f, "execmem_alloc") ||
		    sym_is(f, "move_module") || sym_is(f, "module_memory_alloc"))
			return VMAP_LAYOUT;
		if (sym_is(f, "load_module"))
			return VMAP_OTHER_LOAD;
		if (sym_is(f, "copy_module_from_user") || sym_is(f, "__do_sys_init_module"))
			return VMAP_USER_COPY;
	}
	return -1;
}

bool attempt_is_duplicate(const struct attempt *a)
{
	/* a waiter is a concurrent load of the same file, whatever its leader returned */
	return a->outcome == OUTCOME_DUP_LIVE || a->outcome == OUTCOME_DUP_CONCURRENT ||
	       a->outcome == OUTCOME_WAITER;
}

bool attempt_is_failure(const struct attempt *a)
{
	return a->complete && a->err != 0;
}

int ledger_new(const struct ledger_ops *ops, bool idempotent_kernel, struct ledger **ret)
{
	struct ledger *l = calloc(1, sizeof(*l));
	struct priv *p = calloc(1, sizeof(*p));

	if (!l || !p || proctab_new(&p->procs) < 0 || hindex_new(&p->name_idx) < 0) {
		if (p)
			proctab_free(p->procs);
		free(l);
		free(p);
		return -ENOMEM;
	}
	if (ops)
		l->ops = *ops;
	l->idempotent_kernel = idempotent_kernel;
	l->priv = p;
	*ret = l;
	return 0;
}

struct ledger *ledger_free(struct ledger *l)
{
	struct priv *p;

	if (!l)
		return NULL;
	p = l->priv;
	for (size_t i = 0; i < l->n_requests; i++) {
		if (l->requests[i].resolved && l->ops.names_free)
			l->ops.names_free(l->requests[i].resolved);
	}
	for (size_t i = 0; i < l->n_steps; i++)
		free(l->steps[i].name);
	for (size_t i = 0; i < l->n_klog; i++) {
		free(l->klog[i].module);
		free(l->klog[i].msg);
	}
	for (size_t i = 0; p && i < p->n_names; i++)
		free(p->names[i].s);
	if (p) {
		free(p->names);
		hindex_free(p->name_idx);
		free(p->open);
		free(p->live);
		free(p->wi_idx);
		free(p->wi_tmp);
		free(p->wi_pos);
		proctab_free(p->procs);
		free(p->firsts.slots);
		free(p->gone_bits);
		free(p->gone);
		hindex_free(p->gone_idx);
		free(p);
	}
	free(l->attempts);
	free(l->requests);
	free(l->steps);
	free(l->klog);
	free(l);
	return NULL;
}

struct name_key {
	const char *s;
	size_t len;
};

static bool name_is(size_t pos, const void *key, const void *userdata)
{
	const struct priv *p = userdata;
	const struct name_key *k = key;

	return strncmp(p->names[pos].s, k->s, k->len) == 0 && p->names[pos].s[k->len] == '\0';
}

/* @s's entry in the names (its first @len bytes, or up to a NUL), or HINDEX_NONE */
static size_t name_find(const struct priv *p, const char *s, size_t len)
{
	struct name_key k = { s, strnlen(s, len) };

	return hindex_find(p->name_idx, hash_bytes(HASH_INIT, s, k.len), name_is, &k, p);
}

/*
 * @s (its first @len bytes, or up to a NUL) kept once for the ledger's life: its entry
 * in *ret_pos. 0 or -ENOMEM. A storm repeats a few names: one copy each, not one an
 * attempt.
 */
static int name_intern_pos(struct priv *p, const char *s, size_t len, size_t *ret_pos)
{
	size_t pos = name_find(p, s, len);
	char *n;

	if (pos == HINDEX_NONE) {
		len = strnlen(s, len);
		if (array_grow((void **)&p->names, p->n_names, &p->cap_names,
			       sizeof(*p->names)) < 0)
			return -ENOMEM;
		n = strndup(s, len);
		if (!n || hindex_add(p->name_idx, hash_bytes(HASH_INIT, s, len), p->n_names) < 0) {
			free(n);
			return -ENOMEM;
		}
		p->names[p->n_names] = (struct name_entry){
			.s = n, .live = { SIZE_MAX, SIZE_MAX, true }, .hold = INFINITY,
		};
		pos = p->n_names++;
	}
	*ret_pos = pos;
	return 0;
}

/* The same, the kept copy, or NULL (ENOMEM) */
static char *name_intern(struct priv *p, const char *s, size_t len)
{
	size_t pos;

	return name_intern_pos(p, s, len, &pos) < 0 ? NULL : p->names[pos].s;
}

static char *strndup_tf(const struct ktrace_str *s)
{
	return strndup(s->s, s->len);
}

static char *name_intern_tf(struct priv *p, const struct ktrace_str *s)
{
	return name_intern(p, s->s, s->len);
}

static char *name_intern_str(struct priv *p, const char *s)
{
	return name_intern(p, s, strlen(s));
}

static void copy_comm(char *dst, size_t dsz, const struct ktrace_str *s)
{
	size_t n = s->len < dsz - 1 ? s->len : dsz - 1;

	memcpy(dst, s->s, n);
	dst[n] = '\0';
}

/* The task's name when the line was made: from the naming events when exact */
static void event_comm(struct priv *p, char *dst, size_t dsz, const struct ktrace_event *ev)
{
	const char *c = p->names_exact ? proctab_exact_comm(p->procs, ev->pid) : NULL;

	if (c)
		snprintf(dst, dsz, "%s", c);
	else
		copy_comm(dst, dsz, &ev->comm);
}

static long open_find(struct priv *p, int pid)
{
	for (size_t i = 0; i < p->n_open; i++)
		if (p->open[i].pid == pid)
			return (long)i;
	return -1;
}

static void open_remove(struct priv *p, size_t i)
{
	p->open[i] = p->open[--p->n_open];
}

static uint64_t pid_hash(int pid)
{
	return hash_bytes(HASH_INIT, &pid, sizeof(pid));
}

static size_t first_home(const struct first_table *t, int pid)
{
	return ((unsigned int)pid * 2654435761u) & (t->cap - 1);
}

/* @pid's slot, or SIZE_MAX */
static size_t first_find(const struct first_table *t, int pid)
{
	if (!t->cap)
		return SIZE_MAX;
	for (size_t h = first_home(t, pid);; h = (h + 1) & (t->cap - 1)) {
		if (!t->slots[h].used)
			return SIZE_MAX;
		if (t->slots[h].pid == pid)
			return h;
	}
}

static void first_put(struct first_table *t, int pid, size_t attempt)
{
	size_t h = first_home(t, pid);

	while (t->slots[h].used)
		h = (h + 1) & (t->cap - 1);
	t->slots[h] = (struct first_slot){ attempt, pid, true };
	t->n++;
}

/* @pid's first attempt is @attempt (not there yet). 0 or -ENOMEM. */
static int first_add(struct first_table *t, int pid, size_t attempt)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct first_table nt = { .cap = t->cap ? 2 * t->cap : 64 };

		nt.slots = calloc(nt.cap, sizeof(*nt.slots));
		if (!nt.slots)
			return -ENOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].used)
				first_put(&nt, t->slots[i].pid, t->slots[i].attempt);
		free(t->slots);
		*t = nt;
	}
	first_put(t, pid, attempt);
	return 0;
}

/* Linear probing's deletion: later members of the cluster move back into the hole */
static void first_remove(struct first_table *t, size_t h)
{
	size_t mask = t->cap - 1, i = h, j = h;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!t->slots[j].used)
			break;
		k = first_home(t, t->slots[j].pid);
		/* moved unless its home lies cyclically in (i, j] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i].used = false;
	t->n--;
}

static bool gone_is(size_t pos, const void *key, const void *userdata)
{
	const struct priv *p = userdata;

	return p->gone[pos].pid == *(const int *)key;
}

/* @pid's entry among those whose first attempt was forgotten, or NULL */
static const struct gone_pid *gone_find(const struct priv *p, int pid)
{
	static const struct gone_pid no_request = { 0, -1 };
	size_t pos;

	if (!p->gone_bits)
		return NULL;
	if (pid >= 0 && (unsigned int)pid < PID_BITS &&
	    !(p->gone_bits[(unsigned int)pid / 64] & (UINT64_C(1) << (pid % 64))))
		return NULL;
	pos = hindex_find(p->gone_idx, pid_hash(pid), gone_is, &pid, p);
	if (pos != HINDEX_NONE)
		return &p->gone[pos];
	/* in the bits alone: no request */
	return pid >= 0 && (unsigned int)pid < PID_BITS ? &no_request : NULL;
}

/* The first attempt of @pid was forgotten (an index before every attempt kept) */
#define PID_FIRST_GONE (SIZE_MAX - 1)

/* The first attempt of @pid in the whole trace, PID_FIRST_GONE, or HINDEX_NONE */
static size_t pid_first(const struct ledger *l, int pid)
{
	const struct priv *p = l->priv;
	size_t h = first_find(&p->firsts, pid);

	if (h != SIZE_MAX)
		return p->firsts.slots[h].attempt - l->n_forgotten;
	return gone_find(p, pid) ? PID_FIRST_GONE : HINDEX_NONE;
}

static int on_enter(struct ledger *l, const struct ktrace_event *ev, enum attempt_syscall sc)
{
	struct priv *p = l->priv;
	struct attempt *a;
	long o;
	int r;

	o = open_find(p, ev->pid);
	if (o >= 0) {
		/* the exit was lost (or dropped): the earlier call stays incomplete */
		l->stats.nested_enters++;
		open_remove(p, (size_t)o);
	}
	r = array_grow_uninit((void **)&l->attempts, l->n_attempts, &p->cap_attempts,
			      sizeof(*l->attempts));
	if (r < 0)
		return r;
	array_prefault(l->attempts, l->n_attempts, p->cap_attempts, sizeof(*l->attempts));
	r = array_grow((void **)&p->open, p->n_open, &p->cap_open, sizeof(*p->open));
	if (r < 0)
		return r;
	a = &l->attempts[l->n_attempts];
	memset(a, 0, sizeof(*a));
	a->syscall = sc;
	a->fd = -1;
	if (sc == ATTEMPT_FINIT) {
		a->fd = ev->finit_module.fd;
		a->flags = ev->finit_module.flags;
	} else {
		a->len = ev->init_module.len;
	}
	event_comm(p, a->comm, sizeof(a->comm), ev);
	a->pid = ev->pid;
	a->tgid = ev->tgid;
	a->start = a->end = ev->ts;
	a->start_line = ev->line;
	p->keep_all = p->keep_all || !isfinite(ev->ts);
	a->outcome = OUTCOME_INCOMPLETE;
	a->leader = -1;
	a->request = -1;
	a->step = (long)l->n_steps - 1;
	a->measured = l->saw_vmap_events;
	a->probed = l->saw_kread_probe;
	a->layout_probed = l->saw_layout_probe;
	p->open[p->n_open].pid = ev->pid;
	p->open[p->n_open].attempt = l->n_attempts;
	if (pid_first(l, ev->pid) == HINDEX_NONE &&
	    first_add(&p->firsts, ev->pid, l->n_forgotten + l->n_attempts) < 0)
		return -ENOMEM;
	p->n_open++;
	l->n_attempts++;
	r = proctab_set_comm(p->procs, ev->pid, a->comm);
	return r < 0 ? r : proctab_pin(p->procs, ev->pid);
}

static enum attempt_outcome outcome_from(const struct attempt *a)
{
	if (a->err == 0)
		return OUTCOME_LOADED;
	/* the module was formed and ran its init: the error is its init function's */
	if (a->module_load_seen)
		return OUTCOME_INIT_FAILED;
	switch (a->err) {
	case EEXIST:
		return OUTCOME_DUP_LIVE;
	case EBUSY:
		return OUTCOME_DUP_CONCURRENT;
	case ENOENT:
		return OUTCOME_MISSING_DEP;
	case ENOEXEC:
		return OUTCOME_BAD_FORMAT;
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
		return OUTCOME_SIG_REJECTED;
	case EPERM:
		return OUTCOME_DENIED;
	}
	/* what it was doing when the signal came is decided with the calls around it */
	if (attempt_errno_interrupted(a->err))
		return OUTCOME_INTERRUPTED;
	return OUTCOME_OTHER_ERROR;
}

static int on_exit_(struct ledger *l, const struct ktrace_event *ev, enum attempt_syscall sc)
{
	struct priv *p = l->priv;
	struct attempt *a;
	long o = open_find(p, ev->pid);

	if (o < 0 || l->attempts[p->open[o].attempt].syscall != sc) {
		l->stats.orphan_exits++;
		return 0;
	}
	a = &l->attempts[p->open[o].attempt];
	open_remove(p, (size_t)o);
	a->end = ev->ts;
	a->end_line = ev->line;
	p->keep_all = p->keep_all || !isfinite(ev->ts);
	a->complete = true;
	a->ret = ev->sys_exit.ret;
	/* the raw syscall return: -errno in [-4095, -1] */
	a->err = a->ret < 0 && a->ret >= -4095 ? (int)-a->ret : 0;
	a->outcome = outcome_from(a);
	/* a call with a start that is not a number overlaps nothing (names_from_klog) */
	if (!isnan(a->start) && !(a->end - a->start <= p->longest))
		p->longest = isnan(a->end - a->start) ? INFINITY : a->end - a->start;
	return 0;
}

static int live_add(struct ledger *l, const struct ktrace_str *name, double ts, bool live)
{
	struct priv *p = l->priv;
	struct live_event *e;
	struct live_name *n;
	size_t pos;
	int r = array_grow_uninit((void **)&p->live, p->n_live, &p->cap_live, sizeof(*p->live));

	if (r < 0)
		return r;
	array_prefault(p->live, p->n_live, p->cap_live, sizeof(*p->live));
	r = name_intern_pos(p, name->s, name->len, &pos);
	if (r < 0)
		return r;
	e = &p->live[p->n_live];
	e->ts = ts;
	e->name = pos < LIVE_NAME_FAR ? (uint32_t)pos : LIVE_NAME_FAR;
	e->live = live;
	e->prev = e->next = SIZE_MAX;
	n = &p->names[pos].live;
	if (n->first == SIZE_MAX) {
		*n = (struct live_name){ p->n_live, p->n_live, true };
	} else {
		n->ordered = n->ordered && p->live[n->last].ts <= ts;
		e->prev = n->last;
		p->live[n->last].next = p->n_live;
		n->last = p->n_live;
	}
	p->n_live++;
	return 0;
}

static int on_module_load(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	long o = open_find(p, ev->pid);

	if (o >= 0) {
		struct attempt *a = &l->attempts[p->open[o].attempt];

		a->module_load_seen = true;
		/* the kernel's own name, over what a settle pass took from a probe meanwhile */
		if (a->name_source != NAME_MODULE_LOAD) {
			a->module = name_intern_tf(p, &ev->module_load.name);
			if (!a->module)
				return -ENOMEM;
			a->name_source = NAME_MODULE_LOAD;
		}
	}
	return live_add(l, &ev->module_load.name, ev->ts, true);
}

/* "0xffffffffc05455a9" or "ffffffffc05455a9", as a call site printed without a symbol */
static bool raw_address(const struct ktrace_str *s, uint64_t *ret)
{
	size_t i = s->len > 2 && s->s[0] == '0' && (s->s[1] == 'x' || s->s[1] == 'X') ? 2 : 0;
	uint64_t v = 0;

	if (s->len - i < 8 || s->len - i > 16)
		return false;
	for (; i < s->len; i++) {
		char c = s->s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return true;
}

static const char *call_site_intern(struct ledger *l, const struct ktrace_sym *cs)
{
	uint64_t addr;
	const char *fn;

	if (l->ops.function_at && raw_address(&cs->sym, &addr) &&
	    (fn = l->ops.function_at(l->ops.userdata, addr)))
		return name_intern(l->priv, fn, strlen(fn));
	return name_intern(l->priv, cs->sym.s, cs->sym.len);
}

static int on_request(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	struct autoload_request *rq;
	int r;

	r = array_grow((void **)&l->requests, l->n_requests, &p->cap_requests, sizeof(*l->requests));
	if (r < 0)
		return r;
	rq = &l->requests[l->n_requests];
	memset(rq, 0, sizeof(*rq));
	rq->alias = name_intern_tf(p, &ev->module_request.name);
	rq->call_site = call_site_intern(l, &ev->module_request.call_site);
	if (!rq->alias || !rq->call_site)
		return -ENOMEM;
	event_comm(p, rq->comm, sizeof(rq->comm), ev);
	rq->pid = ev->pid;
	rq->wait = ev->module_request.wait;
	rq->ts = ev->ts;
	rq->line = ev->line <= UINT32_MAX ? (uint32_t)ev->line : UINT32_MAX;
	rq->step = (long)l->n_steps - 1;
	l->n_requests++;
	r = proctab_set_comm(p->procs, ev->pid, rq->comm);
	return r < 0 ? r : proctab_pin(p->procs, ev->pid);
}

/* The module name kmod gives a file: its base name to the first '.', '-' as '_' */
static char *name_from_path(const char *path, size_t len)
{
	const char *base = path, *end = path + len, *dot;
	char *name;

	for (const char *q = path; q < end; q++)
		if (*q == '/')
			base = q + 1;
	dot = memchr(base, '.', (size_t)(end - base));
	if (dot)
		end = dot;
	if (end == base)
		return NULL;
	name = strndup(base, (size_t)(end - base));
	for (char *q = name; q && *q; q++)
		if (*q == '-')
			*q = '_';
	return name;
}

/*
 * "kmodtop_fd pid=P fd=F path=PATH": live mode read the fd of P's finit_module()
 * (/proc/P/fd/F) before writing this marker. Inside the call (before its exit in
 * the trace) the fd was still the call's: the file names the attempt.
 */
static int on_fd_marker(struct ledger *l, const char *s, const char *end)
{
	struct priv *p = l->priv;
	const char *path;
	struct attempt *a;
	char *name;
	int pid, fd, n = 0;
	long o;

	if (sscanf(s, "kmodtop_fd pid=%d fd=%d path=%n", &pid, &fd, &n) != 2 || !n)
		return 0;
	path = s + n;
	o = open_find(p, pid);
	if (o < 0 || path >= end || *path != '/')
		return 0;
	a = &l->attempts[p->open[o].attempt];
	if (a->syscall != ATTEMPT_FINIT || a->fd != fd || a->live_name)
		return 0;
	/* as before the names were kept once: a name that cannot be kept is none */
	name = name_from_path(path, (size_t)(end - path));
	a->live_name = name ? name_intern_str(p, name) : NULL;
	free(name);
	return 0;
}

/* Last, so that it changes nothing the trace and log decide: the file names what
 * stayed unnamed */
static int names_from_live(struct ledger *l, size_t from)
{
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->module || !a->live_name)
			continue;
		a->module = a->live_name;
		a->name_source = NAME_LIVE;
	}
	return 0;
}

/*
 * The kread or layout probe is traced from now on: the calls open now are probed as
 * well (a marker comes once the probes are enabled; without it, the first event).
 */
static void probes_seen(struct ledger *l, bool kread, bool name, bool layout)
{
	struct priv *p = l->priv;

	if (kread && !l->saw_kread_probe) {
		l->saw_kread_probe = true;
		for (size_t i = 0; i < p->n_open; i++)
			l->attempts[p->open[i].attempt].probed = true;
	}
	if (layout && !l->saw_layout_probe) {
		l->saw_layout_probe = true;
		for (size_t i = 0; i < p->n_open; i++)
			l->attempts[p->open[i].attempt].layout_probed = true;
	}
	if (name)
		l->saw_name_probe = true;
}

/*
 * kmodtop_kread: kernel_read_file() on the calling thread. Inside a finit_module(), the
 * first is the module file (a module's init may read firmware later, on the same
 * thread): the call paid the read, and its file names it.
 */
static int on_probe_kread(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	const struct ktrace_probe_kread *k = &ev->probe_kread;
	long o = open_find(p, ev->pid);
	struct attempt *a;
	char *name;

	l->stats.probe_kreads++;
	probes_seen(l, true, false, false);
	if (o < 0)
		return 0;
	a = &l->attempts[p->open[o].attempt];
	if (a->syscall != ATTEMPT_FINIT || a->kread_seen)
		return 0;
	a->kread_seen = true;
	a->kread_size = k->size > 0 ? (uint64_t)k->size : 0;
	if (!k->path.len)
		return 0;
	name = name_from_path(k->path.s, k->path.len);
	if (!name)
		return 0;
	a->file_name = name_intern_str(p, name);
	free(name);
	return a->file_name ? 0 : -ENOMEM;
}

/* kmodtop_name: the first find_module_all() of a call is the duplicate check */
static int on_probe_name(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	long o = open_find(p, ev->pid);
	struct attempt *a;

	l->stats.probe_names++;
	probes_seen(l, false, true, false);
	if (o < 0)
		return 0;
	a = &l->attempts[p->open[o].attempt];
	if (a->probe_name)
		return 0;
	a->probe_name = name_intern_tf(p, &ev->probe_name.name);
	return a->probe_name ? 0 : -ENOMEM;
}

/*
 * kmodtop_layout: execmem_alloc()/module_alloc() on the calling thread, inside a load:
 * the call allocated its module's final memory, one area at a time.
 */
static int on_probe_layout(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	long o = open_find(p, ev->pid);
	struct attempt *a;

	l->stats.probe_layouts++;
	probes_seen(l, false, false, true);
	if (o < 0)
		return 0;
	a = &l->attempts[p->open[o].attempt];
	a->layout_seen = true;
	a->layout_size += ev->probe_layout.size;
	a->layout_areas++;
	return 0;
}

/*
 * The kernel's own names come first after module_load (it is the name the duplicate
 * check looked up), the file the kernel read right after them.
 */
static void names_from_probes(struct ledger *l, size_t from)
{
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->module)
			continue;
		if (a->probe_name) {
			a->module = a->probe_name;
			a->name_source = NAME_PROBE;
		} else if (a->file_name) {
			a->module = a->file_name;
			a->name_source = NAME_PROBE_FILE;
		}
	}
}

static int on_marker(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	int r;

	l->stats.markers++;
	/* "kmodtop_probes kread name": written once the probes are enabled */
	if (ev->marker.text.len >= 15 && memcmp(ev->marker.text.s, "kmodtop_probes ", 15) == 0) {
		const char *t = ev->marker.text.s + 15, *e = ev->marker.text.s + ev->marker.text.len;
		bool kread = false, name = false, layout = false;

		while (t < e) {
			const char *w = memchr(t, ' ', (size_t)(e - t));
			size_t n = (size_t)((w ? w : e) - t);

			kread = kread || (n == 5 && memcmp(t, "kread", 5) == 0);
			name = name || (n == 4 && memcmp(t, "name", 4) == 0);
			layout = layout || (n == 6 && memcmp(t, "layout", 6) == 0);
			t += n + 1;
		}
		probes_seen(l, kread, name, layout);
		return 0;
	}
	/* "kmodtop_parent pid=P ppid=Q comm=NAME": live mode read /proc for a requester */
	if (ev->marker.text.len > 15 && memcmp(ev->marker.text.s, "kmodtop_parent ", 15) == 0) {
		char *t = strndup_tf(&ev->marker.text), comm[32];
		int pid, ppid, n = 0, q = 0;

		if (!t)
			return -ENOMEM;
		if (sscanf(t, "kmodtop_parent pid=%d ppid=%d comm=%n", &pid, &ppid, &n) == 2 &&
		    n && pid > 0 && ppid > 0) {
			snprintf(comm, sizeof(comm), "%s", t + n);
			q = proctab_set_parent(p->procs, pid, ppid);
			if (q >= 0)
				q = proctab_pin(p->procs, pid);
			if (q >= 0 && comm[0])
				q = proctab_set_comm(p->procs, ppid, comm);
		}
		free(t);
		return q;
	}
	if (ev->marker.text.len > 11 && memcmp(ev->marker.text.s, "kmodtop_fd ", 11) == 0) {
		/* the text is not NUL-terminated where it ends in the line */
		char *t = strndup_tf(&ev->marker.text);
		int q;

		if (!t)
			return -ENOMEM;
		q = on_fd_marker(l, t, t + strlen(t));
		free(t);
		return q;
	}
	/* only "STEP name" markers split the run; other markers are counted */
	if (!ev->marker.step.len)
		return 0;
	r = array_grow((void **)&l->steps, l->n_steps, &p->cap_steps, sizeof(*l->steps));
	if (r < 0)
		return r;
	l->steps[l->n_steps].name = strndup_tf(&ev->marker.step);
	if (!l->steps[l->n_steps].name)
		return -ENOMEM;
	l->steps[l->n_steps].ts = ev->ts;
	l->n_steps++;
	return 0;
}

static int on_vmap_alloc(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	long o = open_find(p, ev->pid);
	struct attempt *at;
	int cls;

	l->stats.vmap_allocs++;
	if (!l->saw_vmap_events) {
		/* calls already open when the first allocation event arrives are measured too */
		l->saw_vmap_events = true;
		for (size_t i = 0; i < p->n_open; i++)
			l->attempts[p->open[i].attempt].measured = true;
	}
	if (o < 0) {
		l->stats.vmap_allocs_outside++;
		return 0;
	}
	if (ev->vmap_alloc.has_result && ev->vmap_alloc.failed)
		return 0;
	cls = vmap_class_from_frames(ev->frames, ev->n_frames);
	/* no stack: inside a load call, the allocation is the load's, class unknown */
	if (cls < 0)
		cls = ev->n_frames ? -1 : VMAP_OTHER_LOAD;
	if (cls < 0)
		return 0;
	at = &l->attempts[p->open[o].attempt];
	at->vmap[cls] = add_sat_u64(at->vmap[cls], ev->vmap_alloc.size);
	at->n_allocs++;
	return 0;
}

int ledger_feed_trace(struct ledger *l, const struct ktrace_event *ev)
{
	struct priv *p = l->priv;
	char comm[32];

	l->stats.events++;
	switch (ev->kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
		return on_enter(l, ev, ATTEMPT_FINIT);
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
		return on_enter(l, ev, ATTEMPT_INIT);
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
		return on_exit_(l, ev, ATTEMPT_FINIT);
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
		return on_exit_(l, ev, ATTEMPT_INIT);
	case KTRACE_EV_MODULE_LOAD:
		return on_module_load(l, ev);
	case KTRACE_EV_MODULE_FREE:
		return live_add(l, &ev->module_load.name, ev->ts, false);
	case KTRACE_EV_MODULE_REQUEST:
		return on_request(l, ev);
	case KTRACE_EV_MARKER:
		return on_marker(l, ev);
	case KTRACE_EV_ALLOC_VMAP_AREA:
	case KTRACE_EV_ALLOC_VMAP_AREA_KPROBE:
		return on_vmap_alloc(l, ev);
	case KTRACE_EV_SCHED_PROCESS_FORK: {
		int r;

		/* the parent's name now (a kworker was "kthreadd" when it was forked) */
		copy_comm(comm, sizeof(comm), &ev->fork.comm);
		r = !comm[0] ? 0
		    : p->names_exact ? proctab_name(p->procs, ev->fork.pid, comm)
				     : proctab_set_comm(p->procs, ev->fork.pid, comm);
		if (r < 0)
			return r;
		copy_comm(comm, sizeof(comm), &ev->fork.child_comm);
		r = proctab_fork(p->procs, ev->fork.pid, ev->fork.child_pid, comm);
		if (r >= 0 && p->names_exact && comm[0])
			r = proctab_name(p->procs, ev->fork.child_pid, comm);
		return r;
	}
	case KTRACE_EV_TASK_RENAME:
		p->names_exact = true;
		copy_comm(comm, sizeof(comm), &ev->rename.newcomm);
		return comm[0] ? proctab_name(p->procs, ev->rename.pid, comm) : 0;
	case KTRACE_EV_SCHED_PROCESS_EXEC:
		copy_comm(comm, sizeof(comm), &ev->comm);
		return proctab_set_comm(p->procs, ev->pid, comm);
	case KTRACE_EV_SCHED_PROCESS_EXIT:
		/* what no attempt or request looks up goes: a fork storm costs nothing */
		proctab_exit(p->procs, ev->exit.pid);
		return 0;
	case KTRACE_EV_LOST:
		l->stats.lost_events += ev->lost.count;
		l->stats.lost_uncounted += ev->lost.uncounted;
		return 0;
	case KTRACE_EV_PROBE_KREAD:
		return on_probe_kread(l, ev);
	case KTRACE_EV_PROBE_NAME:
		return on_probe_name(l, ev);
	case KTRACE_EV_PROBE_LAYOUT:
		return on_probe_layout(l, ev);
	case KTRACE_EV_UNKNOWN:
	case KTRACE_EV_KPROBE:
		l->stats.unknown_events++;
		return 0;
	default:
		l->stats.ignored_events++;
		return 0;
	}
}

/*
 * Whether a line adds to entry @g's run: the same line, and no further from the
 * run's last line than the narrowest window a call looks at (KLOG_SLACK on either
 * side), so that a call's window meets the run exactly when it holds one of its lines.
 * A run spans at most KLOG_RUN_SPAN, so that calls look back a bounded time.
 */
static bool klog_continues(const struct ledger_klog *g, double ts, const char *module,
			   size_t module_len, int kind, int err, const char *msg, size_t msg_len)
{
	if (g->kind != kind || g->err != err || (!g->module != !module) ||
	    strlen(g->msg) != msg_len || memcmp(g->msg, msg, msg_len) != 0)
		return false;
	if (module && (strlen(g->module) != module_len || memcmp(g->module, module, module_len)))
		return false;
	if (isnan(ts) || isnan(g->ts))
		return isnan(ts) && isnan(g->ts);
	return ts >= g->last_ts && ts - g->last_ts <= 2 * KLOG_SLACK &&
	       ts - g->ts <= KLOG_RUN_SPAN;
}

int ledger_add_klog(struct ledger *l, double ts, const char *module, size_t module_len,
		    int kind, int err, const char *msg, size_t msg_len)
{
	struct priv *p = l->priv;
	struct ledger_klog *g;
	int r;

	if (l->klog_runs && l->n_klog &&
	    klog_continues(&l->klog[l->n_klog - 1], ts, module, module_len, kind, err, msg,
			   msg_len)) {
		g = &l->klog[l->n_klog - 1];
		g->count++;
		if (!isnan(ts))
			g->last_ts = ts;
		return 0;
	}
	r = array_grow((void **)&l->klog, l->n_klog, &p->cap_klog, sizeof(*l->klog));
	if (r < 0)
		return r;
	g = &l->klog[l->n_klog];
	g->ts = g->last_ts = ts;
	g->count = 1;
	g->module = module ? strndup(module, module_len) : NULL;
	g->msg = strndup(msg, msg_len);
	if ((module && !g->module) || !g->msg) {
		free(g->module);
		free(g->msg);
		return -ENOMEM;
	}
	g->kind = kind;
	g->err = err;
	l->n_klog++;
	return 0;
}

static bool has_load_allocation(const struct attempt *a)
{
	return a->vmap[VMAP_KREAD] || a->vmap[VMAP_DECOMPRESS] || a->vmap[VMAP_LAYOUT] ||
	       a->vmap[VMAP_OTHER_LOAD];
}

static bool names_compatible(const struct attempt *a, const struct attempt *b)
{
	return !a->module || !b->module || strcmp(a->module, b->module) == 0;
}

/*
 * The first attempt at or before @from, going back while starts are not before @t:
 * attempts are in entry order, which is time order give or take ORDER_SLACK.
 */
static size_t look_back(const struct ledger *l, size_t from, double t)
{
	if (from >= l->n_attempts)
		from = l->n_attempts;
	while (from > 0 && !(l->attempts[from - 1].start < t - ORDER_SLACK))
		from--;
	return from;
}

/*
 * Finished finit_module() calls, by return value, then by exit time; with what
 * leader_fits() asks first, so that a search does not read the attempts it passes
 */
struct by_end {
	int64_t ret;
	double end, start;
	size_t i;
	bool can_lead;			/* did the work a waiter waited for */
	bool waiter;			/* outcome is OUTCOME_WAITER */
};

static bool by_end_before(const struct by_end *a, const struct by_end *b)
{
	if (a->ret != b->ret)
		return a->ret < b->ret;
	if (a->end != b->end)
		return a->end < b->end;
	return a->i < b->i;
}

/*
 * Sorts @v[0, n) by exit (and attempt), all of one return value; @tmp as long. Sorted
 * runs of 16, then merged bottom-up; two runs already in order are copied, not merged:
 * calls come by entry, so mostly by exit already.
 */
static void by_end_sort_group(struct by_end *v, struct by_end *tmp, size_t n)
{
	const size_t run = 16;
	struct by_end *src = v, *dst = tmp;

	for (size_t s = 0; s < n; s += run) {
		size_t e = s + run < n ? s + run : n;

		for (size_t i = s + 1; i < e; i++) {
			struct by_end x = v[i];
			size_t j = i;

			for (; j > s && by_end_before(&x, &v[j - 1]); j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	for (size_t width = run; width < n; width *= 2) {
		for (size_t s = 0; s < n; s += 2 * width) {
			size_t m = s + width < n ? s + width : n;
			size_t e = s + 2 * width < n ? s + 2 * width : n;
			size_t i = s, j = m, k = s;

			if (m < e && by_end_before(&src[m], &src[m - 1])) {
				while (i < m && j < e)
					dst[k++] = by_end_before(&src[j], &src[i]) ? src[j++]
										  : src[i++];
			}
			memcpy(&dst[k], &src[i], (m - i) * sizeof(*src));
			k += m - i;
			memcpy(&dst[k], &src[j], (e - j) * sizeof(*src));
		}
		struct by_end *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/*
 * Sorts @v (qsort() with a comparison by pointer cost ten times more: it runs at every
 * refresh of live top). A storm's calls mostly return one of a few values: those are
 * put apart first (stably, through @tmp), and each group is sorted by exit alone.
 */
static void by_end_sort(struct by_end *v, struct by_end *tmp, size_t n)
{
	enum { GROUPS = 4 };
	int64_t ret[GROUPS];
	size_t count[GROUPS] = { 0 }, at[GROUPS], groups = 0, g;

	for (size_t i = 0; i < n; i++) {
		for (g = 0; g < groups && ret[g] != v[i].ret; g++)
			;
		if (g == groups) {
			if (groups == GROUPS) {
				by_end_sort_group(v, tmp, n);
				return;
			}
			/* kept in order of value: the groups' order is the sort's */
			for (; g > 0 && ret[g - 1] > v[i].ret; g--) {
				ret[g] = ret[g - 1];
				count[g] = count[g - 1];
			}
			ret[g] = v[i].ret;
			count[g] = 0;
			groups++;
		}
		count[g]++;
	}
	for (g = 0; g < groups; g++)
		at[g] = g ? at[g - 1] + count[g - 1] : 0;
	for (size_t i = 0; i < n; i++) {
		for (g = 0; ret[g] != v[i].ret; g++)
			;
		tmp[at[g]++] = v[i];
	}
	memcpy(v, tmp, n * sizeof(*v));
	for (g = 0; g < groups; g++)
		by_end_sort_group(v + at[g] - count[g], tmp, count[g]);
}

/* Did @b read the file or load the module, as a leader does? */
static bool did_leader_work(const struct attempt *b)
{
	if (b->probed)
		return b->kread_seen;
	/* an interrupted call without evidence may as well have been a waiter itself */
	return b->measured ? has_load_allocation(b)
			   : b->module_load_seen || (b->err && !attempt_errno_interrupted(b->err));
}

/* Does the trace say what @a did, not only when it did it (vmap events, the kread probe)? */
static bool has_evidence(const struct attempt *a)
{
	return a->measured || a->probed;
}

/*
 * Can @b be @a's leader, and how far apart are their exits? @late: @a may have left any
 * time after @b (a waiter behind other waiters of @b, find_late_waiters())
 */
static bool leader_fits_as(const struct attempt *a, const struct attempt *b, bool late,
			   double *ret_dist)
{
	bool measured = (a->measured && b->measured && has_load_allocation(b)) ||
			(a->probed && b->probed && b->kread_seen);

	if (b->syscall != ATTEMPT_FINIT || !b->complete || b->outcome == OUTCOME_WAITER ||
	    b->ret != a->ret)
		return false;
	/*
	 * The leader wakes its waiters in idempotent_complete() and then still has
	 * to return: a waiter may leave a little before or after it. It found the
	 * leader in idempotent()'s table, so it came in before the leader left (a call
	 * that came after it did its own reading).
	 */
	if (b->start > a->start + (measured ? WAITER_START_SLACK_MEASURED : 0) ||
	    a->start > b->end + (measured ? WAITER_START_SLACK_MEASURED : 0) ||
	    (late ? b->end - a->end : fabs(a->end - b->end)) >
		    (measured ? WAITER_EXIT_SLACK_MEASURED : WAITER_EXIT_SLACK) ||
	    !names_compatible(a, b))
		return false;
	if (!did_leader_work(b))
		return false;
	*ret_dist = fabs(a->end - b->end);
	return true;
}

static bool leader_fits(const struct attempt *a, const struct attempt *b,
			double *ret_dist)
{
	return leader_fits_as(a, b, false, ret_dist);
}

/* The finished finit_module() calls a waiter of the attempts from some point may have */
struct waiter_index {
	struct by_end *idx;
	size_t n, lo;
	size_t *pos;			/* attempt lo + j is idx[pos[j]] (if in it) */
	double longest;			/* no call in it took longer */
	bool all_finite;
};

/* @w's arrays are the ledger's, valid until the next build */
static int waiter_index_build(const struct ledger *l, size_t from, struct waiter_index *w)
{
	struct priv *p = l->priv;
	size_t n;

	*w = (struct waiter_index){ .all_finite = true, .longest = p->longest };
	if (from >= l->n_attempts)
		return 0;
	/* a leader ended within the slack of its waiter, so it started at most the longest call before */
	w->lo = look_back(l, from, l->attempts[from].start - 2 * WAITER_EXIT_SLACK_MEASURED -
					   p->longest);
	n = l->n_attempts - w->lo;
	if (array_grow_uninit((void **)&p->wi_idx, n, &p->cap_wi_idx, sizeof(*p->wi_idx)) < 0 ||
	    array_grow_uninit((void **)&p->wi_tmp, n, &p->cap_wi_tmp, sizeof(*p->wi_tmp)) < 0 ||
	    array_grow_uninit((void **)&p->wi_pos, n, &p->cap_wi_pos, sizeof(*p->wi_pos)) < 0)
		return -ENOMEM;
	w->idx = p->wi_idx;
	w->pos = p->wi_pos;
	for (size_t j = w->lo; j < l->n_attempts; j++) {
		const struct attempt *b = &l->attempts[j];

		if (b->syscall != ATTEMPT_FINIT || !b->complete)
			continue;
		/* the bounds of closest_leader() take both as numbers */
		w->all_finite = w->all_finite && isfinite(b->end) && isfinite(b->start);
		w->idx[w->n++] = (struct by_end){
			.ret = b->ret, .end = b->end, .start = b->start, .i = j,
			.can_lead = did_leader_work(b),
		};
	}
	by_end_sort(w->idx, p->wi_tmp, w->n);
	for (size_t k = 0; k < w->n; k++)
		w->pos[w->idx[k].i - w->lo] = k;
	return 0;
}

/*
 * @a's leader among the calls of @w with its return value: the closest exit, the first
 * attempt among equals. The calls are visited from @a's exit outwards, both ways, in
 * order of distance (a - b and b - a round alike, so the distance is leader_fits()'s),
 * and the search ends at the first fit and its equals.
 */
static long closest_leader(const struct ledger *l, const struct waiter_index *w, size_t i)
{
	const struct attempt *a = &l->attempts[i];
	bool ev = has_evidence(a);
	double slack = ev ? WAITER_EXIT_SLACK_MEASURED : WAITER_EXIT_SLACK;
	double latest_start = a->start + (ev ? WAITER_START_SLACK_MEASURED : 0);
	/*
	 * A leader started by latest_start and took at most the longest call: no later
	 * exit can be one (plus a margin for the rounding of those sums)
	 */
	double reach = latest_start + w->longest + 1e-6 +
		       1e-12 * (fabs(latest_start) + w->longest);
	/* and it left after the waiter came in */
	double earliest_end = a->start - (ev ? WAITER_START_SLACK_MEASURED : 0) - 1e-6 -
			      1e-12 * fabs(a->start);
	const struct by_end *e;
	/* @a's own entry, then back to the first equal to it: the first not before it */
	size_t up = w->pos[i - w->lo], down;
	long best = -1;
	double best_dist = 0, dist;

	while (up > 0 && w->idx[up - 1].ret == a->ret && w->idx[up - 1].end == a->end)
		up--;
	down = up;
	for (;;) {
		bool has_up = up < w->n && w->idx[up].ret == a->ret &&
			      w->idx[up].end - a->end <= slack && !(w->idx[up].end > reach);
		bool has_down = down > 0 && w->idx[down - 1].ret == a->ret &&
				a->end - w->idx[down - 1].end <= slack &&
				!(w->idx[down - 1].end < earliest_end);
		double d_up = has_up ? w->idx[up].end - a->end : 0;
		double d_down = has_down ? a->end - w->idx[down - 1].end : 0;
		size_t j;

		if (has_up && has_down)
			has_up = d_up <= d_down;
		else if (!has_up && !has_down)
			break;
		e = has_up ? &w->idx[up++] : &w->idx[--down];
		j = e->i;
		if (best >= 0 && (has_up ? d_up : d_down) > best_dist)
			break;
		/* what leader_fits() would refuse first, without reading the attempt */
		if (e->waiter || !e->can_lead || e->start > latest_start)
			continue;
		if (j == i || !leader_fits(a, &l->attempts[j], &dist))
			continue;
		if (best < 0 || (long)j < best) {
			best = (long)j;
			best_dist = dist;
		}
	}
	return best;
}

/*
 * The leader of @a, a waiter by evidence that no leader fits by the slacks: any call
 * with its return that did the work and was still running when @a came in, and ended
 * before @a left. Its entry is not asked: @a may have entered first and been preempted
 * before idempotent(), where the other got first. When all such calls are of one
 * module (or there is one), the latest to end; else none (-1).
 */
static long only_leader(const struct ledger *l, const struct waiter_index *w, size_t i)
{
	const struct attempt *a = &l->attempts[i];
	double lo = a->start - WAITER_START_SLACK_MEASURED;
	size_t b = 0, e = w->n;
	long best = -1;

	/* the first entry not before (a->ret, lo) */
	while (b < e) {
		size_t m = b + (e - b) / 2;

		if (w->idx[m].ret < a->ret || (w->idx[m].ret == a->ret && w->idx[m].end < lo))
			b = m + 1;
		else
			e = m;
	}
	for (; b < w->n && w->idx[b].ret == a->ret &&
	       !(w->idx[b].end > a->end + WAITER_EXIT_SLACK_MEASURED); b++) {
		const struct by_end *o = &w->idx[b];
		const struct attempt *c = &l->attempts[o->i];

		if (o->waiter || !o->can_lead || o->i == i || !names_compatible(a, c))
			continue;
		if (best >= 0 && !(c->module && l->attempts[best].module &&
				   strcmp(c->module, l->attempts[best].module) == 0))
			return -1;
		best = (long)o->i;
	}
	return best;
}

/*
 * A leader's waiters wake together but leave one after another, as the CPUs get to
 * them: a hundred waiters on two CPUs (under emulation, on a loaded host) leave over
 * half a second, far beyond the exit slack of their leader. A call the trace shows did
 * no work of its own (vmap events or the kread probe: it read nothing, so it waited)
 * is a waiter: of the leader of the waiter that left within the slack before it with
 * its return, if that one fits it otherwise (came in while it ran), else of the only
 * call it can have waited for (only_leader()). In order of exit, so that a chain
 * reaches the last one; the nearest waiter before it decides.
 */
static void find_late_waiters(struct ledger *l, size_t from, struct waiter_index *w)
{
	/* the last waiter before idx[k] (by return, then exit), SIZE_MAX: none */
	size_t last = SIZE_MAX;

	if (!w->all_finite)
		return;
	for (size_t k = 0; k < w->n; k++) {
		struct by_end *e = &w->idx[k];
		struct attempt *a = &l->attempts[e->i];
		const struct by_end *o = last == SIZE_MAX ? NULL : &w->idx[last];
		long lead = -1;
		double dist;

		if (e->waiter) {
			last = k;
			continue;
		}
		if (e->i < from || !has_evidence(a) || a->module_load_seen ||
		    (a->measured && a->n_allocs) || (a->probed && a->kread_seen))
			continue;
		if (o && o->ret == e->ret && e->end - o->end <= WAITER_EXIT_SLACK_MEASURED)
			lead = l->attempts[o->i].leader;
		if (lead < 0 || (size_t)lead == e->i ||
		    !leader_fits_as(a, &l->attempts[lead], true, &dist))
			lead = only_leader(l, w, e->i);
		if (lead < 0)
			continue;
		a->outcome = OUTCOME_WAITER;
		e->waiter = true;
		last = k;
		a->leader = lead;
		a->waiter_by_timing = false;
		if (!a->module && l->attempts[lead].module) {
			a->module = l->attempts[lead].module;
			a->name_source = NAME_LEADER;
		}
	}
}

/*
 * 6.5+ (9b9879fc0327): finit_module() calls on one inode that overlap are merged; the
 * first does the work, the others sleep and return its result. A waiter started while
 * its leader ran, left right after it with the same result, and (when vmap events were
 * traced) allocated nothing. The leader did the reading (or loaded the module).
 * The leader is the closest exit, the earliest attempt among equals. Only calls with
 * the same return and an exit within the slack can lead, so they are looked up in @w,
 * sorted by both. An exit or entry that is not a finite number (never from a real
 * trace) is within any slack of everything and orders with nothing: then every call is
 * asked, in order, as the closest-exit rule does not order them.
 */
static void find_waiters(struct ledger *l, size_t from, struct waiter_index *w)
{
	/* the passes between two searches may have changed outcomes */
	for (size_t k = 0; k < w->n; k++)
		w->idx[k].waiter = l->attempts[w->idx[k].i].outcome == OUTCOME_WAITER;
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];
		long best = -1;
		double best_dist = 0, dist;

		if (a->syscall != ATTEMPT_FINIT || !a->complete || a->module_load_seen)
			continue;
		if (a->measured && a->n_allocs)
			continue;
		/* it read the file: it did its own work */
		if (a->probed && a->kread_seen)
			continue;
		if (w->all_finite) {
			best = closest_leader(l, w, i);
		} else {
			for (size_t j = w->lo; j < l->n_attempts; j++) {
				if (j == i || !leader_fits(a, &l->attempts[j], &dist))
					continue;
				if (best < 0 || dist < best_dist) {
					best = (long)j;
					best_dist = dist;
				}
			}
		}
		if (best < 0)
			continue;
		a->outcome = OUTCOME_WAITER;
		if (w->n)
			w->idx[w->pos[i - w->lo]].waiter = true;
		a->leader = best;
		a->waiter_by_timing = !has_evidence(a);
		if (!a->module && l->attempts[best].module) {
			a->module = l->attempts[best].module;
			a->name_source = NAME_LEADER;
		}
	}
	find_late_waiters(l, from, w);
	/* a leader named later (by the log) names its waiters too */
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->outcome == OUTCOME_WAITER && a->leader >= 0 && !a->module &&
		    l->attempts[a->leader].module) {
			a->module = l->attempts[a->leader].module;
			a->name_source = NAME_LEADER;
		}
	}
}

/* Did @a do any work of its own (read the file, allocate) as far as the trace shows? */
static bool did_own_work(const struct attempt *a)
{
	return (a->measured && a->n_allocs) || (a->probed && a->kread_seen) || a->module_load_seen;
}

/* Can @b be the load an interrupted @a was waiting for, by time? */
static bool overlaps_to_end(const struct attempt *a, const struct attempt *b)
{
	/* it came first and was still running when the signal ended @a's wait */
	return b->start <= a->start + WAITER_START_SLACK_MEASURED &&
	       (!b->complete || b->end >= a->end - WAITER_START_SLACK_MEASURED);
}

/*
 * Calls a signal ended, classed by what they were doing.
 * 6.5+: a finit_module() of a file another call is loading sleeps in
 * idempotent_wait_for_completion() and returns its preset -EINTR when a signal wakes it
 * before the leader is done: a waiter that did no work, its leader still running when
 * it left. It is named from its leader when the calls it may have waited for agree.
 * Any kernel: a load of a module another call is still forming sleeps in
 * add_unformed_module() (or, 6.4+, module_patient_check_exists()) and returns
 * -ERESTARTSYS when signalled: a duplicate of that concurrent load.
 */
static void find_interrupted(struct ledger *l, size_t from)
{
	const struct priv *p = l->priv;

	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];
		bool idem = l->idempotent_kernel && a->syscall == ATTEMPT_FINIT &&
			    a->err == EINTR && !did_own_work(a);
		long lead = -1;
		size_t n_cand = 0;
		bool agree = true;

		if (a->outcome != OUTCOME_INTERRUPTED || !(idem || a->module))
			continue;
		for (size_t j = look_back(l, i, a->start - p->longest - 1.0);
		     j < l->n_attempts && !(l->attempts[j].start > a->end + ORDER_SLACK); j++) {
			const struct attempt *b = &l->attempts[j];

			if (j == i || !names_compatible(a, b))
				continue;
			if (idem) {
				if (!overlaps_to_end(a, b))
					continue;
				if (b->syscall != ATTEMPT_FINIT || b->outcome == OUTCOME_WAITER ||
				    b->outcome == OUTCOME_INTERRUPTED ||
				    (b->complete && !did_leader_work(b)))
					continue;
				if (lead >= 0)
					agree = agree && b->module && l->attempts[lead].module &&
						strcmp(b->module, l->attempts[lead].module) == 0;
				else
					lead = (long)j;
				n_cand++;
				continue;
			}
			/*
			 * The load it waited for was forming the module when it left: whoever
			 * reached add_unformed_module() first, not whoever entered first
			 */
			if (b->module && !attempt_is_duplicate(b) &&
			    b->outcome != OUTCOME_INTERRUPTED && b->start <= a->end &&
			    (!b->complete || b->end >= a->end - WAITER_START_SLACK_MEASURED)) {
				a->outcome = OUTCOME_DUP_CONCURRENT;
				break;
			}
		}
		if (!idem || !n_cand)
			continue;
		a->outcome = OUTCOME_WAITER;
		a->waiter_by_timing = !has_evidence(a);
		/* several calls it may have waited for, of different modules: no guess */
		a->leader = agree ? lead : -1;
		if (a->leader >= 0 && !a->module && l->attempts[lead].module) {
			a->module = l->attempts[lead].module;
			a->name_source = NAME_LEADER;
		}
	}
}

/*
 * kmod before 31 tries finit_module(fd, 0) on a compressed file; the kernel reads it all
 * and says ENOEXEC; kmod then decompresses it itself and calls init_module(). Same
 * thread, one after the other.
 */
static void find_fallbacks(struct ledger *l, size_t from)
{
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->syscall != ATTEMPT_FINIT || a->err != ENOEXEC ||
		    (a->flags & 4 /* MODULE_INIT_COMPRESSED_FILE */))
			continue;
		for (size_t j = i + 1; j < l->n_attempts; j++) {
			struct attempt *b = &l->attempts[j];

			if (b->pid != a->pid)
				continue;
			if (b->syscall != ATTEMPT_INIT || b->start - a->end > FALLBACK_GAP)
				break;
			a->outcome = OUTCOME_FALLBACK;
			if (!a->module && b->module) {
				a->module = b->module;
				a->name_source = NAME_FALLBACK_PAIR;
			}
			break;
		}
	}
}

/* Findings whose module is the one being loaded (not an alias, a device, a driver) */
static bool finding_names_loaded_module(int kind)
{
	switch (kind) {
	case KLOG_FINDING_UNKNOWN_SYMBOL:
	case KLOG_FINDING_SYMBOL_VERSION:
	case KLOG_FINDING_NO_SYMBOL_VERSION:
	case KLOG_FINDING_SYMBOL_NAMESPACE:
	case KLOG_FINDING_THIS_MODULE_SIZE:
	case KLOG_FINDING_BLACKLISTED:
	case KLOG_FINDING_VERMAGIC:
	case KLOG_FINDING_ALREADY_LOADED:
	case KLOG_FINDING_INIT_BAD_RETURN:
	case KLOG_FINDING_LOAD_ERROR:
		return true;
	default:
		return false;
	}
}

struct by_ts {
	double ts;
	size_t i;
};

static int by_ts_cmp(const void *x, const void *y)
{
	const struct by_ts *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Entries of @idx (sorted, no NaN) before @lim; with @strict, those at @lim too */
static size_t by_ts_count(const struct by_ts *idx, size_t n, double lim, bool strict)
{
	size_t lo = 0, hi = n;

	/* a NaN limit: no comparison holds, as in the tests these replace */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strict ? idx[mid].ts <= lim : idx[mid].ts < lim)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A log line printed inside a failed call, naming one module, names the call. The
 * lines and the calls are sorted by time, so that each call looks at the lines and
 * the other calls of its own time only.
 */
static int names_from_klog(struct ledger *l, size_t from)
{
	const struct priv *p = l->priv;
	_cleanup_free_ struct by_ts *lines = NULL, *calls = NULL;
	size_t n_lines = 0, n_calls = 0, klo = 0, lo = 0;
	double longest = p->longest;

	if (from > 0 && from < l->n_attempts) {
		double t = l->attempts[from].start;

		/* the log of the calls still open to change, and the calls they overlap */
		klo = l->n_klog;
		while (klo > 0 && !(l->klog[klo - 1].last_ts < t - KLOG_SLACK - ORDER_SLACK))
			klo--;
		lo = look_back(l, from, t - 2 * longest - 1.0);
	} else if (from >= l->n_attempts) {
		return 0;
	}
	lines = calloc(l->n_klog - klo + 1, sizeof(*lines));
	calls = calloc(l->n_attempts - lo + 1, sizeof(*calls));
	if (!lines || !calls)
		return -ENOMEM;
	for (size_t k = klo; k < l->n_klog; k++) {
		const struct ledger_klog *g = &l->klog[k];

		if (g->module && finding_names_loaded_module(g->kind) && !isnan(g->ts))
			lines[n_lines++] = (struct by_ts){ g->ts, k };
	}
	if (!n_lines)
		return 0;
	array_sort(lines, n_lines, sizeof(*lines), by_ts_cmp);
	/* a call with a start that is not a number overlaps nothing */
	for (size_t j = lo; j < l->n_attempts; j++) {
		const struct attempt *b = &l->attempts[j];

		if (!b->complete || isnan(b->start))
			continue;
		calls[n_calls++] = (struct by_ts){ b->start, j };
	}
	array_sort(calls, n_calls, sizeof(*calls), by_ts_cmp);

	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];
		const char *found = NULL;
		bool ambiguous = false;
		size_t lo_k, hi_k;

		if (a->module || !a->complete || !a->err)
			continue;
		/* the order does not matter: one module or ambiguous */
		/* a run (klog_runs) starts up to KLOG_RUN_SPAN before its last line */
		lo_k = isnan(a->start) ? 0
				       : by_ts_count(lines, n_lines,
						     a->start - KLOG_SLACK - (l->klog_runs ? KLOG_RUN_SPAN : 0),
						     false);
		hi_k = isnan(a->end) ? n_lines : by_ts_count(lines, n_lines, a->end + KLOG_SLACK, true);
		for (size_t k = lo_k; k < hi_k; k++) {
			const struct ledger_klog *g = &l->klog[lines[k].i];

			if (g->last_ts < a->start - KLOG_SLACK || g->ts > a->end + KLOG_SLACK)
				continue;
			if (g->err && g->err != a->err)
				continue;
			if (found && strcmp(found, g->module) != 0)
				ambiguous = true;
			found = g->module;
		}
		if (!found || ambiguous)
			continue;
		/*
		 * another failed call of a different module open at the same time: can't tell.
		 * It started before this one ended, and ended after this one started, so it
		 * started at most the longest call (and some rounding) before.
		 */
		lo_k = isnan(a->start) || isinf(longest)
			       ? 0
			       : by_ts_count(calls, n_calls, a->start - 2 * longest - 1.0, false);
		hi_k = isnan(a->end) ? 0 : by_ts_count(calls, n_calls, a->end, false);
		for (size_t k = lo_k; k < hi_k && !ambiguous; k++) {
			size_t j = calls[k].i;
			const struct attempt *b = &l->attempts[j];

			if (j != i && b->complete && b->err == a->err && b->start < a->end &&
			    b->end > a->start && b->module && strcmp(b->module, found) != 0)
				ambiguous = true;
		}
		if (ambiguous)
			continue;
		a->module = name_intern_str(l->priv, found);
		if (!a->module)
			return -ENOMEM;
		a->name_source = NAME_KLOG;
	}
	return 0;
}

static bool names_contain(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static bool module_live_at(struct ledger *l, const char *name, double ts)
{
	struct priv *p = l->priv;
	size_t pos = name_find(p, name, strlen(name)), k;
	const struct live_name *n = pos == HINDEX_NONE ? NULL : &p->names[pos].live;
	bool state;

	if (!n || n->first == SIZE_MAX)
		return l->ops.live_at_start && l->ops.live_at_start(l->ops.userdata, name);
	/* the first event tells the state before it: a load means it was absent */
	state = !p->live[n->first].live;
	if (n->ordered) {
		/* a request is recent (live: not settled yet): look back from the last */
		for (k = n->last; k != SIZE_MAX && p->live[k].ts > ts; k = p->live[k].prev)
			;
		return k == SIZE_MAX ? state : p->live[k].live;
	}
	for (k = n->first; k != SIZE_MAX && !(p->live[k].ts > ts); k = p->live[k].next)
		state = p->live[k].live;
	return state;
}

static int resolve_requests(struct ledger *l)
{
	struct priv *p = l->priv;

	/* an alias resolves once; whether its module was Live is asked again until settled */
	for (; p->n_req_resolved < l->n_requests; p->n_req_resolved++) {
		struct autoload_request *rq = &l->requests[p->n_req_resolved];
		int r;

		if (!l->ops.resolve_alias) {
			rq->resolve_failed = true;
			continue;
		}
		r = l->ops.resolve_alias(l->ops.userdata, rq->alias, &rq->resolved, &rq->n_resolved);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			rq->resolve_failed = true;
	}
	for (size_t i = l->n_requests_settled; i < l->n_requests; i++) {
		struct autoload_request *rq = &l->requests[i];

		if (rq->resolve_failed || rq->needless_final)
			continue;
		/* modprobe finds the module Live and makes no syscall: a needless request */
		rq->needless = rq->n_resolved > 0;
		for (size_t k = 0; k < rq->n_resolved && rq->needless; k++)
			rq->needless = module_live_at(l, rq->resolved[k], rq->ts);
	}
	return 0;
}

/* The modules modprobe may load for @rq: its resolution, their dependencies, softdeps */
static int request_closure(struct ledger *l, const struct autoload_request *rq,
			   char ***ret_names, size_t *ret_n)
{
	char **all = calloc(1, sizeof(char *));
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	for (size_t k = 0; k < rq->n_resolved; k++) {
		char **c = NULL;
		size_t cn = 0;
		int r = -ENOENT;

		if (l->ops.module_closure)
			r = l->ops.module_closure(l->ops.userdata, rq->resolved[k], &c, &cn);
		if (r == -ENOMEM)
			goto nomem;
		/* without a closure, the resolved module itself */
		if (r < 0) {
			c = NULL;
			cn = 0;
		}
		for (size_t q = 0; q < (r < 0 ? 1 : cn); q++) {
			const char *name = r < 0 ? rq->resolved[k] : c[q];
			char **na;

			if (names_contain(all, n, name))
				continue;
			na = realloc(all, (n + 2) * sizeof(char *));
			if (!na || !(na[n] = strdup(name))) {
				if (na)
					all = na;
				if (c)
					l->ops.names_free(c);
				goto nomem;
			}
			all = na;
			all[++n] = NULL;
		}
		if (c)
			l->ops.names_free(c);
	}
	*ret_names = all;
	*ret_n = n;
	return 0;
nomem:
	for (size_t i = 0; i < n; i++)
		free(all[i]);
	free(all);
	return -ENOMEM;
}

static void names_free_local(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * Is every named attempt of a pid (its first @i, then by @next, which is indexed from
 * @from) one modprobe could make for @rq?
 */
static int request_fits(struct ledger *l, const struct autoload_request *rq, size_t i,
			const size_t *next, size_t from, bool *ret_fits)
{
	char **closure = NULL;
	size_t n = 0;
	bool fits = true;
	int r;

	*ret_fits = false;
	if (!rq->n_resolved)
		return 0;
	r = request_closure(l, rq, &closure, &n);
	if (r < 0)
		return r;
	for (; i != SIZE_MAX && fits; i = next[i - from]) {
		const struct attempt *a = &l->attempts[i];

		if (!a->module)
			continue;
		fits = names_contain(closure, n, a->module);
	}
	names_free_local(closure, n);
	*ret_fits = fits;
	return 0;
}

/*
 * What the kernel read (kread bytes, when traced) or was handed (init_module's length)
 * can fit exactly one module file: then that file it was. Among the request's modules
 * for a modprobe tied to one, else among all.
 */
static int names_from_sizes(struct ledger *l, size_t from)
{
	if (!l->ops.identify)
		return 0;
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];
		char **cand = NULL, *name = NULL;
		size_t n = 0;
		int r;

		if (a->module || !a->complete || a->outcome == OUTCOME_WAITER)
			continue;
		/*
		 * ENOEXEC: maybe no module at all, and a page-rounded read size is matched by
		 * any file of about that size. Other outcomes mean the kernel parsed a module.
		 */
		if (a->syscall == ATTEMPT_FINIT && a->err == ENOEXEC)
			continue;
		if (a->request >= 0) {
			r = request_closure(l, &l->requests[a->request], &cand, &n);
			if (r < 0)
				return r;
		}
		r = l->ops.identify(l->ops.userdata, a, cand, a->request >= 0 ? n : 0, &name);
		if (cand)
			names_free_local(cand, n);
		if (r == -ENOMEM)
			return r;
		if (r == 1) {
			a->module = name_intern_str(l->priv, name);
			free(name);
			if (!a->module)
				return -ENOMEM;
			a->name_source = NAME_SIZE;
		}
	}
	return 0;
}

/*
 * request_module() in task T makes the kernel run modprobe (a usermode helper, child of
 * a kworker). Each modprobe that makes syscalls is tied to the oldest unanswered request
 * before it whose module (or dependencies) it loads. Requests whose module is Live, or
 * that resolve to no module, start a modprobe that makes no syscall: they stay unlinked.
 */
struct by_pid {
	int pid;
	size_t i;
};

static int by_pid_cmp(const void *x, const void *y)
{
	const struct by_pid *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * For each attempt from @from on (indexed from @from), the next one of its pid
 * (SIZE_MAX: none): a modprobe per load makes 10^5 pids, too many to look back through.
 */
static int chain_pids(const struct ledger *l, size_t from, size_t **ret_next)
{
	size_t n = l->n_attempts - from;
	_cleanup_free_ struct by_pid *idx = calloc(n + 1, sizeof(*idx));
	size_t *next = calloc(n + 1, sizeof(*next));

	if (!idx || !next) {
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (struct by_pid){ l->attempts[from + i].pid, from + i };
	array_sort(idx, n, sizeof(*idx), by_pid_cmp);
	for (size_t k = 0; k < n; k++) {
		bool same_next = k + 1 < n && idx[k + 1].pid == idx[k].pid;

		next[idx[k].i - from] = same_next ? idx[k + 1].i : SIZE_MAX;
	}
	*ret_next = next;
	return 0;
}

static int link_modprobes(struct ledger *l, size_t from)
{
	struct priv *p = l->priv;
	_cleanup_free_ size_t *next = NULL;
	/*
	 * The requests a modprobe may answer, in order: one that resolves to no module or
	 * whose module was Live fits none. Answered ones at the front are skipped for good.
	 */
	_cleanup_free_ size_t *cand = NULL;
	size_t n_cand = 0, lo = 0, rlo = 0;
	int r;

	if (from >= l->n_attempts)
		return 0;
	/* requests older than any modprobe still open to change cannot be its */
	if (from > 0) {
		double t = l->attempts[from].start - REQUEST_TO_MODPROBE - ORDER_SLACK;

		rlo = l->n_requests;
		while (rlo > 0 && !(l->requests[rlo - 1].ts < t))
			rlo--;
	}
	cand = calloc(l->n_requests - rlo + 1, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (size_t k = rlo; k < l->n_requests; k++)
		if (l->requests[k].n_resolved && !l->requests[k].needless)
			cand[n_cand++] = k;
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];
		size_t first = pid_first(l, a->pid);

		if (a->request >= 0)
			continue;
		/* the process's first attempt decides; later ones follow it */
		if (first != i) {
			/* its first is settled: follow it (those after it are linked below) */
			long req = first == PID_FIRST_GONE ? gone_find(p, a->pid)->request
				   : first < from	     ? l->attempts[first].request
							     : -1;

			if (req >= 0) {
				a->request = req;
				l->requests[a->request].n_attempts++;
			}
			continue;
		}
		if (strcmp(a->comm, "modprobe") != 0)
			continue;
		/* a modprobe whose parent is known and is not a kernel thread was run by hand */
		if (proctab_parent_is_user(p->procs, a->pid))
			continue;
		while (lo < n_cand && l->requests[cand[lo]].modprobe_pid)
			lo++;
		/* made when first needed: a storm without modprobe does not pay for it */
		if (lo < n_cand && !next) {
			r = chain_pids(l, from, &next);
			if (r < 0)
				return r;
		}
		for (size_t q = lo; q < n_cand; q++) {
			size_t k = cand[q];
			struct autoload_request *rq = &l->requests[k];
			bool fits;

			if (rq->modprobe_pid || rq->ts > a->start ||
			    a->start - rq->ts > REQUEST_TO_MODPROBE || rq->needless)
				continue;
			r = request_fits(l, rq, i, next, from, &fits);
			if (r < 0)
				return r;
			if (!fits)
				continue;
			rq->modprobe_pid = a->pid;
			for (size_t j = i; j != SIZE_MAX; j = next[j - from])
				if (l->attempts[j].request < 0) {
					l->attempts[j].request = (long)k;
					rq->n_attempts++;
				}
			break;
		}
	}
	return 0;
}

/* What the passes below decide about the attempts from @from on, undone. */
static void unsettle(struct ledger *l, size_t from)
{
	for (size_t i = from; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->request >= 0) {
			struct autoload_request *rq = &l->requests[a->request];

			rq->n_attempts--;
			if (rq->modprobe_pid == a->pid && pid_first(l, a->pid) == i)
				rq->modprobe_pid = 0;
			a->request = -1;
		}
		if (a->module && a->name_source != NAME_MODULE_LOAD) {
			a->module = NULL;
			a->name_source = NAME_NONE;
		}
		a->outcome = a->complete ? outcome_from(a) : OUTCOME_INCOMPLETE;
		a->leader = -1;
		a->waiter_by_timing = false;
	}
}

static int finish_from(struct ledger *l, size_t from)
{
	/* what the passes change does not move a call in it: one index serves both searches */
	struct waiter_index w = { 0 };
	int r;

	if (l->idempotent_kernel) {
		r = waiter_index_build(l, from, &w);
		if (r < 0)
			return r;
	}
	names_from_probes(l, from);
	r = names_from_klog(l, from);
	if (r < 0)
		return r;
	find_fallbacks(l, from);
	if (l->idempotent_kernel)
		find_waiters(l, from, &w);
	r = names_from_klog(l, from);
	if (r < 0)
		return r;
	find_fallbacks(l, from);
	r = resolve_requests(l);
	if (r < 0)
		return r;
	r = link_modprobes(l, from);
	if (r < 0)
		return r;
	r = names_from_sizes(l, from);
	if (r < 0)
		return r;
	/* leaders named by size name their waiters; a named pair names its fallback */
	if (l->idempotent_kernel)
		find_waiters(l, from, &w);
	find_fallbacks(l, from);
	find_interrupted(l, from);
	return names_from_live(l, from);
}

/* Has @a ended long enough before @now that no event still to come can change it? */
static bool attempt_settles(const struct ledger *l, size_t i, double now)
{
	const struct priv *p = l->priv;
	const struct attempt *a = &l->attempts[i];
	double h = SETTLE_SLACK;

	if (!a->complete) {
		/* still open: its exit will come; an exit that was lost never will */
		for (size_t k = 0; k < p->n_open; k++)
			if (&l->attempts[p->open[k].attempt] == a)
				return false;
		return a->start < now - h;
	}
	/* kmod's userspace decompression may still follow (find_fallbacks) */
	if (a->syscall == ATTEMPT_FINIT && a->err == ENOEXEC && !(a->flags & 4)) {
		h += FALLBACK_GAP;
		/* it did: the pair's name (from its log, its size) comes when the pair settles */
		if (a->outcome == OUTCOME_FALLBACK)
			for (size_t j = i + 1; j < l->n_attempts; j++)
				if (l->attempts[j].pid == a->pid)
					return attempt_settles(l, j, now);
	}
	return a->end < now - h;
}

int ledger_settle(struct ledger *l, double now)
{
	struct priv *p = l->priv;
	bool all = now == INFINITY;
	size_t from = l->n_settled;
	int r;

	unsettle(l, from);
	r = finish_from(l, from);
	if (r < 0)
		return r;
	/* settled attempts are a prefix: the passes above only ever look back at them */
	while (l->n_settled < l->n_attempts &&
	       (all || attempt_settles(l, l->n_settled, now))) {
		p->live_named_settled += l->attempts[l->n_settled].name_source == NAME_LIVE;
		l->n_settled++;
	}
	l->stats.live_named = p->live_named_settled;
	for (size_t i = l->n_settled; i < l->n_attempts; i++)
		l->stats.live_named += l->attempts[i].name_source == NAME_LIVE;
	/*
	 * A request is settled when no attempt still open to change can be its modprobe's:
	 * those started after it by at most REQUEST_TO_MODPROBE
	 */
	{
		double t = l->n_settled < l->n_attempts ? l->attempts[l->n_settled].start : now;

		while (l->n_requests_settled < l->n_requests &&
		       (all || l->requests[l->n_requests_settled].ts <
				       (t < now - SETTLE_SLACK ? t : now - SETTLE_SLACK) -
					       REQUEST_TO_MODPROBE - ORDER_SLACK))
			l->n_requests_settled++;
	}
	return 0;
}

int ledger_finish(struct ledger *l)
{
	return ledger_settle(l, INFINITY);
}

const struct proctab *ledger_proctab(const struct ledger *l)
{
	return ((const struct priv *)l->priv)->procs;
}

void ledger_held(const struct ledger *l, struct ledger_held *ret)
{
	const struct priv *p = l->priv;

	*ret = (struct ledger_held){
		.attempts = l->n_attempts,
		.module_events = p->n_live,
		.processes = proctab_count(p->procs),
	};
}

/* Marks @pid's first attempt, with its autoload request, as forgotten. 0 or -ENOMEM. */
static int gone_add(struct priv *p, int pid, long request)
{
	if (!p->gone_bits) {
		if (hindex_new(&p->gone_idx) < 0)
			return -ENOMEM;
		p->gone_bits = calloc(PID_BITS / 64, sizeof(*p->gone_bits));
		if (!p->gone_bits) {
			p->gone_idx = hindex_free(p->gone_idx);
			return -ENOMEM;
		}
	}
	if (pid >= 0 && (unsigned int)pid < PID_BITS) {
		p->gone_bits[(unsigned int)pid / 64] |= UINT64_C(1) << (pid % 64);
		if (request < 0)
			return 0;
	}
	if (array_grow((void **)&p->gone, p->n_gone, &p->cap_gone, sizeof(*p->gone)) < 0 ||
	    hindex_add(p->gone_idx, pid_hash(pid), p->n_gone) < 0)
		return -ENOMEM;
	p->gone[p->n_gone++] = (struct gone_pid){ pid, request };
	return 0;
}

/*
 * How far back of the oldest attempt still open to change (or of a newer one to come)
 * the passes look, beyond ORDER_SLACK: a leader ended within 2 * WAITER_EXIT_SLACK_MEASURED
 * and started at most the longest call before (waiter_index_build()), a call overlapping
 * a log line 2 * longest + 1 s (names_from_klog()). cost_attempt_bounded() reads of the
 * calls before a priced attempt those it overlaps, started at most the longest call
 * before it; it may have started ORDER_SLACK before the oldest open one (its scan goes
 * further back, to be sure to pass them, but reads nothing more)
 */
static double forget_look_back(double longest)
{
	double w = longest + 2 * WAITER_EXIT_SLACK_MEASURED, k = 2 * longest + 1.0,
	       c = longest + ORDER_SLACK, m = w > k ? w : k;

	return m > c ? m : c;
}

/*
 * Does live event @i go? Not the last of its module at or before @t (and its hold): a
 * later one is, in a module whose events are in time order
 */
static bool live_event_goes(const struct priv *p, size_t i, double t)
{
	const struct live_event *e = &p->live[i];
	const struct name_entry *n;

	if (e->name == LIVE_NAME_FAR || e->next == SIZE_MAX)
		return false;
	n = &p->names[e->name];
	return n->live.ordered && p->live[e->next].ts <= t && p->live[e->next].ts <= n->hold;
}

/* Does @name have a load or free event? */
static bool name_has_events(const struct priv *p, const char *name)
{
	size_t pos = name_find(p, name, strlen(name));

	return pos != HINDEX_NONE && p->names[pos].live.first != SIZE_MAX;
}

/*
 * Holds (@hold: a request's time, else INFINITY again) the events module_live_at()
 * reads for the requests still open to change at @t: their modules' events from the last
 * at or before each request on
 */
static void hold_live_events(struct ledger *l, double t, bool hold)
{
	struct priv *p = l->priv;

	for (size_t i = l->n_requests_settled; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];

		if (rq->resolve_failed || rq->needless_final || !(rq->ts < t))
			continue;
		for (size_t k = 0; k < rq->n_resolved; k++) {
			size_t pos = name_find(p, rq->resolved[k], strlen(rq->resolved[k]));

			if (pos == HINDEX_NONE)
				continue;
			if (!hold)
				p->names[pos].hold = INFINITY;
			else if (rq->ts < p->names[pos].hold)
				p->names[pos].hold = rq->ts;
		}
	}
}

/*
 * The module load and free events module_live_at() can no longer need. It reads of a
 * module's events the last at or before the request it is asked about, and those after.
 * A request before @now - ORDER_SLACK has every event at or before it in (the trace comes
 * in time order, give or take that): once each of its modules has an event, later events
 * do not change what it asks (with none, the first to come says what was before it), and
 * it is not asked again (needless_final). The requests to come, and those not final,
 * hold their modules' events from the last at or before them; of a module whose events
 * are out of time order all stay (the walk from the first may stop anywhere). The scan
 * runs when the events doubled since the last, so that it costs O(1) an event.
 * 0 or -ENOMEM.
 */
static int forget_live_events(struct ledger *l, double now)
{
	struct priv *p = l->priv;
	double t = now - ORDER_SLACK;
	size_t *map, n = 0;
	bool any = false;

	for (size_t i = l->n_requests_settled; i < l->n_requests; i++) {
		struct autoload_request *rq = &l->requests[i];

		if (rq->resolve_failed || rq->needless_final || !(rq->ts < t))
			continue;
		rq->needless_final = true;
		for (size_t k = 0; k < rq->n_resolved && rq->needless_final; k++)
			rq->needless_final = name_has_events(p, rq->resolved[k]);
	}
	if (p->n_live < p->live_prune_at)
		return 0;
	hold_live_events(l, t, true);
	for (size_t i = 0; i < p->n_live && !any; i++)
		any = live_event_goes(p, i, t);
	if (!any)
		goto done;
	map = malloc(p->n_live * sizeof(*map));
	if (!map) {
		hold_live_events(l, t, false);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_live; i++)
		map[i] = live_event_goes(p, i, t) ? SIZE_MAX : n++;
	/* a module's dropped events are the first of its list: the kept keep their order */
	for (size_t i = 0; i < p->n_live; i++) {
		struct live_event *e = &p->live[i];

		if (map[i] == SIZE_MAX)
			continue;
		e->prev = e->prev == SIZE_MAX ? SIZE_MAX : map[e->prev];
		e->next = e->next == SIZE_MAX ? SIZE_MAX : map[e->next];
		if (e->name != LIVE_NAME_FAR && e->prev == SIZE_MAX)
			p->names[e->name].live.first = map[i];
		if (e->name != LIVE_NAME_FAR && e->next == SIZE_MAX)
			p->names[e->name].live.last = map[i];
		p->live[map[i]] = *e;
	}
	free(map);
	p->n_live = n;
done:
	hold_live_events(l, t, false);
	p->live_prune_at = p->n_live < 512 ? 1024 : 2 * p->n_live;
	return 0;
}

/*
 * Does settled request @rq still have a use once no kept attempt follows it? Only as a
 * finding at the end (needless, or an alias that resolves to no module): the rest of
 * a settled request no longer changes, and is read only through its attempts.
 */
static bool request_is_finding(const struct autoload_request *rq)
{
	return rq->needless || (!rq->resolve_failed && rq->n_resolved == 0);
}

/*
 * Drops the requests that are no finding and that no kept attempt, and no process whose
 * first attempt was forgotten, refers to: settled ones, and those that found no module
 * index to ask (no modprobe can be tied to them, and they are never needless), so that
 * a storm of autoloads costs no memory per request. Indices are renumbered as attempts'
 * are. 0 or -ENOMEM.
 */
static int forget_requests(struct ledger *l)
{
	struct priv *p = l->priv;
	size_t n = p->n_req_resolved, k = 0, d, below = 0;
	_cleanup_free_ size_t *map = NULL;

	if (!n)
		return 0;
	map = calloc(n, sizeof(*map));
	if (!map)
		return -ENOMEM;
	/* SIZE_MAX - 1: still referred to */
	for (size_t i = 0; i < l->n_attempts; i++)
		if (l->attempts[i].request >= 0 && (size_t)l->attempts[i].request < n)
			map[l->attempts[i].request] = SIZE_MAX - 1;
	for (size_t i = 0; i < p->n_gone; i++)
		if (p->gone[i].request >= 0 && (size_t)p->gone[i].request < n)
			map[p->gone[i].request] = SIZE_MAX - 1;
	for (size_t i = 0; i < n; i++) {
		struct autoload_request *rq = &l->requests[i];

		if (map[i] == SIZE_MAX - 1 || request_is_finding(rq) ||
		    (i >= l->n_requests_settled && !rq->resolve_failed)) {
			map[i] = k;
			l->requests[k++] = *rq;
			continue;
		}
		map[i] = SIZE_MAX;
		below += i < l->n_requests_settled;
		if (rq->resolved && l->ops.names_free)
			l->ops.names_free(rq->resolved);
		proctab_unpin(p->procs, rq->pid);
	}
	d = n - k;
	if (!d)
		return 0;
	memmove(l->requests + k, l->requests + n, (l->n_requests - n) * sizeof(*l->requests));
	l->n_requests -= d;
	l->n_requests_settled -= below;
	p->n_req_resolved -= d;
	for (size_t i = 0; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		if (a->request >= 0)
			a->request = (size_t)a->request < n ? (long)map[a->request] : a->request - (long)d;
	}
	for (size_t i = 0; i < p->n_gone; i++) {
		struct gone_pid *g = &p->gone[i];

		if (g->request >= 0)
			g->request = (size_t)g->request < n ? (long)map[g->request] : g->request - (long)d;
	}
	return 0;
}

int ledger_forget_settled(struct ledger *l, double now, size_t *ret_n)
{
	struct priv *p = l->priv;
	size_t f = l->n_settled, d;
	/* attempts to come start, in a trace in time order, no earlier than this */
	double t = now - ORDER_SLACK;

	*ret_n = 0;
	if (p->keep_all || !isfinite(p->longest) || !isfinite(now))
		return 0;
	if (forget_live_events(l, now) < 0)
		return -ENOMEM;
	if (f < l->n_attempts && l->attempts[f].start < t)
		t = l->attempts[f].start;
	d = look_back(l, f, t - forget_look_back(p->longest));
	if (!d)
		return forget_requests(l);
	for (size_t i = 0; i < d; i++) {
		const struct attempt *a = &l->attempts[i];
		size_t h = first_find(&p->firsts, a->pid);

		if (h == SIZE_MAX || p->firsts.slots[h].attempt != l->n_forgotten + i)
			continue;
		if (gone_add(p, a->pid, a->request) < 0)
			return -ENOMEM;
		first_remove(&p->firsts, h);
	}
	for (size_t i = 0; i < d; i++)
		proctab_unpin(p->procs, l->attempts[i].pid);
	memmove(l->attempts, l->attempts + d, (l->n_attempts - d) * sizeof(*l->attempts));
	l->n_attempts -= d;
	l->n_settled -= d;
	l->n_forgotten += d;
	for (size_t k = 0; k < p->n_open; k++)
		p->open[k].attempt -= d;
	for (size_t i = 0; i < l->n_attempts; i++) {
		struct attempt *a = &l->attempts[i];

		/* only a settled waiter can have a leader this far back: it stays a waiter */
		if (a->leader >= 0)
			a->leader = (size_t)a->leader >= d ? a->leader - (long)d : -1;
	}
	*ret_n = d;
	return forget_requests(l);
}

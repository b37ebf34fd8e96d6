/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "util/macro.h"
#include "tep-decode.h"
#include "text.h"

/* The fields each kind needs, by name in the event's format */
enum {
	F_0, F_1, F_2, F_3, F_4, F_5,
	F_MAX,
};

struct ev_info {
	bool done;
	enum ktrace_event_kind kind;
	struct tep_event *event;
	struct tep_format_field *f[F_MAX];
};

struct ktrace_decoder {
	struct tep_handle *tep;
	ktrace_comm_fn comm;
	void *userdata;
	struct ev_info *info;		/* by event id */
	size_t n_info;
	struct ktrace_frame *frames;
	size_t n_frames, cap_frames;
	char comm_buf[32];
	char text[8192];		/* a marker's text, NUL-terminated in the record or not */
};

int ktrace_decoder_new(struct tep_handle *tep, ktrace_comm_fn comm, void *userdata,
		       struct ktrace_decoder **ret)
{
	struct ktrace_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tep = tep;
	d->comm = comm;
	d->userdata = userdata;
	*ret = d;
	return 0;
}

struct ktrace_decoder *ktrace_decoder_free(struct ktrace_decoder *d)
{
	if (!d)
		return NULL;
	free(d->info);
	free(d->frames);
	free(d);
	return NULL;
}

const struct ktrace_frame *ktrace_decoder_frames(const struct ktrace_decoder *d, size_t *ret_n)
{
	*ret_n = d->n_frames;
	return d->frames;
}

/* --- what each event is, and its fields --------------------------------------------- */

struct kind_desc {
	const char *system;		/* NULL: any (kprobes live in their own group) */
	const char *name;
	enum ktrace_event_kind kind;
	const char *fields[F_MAX];	/* needed; a leading '?' for an optional one */
};

static const struct kind_desc kinds[] = {
	{ "syscalls", "sys_enter_finit_module", KTRACE_EV_SYS_ENTER_FINIT_MODULE,
	  { "fd", "uargs", "flags" } },
	{ "syscalls", "sys_exit_finit_module", KTRACE_EV_SYS_EXIT_FINIT_MODULE, { "ret" } },
	{ "syscalls", "sys_enter_init_module", KTRACE_EV_SYS_ENTER_INIT_MODULE,
	  { "umod", "len", "uargs" } },
	{ "syscalls", "sys_exit_init_module", KTRACE_EV_SYS_EXIT_INIT_MODULE, { "ret" } },
	{ "syscalls", "sys_enter_delete_module", KTRACE_EV_SYS_ENTER_DELETE_MODULE,
	  { "name_user", "flags" } },
	{ "syscalls", "sys_exit_delete_module", KTRACE_EV_SYS_EXIT_DELETE_MODULE, { "ret" } },
	{ "module", "module_load", KTRACE_EV_MODULE_LOAD, { "name" } },
	{ "module", "module_free", KTRACE_EV_MODULE_FREE, { "name" } },
	{ "module", "module_request", KTRACE_EV_MODULE_REQUEST, { "name", "wait", "ip" } },
	{ "module", "module_get", KTRACE_EV_MODULE_GET, { "name", "ip", "refcnt" } },
	{ "module", "module_put", KTRACE_EV_MODULE_PUT, { "name", "ip", "refcnt" } },
	{ "sched", "sched_process_fork", KTRACE_EV_SCHED_PROCESS_FORK,
	  { "parent_comm", "parent_pid", "child_comm", "child_pid" } },
	{ "sched", "sched_process_exec", KTRACE_EV_SCHED_PROCESS_EXEC,
	  { "filename", "pid", "old_pid" } },
	{ "sched", "sched_process_exit", KTRACE_EV_SCHED_PROCESS_EXIT, { "comm", "pid" } },
	/* 6.13 dropped the pid: the record's own is the task's */
	{ "task", "task_rename", KTRACE_EV_TASK_RENAME, { "?pid", "oldcomm", "newcomm" } },
	{ "ftrace", "print", KTRACE_EV_MARKER, { "buf" } },
	{ "ftrace", "kernel_stack", KTRACE_EV_STACK, { "caller" } },
	{ "vmalloc", "alloc_vmap_area", KTRACE_EV_ALLOC_VMAP_AREA,
	  { "addr", "size", "align", "vstart", "vend", "failed" } },
	{ "vmalloc", "free_vmap_area_noflush", KTRACE_EV_FREE_VMAP_AREA_NOFLUSH,
	  { "va_start", "nr_lazy", "nr_lazy_max" } },
	{ "vmalloc", "purge_vmap_area_lazy", KTRACE_EV_PURGE_VMAP_AREA_LAZY,
	  { "start", "end", "npurged" } },
	/* kprobes: any group, by event name (kmodtop_PID, kmodtop, the test bed's kmt) */
	{ NULL, "kmodtop_kread", KTRACE_EV_PROBE_KREAD, { "size", "?id", "?path" } },
	{ NULL, "kmodtop_name", KTRACE_EV_PROBE_NAME, { "name" } },
	{ NULL, "kmodtop_layout", KTRACE_EV_PROBE_LAYOUT, { "size" } },
	{ NULL, "alloc_vmap_area", KTRACE_EV_ALLOC_VMAP_AREA_KPROBE,
	  { "size", "?align", "?vstart", "?vend" } },
};

static bool resolve(struct ev_info *in, struct tep_event *e)
{
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		const struct kind_desc *kd = &kinds[k];
		bool ok = true;

		if (strcmp(e->name, kd->name) != 0 ||
		    (kd->system && (!e->system || strcmp(e->system, kd->system) != 0)))
			continue;
		/* the vmalloc tracepoint is in vmalloc; the kprobe stand-in in any other group */
		if (kd->kind == KTRACE_EV_ALLOC_VMAP_AREA_KPROBE && e->system &&
		    strcmp(e->system, "vmalloc") == 0)
			continue;
		memset(in->f, 0, sizeof(in->f));
		for (int i = 0; i < F_MAX && kd->fields[i]; i++) {
			const char *n = kd->fields[i];
			bool optional = n[0] == '?';

			in->f[i] = tep_find_field(e, optional ? n + 1 : n);
			if (!in->f[i] && !optional)
				ok = false;
		}
		if (!ok)
			continue;
		in->kind = kd->kind;
		return true;
	}
	in->kind = KTRACE_EV_UNKNOWN;
	return false;
}

static struct ev_info *info_of(struct ktrace_decoder *d, struct tep_record *rec)
{
	int id = tep_data_type(d->tep, rec);
	struct ev_info *in;

	if (id < 0 || id > 65535)
		return NULL;
	if ((size_t)id >= d->n_info) {
		size_t n = (size_t)id + 64;
		struct ev_info *ni = realloc(d->info, n * sizeof(*ni));

		if (!ni)
			return NULL;
		memset(ni + d->n_info, 0, (n - d->n_info) * sizeof(*ni));
		d->info = ni;
		d->n_info = n;
	}
	in = &d->info[id];
	if (!in->done) {
		in->event = tep_find_event(d->tep, id);
		if (in->event)
			resolve(in, in->event);
		in->done = true;
	}
	return in->event ? in : NULL;
}

/* --- fields ---------------------------------------------------------------------------- */

static bool num(const struct tep_format_field *f, struct tep_record *rec, uint64_t *ret)
{
	unsigned long long v;

	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > rec->size)
		return false;
	if (tep_read_number_field((struct tep_format_field *)f, rec->data, &v) < 0)
		return false;
	*ret = v;
	return true;
}

static bool snum(const struct tep_format_field *f, struct tep_record *rec, int64_t *ret)
{
	uint64_t v;

	if (!num(f, rec, &v))
		return false;
	/* sign-extend from the field's width */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (v & (1ULL << (f->size * 8 - 1))))
		v |= ~0ULL << (f->size * 8);
	*ret = (int64_t)v;
	return true;
}

/* A string field: fixed (char comm[16]), __data_loc (dynamic), or the record's tail */
static bool str(const struct tep_format_field *f, struct tep_record *rec,
		struct ktrace_str *ret)
{
	const char *base = rec->data;
	unsigned int off, len;

	if (!f || f->offset < 0 || f->offset > rec->size)
		return false;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t loc;

		if (!num(f, rec, &loc))
			return false;
		off = (unsigned int)(loc & 0xffff);
		len = (unsigned int)((loc >> 16) & 0xffff);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)(f->offset + f->size);
	} else if (f->size == 0) {
		/* "char buf[]" at the end (ftrace's print) */
		off = (unsigned int)f->offset;
		len = (unsigned int)(rec->size - f->offset);
	} else {
		off = (unsigned int)f->offset;
		len = (unsigned int)f->size;
	}
	if (off > (unsigned int)rec->size || len > (unsigned int)rec->size - off)
		return false;
	ret->s = base + off;
	ret->len = strnlen(ret->s, len);
	return true;
}

static void sym_of(struct ktrace_decoder *d, uint64_t addr, struct ktrace_sym *ret)
{
	const char *fn = tep_find_function(d->tep, addr);

	memset(ret, 0, sizeof(*ret));
	if (fn) {
		ret->sym = ret->text = (struct ktrace_str){ fn, strlen(fn) };
		ret->module = (struct ktrace_str){ fn + strlen(fn), 0 };
	}
}

static int stack_frames(struct ktrace_decoder *d, const struct ev_info *in, struct tep_record *rec)
{
	const struct tep_format_field *f = in->f[0];
	int lsz = tep_get_long_size(d->tep);
	size_t off, end;

	d->n_frames = 0;
	if (!f || f->offset < 0 || f->offset > rec->size || (lsz != 4 && lsz != 8))
		return -EINVAL;
	off = (size_t)f->offset;
	/*
	 * The array runs to the record's end, whatever the format declares (caller[8]): the
	 * kernel reserves room for the frames it has, as trace_stack_print() reads them
	 */
	end = (size_t)rec->size;
	for (; off + (size_t)lsz <= end; off += (size_t)lsz) {
		uint64_t a = tep_read_number(d->tep, (char *)rec->data + off, lsz);
		struct ktrace_frame *fr;

		/* the kernel ends a short stack with ULONG_MAX or 0 */
		if (!a || a == (lsz == 8 ? ~0ULL : 0xffffffffULL))
			break;
		if (d->n_frames == d->cap_frames) {
			size_t n = d->cap_frames ? d->cap_frames * 2 : 32;
			struct ktrace_frame *nf = realloc(d->frames, n * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			d->frames = nf;
			d->cap_frames = n;
		}
		fr = &d->frames[d->n_frames++];
		memset(fr, 0, sizeof(*fr));
		sym_of(d, a, &fr->fn);
		fr->addr = a;
	}
	return 1;
}

int ktrace_decoder_decode(struct ktrace_decoder *d, struct tep_record *rec, struct ktrace_event *ev)
{
	struct ev_info *in = info_of(d, rec);
	const struct tep_format_field *const *f;
	const char *comm;
	uint64_t u[F_MAX] = { 0 };
	bool ok = true;
	size_t n;

	memset(ev, 0, sizeof(*ev));
	ev->format = KTRACE_FMT_EITHER;
	ev->tgid = -1;
	ev->pid = tep_data_pid(d->tep, rec);
	ev->cpu = rec->cpu >= 0 ? (unsigned int)rec->cpu : 0;
	ev->ts_ns = rec->ts;
	ev->ts = (double)(rec->ts / 1000000000ULL) + (double)(rec->ts % 1000000000ULL) / 1e9;
	ev->ts_digits = 9;
	comm = d->comm ? d->comm(d->userdata, ev->pid) : tep_data_comm_from_pid(d->tep, ev->pid);
	if (!comm || !*comm)
		comm = "<...>";
	/* not snprintf(): this runs for every event of a storm */
	n = strnlen(comm, sizeof(d->comm_buf) - 1);
	memcpy(d->comm_buf, comm, n);
	d->comm_buf[n] = '\0';
	ev->comm = (struct ktrace_str){ d->comm_buf, n };
	if (!in)
		return -EINVAL;
	ev->name = (struct ktrace_str){ in->event->name, strlen(in->event->name) };
	if (in->event->system)
		ev->system = (struct ktrace_str){ in->event->system, strlen(in->event->system) };
	ev->kind = in->kind;
	f = (const struct tep_format_field *const *)in->f;

	switch (in->kind) {
	case KTRACE_EV_SYS_ENTER_FINIT_MODULE:
		ok = num(f[0], rec, &u[0]) && num(f[1], rec, &u[1]) && num(f[2], rec, &u[2]);
		ev->finit_module.fd = (int)u[0];
		ev->finit_module.uargs = u[1];
		ev->finit_module.flags = (unsigned int)u[2];
		break;
	case KTRACE_EV_SYS_ENTER_INIT_MODULE:
		ok = num(f[0], rec, &ev->init_module.umod) && num(f[1], rec, &ev->init_module.len) &&
		     num(f[2], rec, &ev->init_module.uargs);
		break;
	case KTRACE_EV_SYS_ENTER_DELETE_MODULE:
		ok = num(f[0], rec, &ev->delete_module.name_user) && num(f[1], rec, &u[1]);
		ev->delete_module.flags = (unsigned int)u[1];
		break;
	case KTRACE_EV_SYS_EXIT_FINIT_MODULE:
	case KTRACE_EV_SYS_EXIT_INIT_MODULE:
	case KTRACE_EV_SYS_EXIT_DELETE_MODULE:
		ok = snum(f[0], rec, &ev->sys_exit.ret);
		break;
	case KTRACE_EV_MODULE_LOAD:
	case KTRACE_EV_MODULE_FREE:
		ok = str(f[0], rec, &ev->module_load.name) && ev->module_load.name.len;
		break;
	case KTRACE_EV_MODULE_REQUEST:
		ok = str(f[0], rec, &ev->module_request.name) && num(f[1], rec, &u[1]) &&
		     num(f[2], rec, &u[2]);
		ev->module_request.wait = u[1] != 0;
		sym_of(d, u[2], &ev->module_request.call_site);
		break;
	case KTRACE_EV_MODULE_GET:
	case KTRACE_EV_MODULE_PUT: {
		int64_t rc = 0;

		ok = str(f[0], rec, &ev->module_refcnt.name) && num(f[1], rec, &u[1]) &&
		     snum(f[2], rec, &rc);
		sym_of(d, u[1], &ev->module_refcnt.call_site);
		ev->module_refcnt.refcnt = (int)rc;
		break;
	}
	case KTRACE_EV_SCHED_PROCESS_FORK: {
		int64_t pp = 0, cp = 0;

		ok = str(f[0], rec, &ev->fork.comm) && snum(f[1], rec, &pp) &&
		     str(f[2], rec, &ev->fork.child_comm) && snum(f[3], rec, &cp);
		ev->fork.pid = (int)pp;
		ev->fork.child_pid = (int)cp;
		break;
	}
	case KTRACE_EV_SCHED_PROCESS_EXEC: {
		int64_t p = 0, op = 0;

		ok = str(f[0], rec, &ev->exec.filename) && snum(f[1], rec, &p) &&
		     snum(f[2], rec, &op);
		ev->exec.pid = (int)p;
		ev->exec.old_pid = (int)op;
		break;
	}
	case KTRACE_EV_SCHED_PROCESS_EXIT: {
		int64_t p = 0;

		ok = str(f[0], rec, &ev->exit.comm) && snum(f[1], rec, &p);
		ev->exit.pid = (int)p;
		break;
	}
	case KTRACE_EV_TASK_RENAME: {
		int64_t p = ev->pid;

		ok = (!f[0] || snum(f[0], rec, &p)) && str(f[1], rec, &ev->rename.oldcomm) &&
		     str(f[2], rec, &ev->rename.newcomm);
		ev->rename.pid = (int)p;
		break;
	}
	case KTRACE_EV_MARKER: {
		struct ktrace_str t;

		ok = str(f[0], rec, &t);
		if (!ok)
			break;
		/* what trace_marker got: echo's newline is no part of the text */
		while (t.len && (t.s[t.len - 1] == '\n' || t.s[t.len - 1] == ' '))
			t.len--;
		if (t.len >= sizeof(d->text))
			t.len = sizeof(d->text) - 1;
		memcpy(d->text, t.s, t.len);
		d->text[t.len] = '\0';
		ktrace_marker_set(ev, d->text, t.len);
		break;
	}
	case KTRACE_EV_STACK:
		return stack_frames(d, in, rec);
	case KTRACE_EV_ALLOC_VMAP_AREA: {
		struct ktrace_vmap_alloc *a = &ev->vmap_alloc;

		ok = num(f[0], rec, &a->addr) && num(f[1], rec, &a->size) &&
		     num(f[2], rec, &a->align) && num(f[3], rec, &a->vstart) &&
		     num(f[4], rec, &a->vend) && num(f[5], rec, &u[5]);
		a->failed = u[5] != 0;
		a->has_result = a->has_align = a->has_range = true;
		ok = ok && ktrace_vmap_size_possible(a->size);
		break;
	}
	case KTRACE_EV_ALLOC_VMAP_AREA_KPROBE: {
		struct ktrace_vmap_alloc *a = &ev->vmap_alloc;

		ok = num(f[0], rec, &a->size) && ktrace_vmap_size_possible(a->size);
		a->has_align = f[1] && num(f[1], rec, &a->align);
		a->has_range = f[2] && f[3] && num(f[2], rec, &a->vstart) &&
			       num(f[3], rec, &a->vend);
		break;
	}
	case KTRACE_EV_FREE_VMAP_AREA_NOFLUSH:
		ok = num(f[0], rec, &ev->vmap_free.addr) && num(f[1], rec, &ev->vmap_free.nr_lazy) &&
		     num(f[2], rec, &ev->vmap_free.nr_lazy_max);
		break;
	case KTRACE_EV_PURGE_VMAP_AREA_LAZY:
		ok = num(f[0], rec, &ev->vmap_purge.start) && num(f[1], rec, &ev->vmap_purge.end) &&
		     num(f[2], rec, &u[2]);
		ev->vmap_purge.npurged = (unsigned int)u[2];
		break;
	case KTRACE_EV_PROBE_KREAD: {
		struct ktrace_probe_kread *k = &ev->probe_kread;

		ok = snum(f[0], rec, &k->size) && k->size >= 0;
		k->id = -1;
		if (f[1] && !snum(f[1], rec, &k->id))
			k->id = -1;
		if (!f[2] || !str(f[2], rec, &k->path))
			k->path = (struct ktrace_str){ "", 0 };
		break;
	}
	case KTRACE_EV_PROBE_NAME:
		ok = str(f[0], rec, &ev->probe_name.name) && ev->probe_name.name.len;
		break;
	case KTRACE_EV_PROBE_LAYOUT:
		ok = num(f[0], rec, &ev->probe_layout.size) &&
		     ktrace_vmap_size_possible(ev->probe_layout.size);
		break;
	default:
		/* an event the ledger does not use, or one of another layout */
		ev->kind = KTRACE_EV_UNKNOWN;
		return 0;
	}
	if (!ok) {
		ev->kind = KTRACE_EV_UNKNOWN;
		return -EINVAL;
	}
	return 0;
}

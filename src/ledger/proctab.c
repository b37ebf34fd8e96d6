/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "proctab.h"

struct proc {
	int pid;
	int ppid;
	bool exact;		/* comm is from an event's fields, not a line's header */
	char comm[32];
};

/* open addressing on pid; pids are small positive ints */
struct proctab {
	struct proc *slots;
	size_t cap, n;
};

int proctab_new(struct proctab **ret)
{
	struct proctab *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return -ENOMEM;
	pt->cap = 256;
	pt->slots = calloc(pt->cap, sizeof(*pt->slots));
	if (!pt->slots) {
		free(pt);
		return -ENOMEM;
	}
	*ret = pt;
	return 0;
}

struct proctab *proctab_free(struct proctab *pt)
{
	if (!pt)
		return NULL;
	free(pt->slots);
	free(pt);
	return NULL;
}

static size_t slot_of(const struct proctab *pt, int pid)
{
	size_t h = ((unsigned int)pid * 2654435761u) & (pt->cap - 1);

	while (pt->slots[h].pid && pt->slots[h].pid != pid)
		h = (h + 1) & (pt->cap - 1);
	return h;
}

static int grow(struct proctab *pt)
{
	struct proc *old = pt->slots;
	size_t oldcap = pt->cap;

	pt->slots = calloc(oldcap * 2, sizeof(*pt->slots));
	if (!pt->slots) {
		pt->slots = old;
		return -ENOMEM;
	}
	pt->cap = oldcap * 2;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].pid)
			pt->slots[slot_of(pt, old[i].pid)] = old[i];
	free(old);
	return 0;
}

/* snprintf("%s") without the printf machinery: this runs for most trace events */
static void set_comm(struct proc *p, const char *comm)
{
	size_t n = strnlen(comm, sizeof(p->comm) - 1);

	memcpy(p->comm, comm, n);
	p->comm[n] = '\0';
}

static struct proc *get(struct proctab *pt, int pid, int *ret_err)
{
	size_t h;

	*ret_err = 0;
	if (pid <= 0)
		return NULL;
	if ((pt->n + 1) * 2 > pt->cap && grow(pt) < 0) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	h = slot_of(pt, pid);
	if (!pt->slots[h].pid) {
		pt->slots[h].pid = pid;
		pt->n++;
	}
	return &pt->slots[h];
}

static const struct proc *find(const struct proctab *pt, int pid)
{
	size_t h;

	if (pid <= 0)
		return NULL;
	h = slot_of(pt, pid);
	return pt->slots[h].pid ? &pt->slots[h] : NULL;
}

int proctab_set_comm(struct proctab *pt, int pid, const char *comm)
{
	int r;
	struct proc *p = get(pt, pid, &r);

	if (p && !p->exact)
		set_comm(p, comm);
	return r;
}

int proctab_name(struct proctab *pt, int pid, const char *comm)
{
	int r;
	struct proc *p = get(pt, pid, &r);

	if (p) {
		set_comm(p, comm);
		p->exact = true;
	}
	return r;
}

int proctab_fork(struct proctab *pt, int parent, int child, const char *child_comm)
{
	int r;
	struct proc *p = get(pt, child, &r);

	if (!p)
		return r;
	p->ppid = parent;
	p->exact = false;
	set_comm(p, child_comm);
	return 0;
}

int proctab_set_parent(struct proctab *pt, int pid, int ppid)
{
	int r;
	struct proc *p = get(pt, pid, &r);

	if (p && !p->ppid && ppid > 0 && ppid != pid)
		p->ppid = ppid;
	return r;
}

int proctab_parent(const struct proctab *pt, int pid)
{
	const struct proc *p = find(pt, pid);

	return p ? p->ppid : 0;
}

const char *proctab_comm(const struct proctab *pt, int pid)
{
	const struct proc *p = find(pt, pid);

	return p && p->comm[0] ? p->comm : NULL;
}

const char *proctab_exact_comm(const struct proctab *pt, int pid)
{
	const struct proc *p = find(pt, pid);

	return p && p->exact && p->comm[0] ? p->comm : NULL;
}

bool proctab_parent_is_user(const struct proctab *pt, int pid)
{
	int pp = proctab_parent(pt, pid);
	const char *c;

	if (pp <= 0 || pp == 2)
		return false;
	c = proctab_comm(pt, pp);
	return c && strncmp(c, "kworker", 7) != 0;
}

size_t proctab_chain(const struct proctab *pt, int pid, const char **ret_comms, int *ret_pids,
		     size_t max)
{
	size_t n = 0;
	int cur = proctab_parent(pt, pid);

	/* bounded: a cycle in hostile input cannot loop */
	while (cur > 0 && n < max) {
		ret_comms[n] = proctab_comm(pt, cur);
		ret_pids[n] = cur;
		n++;
		cur = proctab_parent(pt, cur);
	}
	return n;
}

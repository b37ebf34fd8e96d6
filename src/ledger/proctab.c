/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/array.h"
#include "proctab.h"

/*
 * Entries before the least recently used that nothing looks up are forgotten: a trace
 * of forks without their exits (kmodtop record traces no exits) stays within a few MiB
 */
#define PROCTAB_MAX 32768

/* Ordered by size, so that it has no padding: a table of tens of thousands */
struct proc {
	int pid;
	int ppid;
	unsigned int children;	/* entries whose ppid is this pid */
	unsigned int pinned;	/* load attempts and requests it made still kept: looked
				 * up at the end (UINT_MAX: for good) */
	uint32_t used;		/* pt->clock when last touched */
	char comm[32];
	bool exact;		/* comm is from an event's fields, not a line's header */
	bool exited;		/* kept only while pinned or a parent of a kept entry */
	bool forget;		/* forget_oldest()'s choice */
};

/* open addressing on pid; pids are small positive ints */
struct proctab {
	struct proc *slots;
	size_t cap, n;
	uint32_t clock;
	uint64_t forgotten;	/* entries dropped to stay within PROCTAB_MAX */
	size_t limit;		/* forget_oldest() when an insertion passes it */
};

int proctab_new(struct proctab **ret)
{
	struct proctab *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return -ENOMEM;
	pt->cap = 256;
	pt->limit = PROCTAB_MAX;
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

/* Does @p hold a reference on its parent's entry? */
static bool refs_parent(const struct proc *p)
{
	return p->ppid > 0 && p->ppid != p->pid;
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

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static void remove_slot(struct proctab *pt, size_t h);

/*
 * The older half of the entries nothing looks up (not pinned, no child kept) goes, taken
 * out in place: a second table would double the memory when the table is largest. One
 * pass, amortised over the PROCTAB_MAX / 2 insertions until the next time.
 */
static int forget_oldest(struct proctab *pt)
{
	uint32_t *used = malloc(pt->n * sizeof(*used)), cut;
	struct proc *s = pt->slots;
	size_t n = 0;

	if (!used)
		return -ENOMEM;
	for (size_t i = 0; i < pt->cap; i++)
		if (s[i].pid && !s[i].pinned && !s[i].children)
			used[n++] = s[i].used;
	if (!n) {
		/* all of them looked up at the end: the table grows, with no scan per insertion */
		pt->limit = pt->n + PROCTAB_MAX / 2;
		free(used);
		return 0;
	}
	array_sort(used, n, sizeof(*used), cmp_u32);
	cut = used[n / 2];
	free(used);
	/* chosen on the counts as they are; then each one's reference on its parent goes */
	for (size_t i = 0; i < pt->cap; i++) {
		struct proc *p = &s[i];

		p->forget = p->pid && !p->pinned && !p->children && p->used <= cut;
	}
	for (size_t i = 0; i < pt->cap; i++) {
		if (s[i].forget && refs_parent(&s[i])) {
			struct proc *pp = &s[slot_of(pt, s[i].ppid)];

			if (pp->pid && pp->children)
				pp->children--;
		}
	}
	n = pt->n;
	/*
	 * remove_slot() moves later entries of the cluster back into the hole, never an
	 * entry not yet looked at before @i: the slot is looked at again until it keeps one
	 */
	for (size_t i = 0; i < pt->cap; i++)
		while (s[i].pid && s[i].forget)
			remove_slot(pt, i);
	pt->forgotten += n - pt->n;
	/* pinned entries that stay push the next time back */
	pt->limit = pt->n + PROCTAB_MAX / 2 > PROCTAB_MAX ? pt->n + PROCTAB_MAX / 2 : PROCTAB_MAX;
	return 0;
}

/* The next use's time; when the clock wraps every entry starts again as equally old */
static uint32_t tick(struct proctab *pt)
{
	if (++pt->clock == 0) {
		for (size_t i = 0; i < pt->cap; i++)
			pt->slots[i].used = 0;
		pt->clock = 1;
	}
	return pt->clock;
}

static struct proc *get(struct proctab *pt, int pid, int *ret_err)
{
	size_t h;

	*ret_err = 0;
	if (pid <= 0)
		return NULL;
	h = slot_of(pt, pid);
	if (pt->slots[h].pid) {
		pt->slots[h].used = tick(pt);
		return &pt->slots[h];
	}
	if (pt->n >= pt->limit && forget_oldest(pt) < 0) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	/* two thirds full at most: short probes, and a third less memory than half */
	if ((pt->n + 1) * 3 > pt->cap * 2 && grow(pt) < 0) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	h = slot_of(pt, pid);
	pt->slots[h].pid = pid;
	pt->slots[h].used = tick(pt);
	pt->n++;
	return &pt->slots[h];
}

/* Linear probing's deletion: later members of the cluster move back into the hole */
static void remove_slot(struct proctab *pt, size_t h)
{
	size_t mask = pt->cap - 1, i = h, j = h;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!pt->slots[j].pid)
			break;
		k = ((unsigned int)pt->slots[j].pid * 2654435761u) & mask;
		/* moved unless its home lies cyclically in (i, j] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			pt->slots[i] = pt->slots[j];
			i = j;
		}
	}
	memset(&pt->slots[i], 0, sizeof(pt->slots[i]));
	pt->n--;
}

/*
 * @pid lost a child entry: an exited process nobody looks up any more goes, and the
 * reference it held on its own parent with it. Bounded: a cycle in hostile input ends.
 */
static void unref(struct proctab *pt, int pid)
{
	for (size_t guard = pt->n; pid > 0 && guard; guard--) {
		size_t h = slot_of(pt, pid);
		struct proc *p = &pt->slots[h];
		int up;

		if (!p->pid)
			return;
		if (p->children)
			p->children--;
		if (!p->exited || p->pinned || p->children)
			return;
		up = refs_parent(p) ? p->ppid : 0;
		remove_slot(pt, h);
		pid = up;
	}
}

/* Sets @pid's parent to @ppid, moving the reference; @pid's entry exists */
static int set_ppid(struct proctab *pt, int pid, int ppid)
{
	struct proc *p;
	int r, old;

	/* the parent's entry first: get() may move every slot */
	if (ppid > 0 && ppid != pid && !get(pt, ppid, &r))
		return r;
	p = &pt->slots[slot_of(pt, pid)];
	old = refs_parent(p) ? p->ppid : 0;
	p->ppid = ppid;
	if (refs_parent(p))
		pt->slots[slot_of(pt, ppid)].children++;
	if (old)
		unref(pt, old);
	return 0;
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
	p->exact = false;
	p->exited = false;
	set_comm(p, child_comm);
	return set_ppid(pt, child, parent);
}

int proctab_set_parent(struct proctab *pt, int pid, int ppid)
{
	int r;
	struct proc *p = get(pt, pid, &r);

	if (p && !p->ppid && ppid > 0 && ppid != pid)
		return set_ppid(pt, pid, ppid);
	return r;
}

int proctab_pin(struct proctab *pt, int pid)
{
	int r;
	struct proc *p = get(pt, pid, &r);

	if (p && p->pinned < UINT_MAX)
		p->pinned++;
	return r;
}

/* An entry nothing looks up goes, and the reference it held on its parent with it */
static void drop_if_unused(struct proctab *pt, size_t h)
{
	struct proc *p = &pt->slots[h];
	int up;

	if (!p->exited || p->pinned || p->children)
		return;
	up = refs_parent(p) ? p->ppid : 0;
	remove_slot(pt, h);
	if (up)
		unref(pt, up);
}

void proctab_unpin(struct proctab *pt, int pid)
{
	size_t h;
	struct proc *p;

	if (pid <= 0)
		return;
	h = slot_of(pt, pid);
	p = &pt->slots[h];
	/* a count that reached its ceiling no longer counts: kept for good */
	if (!p->pid || !p->pinned || p->pinned == UINT_MAX)
		return;
	p->pinned--;
	drop_if_unused(pt, h);
}

void proctab_exit(struct proctab *pt, int pid)
{
	size_t h;
	struct proc *p;

	if (pid <= 0)
		return;
	h = slot_of(pt, pid);
	p = &pt->slots[h];
	if (!p->pid)
		return;
	p->exited = true;
	drop_if_unused(pt, h);
}

size_t proctab_count(const struct proctab *pt)
{
	return pt->n;
}

uint64_t proctab_forgotten(const struct proctab *pt)
{
	return pt->forgotten;
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

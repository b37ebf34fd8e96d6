/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Processes seen in the trace: comm and parent (sched_process_fork), by pid. */
struct proctab;

int proctab_new(struct proctab **ret);
struct proctab *proctab_free(struct proctab *pt);
/* A name as a trace line printed it: kept unless an exact one is known */
int proctab_set_comm(struct proctab *pt, int pid, const char *comm);
/* A name from an event's own fields (task_rename, sched_process_fork): exact then */
int proctab_name(struct proctab *pt, int pid, const char *comm);
/* A new process at @child (maybe a reused pid): no exact name until proctab_name() */
int proctab_fork(struct proctab *pt, int parent, int child, const char *child_comm);
/* A parent learnt elsewhere (/proc, live): kept only when no fork of @pid said one */
int proctab_set_parent(struct proctab *pt, int pid, int ppid);
/*
 * @pid made a load attempt or a request: kept, with its ancestors, for the end. Counted:
 * each pin is undone by one proctab_unpin().
 */
int proctab_pin(struct proctab *pt, int pid);
/*
 * A load attempt or request of @pid was forgotten (ledger_forget_settled()): with no
 * pin left, an exited process goes, and a live one may be forgotten as an unpinned one is
 */
void proctab_unpin(struct proctab *pt, int pid);
/*
 * @pid exited (sched_process_exit): its entry goes unless pinned or the parent of one
 * kept, so that a fork storm costs no memory per process
 */
void proctab_exit(struct proctab *pt, int pid);
/* Entries held: processes alive, pinned, or ancestors of those */
size_t proctab_count(const struct proctab *pt);
/*
 * Entries forgotten, least recently used first, because more processes than the table
 * keeps were alive at once (forks without exits): their names and parents are unknown
 */
uint64_t proctab_forgotten(const struct proctab *pt);
/* The parent pid, or 0 when no fork of @pid was seen. */
int proctab_parent(const struct proctab *pt, int pid);
const char *proctab_comm(const struct proctab *pt, int pid);
/* The name proctab_name() gave @pid since its fork, or NULL */
const char *proctab_exact_comm(const struct proctab *pt, int pid);
/* Known parent that is neither a kernel thread nor kthreadd: run by a user process */
bool proctab_parent_is_user(const struct proctab *pt, int pid);
/*
 * The ancestors of @pid as a list of comm and pid, parent first; up to @max entries.
 * Returns the number written. Strings are owned by @pt.
 */
size_t proctab_chain(const struct proctab *pt, int pid, const char **ret_comms, int *ret_pids,
		     size_t max);

/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * record's bundle: a live collection's two spools and a snapshot of the kernel's module
 * state, laid out as a root that `kmodtop --root DIR report` reads on any machine.
 *
 * A bundle is written into DIR.partial beside DIR, with capture/INCOMPLETE in it, and
 * renamed to DIR once complete (bundle_finish()): DIR is never a half-written bundle,
 * and one that was not finished (an error, kill -9, a power cut) says so by its name
 * and its marker. DIR must not exist, or be an empty directory, which the rename
 * replaces: a bundle never mixes with other files. A DIR.partial that exists already
 * is left alone: an earlier record that did not finish.
 */
struct kt_root;
struct live_status;

struct bundle {
	const struct kt_root *src;	/* the live system, "/" (not owned) */
	int dfd;			/* the bundle directory, DIR.partial while written */
	char *dir;			/* DIR: what it is renamed to when complete */
	char *partial;			/* "DIR.partial" */
	bool made;			/* partial was made by this process */
	int trace_fd, kmsg_fd;		/* the spools: sys/kernel/tracing/trace, capture/kmsg.raw */
	FILE *notes;			/* capture/record.txt */
	unsigned int copied, missing;	/* files of the snapshot; missing ones are in the notes */
	int err;			/* first hard error */
};

/* Until the rename, inside the bundle: what it is, and why it stopped if it did */
#define BUNDLE_MARKER "capture/INCOMPLETE"

void bundle_init(struct bundle *b, const struct kt_root *src);
/* Closes what is open and frees the names; the files stay as they are. */
void bundle_done(struct bundle *b);
/* "kmodtop-RELEASE-YYYYMMDD-HHMMSS", for a bundle not named. 0 or -errno. */
int bundle_default_dir(char *buf, size_t len, const char *release);
/* Makes DIR.partial with its marker. 0, or -errno with *reterr_path, the path it is about. */
int bundle_begin(struct bundle *b, const char *dir, const char **reterr_path);
/* The two spools and the notes, which begin with what records what. 0 or -errno. */
int bundle_open_spools(struct bundle *b, const char *release);
/* What the collection had and lacked, in the notes; the spool of a source not had goes. */
void bundle_note_live(struct bundle *b, const struct live_status *st);
/*
 * The module state of the live system (proc, sys/module, modprobe.d, depmod's indexes,
 * the module files the spools' attempts touched), then everything on disk. A file that
 * cannot be read is counted missing; 0, or the first -errno of a write.
 */
int bundle_snapshot(struct bundle *b, const char *release);
/* Complete: the marker goes, then DIR.partial becomes DIR. 0 or -errno. */
int bundle_finish(struct bundle *b);
/*
 * Not to be finished: the bundle stays DIR.partial, and @why goes into its marker; 1
 * then, for the caller to say where it is. With @discard (nothing recorded yet), what
 * bundle_begin() made is removed instead: 0.
 */
int bundle_abandon(struct bundle *b, bool discard, const char *why);

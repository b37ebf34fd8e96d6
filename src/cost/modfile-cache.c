/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "util/io.h"
#include "util/macro.h"
#include "modfile.h"
#include "modfile-internal.h"

/* ---- cache --------------------------------------------------------------------------- */

/*
 * One cache file per module directory (a "pack"), holding one record per module file
 * of that directory, each keyed by the file's name, device, inode, size and mtime. A
 * scan walks the tree directory by directory, so a warm scan reads one pack per
 * directory (954 for Debian's 4,230 modules) instead of one file per module; a
 * changed record is written back, temp file and rename, when the scan leaves the
 * directory. All little-endian. Bump CACHE_VERSION whenever the analysis changes what
 * it computes: old packs then read as foreign and are rebuilt.
 */
#define CACHE_MAGIC "KMTMODD\n"
#define CACHE_VERSION 1u
#define CACHE_HEAD (8 + 4 + 4 + 4)	/* magic, version, records, directory length */
#define CACHE_REC_FIXED (4 + 8 * 4 + 4 + 4 + 4 + 8 * 5 + 4 + 4 + 64 + 4 + 8 * 13)
#define CACHE_NAME_MAX 4096u
#define CACHE_PACK_MAX (64u << 20)
#define CACHE_RECS_MAX 65536u

struct key {
	uint64_t dev, ino, size, mtime_sec;
	uint32_t mtime_nsec;
};

struct pack_rec {
	char *base;
	struct key k;
	unsigned int flags;	/* what was analysed: MODFILE_LAYOUT or not */
	struct modfile_info info;
};

struct modfile_cache {
	int dfd;		/* -1: caching disabled */
	int err;		/* why */
	const char *why;	/* and in words, when err alone does not say it */
	char *cache_dir;	/* the directory opened (or refused); NULL: none named */
	char *dir;		/* the module directory whose pack is loaded, or NULL */
	bool invalid;		/* that pack was corrupt or foreign: read as empty */
	bool dirty;
	struct pack_rec *recs;
	size_t n, cap;
};

bool modfile_cache_enabled(const struct modfile_cache *c)
{
	return c && c->dfd >= 0;
}

int modfile_cache_error(const struct modfile_cache *c)
{
	return c ? c->err : -EINVAL;
}

const char *modfile_cache_dir(const struct modfile_cache *c)
{
	return c ? c->cache_dir : NULL;
}

const char *modfile_cache_why(const struct modfile_cache *c)
{
	return c ? c->why : NULL;
}

int modfile_cache_default_dir(char **ret)
{
	const char *x = secure_getenv("XDG_CACHE_HOME"), *h;
	char *d;

	/* the XDG base directory spec: relative paths are invalid and ignored */
	if (x && x[0] == '/') {
		if (asprintf(&d, "%s/kmodtop", x) < 0)
			return -ENOMEM;
	} else {
		h = secure_getenv("HOME");
		if (!h || h[0] != '/')
			return -ENOENT;
		if (asprintf(&d, "%s/.cache/kmodtop", h) < 0)
			return -ENOMEM;
	}
	*ret = d;
	return 0;
}

/* mkdir -p with 0700 for what is missing; existing components are left as they are. */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int modfile_cache_open(const char *dir, struct modfile_cache **ret)
{
	struct modfile_cache *c;
	_cleanup_free_ char *def = NULL, *d = NULL;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dfd = -1;
	*ret = c;

	if (!dir) {
		err = modfile_cache_default_dir(&def);
		if (err < 0) {
			c->err = err;
			if (err == -ENOENT)
				c->why = "neither $XDG_CACHE_HOME nor $HOME names a directory";
			return 0;
		}
		dir = def;
	}
	d = strdup(dir);
	c->cache_dir = strdup(dir);
	if (!d || !c->cache_dir) {
		c->err = -ENOMEM;
		return 0;
	}
	err = mkdir_parents(d);
	if (err < 0) {
		c->err = err;
		return 0;
	}
	/* packs then need no owner check */
	c->dfd = dir_open_private(dir, &c->why);
	if (c->dfd < 0) {
		c->err = c->dfd;
		c->dfd = -1;
	}
	return 0;
}

static void pack_clear(struct modfile_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->recs[i].base);
	c->n = 0;
	free(c->dir);
	c->dir = NULL;
	c->invalid = c->dirty = false;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static void pack_name(const char *dir, char buf[32])
{
	snprintf(buf, 32, "%016llx.mfc", (unsigned long long)fnv1a64(dir));
}

static void key_from_stat(const struct stat *st, struct key *k)
{
	k->dev = (uint64_t)st->st_dev;
	k->ino = (uint64_t)st->st_ino;
	k->size = (uint64_t)st->st_size;
	k->mtime_sec = (uint64_t)st->st_mtim.tv_sec;
	k->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* A bounds-checked little-endian reader: once past the end, it reads zeros, !ok. */
struct cur {
	const uint8_t *p, *end;
	bool ok;
};

static const uint8_t *cur_take(struct cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (!c->ok || (size_t)(c->end - c->p) < n) {
		c->ok = false;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t get32(struct cur *c)
{
	const uint8_t *p = cur_take(c, 4);
	uint32_t v = 0;

	for (int i = 0; p && i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get64(struct cur *c)
{
	const uint8_t *p = cur_take(c, 8);
	uint64_t v = 0;

	for (int i = 0; p && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The writer: a growing buffer. */
struct out {
	uint8_t *p;
	size_t len, cap;
	bool ok;
};

static uint8_t *out_take(struct out *o, size_t n)
{
	if (!o->ok)
		return NULL;
	if (o->cap - o->len < n) {
		size_t ncap = o->cap ? o->cap : 4096;
		uint8_t *np;

		while (ncap - o->len < n)
			ncap *= 2;
		np = realloc(o->p, ncap);
		if (!np) {
			o->ok = false;
			return NULL;
		}
		o->p = np;
		o->cap = ncap;
	}
	o->len += n;
	return o->p + o->len - n;
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t *p = out_take(o, 4);

	for (int i = 0; p && i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(struct out *o, uint64_t v)
{
	uint8_t *p = out_take(o, 8);

	for (int i = 0; p && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct out *o, const void *b, size_t n)
{
	uint8_t *p = out_take(o, n);

	if (p)
		memcpy(p, b, n);
}

static void rec_encode(struct out *o, const struct pack_rec *r)
{
	const struct modfile_info *i = &r->info;
	size_t bl = strlen(r->base);

	put32(o, (uint32_t)bl);
	put_bytes(o, r->base, bl);
	put64(o, r->k.dev);
	put64(o, r->k.ino);
	put64(o, r->k.size);
	put64(o, r->k.mtime_sec);
	put32(o, r->k.mtime_nsec);
	put32(o, r->flags);
	put32(o, (uint32_t)i->comp);
	put64(o, i->file_size);
	put64(o, i->decompressed_size);
	put64(o, i->xz_dict_size);
	put64(o, i->zstd_window_size);
	put64(o, 0);	/* reserved */
	put32(o, (i->decompressed_exact ? 1u : 0) | (i->has_layout ? 2u : 0));
	put32(o, (uint32_t)i->name_source);
	put_bytes(o, i->name, 64);
	put32(o, (uint32_t)i->layout_err);
	for (int t = 0; t < _MEMT_MAX; t++)
		put64(o, i->layout.mem[t]);
	put64(o, i->layout.core_size);
	put64(o, i->layout.init_size);
	put64(o, i->layout.sysfs_coresize_64);
	put64(o, i->layout.sysfs_initsize_64);
	put64(o, i->layout.sysfs_coresize_pre64);
	put64(o, i->layout.sysfs_initsize_pre64);
}

/* false: corrupt (the caller frees r->base either way). */
static bool rec_decode(struct cur *c, struct pack_rec *r)
{
	struct modfile_info *i = &r->info;
	uint32_t bl, comp, bits, src;
	const uint8_t *b;

	memset(r, 0, sizeof(*r));
	bl = get32(c);
	if (bl == 0 || bl > CACHE_NAME_MAX || !(b = cur_take(c, bl)) || memchr(b, '\0', bl) ||
	    memchr(b, '/', bl))
		return false;
	r->base = strndup((const char *)b, bl);
	if (!r->base)
		return false;
	r->k.dev = get64(c);
	r->k.ino = get64(c);
	r->k.size = get64(c);
	r->k.mtime_sec = get64(c);
	r->k.mtime_nsec = get32(c);
	r->flags = get32(c);
	comp = get32(c);
	i->file_size = get64(c);
	i->decompressed_size = get64(c);
	i->xz_dict_size = get64(c);
	i->zstd_window_size = get64(c);
	(void)get64(c);
	bits = get32(c);
	src = get32(c);
	b = cur_take(c, 64);
	if (b)
		memcpy(i->name, b, 64);
	i->layout_err = (int32_t)get32(c);
	for (int t = 0; t < _MEMT_MAX; t++)
		i->layout.mem[t] = get64(c);
	i->layout.core_size = get64(c);
	i->layout.init_size = get64(c);
	i->layout.sysfs_coresize_64 = get64(c);
	i->layout.sysfs_initsize_64 = get64(c);
	i->layout.sysfs_coresize_pre64 = get64(c);
	i->layout.sysfs_initsize_pre64 = get64(c);
	if (!c->ok || comp > MODFILE_GZIP || src > MODFILE_NAME_MODINFO || i->name[63] != '\0' ||
	    (bits & ~3u) || (r->flags & ~MODFILE_LAYOUT))
		return false;
	i->comp = comp;
	i->name_source = src;
	i->decompressed_exact = bits & 1;
	i->has_layout = bits & 2;
	return true;
}

static int pack_reserve(struct modfile_cache *c)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct pack_rec *nr = realloc(c->recs, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->recs = nr;
		c->cap = ncap;
	}
	return 0;
}

/* Parses a pack for @dir; false when it is corrupt or another directory's. */
static bool pack_decode(struct modfile_cache *c, const uint8_t *buf, size_t len, const char *dir)
{
	struct cur cu = { buf, buf + len - 4, len >= CACHE_HEAD + 4 };
	size_t dl = strlen(dir);
	uint32_t nrec, crc = 0;
	const uint8_t *b;

	if (!cu.ok || memcmp(buf, CACHE_MAGIC, 8) != 0)
		return false;
	for (int i = 0; i < 4; i++)
		crc |= (uint32_t)buf[len - 4 + i] << (8 * i);
	if (crc != lzma_crc32(buf, len - 4, 0))
		return false;
	cur_take(&cu, 8);
	if (get32(&cu) != CACHE_VERSION)
		return false;
	nrec = get32(&cu);
	if (nrec > CACHE_RECS_MAX || get32(&cu) != dl || !(b = cur_take(&cu, dl)) ||
	    memcmp(b, dir, dl) != 0)
		return false;	/* another directory with the same hash */
	for (uint32_t i = 0; i < nrec; i++) {
		if (pack_reserve(c) < 0)
			return false;
		if (!rec_decode(&cu, &c->recs[c->n])) {
			free(c->recs[c->n].base);
			return false;
		}
		c->n++;
	}
	return cu.ok && cu.p == cu.end;
}

/* Makes @dir's pack the loaded one (writing back the previous one first). */
static void pack_load(struct modfile_cache *c, const char *dir)
{
	uint8_t *buf = NULL;
	char pname[32];
	struct stat st;
	ssize_t n;
	int fd;

	modfile_cache_flush(c);
	pack_clear(c);
	c->dir = strdup(dir);
	if (!c->dir)
		return;
	pack_name(dir, pname);
	fd = openat(c->dfd, pname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		c->invalid = errno != ENOENT;	/* ELOOP: a symlink is foreign */
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < CACHE_HEAD + 4 ||
	    st.st_size > CACHE_PACK_MAX || !(buf = malloc((size_t)st.st_size))) {
		c->invalid = true;
		goto out;
	}
	do
		n = read(fd, buf, (size_t)st.st_size);
	while (n < 0 && errno == EINTR);
	if (n != st.st_size || !pack_decode(c, buf, (size_t)n, dir)) {
		for (size_t i = 0; i < c->n; i++)
			free(c->recs[i].base);
		c->n = 0;
		c->invalid = true;
	}
out:
	free(buf);
	close(fd);
}

/* The loaded pack's bytes, into @o (o->ok false: out of memory) */
static void pack_encode(const struct modfile_cache *c, struct out *o)
{
	size_t dl = strlen(c->dir);

	put_bytes(o, CACHE_MAGIC, 8);
	put32(o, CACHE_VERSION);
	put32(o, (uint32_t)c->n);
	put32(o, (uint32_t)dl);
	put_bytes(o, c->dir, dl);
	for (size_t i = 0; i < c->n; i++)
		rec_encode(o, &c->recs[i]);
	if (o->ok)
		put32(o, lzma_crc32(o->p, o->len, 0));
}

int modfile_cache_pack_recode(const uint8_t *buf, size_t len, const char *dir,
			      uint8_t **ret_buf, size_t *ret_len)
{
	struct modfile_cache c = { .dfd = -1 };
	struct out o = { .ok = true };
	bool ok;

	*ret_buf = NULL;
	*ret_len = 0;
	c.dir = strdup(dir);
	if (!c.dir)
		return -ENOMEM;
	ok = len >= CACHE_HEAD + 4 && len <= CACHE_PACK_MAX && pack_decode(&c, buf, len, dir);
	if (ok)
		pack_encode(&c, &o);
	pack_clear(&c);
	free(c.recs);
	if (!ok)
		return 0;
	if (!o.ok) {
		free(o.p);
		return -ENOMEM;
	}
	*ret_buf = o.p;
	*ret_len = o.len;
	return 1;
}

int modfile_cache_flush(struct modfile_cache *c)
{
	struct out o = { .ok = true };
	char pname[32], tmp[64];
	size_t done = 0;
	int fd = -1, err = 0;

	if (!modfile_cache_enabled(c) || !c->dir || !c->dirty)
		return 0;
	pack_encode(c, &o);
	if (!o.ok) {
		free(o.p);
		return -ENOMEM;
	}

	pack_name(c->dir, pname);
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		uint64_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = ((uint64_t)getpid() << 20) ^ (uint64_t)tries ^ fnv1a64(c->dir);
		snprintf(tmp, sizeof(tmp), ".tmp-%016llx", (unsigned long long)rnd);
		/* O_EXCL|O_NOFOLLOW: never through a symlink someone planted */
		fd = openat(c->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (done < o.len) {
		ssize_t n = write(fd, o.p + done, o.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && err == 0)
		err = -errno;
	/* rename() replaces a symlink at the pack's name itself, not its target */
	if (err == 0 && renameat(c->dfd, tmp, c->dfd, pname) < 0)
		err = -errno;
	if (err < 0)
		unlinkat(c->dfd, tmp, 0);
	else
		c->dirty = c->invalid = false;
out:
	free(o.p);
	return err;
}

struct modfile_cache *modfile_cache_free(struct modfile_cache *c)
{
	if (!c)
		return NULL;
	modfile_cache_flush(c);
	pack_clear(c);
	free(c->recs);
	free(c->cache_dir);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c);
	return NULL;
}

static struct pack_rec *pack_find(struct modfile_cache *c, const char *base)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->recs[i].base, base) == 0)
			return &c->recs[i];
	return NULL;
}

static void pack_put(struct modfile_cache *c, const char *base, const struct key *k,
		     unsigned int flags, const struct modfile_info *info)
{
	struct pack_rec *r = pack_find(c, base);

	if (!r) {
		char *b;

		if (c->n >= CACHE_RECS_MAX || pack_reserve(c) < 0 || !(b = strdup(base)))
			return;
		r = &c->recs[c->n++];
		r->base = b;
	}
	r->k = *k;
	r->flags = flags;
	r->info = *info;
	c->dirty = true;
}

int modfile_cache_analyze_stat(struct modfile_cache *c, const char *path,
			       const struct stat *st, unsigned int flags, struct modfile_info *ret,
			       enum modfile_cache_status *ret_status)
{
	enum modfile_cache_status status = MODFILE_CACHE_MISS;
	_cleanup_free_ char *dir = NULL;
	struct modfile_info info;
	struct stat own, fst;
	struct pack_rec *r;
	const char *slash, *base;
	struct key k;
	int fd, err;

	flags &= MODFILE_LAYOUT;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!modfile_cache_enabled(c) || !*base || strlen(base) > CACHE_NAME_MAX) {
		err = modfile_analyze_flags(path, flags, ret);
		if (err == 0 && ret_status)
			*ret_status = MODFILE_CACHE_OFF;
		return err;
	}
	if (!st) {
		if (stat(path, &own) < 0)
			return -errno;
		st = &own;
	}
	if (!c->dir || strncmp(c->dir, path, (size_t)(base - path)) != 0 ||
	    c->dir[base - path] != '\0') {
		dir = strndup(path, (size_t)(base - path));
		if (!dir)
			return -ENOMEM;
		pack_load(c, dir);
	}
	if (c->invalid)
		status = MODFILE_CACHE_INVALID;
	key_from_stat(st, &k);
	r = c->dir ? pack_find(c, base) : NULL;
	if (r && S_ISREG(st->st_mode)) {
		if (!key_eq(&r->k, &k)) {
			status = MODFILE_CACHE_STALE;
		} else if (r->info.decompressed_size > MODFILE_MAX_IMAGE) {
			return -EFBIG;	/* recorded under a larger cap */
		} else if (!(flags & MODFILE_LAYOUT) || (r->flags & MODFILE_LAYOUT)) {
			*ret = r->info;
			if (ret_status)
				*ret_status = MODFILE_CACHE_HIT;
			return 0;
		}
	}

	err = modfile_open(path, &fd, &fst);
	if (err < 0)
		return err;
	/* the key is the file analysed, should it have been replaced meanwhile */
	key_from_stat(&fst, &k);
	err = modfile_analyze_fd(fd, &fst, path, flags, &info);
	close(fd);
	if (err < 0)
		return err;
	if (c->dir)
		pack_put(c, base, &k, flags, &info);
	*ret = info;
	if (ret_status)
		*ret_status = status;
	return 0;
}

int modfile_cache_analyze(struct modfile_cache *c, const char *path, unsigned int flags,
			  struct modfile_info *ret, enum modfile_cache_status *ret_status)
{
	return modfile_cache_analyze_stat(c, path, NULL, flags, ret, ret_status);
}

int modfile_analyze_cached(const char *path, const char *cache_dir, struct modfile_info *ret)
{
	struct modfile_cache *c = NULL;
	int err;

	err = modfile_cache_open(cache_dir, &c);
	if (err < 0)
		return err;
	err = modfile_cache_analyze(c, path, MODFILE_LAYOUT, ret, NULL);
	modfile_cache_free(c);
	return err;
}

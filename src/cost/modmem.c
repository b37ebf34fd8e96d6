/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/macro.h"
#include "modmem.h"

/*
 * Callers vmallocinfo shows for module memory. It prints the allocator's caller after
 * inlining, so the name depends on the kernel: load_module+ on Debian's 6.1 and 6.12
 * (module_alloc()/execmem_alloc() inlined into it), move_module+ and
 * module_memory_alloc+ on other builds, execmem_* on 6.10+.
 */
static const char *const module_callers[] = {
	"load_module", "move_module", "module_alloc", "module_memory_alloc",
	"layout_and_allocate", "execmem_alloc", "execmem_vmalloc", "module_memory_init",
};

static const struct {
	const char *caller;
	enum area_class cls;
} load_callers[] = {
	{ "kernel_read_file", AREA_KREAD },
	{ "kernel_read_file_from_fd", AREA_KREAD },
	{ "copy_module_from_user", AREA_USER_COPY },
	{ "__do_sys_init_module", AREA_USER_COPY },
	{ "__se_sys_init_module", AREA_USER_COPY },
	{ "module_decompress", AREA_DECOMPRESS },
	{ "module_extend_max_pages", AREA_DECOMPRESS },
	{ "module_xz_decompress", AREA_DECOMPRESS },
	{ "module_gzip_decompress", AREA_DECOMPRESS },
	{ "module_zstd_decompress", AREA_DECOMPRESS },
	/*
	 * The xz dictionary of an in-kernel decompression: module_decompress runs xz in
	 * XZ_DYNALLOC mode, the one mode that vmallocs at reset time after boot (squashfs
	 * preallocates; the initramfs unpacker is gone by the time anything is sampled).
	 */
	{ "xz_dec_lzma2_reset", AREA_DECOMPRESS },
};

enum area_class area_classify(const struct vmalloc_area *a)
{
	size_t i;

	if (!a->caller || (a->flags & VMA_UNPURGED))
		return AREA_OTHER;
	for (i = 0; i < ARRAY_SIZE(module_callers); i++)
		if (strcmp(a->caller, module_callers[i]) == 0)
			return AREA_MODULE;
	for (i = 0; i < ARRAY_SIZE(load_callers); i++)
		if (strcmp(a->caller, load_callers[i].caller) == 0)
			return load_callers[i].cls;
	return AREA_OTHER;
}

bool area_class_in_flight(enum area_class c)
{
	return c == AREA_KREAD || c == AREA_USER_COPY || c == AREA_DECOMPRESS;
}

const char *area_class_name(enum area_class c)
{
	switch (c) {
	case AREA_MODULE:
		return "module";
	case AREA_KREAD:
		return "kread";
	case AREA_USER_COPY:
		return "user-copy";
	case AREA_DECOMPRESS:
		return "decompress";
	case AREA_OTHER:
		break;
	}
	return "other";
}

const char *join_method_name(enum join_method m)
{
	switch (m) {
	case JOIN_ADDRESS:
		return "address";
	case JOIN_CHAIN:
		return "address-chain";
	case JOIN_SIZE:
		return "size";
	case JOIN_NONE:
		break;
	}
	return "none";
}

const char *join_confidence_name(enum join_confidence c)
{
	switch (c) {
	case CONF_EXACT:
		return "exact";
	case CONF_HIGH:
		return "high";
	case CONF_MEDIUM:
		return "medium";
	case CONF_LOW:
		return "low";
	case CONF_NONE:
		break;
	}
	return "none";
}

bool modmem_keep_area(const struct vmalloc_area *a, void *userdata)
{
	struct modmem_rest *rest = userdata;
	enum area_class cls = area_classify(a);

	if (cls == AREA_OTHER) {
		if (rest->kept_other < MODMEM_AREAS_KEPT) {
			rest->kept_other++;
			return true;
		}
		rest->n_other++;
		return false;
	}
	if (rest->kept_module < MODMEM_AREAS_KEPT) {
		rest->kept_module++;
		return true;
	}
	if (area_class_in_flight(cls)) {
		rest->n_leftover++;
		rest->leftover_bytes = add_sat_u64(rest->leftover_bytes, a->size);
	} else {
		rest->n_module++;
		rest->module_bytes = add_sat_u64(rest->module_bytes, a->size);
	}
	return false;
}

void modmem_add_unlisted(struct modmem *mm, const struct modmem_rest *rest)
{
	mm->n_module_areas += rest->n_module;
	mm->module_area_bytes = add_sat_u64(mm->module_area_bytes, rest->module_bytes);
	mm->n_unjoined += rest->n_module;
	mm->unjoined_bytes = add_sat_u64(mm->unjoined_bytes, rest->module_bytes);
	mm->n_leftover += rest->n_leftover;
	mm->leftover_bytes = add_sat_u64(mm->leftover_bytes, rest->leftover_bytes);
	mm->n_unlisted += rest->n_module + rest->n_leftover;
	mm->n_other_dropped += rest->n_other;
}

struct modmem *modmem_free(struct modmem *mm)
{
	if (!mm)
		return NULL;
	free(mm->areas);
	free(mm->mods);
	free(mm);
	return NULL;
}

DEFINE_FREEP(struct modmem, modmem_free)

struct ctx {
	const struct proc_modules *pm;
	const struct vmallocinfo *vi;
	struct modmem *mm;
	uint64_t *bases;	/* sorted module base addresses (non-zero) */
	size_t n_bases;
};

static uint64_t area_mem(const struct vmalloc_area *a)
{
	return a->size > MODMEM_GUARD_SIZE ? a->size - MODMEM_GUARD_SIZE : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_base(const struct ctx *c, uint64_t pos)
{
	return bsearch(&pos, c->bases, c->n_bases, sizeof(uint64_t), u64_cmp) != NULL;
}

/*
 * Hashed addresses (%pK with kptr_restrict=0) still agree with each other: an area
 * that ends where the next begins prints the same hash twice. Follow those links into
 * chains, then slide each chain along the real module bases of proc/modules until the
 * most area starts land on a base. That gives every area of an anchored chain its
 * real address.
 */
struct vi_pos {
	uint64_t start_tok;
	size_t idx;
};

static int vi_pos_cmp(const void *a, const void *b)
{
	const struct vi_pos *x = a, *y = b;

	return x->start_tok < y->start_tok ? -1 : x->start_tok > y->start_tok;
}

/* The placements of a chain's module areas on one base, the largest offset first */
struct placement {
	uint64_t origin;	/* base - offset */
	size_t base, j;		/* the base, the offset's index */
};

static void heap_down(struct placement *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct placement t;

		if (l < n && h[l].origin < h[m].origin)
			m = l;
		if (r < n && h[r].origin < h[m].origin)
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * The origin of a chain that puts most of its module areas (offsets @off, ascending,
 * @n of them) on module bases (@bases, ascending, each once), how many it puts there,
 * and how many origins put as many. Each base less each offset is one placement, and
 * an origin's hits are how many placements give it: a base's placements come sorted,
 * so a heap of one cursor a base merges them, with no array of them all and no trial
 * of each against each area (k * k steps for a chain of k areas).
 */
static void best_placement(const uint64_t *off, size_t n, const uint64_t *bases,
			   size_t n_bases, struct placement *heap, uint64_t *ret_origin,
			   size_t *ret_hits, size_t *ret_ties)
{
	size_t nh = 0, run = 0, best = 0, ties = 0, m;
	uint64_t cur = 0, best_origin = 0;

	for (m = 0; m < n_bases; m++) {
		size_t lo = 0, hi = n;

		/* the offsets no larger than the base */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (off[mid] <= bases[m])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			heap[nh++] = (struct placement){ bases[m] - off[lo - 1], m, lo - 1 };
	}
	for (m = nh / 2; m-- > 0;)
		heap_down(heap, nh, m);
	while (nh) {
		struct placement *t = &heap[0];

		if (run && t->origin == cur) {
			run++;
		} else {
			if (run > best) {
				best = run;
				best_origin = cur;
				ties = 1;
			} else if (run && run == best) {
				ties++;
			}
			cur = t->origin;
			run = 1;
		}
		if (t->j) {
			t->j--;
			t->origin = bases[t->base] - off[t->j];
		} else {
			heap[0] = heap[--nh];
		}
		heap_down(heap, nh, 0);
	}
	if (run > best) {
		best = run;
		best_origin = cur;
		ties = 1;
	} else if (run && run == best) {
		ties++;
	}
	*ret_origin = best_origin;
	*ret_hits = best;
	*ret_ties = ties;
}

static int reconstruct_chains(struct ctx *c, uint64_t *pos, bool *known)
{
	const struct vmallocinfo *vi = c->vi;
	_cleanup_free_ struct vi_pos *by_start = NULL;
	_cleanup_free_ long *next = NULL;
	_cleanup_free_ bool *has_prev = NULL;
	_cleanup_free_ uint64_t *off = NULL;
	_cleanup_free_ size_t *members = NULL;
	_cleanup_free_ uint64_t *ubases = NULL, *modoff = NULL;
	_cleanup_free_ struct placement *heap = NULL;
	size_t i, n = vi->n, n_ub = 0;

	by_start = calloc(n ? n : 1, sizeof(*by_start));
	next = calloc(n ? n : 1, sizeof(*next));
	has_prev = calloc(n ? n : 1, sizeof(*has_prev));
	off = calloc(n ? n : 1, sizeof(*off));
	members = calloc(n ? n : 1, sizeof(*members));
	/* each base once: two modules at one address are one place to land on */
	ubases = malloc((c->n_bases ? c->n_bases : 1) * sizeof(*ubases));
	heap = malloc((c->n_bases ? c->n_bases : 1) * sizeof(*heap));
	modoff = malloc((n ? n : 1) * sizeof(*modoff));
	if (!by_start || !next || !has_prev || !off || !members || !ubases || !heap || !modoff)
		return -ENOMEM;
	for (i = 0; i < c->n_bases; i++)
		if (!n_ub || ubases[n_ub - 1] != c->bases[i])
			ubases[n_ub++] = c->bases[i];
	for (i = 0; i < n; i++) {
		by_start[i].start_tok = vi->areas[i].start;
		by_start[i].idx = i;
		next[i] = -1;
	}
	array_sort(by_start, n, sizeof(*by_start), vi_pos_cmp);
	for (i = 0; i < n; i++) {
		const struct vmalloc_area *a = &vi->areas[i];
		struct vi_pos key = { .start_tok = a->end }, *hit;

		if (!a->end || a->flags & VMA_UNPURGED)
			continue;
		hit = bsearch(&key, by_start, n, sizeof(*by_start), vi_pos_cmp);
		if (!hit)
			continue;
		/* a token seen twice as a start cannot be followed safely */
		if ((hit > by_start && hit[-1].start_tok == key.start_tok) ||
		    (hit + 1 < by_start + n && hit[1].start_tok == key.start_tok))
			continue;
		if (hit->idx == i || vi->areas[hit->idx].flags & VMA_UNPURGED)
			continue;
		next[i] = (long)hit->idx;
		has_prev[hit->idx] = true;
	}
	for (i = 0; i < n; i++) {
		size_t k = 0, j, best_hits, best_ties, n_mod;
		uint64_t best_origin = 0;
		long a;

		if (has_prev[i] || next[i] < 0)
			continue;
		/* collect the chain; bounded by n against cycles */
		for (a = (long)i; a >= 0 && k < n; a = next[a]) {
			members[k] = (size_t)a;
			off[k] = k ? off[k - 1] + vi->areas[members[k - 1]].size : 0;
			k++;
		}
		c->mm->n_chains++;
		/* the offsets of its module areas: a sum that wraps places nothing */
		n_mod = 0;
		for (j = 0; j < k; j++) {
			if (area_classify(&vi->areas[members[j]]) != AREA_MODULE)
				continue;
			if (n_mod && off[j] < modoff[n_mod - 1])
				break;
			modoff[n_mod++] = off[j];
		}
		if (j < k)
			continue;
		best_placement(modoff, n_mod, ubases, n_ub, heap, &best_origin, &best_hits,
			       &best_ties);
		/* one base in a chain fits anywhere: only two or more pin it down */
		if (best_hits < 2 || best_ties != 1)
			continue;
		c->mm->n_chains_anchored++;
		for (j = 0; j < k; j++) {
			pos[members[j]] = best_origin + off[j];
			known[members[j]] = true;
		}
	}
	return 0;
}

struct sorted_area {
	uint64_t pos;
	size_t mi;	/* index into mm->areas */
};

static int sorted_area_cmp(const void *a, const void *b)
{
	const struct sorted_area *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * Finds the unassigned module areas whose sizes add up to @want exactly, counting
 * solutions up to two: only a unique one is evidence. Bounded, so hostile input with
 * thousands of equal areas cannot make it explode.
 */
struct subset {
	const struct ctx *c;
	size_t *cand;
	size_t n_cand;
	bool *pick, *best;
	unsigned int solutions;
	unsigned long steps;
};

static void subset_dfs(struct subset *s, size_t i, uint64_t want)
{
	if (s->solutions >= 2 || ++s->steps > 200000)
		return;
	if (want == 0) {
		if (s->solutions++ == 0)
			memcpy(s->best, s->pick, s->n_cand * sizeof(bool));
		return;
	}
	for (; i < s->n_cand && s->solutions < 2; i++) {
		const struct modmem_area *ma = &s->c->mm->areas[s->cand[i]];
		uint64_t sz = area_mem(&s->c->vi->areas[ma->area]);

		if (sz == 0 || sz > want)
			continue;
		s->pick[i] = true;
		subset_dfs(s, i + 1, want - sz);
		s->pick[i] = false;
	}
}

static int fill_deficit(struct ctx *c, size_t m, uint64_t want, bool *ret_found)
{
	struct modmem *mm = c->mm;
	struct subset s = { .c = c };
	int r = 0;

	*ret_found = false;
	s.cand = calloc(mm->n ? mm->n : 1, sizeof(size_t));
	s.pick = calloc(mm->n ? mm->n : 1, sizeof(bool));
	s.best = calloc(mm->n ? mm->n : 1, sizeof(bool));
	if (!s.cand || !s.pick || !s.best) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < mm->n; i++)
		if (mm->areas[i].cls == AREA_MODULE && mm->areas[i].module < 0 &&
		    !mm->areas[i].is_base)
			s.cand[s.n_cand++] = i;
	subset_dfs(&s, 0, want);
	if (s.solutions == 1 && s.steps <= 200000) {
		for (size_t i = 0; i < s.n_cand; i++)
			if (s.best[i])
				mm->areas[s.cand[i]].module = (long)m;
		*ret_found = true;
	}
out:
	free(s.cand);
	free(s.pick);
	free(s.best);
	return r;
}

/*
 * From each module's base area, take the following module areas in address order
 * while they stay below the module's size in proc/modules: the per mod_mem_type
 * allocations (6.4+) of one load are made one after the other, first fit. Stop at
 * another module's base. An area that went into an older hole (freed init memory)
 * lies elsewhere: what is still missing is then looked for among the areas nobody
 * claimed, by exact size.
 */
static int assign_by_position(struct ctx *c, enum join_method method)
{
	struct modmem *mm = c->mm;
	_cleanup_free_ struct sorted_area *s = NULL;
	_cleanup_free_ uint64_t *deficit = NULL;
	size_t n = 0, i, m;
	int r;

	s = calloc(mm->n ? mm->n : 1, sizeof(*s));
	deficit = calloc(c->pm->n ? c->pm->n : 1, sizeof(*deficit));
	if (!s || !deficit)
		return -ENOMEM;
	for (i = 0; i < mm->n; i++)
		if (mm->areas[i].cls == AREA_MODULE && mm->areas[i].pos_known) {
			s[n].pos = mm->areas[i].pos;
			s[n].mi = i;
			n++;
		}
	array_sort(s, n, sizeof(*s), sorted_area_cmp);
	for (i = 0; i < n; i++)
		mm->areas[s[i].mi].is_base = is_base(c, s[i].pos);

	for (m = 0; m < c->pm->n; m++) {
		const struct proc_module *pmod = &c->pm->mods[m];
		struct sorted_area key = { .pos = pmod->address }, *hit;
		size_t first, j;
		uint64_t sum, next;

		if (!pmod->address)
			continue;
		hit = bsearch(&key, s, n, sizeof(*s), sorted_area_cmp);
		if (!hit || mm->areas[hit->mi].module >= 0)
			continue;
		first = (size_t)(hit - s);
		sum = area_mem(&c->vi->areas[mm->areas[hit->mi].area]);
		for (j = first + 1; sum < pmod->size && j < n; j++) {
			struct modmem_area *ma = &mm->areas[s[j].mi];

			next = area_mem(&c->vi->areas[ma->area]);
			if (ma->is_base || ma->module >= 0 || sum + next > pmod->size)
				break;
			sum += next;
		}
		if (sum > pmod->size) {
			j = first + 1;
			sum = area_mem(&c->vi->areas[mm->areas[hit->mi].area]);
		}
		for (size_t q = first; q < j; q++)
			mm->areas[s[q].mi].module = (long)m;
		mm->mods[m].method = method;
		mm->mods[m].confidence = sum == pmod->size ? (method == JOIN_ADDRESS ? CONF_EXACT
											: CONF_HIGH)
							   : CONF_LOW;
		deficit[m] = sum < pmod->size ? pmod->size - sum : 0;
	}

	/* smallest gaps first: they have the fewest ways to be filled */
	for (;;) {
		size_t best = SIZE_MAX;
		bool found;

		for (m = 0; m < c->pm->n; m++)
			if (deficit[m] && (best == SIZE_MAX || deficit[m] < deficit[best]))
				best = m;
		if (best == SIZE_MAX)
			break;
		r = fill_deficit(c, best, deficit[best], &found);
		if (r < 0)
			return r;
		if (found)
			mm->mods[best].confidence = method == JOIN_ADDRESS ? CONF_HIGH : CONF_MEDIUM;
		deficit[best] = 0;
	}
	return 0;
}

/*
 * Without usable addresses: before 6.4 a Live module is one core area of exactly its
 * proc/modules size, so a size that only one module and one area have is evidence.
 */
static void assign_by_size(struct ctx *c)
{
	struct modmem *mm = c->mm;
	size_t m, i;

	for (m = 0; m < c->pm->n; m++) {
		const struct proc_module *pmod = &c->pm->mods[m];
		size_t same_mods = 0, same_areas = 0, hit = 0;

		if (mm->mods[m].method != JOIN_NONE)
			continue;
		/* a namesake judged earlier in this loop (JOIN_SIZE) still makes the size ambiguous */
		for (i = 0; i < c->pm->n; i++)
			if (c->pm->mods[i].size == pmod->size &&
			    (mm->mods[i].method == JOIN_NONE || mm->mods[i].method == JOIN_SIZE))
				same_mods++;
		for (i = 0; i < mm->n; i++)
			if (mm->areas[i].cls == AREA_MODULE && mm->areas[i].module < 0 &&
			    area_mem(&c->vi->areas[mm->areas[i].area]) == pmod->size) {
				same_areas++;
				hit = i;
			}
		if (same_areas == 0)
			continue;
		if (same_mods == 1 && same_areas == 1) {
			mm->areas[hit].module = (long)m;
			mm->mods[m].method = JOIN_SIZE;
			mm->mods[m].confidence = CONF_MEDIUM;
		} else {
			/* several candidates: say which size, claim no area */
			mm->mods[m].method = JOIN_SIZE;
			mm->mods[m].confidence = CONF_LOW;
		}
	}
}

int modmem_join(const struct proc_modules *pm, const struct vmallocinfo *vi,
		const struct loadpath *lp, struct modmem **ret)
{
	_cleanup_(modmem_freep) struct modmem *mm = NULL;
	_cleanup_free_ uint64_t *pos = NULL;
	_cleanup_free_ bool *known = NULL;
	struct ctx c = { .pm = pm, .vi = vi };
	size_t i;
	int r;

	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	c.mm = mm;
	mm->n_mods = pm ? pm->n : 0;
	mm->mods = calloc(mm->n_mods ? mm->n_mods : 1, sizeof(*mm->mods));
	mm->areas = calloc(vi->n ? vi->n : 1, sizeof(*mm->areas));
	pos = calloc(vi->n ? vi->n : 1, sizeof(*pos));
	known = calloc(vi->n ? vi->n : 1, sizeof(*known));
	c.bases = calloc(mm->n_mods ? mm->n_mods : 1, sizeof(*c.bases));
	if (!mm->mods || !mm->areas || !pos || !known || !c.bases) {
		free(c.bases);
		return -ENOMEM;
	}
	for (i = 0; i < mm->n_mods; i++)
		if (pm->mods[i].address)
			c.bases[c.n_bases++] = pm->mods[i].address;
	array_sort(c.bases, c.n_bases, sizeof(*c.bases), u64_cmp);

	if (vi->addr_mode == VMALLOC_ADDR_REAL) {
		for (i = 0; i < vi->n; i++) {
			pos[i] = vi->areas[i].start;
			known[i] = true;
		}
		mm->method = c.n_bases ? JOIN_ADDRESS : JOIN_SIZE;
	} else if (vi->addr_mode == VMALLOC_ADDR_HASHED && c.n_bases) {
		/* quadratic in chain length x modules: refuse absurd inputs instead of hanging */
		if ((uint64_t)vi->n * c.n_bases <= 4000000) {
			r = reconstruct_chains(&c, pos, known);
			if (r < 0) {
				free(c.bases);
				return r;
			}
		}
		mm->method = mm->n_chains_anchored ? JOIN_CHAIN : JOIN_SIZE;
	} else {
		mm->method = JOIN_SIZE;
	}

	for (i = 0; i < vi->n; i++) {
		enum area_class cls = area_classify(&vi->areas[i]);
		struct modmem_area *ma;

		if (cls == AREA_OTHER)
			continue;
		ma = &mm->areas[mm->n++];
		ma->area = i;
		ma->cls = cls;
		ma->module = -1;
		ma->pos_known = known[i];
		ma->pos = pos[i];
	}

	if (mm->method == JOIN_ADDRESS || mm->method == JOIN_CHAIN) {
		r = assign_by_position(&c, mm->method);
		if (r < 0) {
			free(c.bases);
			return r;
		}
	}
	if (!lp->per_type_alloc)
		assign_by_size(&c);
	free(c.bases);

	for (i = 0; i < mm->n; i++) {
		const struct modmem_area *ma = &mm->areas[i];
		const struct vmalloc_area *a = &vi->areas[ma->area];

		if (area_class_in_flight(ma->cls)) {
			mm->n_leftover++;
			mm->leftover_bytes = add_sat_u64(mm->leftover_bytes, a->size);
			continue;
		}
		mm->n_module_areas++;
		mm->module_area_bytes = add_sat_u64(mm->module_area_bytes, a->size);
		if (ma->module < 0) {
			mm->n_unjoined++;
			mm->unjoined_bytes = add_sat_u64(mm->unjoined_bytes, a->size);
			continue;
		}
		mm->mods[ma->module].n_areas++;
		mm->mods[ma->module].area_bytes = add_sat_u64(mm->mods[ma->module].area_bytes, a->size);
		mm->mods[ma->module].mem_bytes = add_sat_u64(mm->mods[ma->module].mem_bytes, area_mem(a));
	}
	for (i = 0; i < mm->n_mods; i++)
		mm->mods[i].size_matches = mm->mods[i].n_areas &&
					   mm->mods[i].mem_bytes == pm->mods[i].size;
	*ret = mm;
	mm = NULL;
	return 0;
}

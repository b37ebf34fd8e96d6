/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-CPU risk from a capture (cost/percpu.c): ledgers made of the trace lines a
 * udev boot writes (the shapes of tests/fixtures/tracedat's systemd-udevd storm and of
 * a systemd 252 boot's "(udev-worker)" lines), one worker per CPU loading what the
 * CPU's modalias matches, dependencies first; priced by the cost model; the list, its
 * prices and its prediction for more CPUs checked against the ledger's own attempts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cost/cost.h"
#include "cost/percpu.h"
#include "ledger/ledger.h"
#include "session/system.h"
#include "sources/trace/text.h"
#include "util/macro.h"

/* init_module's length of the userspace-decompressed aesni_intel, as the trace prints it */
#define AESNI_LEN 0x31fa8

struct lines {
	char **v;
	size_t n;
};

static void add(struct lines *ls, const char *comm, int pid, double ts, const char *fmt, ...)
{
	char *body, *line;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&body, fmt, ap) > 0);
	va_end(ap);
	assert_true(asprintf(&line, "%16s-%-7d [%03d] ...1. %12.6f: %s", comm, pid, pid % 4, ts,
			     body) > 0);
	free(body);
	ls->v = realloc(ls->v, sizeof(char *) * (ls->n + 2));
	assert_non_null(ls->v);
	ls->v[ls->n++] = line;
	ls->v[ls->n] = NULL;
}

static void lines_free(struct lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i]);
	free(ls->v);
}

/*
 * One finit_module of @mod by a udev worker: the first loads it (module_load), the
 * others find it Live (the kmodtop_name probe in the kernel's duplicate check, EEXIST);
 * @init_fails: it loads and its init fails with ENODEV every time (a driver that lost)
 */
static void finit(struct lines *ls, const char *comm, int pid, double *ts, const char *mod,
		  bool first, bool init_fails)
{
	add(ls, comm, pid, *ts, "sys_finit_module(fd: 6, uargs: 4a8b95, flags: 4)");
	if (first || init_fails)
		add(ls, comm, pid, *ts + 0.001, "module_load: %s ", mod);
	else
		add(ls, comm, pid, *ts + 0.001,
		    "kmodtop_name: (find_module_all+0x4/0xd0) name=\"%s\"", mod);
	add(ls, comm, pid, *ts + 0.002, "sys_finit_module -> %s",
	    init_fails ? "0xffffffffffffffed" : first ? "0x0" : "0xffffffffffffffef");
	*ts += 0.01;
}

/* kmod decompressed it itself and handed the kernel the bytes: init_module */
static void init(struct lines *ls, const char *comm, int pid, double *ts, const char *mod,
		 bool first)
{
	add(ls, comm, pid, *ts, "sys_init_module(umod: 55f711c44940, len: %x, uargs: 55f6eef0b4a0)",
	    AESNI_LEN);
	if (first)
		add(ls, comm, pid, *ts + 0.001, "module_load: %s ", mod);
	else
		add(ls, comm, pid, *ts + 0.001,
		    "kmodtop_name: (find_module_all+0x4/0xd0) name=\"%s\"", mod);
	add(ls, comm, pid, *ts + 0.002, "sys_init_module -> %s",
	    first ? "0x0" : "0xffffffffffffffef");
	*ts += 0.01;
}

/*
 * A boot on @ncpus CPUs: worker c handles CPU c's uevent, modprobe of kvm_amd loads
 * irqbypass and kvm first; edac_mce_amd fails its init each time; aesni_intel goes
 * through init_module. Besides: modprobe loads xfs 4 times (not udev), a worker loads
 * virtio_net once (no storm), and 4 workers each load e1000 (four NICs: a device storm,
 * no CPU alias matches it).
 */
static void boot(struct lines *ls, unsigned int ncpus)
{
	double ts = 10.0;

	for (unsigned int c = 0; c < ncpus; c++) {
		const char *comm = c % 2 ? "(udev-worker)" : "systemd-udevd";
		int pid = 400 + (int)c;

		finit(ls, comm, pid, &ts, "irqbypass", !c, false);
		finit(ls, comm, pid, &ts, "kvm", !c, false);
		finit(ls, comm, pid, &ts, "kvm_amd", !c, false);
		finit(ls, comm, pid, &ts, "edac_mce_amd", false, true);
		init(ls, comm, pid, &ts, "aesni_intel", !c);
		ts += 0.5;
	}
	for (int i = 0; i < 4; i++)
		finit(ls, "modprobe", 300 + i, &ts, "xfs", !i, false);
	finit(ls, "systemd-udevd", 390, &ts, "virtio_net", true, false);
	for (int i = 0; i < 4; i++)
		finit(ls, "(udev-worker)", 600 + i, &ts, "e1000", !i, false);
}

static int feed(void *userdata, const struct ktrace_event *ev)
{
	return ledger_feed_trace(userdata, ev);
}

static struct ledger *ledger_of(const struct lines *ls)
{
	struct ktrace_parser_ops ops = { .event = feed };
	struct ktrace_parser *p = NULL;
	struct ledger *l = NULL;

	assert_int_equal(ledger_new(&(struct ledger_ops){ 0 }, true, &l), 0);
	assert_int_equal(ktrace_parser_new("test", &ops, l, &p), 0);
	for (size_t i = 0; i < ls->n; i++)
		assert_int_equal(ktrace_parser_feed(p, ls->v[i], strlen(ls->v[i])), 0);
	assert_int_equal(ktrace_parser_finish(p), 0);
	ktrace_parser_free(p);
	assert_int_equal(ledger_finish(l), 0);
	return l;
}

/* Every module an .ko.xz of distinct sizes (as Debian ships them) */
static const struct cost_module *lookup(void *userdata, const char *name)
{
	static struct cost_module m[8];
	static const char *const names[] = { "irqbypass", "kvm", "kvm_amd", "edac_mce_amd",
					     "aesni_intel", "xfs", "virtio_net", "e1000" };

	(void)userdata;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(names[i], name))
			continue;
		m[i] = (struct cost_module){
			.file_size = 20000 + 70000 * i,
			.compressed = true,
			.xz = true,
			.decompressed_size = 60000 + 200000 * i,
			.xz_dict_size = 1 << 20,
			.has_layout = true,
			.core_size = 40000 + 150000 * i,
			.init_size = 4096,
		};
		m[i].mem[0] = m[i].core_size;
		m[i].mem[1] = 4096;
		return &m[i];
	}
	return NULL;
}

struct capture {
	struct lines ls;
	struct ledger *l;
	struct cost_kernel k;
	struct cost_result *cost;
};

static void capture_new(struct capture *c, const char *release, unsigned int ncpus)
{
	memset(c, 0, sizeof(*c));
	boot(&c->ls, ncpus);
	c->l = ledger_of(&c->ls);
	loadpath_from_release(release, &c->k.lp);
	c->k.page_size = 4096;
	c->k.in_kernel_decompress = c->k.lp.decompress_capable;
	assert_int_equal(cost_compute(c->l, &c->k, lookup, NULL, &c->cost), 0);
}

static void capture_done(struct capture *c)
{
	cost_result_free(c->cost);
	ledger_free(c->l);
	lines_free(&c->ls);
}

static const struct percpu_storm *find(const struct percpu_storm *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* What the capture's udev attempts of @name cost, and how many loaded it */
static void seen(const struct capture *c, const char *name, uint64_t *wasted,
		 size_t *n_wasted, size_t *loaded)
{
	*wasted = 0;
	*n_wasted = *loaded = 0;
	for (size_t i = 0; i < c->l->n_attempts; i++) {
		const struct attempt *a = &c->l->attempts[i];

		if (!a->module || strcmp(a->module, name) || !percpu_requester_is_udev(a->comm))
			continue;
		if (a->outcome == OUTCOME_LOADED) {
			(*loaded)++;
		} else {
			(*n_wasted)++;
			*wasted += c->cost->att[i].wasted;
		}
	}
}

static void test_udev_names(void **state)
{
	(void)state;
	assert_true(percpu_requester_is_udev("systemd-udevd"));
	assert_true(percpu_requester_is_udev("(udev-worker)"));
	assert_true(percpu_requester_is_udev("udev-worker"));
	assert_false(percpu_requester_is_udev("modprobe"));
	assert_false(percpu_requester_is_udev("udevadm"));
}

/* Without a module tree: every module distinct workers tried about once per CPU */
static void test_storms_named(void **state)
{
	const char *const want[] = { "irqbypass", "kvm", "kvm_amd", "edac_mce_amd",
				     "aesni_intel", "e1000" };
	struct percpu_storm v[16];
	struct capture c;
	uint64_t at_n;
	size_t n;

	(void)state;
	capture_new(&c, "6.12.0", 4);
	assert_int_equal(percpu_storms_find(c.l, c.cost, 4, 4, NULL, NULL, v, ARRAY_SIZE(v), &n,
					    &at_n), 0);
	assert_int_equal(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].name, want[i]);
		assert_string_equal(v[i].dependency_of, "");
		assert_int_equal(v[i].requesters, 4);
	}
	/* the same capture read as one of a 16-CPU machine: 4 tries are no per-CPU storm */
	assert_int_equal(percpu_storms_find(c.l, c.cost, 16, 16, NULL, NULL, v, ARRAY_SIZE(v),
					    &n, &at_n), 0);
	assert_int_equal(n, 0);
	capture_done(&c);
}

static int deps(void *userdata, const char *module, char ***ret_names, size_t *ret_n)
{
	const char *d[4] = { NULL };
	char **v = calloc(4, sizeof(char *));

	(void)userdata;
	assert_non_null(v);
	if (!strcmp(module, "kvm_amd")) {
		d[0] = "kvm";
		d[1] = "ccp";		/* a dependency nobody tried: not listed */
		d[2] = "e1000";		/* tried by others, not before kvm_amd: not listed */
	} else if (!strcmp(module, "kvm")) {
		d[0] = "irqbypass";
	}
	*ret_n = 0;
	for (size_t i = 0; d[i]; i++)
		v[(*ret_n)++] = strdup(d[i]);
	*ret_names = v;
	return 0;
}

static void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/*
 * With a module tree: the modules a CPU alias resolves to (not e1000, which four NICs
 * asked for), and the dependencies the same workers loaded before them
 */
static void test_storms_deps(void **state)
{
	const char *const percpu[] = { "kvm_amd", "edac_mce_amd", "aesni_intel", NULL };
	const struct percpu_deps_ops ops = { .deps = deps, .names_free = names_free };
	struct percpu_storm v[16];
	struct capture c;
	uint64_t at_n;
	size_t n;

	(void)state;
	capture_new(&c, "6.12.0", 4);
	assert_int_equal(percpu_storms_find(c.l, c.cost, 4, 4, percpu, &ops, v, ARRAY_SIZE(v), &n,
					    &at_n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].name, "kvm_amd");
	assert_string_equal(v[1].name, "edac_mce_amd");
	assert_string_equal(v[2].name, "aesni_intel");
	assert_string_equal(v[3].name, "kvm");
	assert_string_equal(v[3].dependency_of, "kvm_amd");
	assert_string_equal(v[4].name, "irqbypass");
	assert_string_equal(v[4].dependency_of, "kvm");
	assert_null(find(v, n, "e1000"));
	assert_null(find(v, n, "ccp"));
	assert_string_equal(v[0].dependency_of, "");
	capture_done(&c);
}

/*
 * A Debian 6.12 tree's lines (cpu_nic is made up: a CPU-alias module whose dependency is
 * a NIC driver four devices asked for)
 */
static const char *const tree_alias[] = {
	"alias cpu:type:x86,ven*fam*mod*:feature:*00C2* kvm_amd",
	"alias cpu:type:x86,ven*fam*mod*:feature:*0099* aesni_intel",
	"alias aes aesni_intel",
	"alias cpu:type:x86,ven0002fam0017mod*:feature:* amd64_edac",
	"alias cpu:type:x86,ven0002fam000Fmod*:feature:* amd64_edac",
	"alias cpu:type:x86,ven0002fam000Fmod*:feature:* powernow_k8",
	"alias cpu:type:x86,ven0000fam0006mod003F:feature:* sb_edac",
	"alias cpu:type:x86,ven0000fam0006mod003E:feature:* cpu_nic",
	"alias pci:v00008086d0000100Esv*sd*bc*sc*i* e1000",
	NULL,
};
static const char *const tree_dep[] = {
	"kernel/arch/x86/kvm/kvm-amd.ko.xz: kernel/drivers/crypto/ccp/ccp.ko.xz "
	"kernel/arch/x86/kvm/kvm.ko.xz kernel/virt/lib/irqbypass.ko.xz",
	"kernel/arch/x86/kvm/kvm.ko.xz: kernel/virt/lib/irqbypass.ko.xz",
	"kernel/arch/x86/crypto/aesni-intel.ko.xz: kernel/lib/crypto/gf128mul.ko.xz "
	"kernel/crypto/crypto_simd.ko.xz kernel/crypto/cryptd.ko.xz",
	"kernel/drivers/edac/edac_mce_amd.ko.xz:",
	"kernel/drivers/edac/amd64_edac.ko.xz: kernel/drivers/edac/edac_mce_amd.ko.xz",
	"kernel/drivers/cpufreq/powernow-k8.ko.xz:",
	"kernel/drivers/edac/sb_edac.ko.xz:",
	"kernel/drivers/misc/cpu_nic.ko.xz: kernel/drivers/net/ethernet/intel/e1000/e1000.ko.xz",
	NULL,
};

/* "kernel/arch/x86/kvm/kvm-amd.ko.xz" -> "kvm_amd", as modprobe names it */
static char *dep_name(const char *path, size_t len)
{
	const char *base = memrchr(path, '/', len);
	char *v;

	base = base ? base + 1 : path;
	len -= (size_t)(base - path);
	if (len > 6 && !memcmp(base + len - 6, ".ko.xz", 6))
		len -= 6;
	v = strndup(base, len);
	assert_non_null(v);
	for (char *c = v; *c; c++)
		if (*c == '-')
			*c = '_';
	return v;
}

/* modules.dep of tree_dep */
static int tree_deps(void *userdata, const char *module, char ***ret_names, size_t *ret_n)
{
	(void)userdata;
	for (size_t i = 0; tree_dep[i]; i++) {
		const char *colon = strchr(tree_dep[i], ':'), *p;
		char *self = dep_name(tree_dep[i], (size_t)(colon - tree_dep[i]));
		char **v = calloc(8, sizeof(char *));
		bool match = !strcmp(self, module);

		free(self);
		assert_non_null(v);
		if (!match) {
			free(v);
			continue;
		}
		*ret_n = 0;
		for (p = colon + 1; *p;) {
			size_t len;

			p += strspn(p, " ");
			len = strcspn(p, " ");
			if (len)
				v[(*ret_n)++] = dep_name(p, len);
			p += len;
		}
		*ret_names = v;
		return 0;
	}
	return -ENOENT;
}

/* The modules of tree_alias with an alias every CPU of its kind matches */
static char **tree_percpu(void)
{
	char **v = calloc(ARRAY_SIZE(tree_alias), sizeof(char *));
	size_t n = 0;

	assert_non_null(v);
	for (size_t i = 0; tree_alias[i]; i++) {
		const char *pat = tree_alias[i] + strlen("alias ");
		const char *mod = strchr(pat, ' ') + 1;
		_cleanup_free_ char *p = strndup(pat, (size_t)(mod - 1 - pat));
		bool dup = false;

		assert_non_null(p);
		for (size_t k = 0; k < n; k++)
			dup = dup || !strcmp(v[k], mod);
		if (!dup && kt_alias_is_percpu(p))
			v[n++] = strdup(mod);
	}
	return v;
}

/*
 * amd64_edac's alias matches every AMD CPU, and modprobe loads edac_mce_amd first: its
 * init fails on each CPU (ENODEV), so amd64_edac itself is never tried. edac_mce_amd has
 * no CPU alias; it is the storm of amd64_edac. cpu_nic is never tried either, but its
 * dependency e1000 loaded (four NICs): modprobe went on past it, no storm of cpu_nic.
 */
static void test_storms_untried_parent(void **state)
{
	const struct percpu_deps_ops ops = { .deps = tree_deps, .names_free = names_free };
	struct percpu_storm v4[16], v16[16];
	struct capture c4, c16;
	const struct percpu_storm *s;
	uint64_t at16, at16_self, wasted;
	size_t n4, n16, n_wasted, loaded;
	char **percpu = tree_percpu();

	(void)state;
	capture_new(&c4, "6.12.0", 4);
	capture_new(&c16, "6.12.0", 16);
	assert_int_equal(percpu_storms_find(c4.l, c4.cost, 4, 16, (const char *const *)percpu,
					    &ops, v4, ARRAY_SIZE(v4), &n4, &at16), 0);
	/* the ones asked for, then the untried one's dependency, then the others' */
	assert_int_equal(n4, 5);
	assert_string_equal(v4[0].name, "kvm_amd");
	assert_string_equal(v4[1].name, "aesni_intel");
	assert_string_equal(v4[2].name, "edac_mce_amd");
	assert_string_equal(v4[2].dependency_of, "amd64_edac");
	assert_string_equal(v4[3].name, "kvm");
	assert_string_equal(v4[3].dependency_of, "kvm_amd");
	assert_string_equal(v4[4].name, "irqbypass");
	assert_string_equal(v4[4].dependency_of, "kvm_amd");
	assert_null(find(v4, n4, "e1000"));
	assert_null(find(v4, n4, "amd64_edac"));

	/* priced from its own attempts, and predicting the 16-CPU boot's */
	s = &v4[2];
	seen(&c4, "edac_mce_amd", &wasted, &n_wasted, &loaded);
	assert_int_equal(loaded, 0);
	assert_int_equal(s->loaded, 0);
	assert_int_equal(s->wasted_attempts, n_wasted);
	assert_int_equal(s->wasted, wasted);
	assert_int_not_equal(s->wasted, 0);
	assert_int_equal(s->requesters, 4);
	assert_int_equal(s->attempts_at_n, 16);
	seen(&c16, "edac_mce_amd", &wasted, &n_wasted, &loaded);
	assert_int_equal(n_wasted, 16);
	assert_int_equal(s->wasted_at_n, wasted);
	assert_int_equal(percpu_storms_find(c16.l, c16.cost, 16, 16,
					    (const char *const *)percpu, &ops, v16,
					    ARRAY_SIZE(v16), &n16, &at16_self), 0);
	s = find(v16, n16, "edac_mce_amd");
	assert_non_null(s);
	assert_string_equal(s->dependency_of, "amd64_edac");
	assert_int_equal(s->wasted, wasted);
	/* e1000's four tries are no storm on 16 CPUs anyway: both lists are the same */
	assert_int_equal(n16, n4);
	assert_int_equal(at16_self, at16);

	/* without a module tree there is no telling whose dependency it is */
	assert_int_equal(percpu_storms_find(c4.l, c4.cost, 4, 4, (const char *const *)percpu,
					    NULL, v4, ARRAY_SIZE(v4), &n4, &at16), 0);
	assert_null(find(v4, n4, "edac_mce_amd"));
	names_free(percpu);
	capture_done(&c4);
	capture_done(&c16);
}

/*
 * Each priced as the capture's own attempts were: the init_module duplicates by their
 * user copy alone, not by the finit path with in-kernel decompression the model of the
 * module file would take; 6.1's duplicates pay the layout too
 */
static void check_prices(const char *release)
{
	struct percpu_storm v[16];
	struct capture c;
	uint64_t at_n;
	size_t n;

	capture_new(&c, release, 4);
	assert_int_equal(percpu_storms_find(c.l, c.cost, 4, 4, NULL, NULL, v, ARRAY_SIZE(v), &n,
					    &at_n), 0);
	assert_int_not_equal(n, 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t wasted, classes = 0;
		size_t n_wasted, loaded;

		seen(&c, v[i].name, &wasted, &n_wasted, &loaded);
		assert_int_equal(v[i].wasted, wasted);
		assert_int_equal(v[i].wasted_attempts, n_wasted);
		assert_int_equal(v[i].loaded, loaded);
		assert_int_equal(v[i].per_attempt, wasted / n_wasted);
		assert_int_not_equal(v[i].per_attempt, 0);
		for (int k = 0; k < _VMAP_MAX; k++)
			classes += v[i].by_class[k];
		assert_int_equal(classes, wasted);
	}
	{
		const struct percpu_storm *s = find(v, n, "aesni_intel");
		struct percpu_risk model;

		assert_non_null(s);
		assert_int_equal(s->by_class[VMAP_USER_COPY] / s->wasted_attempts,
				 cost_vmalloc(&c.k, AESNI_LEN));
		assert_int_equal(s->by_class[VMAP_KREAD], 0);
		assert_int_equal(s->by_class[VMAP_DECOMPRESS], 0);
		if (c.k.lp.early_dup_check)
			assert_int_equal(s->per_attempt, cost_vmalloc(&c.k, AESNI_LEN));
		percpu_risk_estimate(&c.k, lookup(NULL, "aesni_intel"), 4, false,
				     c.k.in_kernel_decompress, &model);
		assert_int_not_equal(model.per_duplicate, s->per_attempt);
	}
	if (!c.k.lp.early_dup_check)
		assert_int_not_equal(find(v, n, "kvm")->by_class[VMAP_LAYOUT], 0);
	else
		assert_int_equal(find(v, n, "kvm")->by_class[VMAP_LAYOUT], 0);
	capture_done(&c);
}

static void test_prices_612(void **state)
{
	(void)state;
	check_prices("6.12.0");
}

static void test_prices_61(void **state)
{
	(void)state;
	check_prices("6.1.0");
}

/*
 * A 4-CPU capture predicts a 16-CPU one: its prediction at 16 equals what the storming
 * modules' udev attempts cost in a capture of the same boot on 16 CPUs
 */
static void test_predicts(void **state)
{
	const char *release[] = { "6.12.0", "6.1.0" };

	(void)state;
	for (size_t r = 0; r < ARRAY_SIZE(release); r++) {
		struct percpu_storm v4[16], v16[16];
		struct capture c4, c16;
		uint64_t at16, at16_self, sum = 0, real = 0;
		size_t n4, n16;

		capture_new(&c4, release[r], 4);
		capture_new(&c16, release[r], 16);
		assert_int_equal(percpu_storms_find(c4.l, c4.cost, 4, 16, NULL, NULL, v4,
						    ARRAY_SIZE(v4), &n4, &at16), 0);
		assert_int_equal(percpu_storms_find(c16.l, c16.cost, 16, 16, NULL, NULL, v16,
						    ARRAY_SIZE(v16), &n16, &at16_self), 0);
		/* e1000's four tries are no storm on 16 CPUs: it goes from the 16-CPU list */
		assert_int_equal(n16 + 1, n4);
		for (size_t i = 0; i < n4; i++) {
			uint64_t wasted;
			size_t n_wasted, loaded;

			assert_int_equal(v4[i].attempts_at_n, 16);
			assert_int_equal(v4[i].wasted_at_n,
					 (16 - v4[i].loaded) * v4[i].per_attempt);
			sum += v4[i].wasted_at_n;
			if (!strcmp(v4[i].name, "e1000"))
				continue;
			seen(&c16, v4[i].name, &wasted, &n_wasted, &loaded);
			assert_int_equal(n_wasted + loaded, 16);
			real += wasted;
		}
		assert_int_equal(sum, at16);
		/* the device storm predicted per CPU is the one part that does not hold */
		assert_int_equal(at16 - find(v4, n4, "e1000")->wasted_at_n, real);
		assert_int_equal(at16_self, real);
		capture_done(&c4);
		capture_done(&c16);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udev_names),
		cmocka_unit_test(test_storms_named),
		cmocka_unit_test(test_storms_deps),
		cmocka_unit_test(test_storms_untried_parent),
		cmocka_unit_test(test_prices_612),
		cmocka_unit_test(test_prices_61),
		cmocka_unit_test(test_predicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

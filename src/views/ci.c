/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/klog-findings.h"
#include "output/table.h"
#include "output/units.h"
#include "util/escape.h"
#include "util/hindex.h"
#include "util/macro.h"
#include "ci.h"

/* Distinct names and (input, class, module) rows kept; the rest go to "(other)". */
#define MAX_NAMES 65536
#define MAX_AGGS 65536
/*
 * Boots listed one by one; later ones are counted, and for each gate the worst of
 * them kept, so that a log of a million boots takes no memory per boot.
 */
#define MAX_BOOTS 1000
#define OTHER_NAME "(other)"
/* Bytes of the first evidence line kept per finding */
#define SAMPLE_MAX 160
/* Raw bytes kept of a name (MODULE_NAME_LEN is 56; aliases can be longer) */
#define NAME_MAX_RAW 96
/* Requesters remembered per finding; the rest are counted */
#define REQ_MAX 3
/* Classes listed per boot in the boots table */
#define BOOT_SUMMARY_CLASSES 4
/* GitHub shows a handful of annotations per step: the rest would be noise */
#define GITHUB_MAX 50

#define MODULE_INIT_COMPRESSED_FILE 4

static uint64_t mul_sat_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

/* --- classes --------------------------------------------------------------------------- */

struct ci_class {
	const char *name;
	enum ci_group group;
	enum ci_fmt_level level;
	int klog;			/* enum klog_finding_kind, or 0 */
	int outcome;			/* enum attempt_outcome, or -1 */
	/* a kernel log finding: the outcome its load had, for the cost model, or -1 */
	int cost_outcome;
	const char *help;
};

#define K(kind_) KLOG_FINDING_##kind_
static const struct ci_class classes[] = {
	{ "unknown-symbol", CI_GROUP_FAILURE, CI_FMT_ERROR, K(UNKNOWN_SYMBOL), -1,
	  OUTCOME_MISSING_DEP, "a module needs a symbol no loaded module exports" },
	{ "symbol-version", CI_GROUP_FAILURE, CI_FMT_ERROR, K(SYMBOL_VERSION), -1,
	  OUTCOME_MISSING_DEP, "a module was built against another version of a symbol" },
	{ "no-symbol-version", CI_GROUP_NOTICE, CI_FMT_NOTE, K(NO_SYMBOL_VERSION), -1, -1,
	  "a module uses a symbol without a version (CONFIG_MODVERSIONS)" },
	{ "symbol-namespace", CI_GROUP_FAILURE, CI_FMT_ERROR, K(SYMBOL_NAMESPACE), -1,
	  OUTCOME_MISSING_DEP, "a module uses a symbol namespace it does not import" },
	{ "autoload-duplicate", CI_GROUP_DUPLICATE, CI_FMT_WARNING, K(AUTOLOAD_DUPLICATE), -1, -1,
	  "request_module() asked again for a module being loaded (MODULE_DEBUG_AUTOLOAD_DUPS)" },
	{ "kmod-throttled", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, K(KMOD_THROTTLED), -1, -1,
	  "request_module() waited: too many modprobe processes at once" },
	{ "kmod-busy", CI_GROUP_FAILURE, CI_FMT_ERROR, K(KMOD_BUSY), -1, -1,
	  "request_module() gave up waiting for a modprobe slot (ETIME)" },
	{ "kmod-gave-up", CI_GROUP_FAILURE, CI_FMT_ERROR, K(KMOD_GAVE_UP), -1, -1,
	  "request_module() killed or stopped a modprobe loop" },
	{ "fs-still-missing", CI_GROUP_FAILURE, CI_FMT_ERROR, K(FS_STILL_MISSING), -1, -1,
	  "a filesystem module loaded but did not register the filesystem" },
	{ "vmap-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, K(VMAP_FAILED), -1, -1,
	  "the vmalloc address space ran out" },
	{ "vmalloc-error", CI_GROUP_FAILURE, CI_FMT_ERROR, K(VMALLOC_ERROR), -1, -1,
	  "a vmalloc() allocation failed" },
	{ "execmem-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, K(EXECMEM_FAILED), -1, -1,
	  "no executable memory for module text" },
	{ "probe-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, K(PROBE_FAILED), -1, -1,
	  "a driver's probe of a device failed" },
	{ "signature-missing", CI_GROUP_NOTICE, CI_FMT_NOTE, K(SIG_MISSING), -1, -1,
	  "an unsigned module was loaded and tainted the kernel" },
	{ "signature-rejected", CI_GROUP_FAILURE, CI_FMT_ERROR, K(SIG_REJECTED),
	  OUTCOME_SIG_REJECTED, OUTCOME_OTHER_ERROR,
	  "a module's signature or key was refused, or lockdown forbids unsigned modules" },
	{ "bad-elf", CI_GROUP_FAILURE, CI_FMT_ERROR, K(BAD_ELF), -1, OUTCOME_BAD_FORMAT,
	  "the kernel was handed something that is not a valid module ELF file" },
	{ "this-module-size", CI_GROUP_FAILURE, CI_FMT_ERROR, K(THIS_MODULE_SIZE), -1,
	  OUTCOME_OTHER_ERROR, "a module was built for another struct module layout" },
	{ "blacklisted", CI_GROUP_FAILURE, CI_FMT_ERROR, K(BLACKLISTED), -1,
	  OUTCOME_OTHER_ERROR, "a load of a module on the kernel's blacklist was refused" },
	{ "vermagic", CI_GROUP_FAILURE, CI_FMT_ERROR, K(VERMAGIC), -1, OUTCOME_OTHER_ERROR,
	  "a module was built for another kernel (version magic)" },
	{ "forced-load", CI_GROUP_NOTICE, CI_FMT_NOTE, K(FORCED_LOAD), -1, -1,
	  "a module was force-loaded and tainted the kernel" },
	{ "taint", CI_GROUP_NOTICE, CI_FMT_NOTE, K(TAINT), -1, -1,
	  "a module tainted the kernel (out of tree, staging, licence, livepatch)" },
	{ "already-loaded", CI_GROUP_DUPLICATE, CI_FMT_WARNING, K(ALREADY_LOADED), -1,
	  OUTCOME_DUP_LIVE, "a module was loaded while a module of that name was live" },
	{ "init-bad-return", CI_GROUP_NOTICE, CI_FMT_WARNING, K(INIT_BAD_RETURN), -1, -1,
	  "a module's init function returned a positive value" },
	{ "load-error", CI_GROUP_FAILURE, CI_FMT_ERROR, K(LOAD_ERROR), -1, OUTCOME_OTHER_ERROR,
	  "the kernel refused a module (duplicate exports, percpu, sysfs, ...)" },
	{ "load-warning", CI_GROUP_NOTICE, CI_FMT_NOTE, K(LOAD_WARNING), -1, -1,
	  "the kernel warned about a module it loaded (parameters, retpoline, ...)" },
	{ "decompress-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, K(DECOMPRESS_FAILED), -1,
	  OUTCOME_OTHER_ERROR, "in-kernel module decompression failed" },
	{ "modprobe-error", CI_GROUP_FAILURE, CI_FMT_ERROR, K(MODPROBE_ERROR), -1, -1,
	  "modprobe or insmod reported an error" },
	{ "udev-worker-timeout", CI_GROUP_NOTICE, CI_FMT_WARNING, K(UDEV_WORKER_TIMEOUT), -1, -1,
	  "a systemd-udevd worker took too long or was killed (often a slow module load)" },
	/* from a trace's load attempts (ledger outcomes) */
	{ "duplicate-live", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_DUP_LIVE, -1,
	  "a load of a module that was already live (EEXIST)" },
	{ "duplicate-concurrent", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_DUP_CONCURRENT,
	  -1, "a load of a module that was being loaded or unloaded (EBUSY)" },
	{ "idempotent-waiter", CI_GROUP_DUPLICATE, CI_FMT_WARNING, 0, OUTCOME_WAITER, -1,
	  "a concurrent finit_module() of the same file that waited for another (6.5+)" },
	{ "missing-dependency", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_MISSING_DEP, -1,
	  "a load failed because a dependency was not loaded (ENOENT)" },
	{ "bad-format", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_BAD_FORMAT, -1,
	  "a load failed because the bytes were not a module (ENOEXEC)" },
	{ "userspace-decompression-fallback", CI_GROUP_FAILURE, CI_FMT_WARNING, 0,
	  OUTCOME_FALLBACK, -1,
	  "finit_module() of a compressed file failed and kmod retried with init_module()" },
	{ "init-failed", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_INIT_FAILED, -1,
	  "a module loaded but its init function failed" },
	{ "denied", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_DENIED, -1,
	  "a load was refused (EPERM: no CAP_SYS_MODULE, modules_disabled)" },
	{ "other-error", CI_GROUP_FAILURE, CI_FMT_ERROR, 0, OUTCOME_OTHER_ERROR, -1,
	  "a load failed for another reason" },
	{ "incomplete", CI_GROUP_NOTICE, CI_FMT_NOTE, 0, OUTCOME_INCOMPLETE, -1,
	  "a load was still running when the trace ended" },
	{ "needless-autoload", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, 0, -1, -1,
	  "request_module() for a module that was already live: a modprobe for nothing" },
	{ "autoload-unresolved", CI_GROUP_AUTOLOAD, CI_FMT_WARNING, 0, -1, -1,
	  "request_module() for an alias no module provides: a modprobe for nothing" },
};
#undef K

_Static_assert(ARRAY_SIZE(classes) <= 64, "--fail-on keeps one bit per class");

#define CLS_NEEDLESS (ARRAY_SIZE(classes) - 2)
#define CLS_UNRESOLVED (ARRAY_SIZE(classes) - 1)

size_t ci_class_count(void)
{
	return ARRAY_SIZE(classes);
}

const char *ci_class_name(size_t cls)
{
	return cls < ARRAY_SIZE(classes) ? classes[cls].name : "?";
}

const char *ci_class_help(size_t cls)
{
	return cls < ARRAY_SIZE(classes) ? classes[cls].help : "";
}

enum ci_group ci_class_group(size_t cls)
{
	return cls < ARRAY_SIZE(classes) ? classes[cls].group : CI_GROUP_NOTICE;
}

const char *ci_group_name(enum ci_group g)
{
	static const char *const n[_CI_GROUP_MAX] = {
		[CI_GROUP_DUPLICATE] = "duplicates",
		[CI_GROUP_FAILURE] = "failures",
		[CI_GROUP_AUTOLOAD] = "autoload",
		[CI_GROUP_NOTICE] = "notices",
	};

	return (unsigned int)g < _CI_GROUP_MAX ? n[g] : "?";
}

int ci_class_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (strcmp(classes[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int class_of_klog(int kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (classes[i].klog == kind)
			return (int)i;
	return -1;
}

static int class_of_outcome(int outcome)
{
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (classes[i].outcome == outcome)
			return (int)i;
	return -1;
}

static const char *level_name(enum ci_fmt_level l)
{
	return l == CI_FMT_ERROR ? "error" : l == CI_FMT_WARNING ? "warning" : "note";
}

/*
 * The needles: literal text of the printk formats, chosen so that every format holds
 * one (tests/unit/test-ci.c checks each klog_formats() entry), so that they share
 * three-byte fingerprints (stream.c searches 16 of them exactly), and so that ordinary
 * boot chatter seldom has them. "version" also finds the "Linux version" banner.
 */
static const char *const needles[] = {
	"odule",		/* module, Module, request_module, insmod's "module" */
	"symbol",
	"ELF",
	"vmalloc",
	"vmap",
	"execmem",
	"probe of ",		/* driver probes */
	"probe with ",
	"modprobe: ",		/* kmod's own messages (not systemd's modprobe@ units) */
	"taint",
	"compress",		/* decompression, ZSTD-compressed */
	"-fno-common",
	"parameter",
	"->init ",
	".init_array",
	"initialize ZSTD",
	"percpu",
	"per-cpu",
	"rejected",
	"PKCS#7",
	"section",
	"version",		/* version magic, version crc, the banner */
	"Worker [",
};
const char *const *ci_needles(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(needles);
	return needles;
}

/* --- state ----------------------------------------------------------------------------- */

struct names {
	char **s;			/* as seen, NUL-terminated: outputs escape it */
	char **raw;			/* as seen: the lookup key */
	uint16_t *raw_len;
	size_t n, cap, cap_raw, cap_len;
	uint32_t *slots;		/* open addressing: id + 1, 0 empty */
	size_t n_slots;
	uint32_t other;
};

struct req {
	uint32_t comm;			/* name ids; 0: none */
	uint32_t site;
	uint64_t n;
};

struct agg {
	uint32_t input;
	uint16_t cls;
	uint32_t module;		/* name id, 0: none */
	uint64_t count;			/* evidence lines (a trace's: one per attempt) */
	uint64_t attempts;		/* the attempts the evidence makes (attempts_of_lines()) */
	uint64_t first_line, last_line;
	uint32_t boots;
	size_t last_boot;		/* boot index + 1 that counted it last */
	uint64_t boot_count, boot_attempts;
	uint64_t wasted, boot_wasted;
	bool wasted_known;		/* some of it was estimated or measured */
	bool from_trace;
	bool allowed;
	bool gated;			/* made a gate fail */
	struct req req[REQ_MAX];
	uint64_t req_other;
	char *sample;
};

struct ci_figures {
	uint64_t attempts, failed, duplicates, wasted;
};

struct boot {
	uint64_t number;		/* 1, 2, ... in the run */
	uint32_t input;
	uint64_t line, end_line;
	bool banner;
	bool marker;			/* started by a boot marker */
	char release[65];
	char boot_id[48];
	/*
	 * Load attempts as report counts them: a boot with a trace takes them from its
	 * ledger (the log's records joined it there), one with a log alone from the
	 * log's evidence. @gated leaves out --allow's modules.
	 */
	bool traced;
	struct ci_figures all, gated;
	uint64_t findings;
	bool waste_possible;		/* it has findings that may waste memory */
	bool waste_known;		/* one of them could be estimated or was measured */
	bool waste_lower_bound;		/* log findings: one attempt each */
	char *summary;
};

struct input {
	char *path;
	char format[24];
	char compression[8];
	char *release;			/* --kernel-release, for traces */
	struct ci_input_stats st;
	size_t first_boot, n_boots;
	uint64_t findings;
};


enum gate_id {
	GATE_MAX_DUPLICATES,
	GATE_MAX_FAILURES,
	GATE_MAX_WASTED,
	GATE_FAIL_ON,
	GATE_BASELINE_NEW,
	GATE_BASELINE_INCREASE,
	_GATE_MAX,
};

struct gate {
	bool enabled;
	bool passed;
	bool unknown;			/* could not be evaluated */
	int64_t limit;
	uint64_t value;
	long boot;			/* where the worst value was; -1 */
	long agg;			/* the first finding that failed it; -1 */
	char *detail;
};

enum delta_status {
	DELTA_NEW,
	DELTA_INCREASED,
	DELTA_SAME,
	DELTA_DECREASED,
	DELTA_GONE,
};

struct delta {
	const char *cls;		/* static or the baseline's */
	const char *module;		/* NULL: none */
	uint64_t old_count, new_count;
	enum delta_status status;
	bool offending;
};

struct ci {
	const struct ci_options *opt;
	const struct ci_cost_ops *cost;
	struct names names;
	struct agg *aggs;
	size_t n_aggs, cap_aggs;
	uint32_t *agg_slots;
	size_t n_agg_slots;
	struct boot *boots;		/* the first MAX_BOOTS */
	size_t n_boots, cap_boots;
	uint64_t all_boots;		/* listed or not */
	struct boot spare;		/* the current boot past MAX_BOOTS */
	bool in_spare;
	/* past MAX_BOOTS: the first boot with the most duplicates, failures, waste */
	struct boot worst[3];
	bool have_worst;
	struct input *inputs;
	size_t n_inputs, cap_inputs;
	size_t *touched;		/* aggs counted in the current boot */
	size_t n_touched, cap_touched;
	bool in_boot;
	struct klog_memo *memo;
	/* the row of the last finding classified elsewhere: findings come in runs */
	struct {
		uint32_t agg;		/* index + 1; 0: none */
		uint32_t input;
		int cls;
		bool alias;
		uint16_t len;
		char module[64];
	} last;
	/* the row the last kernel record's finding went to (index + 1; 0: none), its line */
	uint32_t again;
	uint64_t again_line;
	uint64_t again_detail;		/* its message's detail_hash(), 0: none */
	/* the current boot's (row, message) counts of the symbol classes */
	struct detail *details;
	size_t n_details, cap_details;
	struct hindex *detail_index;
	struct ci_figures total;	/* over every boot, --allow's modules too */
	bool total_wasted_known;
	bool capped;			/* rows were folded into "(other)" */
	bool waste_available;		/* module files or a measured trace */
	bool waste_lower_bound;		/* log findings: one attempt per module and boot */
	uint64_t records;
	struct gate gates[_GATE_MAX];
	struct delta *deltas;
	size_t n_deltas;
	uint64_t baseline_wasted_old;
	bool finished;
	enum ci_result result;
	bool join_next;			/* ci_input_join(): the next input continues the boot */
};

/* --- small helpers --------------------------------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	np = realloc(*p, c * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = c;
	return 0;
}

/* kmod compares module names with '-' and '_' the same */
static void normalize(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* --- names ------------------------------------------------------------------------------ */

static const char *name_of(const struct ci *c, uint32_t id)
{
	return id && id <= c->names.n ? c->names.s[id - 1] : NULL;
}

static int names_rehash(struct names *nm, size_t n_slots)
{
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < nm->n; i++) {
		size_t h = hash_words(nm->raw[i], nm->raw_len[i], 1) & (n_slots - 1);

		while (slots[h])
			h = (h + 1) & (n_slots - 1);
		slots[h] = (uint32_t)(i + 1);
	}
	free(nm->slots);
	nm->slots = slots;
	nm->n_slots = n_slots;
	return 0;
}

/*
 * The id of @s (raw bytes, up to NAME_MAX_RAW of them), added if new; 0 for NULL. Names
 * stay raw: text, GitHub and JUnit output escape them, JSON carries them exactly.
 */
static int intern(struct ci *c, const char *s, size_t len, uint32_t *ret)
{
	struct names *nm = &c->names;
	size_t h;
	int r;

	if (!s || !len) {
		*ret = 0;
		return 0;
	}
	/* module names are at most 55 bytes; longer text is cut (it is evidence only) */
	if (len > NAME_MAX_RAW)
		len = NAME_MAX_RAW;
	if (nm->n_slots == 0 || (nm->n + 1) * 2 > nm->n_slots) {
		r = names_rehash(nm, nm->n_slots ? nm->n_slots * 2 : 1024);
		if (r < 0)
			return r;
	}
	h = hash_words(s, len, 1) & (nm->n_slots - 1);
	while (nm->slots[h]) {
		uint32_t id = nm->slots[h];

		if (nm->raw_len[id - 1] == len && memcmp(nm->raw[id - 1], s, len) == 0) {
			*ret = id;
			return 0;
		}
		h = (h + 1) & (nm->n_slots - 1);
	}
	if (nm->n >= MAX_NAMES) {
		c->capped = true;
		*ret = nm->other;
		return 0;
	}
	if (grow((void **)&nm->s, &nm->cap, nm->n + 1, sizeof(char *)) < 0 ||
	    grow((void **)&nm->raw, &nm->cap_raw, nm->n + 1, sizeof(char *)) < 0 ||
	    grow((void **)&nm->raw_len, &nm->cap_len, nm->n + 1, sizeof(uint16_t)) < 0)
		return -ENOMEM;
	nm->raw[nm->n] = malloc(len);
	nm->s[nm->n] = strndup(s, len);
	if (!nm->raw[nm->n] || !nm->s[nm->n]) {
		free(nm->raw[nm->n]);
		free(nm->s[nm->n]);
		return -ENOMEM;
	}
	memcpy(nm->raw[nm->n], s, len);
	nm->raw_len[nm->n] = (uint16_t)len;
	nm->slots[h] = (uint32_t)++nm->n;
	*ret = (uint32_t)nm->n;
	return 0;
}

static int intern_module(struct ci *c, const char *s, size_t len, bool alias, uint32_t *ret)
{
	char buf[NAME_MAX_RAW + 1];

	if (!s || !len) {
		*ret = 0;
		return 0;
	}
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* a NUL inside cannot be a name; what comes before it is what a human reads */
	len = strlen(buf);
	if (!alias)
		normalize(buf);
	return intern(c, buf, len, ret);
}

/* --- aggregation ----------------------------------------------------------------------- */

static bool module_allowed(const struct ci *c, const char *name)
{
	char norm[160];

	if (!name)
		return false;
	snprintf(norm, sizeof(norm), "%s", name);
	normalize(norm);
	for (size_t i = 0; i < c->opt->n_allow; i++)
		if (fnmatch(c->opt->allow[i], norm, 0) == 0)
			return true;
	return false;
}

static uint64_t agg_key_hash(uint32_t input, size_t cls, uint32_t module)
{
	uint64_t k = (uint64_t)input << 40 ^ (uint64_t)cls << 32 ^ module;

	return hash_words(&k, sizeof(k), 2);
}

static int aggs_rehash(struct ci *c, size_t n_slots)
{
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[i];
		size_t h = agg_key_hash(a->input, a->cls, a->module) & (n_slots - 1);

		while (slots[h])
			h = (h + 1) & (n_slots - 1);
		slots[h] = (uint32_t)(i + 1);
	}
	free(c->agg_slots);
	c->agg_slots = slots;
	c->n_agg_slots = n_slots;
	return 0;
}

static int agg_find(struct ci *c, size_t cls, uint32_t module, struct agg **ret)
{
	uint32_t input = (uint32_t)(c->n_inputs - 1);
	struct agg *a;
	size_t h;
	int r;

	if (c->n_agg_slots == 0 || (c->n_aggs + 1) * 2 > c->n_agg_slots) {
		r = aggs_rehash(c, c->n_agg_slots ? c->n_agg_slots * 2 : 256);
		if (r < 0)
			return r;
	}
	for (;;) {
		h = agg_key_hash(input, cls, module) & (c->n_agg_slots - 1);
		while (c->agg_slots[h]) {
			a = &c->aggs[c->agg_slots[h] - 1];
			if (a->input == input && a->cls == cls && a->module == module) {
				*ret = a;
				return 0;
			}
			h = (h + 1) & (c->n_agg_slots - 1);
		}
		if (c->n_aggs < MAX_AGGS || module == c->names.other)
			break;
		c->capped = true;
		module = c->names.other;
	}
	r = grow((void **)&c->aggs, &c->cap_aggs, c->n_aggs + 1, sizeof(*c->aggs));
	if (r < 0)
		return r;
	a = &c->aggs[c->n_aggs];
	memset(a, 0, sizeof(*a));
	a->input = input;
	a->cls = (uint16_t)cls;
	a->module = module;
	a->allowed = module_allowed(c, name_of(c, module));
	c->agg_slots[h] = (uint32_t)++c->n_aggs;
	*ret = a;
	return 0;
}

struct evidence {
	uint64_t first, last;		/* lines; last 0: same as first */
	const char *msg;		/* raw bytes, or NULL */
	size_t msg_len;
	uint32_t comm, site;		/* requester name ids */
	bool has_waste;
	uint64_t wasted;
	bool trace;
	uint64_t detail;		/* detail_hash() of a symbol class's message, or 0 */
};

/*
 * A failed load logs each symbol it misses once ("nfs: Unknown symbol rpc_put_task"), so
 * one load is many lines: the loads of a module are the most lines of one (module,
 * symbol) pair, not the lines. Counted per boot by the message's hash (a collision only
 * merges two symbols' counts, the larger still wins).
 */
struct detail {
	uint32_t agg;
	uint64_t hash;
	uint64_t n;
};

/* Details kept per boot; past them each line counts as a load of its own */
#define MAX_DETAILS (1u << 20)

static bool is_symbol_class(size_t cls)
{
	int k = classes[cls].klog;

	return k == KLOG_FINDING_UNKNOWN_SYMBOL || k == KLOG_FINDING_SYMBOL_VERSION ||
	       k == KLOG_FINDING_SYMBOL_NAMESPACE;
}

/* A load attempt that failed, as a kernel log line shows one (already-loaded: EEXIST) */
static bool is_log_attempt_class(size_t cls)
{
	return classes[cls].klog && classes[cls].cost_outcome >= 0;
}

static uint64_t detail_hash(const char *msg, size_t len)
{
	return hash_words(msg, len, 0x6b6d6f64) | 1;
}

struct detail_key {
	uint32_t agg;
	uint64_t hash;
};

static bool detail_eq(size_t pos, const void *key, const void *userdata)
{
	const struct detail *d = &((const struct ci *)userdata)->details[pos];
	const struct detail_key *k = key;

	return d->agg == k->agg && d->hash == k->hash;
}

/* The row @a's lines of one message, @n more: its attempts, as attempts_of_lines() says */
static int detail_add(struct ci *c, struct agg *a, uint64_t hash, uint64_t n)
{
	struct detail_key k = { (uint32_t)(a - c->aggs), hash };
	uint64_t h = hash ^ ((uint64_t)k.agg * UINT64_C(0x9e3779b97f4a7c15));
	size_t pos = HINDEX_NONE;
	int r;

	if (!c->detail_index) {
		r = hindex_new(&c->detail_index);
		if (r < 0)
			return r;
	}
	pos = hindex_find(c->detail_index, h, detail_eq, &k, c);
	if (pos == HINDEX_NONE) {
		if (c->n_details >= MAX_DETAILS) {
			a->boot_attempts += n;
			return 0;
		}
		r = grow((void **)&c->details, &c->cap_details, c->n_details + 1,
			 sizeof(*c->details));
		if (r < 0)
			return r;
		r = hindex_add(c->detail_index, h, c->n_details);
		if (r < 0)
			return r;
		pos = c->n_details++;
		c->details[pos] = (struct detail){ k.agg, hash, 0 };
	}
	c->details[pos].n += n;
	if (c->details[pos].n > a->boot_attempts)
		a->boot_attempts = c->details[pos].n;
	return 0;
}

/* A boot's details end with it */
static void details_reset(struct ci *c)
{
	c->n_details = 0;
	c->detail_index = hindex_free(c->detail_index);
}

static void add_requester(struct agg *a, uint32_t comm, uint32_t site, uint64_t n)
{
	if (!comm && !site)
		return;
	for (int i = 0; i < REQ_MAX; i++) {
		if (a->req[i].n && a->req[i].comm == comm && a->req[i].site == site) {
			a->req[i].n += n;
			return;
		}
		if (!a->req[i].n) {
			a->req[i] = (struct req){ comm, site, n };
			return;
		}
	}
	a->req_other += n;
}

static struct boot *cur_boot(struct ci *c)
{
	if (!c->in_boot)
		return NULL;
	return c->in_spare ? &c->spare : &c->boots[c->n_boots - 1];
}

/* Boot @i of the gates: one listed, or past them one of the worst unlisted */
static const struct boot *boot_at(const struct ci *c, long i)
{
	return (size_t)i < c->n_boots ? &c->boots[i] : &c->worst[(size_t)i - c->n_boots];
}

/* The gates' figure of @b: 0 duplicates, 1 failures, 2 waste */
static uint64_t boot_metric(const struct boot *b, int m)
{
	return m == 0 ? b->gated.duplicates : m == 1 ? b->gated.failed : b->gated.wasted;
}

/* An unlisted boot, closed: kept where it is the worst so far */
static void boot_fold(struct ci *c)
{
	struct boot *b = &c->spare;

	free(b->summary);
	b->summary = NULL;
	for (int m = 0; m < 3; m++)
		if (!c->have_worst || boot_metric(b, m) > boot_metric(&c->worst[m], m))
			c->worst[m] = *b;
	c->have_worst = true;
	c->in_spare = false;
}

static int boot_open(struct ci *c, uint64_t line)
{
	struct input *in = &c->inputs[c->n_inputs - 1];
	struct boot *b;
	int r;

	if (c->n_boots < MAX_BOOTS) {
		r = grow((void **)&c->boots, &c->cap_boots, c->n_boots + 1, sizeof(*c->boots));
		if (r < 0)
			return r;
		b = &c->boots[c->n_boots++];
	} else {
		b = &c->spare;
		c->in_spare = true;
	}
	memset(b, 0, sizeof(*b));
	b->number = ++c->all_boots;
	b->input = (uint32_t)(c->n_inputs - 1);
	b->line = line;
	b->end_line = line;
	if (in->release)
		snprintf(b->release, sizeof(b->release), "%s", in->release);
	if (!in->n_boots)
		in->first_boot = (size_t)b->number - 1;
	in->n_boots++;
	c->in_boot = true;
	return 0;
}

/* Counts @ev in the row @a, in the current boot, @n times (lines of @ev's first..last). */
static int agg_add_n(struct ci *c, struct agg *a, const struct evidence *ev, uint64_t n)
{
	struct boot *b;
	uint64_t last = ev->last ? ev->last : ev->first;
	int r;

	/* a waste is one attempt's: repeats are of log lines, which have none */
	if (n != 1 && ev->has_waste)
		return -EINVAL;
	if (!c->in_boot) {
		r = boot_open(c, ev->first);
		if (r < 0)
			return r;
	}
	b = cur_boot(c);
	if (a->count == 0 || ev->first < a->first_line)
		a->first_line = ev->first;
	if (last > a->last_line)
		a->last_line = last;
	a->count += n;
	a->from_trace = ev->trace;
	if (a->last_boot != c->all_boots) {
		a->last_boot = c->all_boots;
		a->boot_count = 0;
		a->boot_attempts = 0;
		a->boot_wasted = 0;
		a->boots++;
		r = grow((void **)&c->touched, &c->cap_touched, c->n_touched + 1, sizeof(size_t));
		if (r < 0)
			return r;
		c->touched[c->n_touched++] = (size_t)(a - c->aggs);
	}
	a->boot_count += n;
	if (ev->detail && is_symbol_class(a->cls)) {
		r = detail_add(c, a, ev->detail, n);
		if (r < 0)
			return r;
	} else {
		a->boot_attempts += n;
	}
	if (ev->has_waste) {
		a->wasted = add_sat_u64(a->wasted, ev->wasted);
		a->boot_wasted = add_sat_u64(a->boot_wasted, ev->wasted);
		a->wasted_known = true;
		b->waste_known = true;
	}
	add_requester(a, ev->comm, ev->site, n);
	if (!a->sample && ev->msg) {
		a->sample = strndup(ev->msg, MIN_SIZE(ev->msg_len, (size_t)SAMPLE_MAX));
		if (!a->sample)
			return -ENOMEM;
	}
	if (last > b->end_line)
		b->end_line = last;
	c->inputs[c->n_inputs - 1].findings += n;
	return 0;
}

static int agg_add(struct ci *c, struct agg *a, const struct evidence *ev)
{
	return agg_add_n(c, a, ev, 1);
}

static int add_finding(struct ci *c, size_t cls, uint32_t module, const struct evidence *ev)
{
	struct agg *a;
	int r;

	r = agg_find(c, cls, module, &a);
	if (r < 0)
		return r;
	return agg_add(c, a, ev);
}

/* One load of the module @a is about, as the log shows it failed: what it held. */
static bool estimate_log_finding(struct ci *c, const struct boot *b, const struct agg *a,
				 uint64_t *ret)
{
	const struct ci_class *k = &classes[a->cls];
	const struct cost_module *m;
	struct cost_kernel kern;
	struct attempt at = { .syscall = ATTEMPT_FINIT, .complete = true };
	uint64_t bytes[_VMAP_MAX];
	const char *name = name_of(c, a->module);

	if (!c->cost || k->cost_outcome < 0 || !name || a->module == c->names.other)
		return false;
	if (c->cost->kernel(c->cost->userdata, b->release[0] ? b->release : NULL, &kern) < 0)
		return false;
	m = c->cost->module(c->cost->userdata, b->release[0] ? b->release : NULL, name);
	if (!m)
		return false;
	at.outcome = (enum attempt_outcome)k->cost_outcome;
	at.err = at.outcome == OUTCOME_BAD_FORMAT ? ENOEXEC : EINVAL;
	/* kmod passes MODULE_INIT_COMPRESSED_FILE for compressed files the kernel can read;
	 * "Invalid ELF header" on a compressed module is the load without it */
	if (m->compressed && at.outcome != OUTCOME_BAD_FORMAT)
		at.flags = MODULE_INIT_COMPRESSED_FILE;
	if (!cost_estimate_attempt(&kern, &at, m, bytes))
		return false;
	*ret = 0;
	for (int i = 0; i < _VMAP_MAX; i++)
		*ret += bytes[i];
	return true;
}

struct class_count {
	size_t cls;
	uint64_t n;
};

static int class_count_cmp(const void *x, const void *y)
{
	const struct class_count *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* Folds the current boot: per-boot counts for the gates, its one-line summary. */
static int boot_close(struct ci *c)
{
	struct class_count cc[ARRAY_SIZE(classes)];
	struct boot *b = cur_boot(c);
	char buf[256];
	size_t len = 0, n_seen = 0;

	if (!b)
		return 0;
	memset(cc, 0, sizeof(cc));
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		cc[i].cls = i;
	for (size_t i = 0; i < c->n_touched; i++) {
		struct agg *a = &c->aggs[c->touched[i]];
		const struct ci_class *k = &classes[a->cls];
		uint64_t est;

		b->findings += a->boot_count;
		a->attempts += a->boot_attempts;
		cc[a->cls].n += a->boot_count;
		if (a->from_trace && (k->group == CI_GROUP_FAILURE ||
				      k->group == CI_GROUP_DUPLICATE))
			b->waste_possible = true;
		/* a trace's boot has its figures from the ledger, which the log joined */
		if (b->traced || a->from_trace || !is_log_attempt_class(a->cls))
			continue;
		/*
		 * The log's failed loads, as many as its evidence makes (it cannot see
		 * idempotent waiters, which log nothing): what each of them held, at least.
		 */
		b->waste_possible = true;
		if (estimate_log_finding(c, b, a, &est)) {
			est = mul_sat_u64(est, a->boot_attempts);
			a->wasted = add_sat_u64(a->wasted, est);
			a->boot_wasted = est;
			a->wasted_known = true;
			b->waste_known = true;
			b->waste_lower_bound = true;
			c->waste_available = true;
			c->waste_lower_bound = true;
		}
		for (int g = 0; g < 2; g++) {
			struct ci_figures *f = g ? &b->gated : &b->all;

			if (g && a->allowed)
				continue;
			f->attempts += a->boot_attempts;
			f->failed += a->boot_attempts;
			if (k->group == CI_GROUP_DUPLICATE)
				f->duplicates += a->boot_attempts;
			f->wasted = add_sat_u64(f->wasted, a->boot_wasted);
		}
	}
	c->total.attempts += b->all.attempts;
	c->total.failed += b->all.failed;
	c->total.duplicates += b->all.duplicates;
	c->total.wasted = add_sat_u64(c->total.wasted, b->all.wasted);
	if (b->waste_known)
		c->total_wasted_known = true;
	details_reset(c);
	/* the classes seen, a few of many: sorted alone (a log may have 10,000s of boots) */
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (cc[i].n)
			cc[n_seen++] = cc[i];
	qsort(cc, n_seen, sizeof(cc[0]), class_count_cmp);
	buf[0] = '\0';
	for (size_t i = 0; i < n_seen; i++) {
		if (i == BOOT_SUMMARY_CLASSES) {
			size_t more = n_seen - i;

			snprintf(buf + len, sizeof(buf) - len, ",+%zu more", more);
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s:%" PRIu64,
					i ? "," : "", classes[cc[i].cls].name, cc[i].n);
		if (len >= sizeof(buf))
			break;
	}
	if (buf[0]) {
		b->summary = strdup(buf);
		if (!b->summary)
			return -ENOMEM;
	}
	c->n_touched = 0;
	c->in_boot = false;
	if (c->in_spare)
		boot_fold(c);
	return 0;
}

/* --- feeding --------------------------------------------------------------------------- */

int ci_new(const struct ci_options *opt, const struct ci_cost_ops *cost, struct ci **ret)
{
	struct ci *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->opt = opt;
	c->cost = cost && cost->kernel && cost->module ? cost : NULL;
	if (klog_memo_new(&c->memo) < 0) {
		free(c);
		return -ENOMEM;
	}
	r = intern(c, OTHER_NAME, strlen(OTHER_NAME), &c->names.other);
	if (r < 0) {
		ci_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

struct ci *ci_free(struct ci *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->names.n; i++) {
		free(c->names.s[i]);
		free(c->names.raw[i]);
	}
	free(c->names.s);
	free(c->names.raw);
	free(c->names.raw_len);
	free(c->names.slots);
	for (size_t i = 0; i < c->n_aggs; i++)
		free(c->aggs[i].sample);
	free(c->aggs);
	free(c->agg_slots);
	for (size_t i = 0; i < c->n_boots; i++)
		free(c->boots[i].summary);
	free(c->boots);
	for (size_t i = 0; i < c->n_inputs; i++) {
		free(c->inputs[i].path);
		free(c->inputs[i].release);
	}
	free(c->inputs);
	free(c->touched);
	free(c->details);
	hindex_free(c->detail_index);
	klog_memo_free(c->memo);
	for (int i = 0; i < _GATE_MAX; i++)
		free(c->gates[i].detail);
	free(c->deltas);
	free(c);
	return NULL;
}

int ci_input_begin(struct ci *c, const char *path, const char *release)
{
	struct input *in;
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	r = grow((void **)&c->inputs, &c->cap_inputs, c->n_inputs + 1, sizeof(*c->inputs));
	if (r < 0)
		return r;
	in = &c->inputs[c->n_inputs];
	memset(in, 0, sizeof(*in));
	in->path = strdup(path);
	in->release = release ? strdup(release) : NULL;
	if (!in->path || (release && !in->release)) {
		free(in->path);
		free(in->release);
		return -ENOMEM;
	}
	snprintf(in->format, sizeof(in->format), "unknown");
	snprintf(in->compression, sizeof(in->compression), "none");
	c->n_inputs++;
	if (c->join_next && c->in_boot) {
		/* the boot the input before left open is this one's too */
		in->first_boot = (size_t)cur_boot(c)->number - 1;
		in->n_boots = 1;
	} else {
		c->in_boot = false;
	}
	c->join_next = false;
	return 0;
}

void ci_input_join(struct ci *c)
{
	c->join_next = true;
}

void ci_input_set_format(struct ci *c, const char *format, const char *compression)
{
	struct input *in = &c->inputs[c->n_inputs - 1];

	if (format)
		snprintf(in->format, sizeof(in->format), "%s", format);
	if (compression)
		snprintf(in->compression, sizeof(in->compression), "%s", compression);
}

/*
 * A boot ends on the line before the next one starts, not on its last line parsed:
 * the filter skips lines, and the boots must not depend on it.
 */
static void boot_end_before(struct boot *b, uint64_t next_line)
{
	if (b && next_line > 1 && next_line - 1 > b->end_line)
		b->end_line = next_line - 1;
}

/* "Linux version 6.12.118+deb12-amd64 (debian-kernel@...) ..." starts a boot. */
static int boot_banner(struct ci *c, uint64_t line, const char *rel, size_t len)
{
	struct boot *b = cur_boot(c);
	size_t n = 0;
	int r;

	/* a marker just before, or the lines before the first banner with no finding */
	if (!b || b->banner || b->findings || c->n_touched) {
		boot_end_before(b, line);
		r = boot_close(c);
		if (r < 0)
			return r;
		r = boot_open(c, line);
		if (r < 0)
			return r;
		b = cur_boot(c);
	}
	b->banner = true;
	if (!b->marker)
		b->line = line;
	while (n < len && n + 1 < sizeof(b->release) && rel[n] != ' ' &&
	       (unsigned char)rel[n] > 0x20 && (unsigned char)rel[n] < 0x7f)
		n++;
	if (n) {
		memcpy(b->release, rel, n);
		b->release[n] = '\0';
	}
	return 0;
}

int ci_boot_mark(struct ci *c, uint64_t line, const char *boot_id)
{
	struct boot *b = cur_boot(c);
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	if (b && !b->banner && !b->findings && !c->n_touched && !b->boot_id[0]) {
		/* nothing seen yet in this boot: the marker names it */
	} else {
		boot_end_before(b, line);
		r = boot_close(c);
		if (r < 0)
			return r;
		r = boot_open(c, line);
		if (r < 0)
			return r;
		b = cur_boot(c);
	}
	b->marker = true;
	b->line = line;
	if (boot_id)
		snprintf(b->boot_id, sizeof(b->boot_id), "%s", boot_id);
	return 0;
}

/* Counts @ev in the row @i, which a repeat of this record (ci_klog_repeat()) goes to */
static int add_again(struct ci *c, uint32_t i, const struct evidence *ev)
{
	c->again = i + 1;
	return agg_add(c, &c->aggs[i], ev);
}

static int klog_finding(struct ci *c, uint64_t line, const char *msg, size_t len,
			const struct klog_finding *f, uint64_t *slot)
{
	struct evidence ev = { .first = line, .msg = msg, .msg_len = len };
	uint32_t input = (uint32_t)(c->n_inputs - 1), module;
	int cls = class_of_klog(f->kind), r;
	struct agg *a;

	bool alias = f->kind == KLOG_FINDING_AUTOLOAD_DUPLICATE;

	if (cls < 0)
		return 0;
	ev.detail = is_symbol_class((size_t)cls) ? detail_hash(msg, len) : 0;
	c->again_detail = ev.detail;
	/* the same message again: the same row */
	if (slot && *slot && (uint32_t)(*slot >> 32) == input)
		return add_again(c, (uint32_t)*slot - 1, &ev);
	/* the same module and class as the finding before */
	if (!slot && c->last.agg && c->last.input == input && c->last.cls == cls &&
	    c->last.alias == alias && c->last.len == f->module_len &&
	    (!f->module_len || memcmp(c->last.module, f->module, f->module_len) == 0))
		return add_again(c, c->last.agg - 1, &ev);
	r = intern_module(c, f->module, f->module_len, alias, &module);
	if (r < 0)
		return r;
	r = agg_find(c, (size_t)cls, module, &a);
	if (r < 0)
		return r;
	/* the row (index + 1) and its input, with the message's memo */
	if (slot)
		*slot = (uint64_t)input << 32 | ((uint32_t)(a - c->aggs) + 1);
	else if (f->module_len <= sizeof(c->last.module)) {
		c->last.agg = (uint32_t)(a - c->aggs) + 1;
		c->last.input = input;
		c->last.cls = cls;
		c->last.alias = alias;
		c->last.len = (uint16_t)f->module_len;
		if (f->module_len)
			memcpy(c->last.module, f->module, f->module_len);
	}
	return add_again(c, (uint32_t)(a - c->aggs), &ev);
}

static const char banner[] = "Linux version ";

bool ci_klog_banner(const char *msg, size_t len)
{
	return len > sizeof(banner) - 1 && memcmp(msg, banner, sizeof(banner) - 1) == 0;
}

/* What every kernel record does: a boot, the banner's release, where the boot ends. */
static int record_line(struct ci *c, uint64_t line, const struct klog_rec *rec)
{
	int r;

	if (!c->in_boot) {
		r = boot_open(c, line);
		if (r < 0)
			return r;
	}
	if (ci_klog_banner(rec->msg, rec->msg_len)) {
		r = boot_banner(c, line, rec->msg + sizeof(banner) - 1,
				rec->msg_len - (sizeof(banner) - 1));
		if (r < 0)
			return r;
	}
	if (line > cur_boot(c)->end_line)
		cur_boot(c)->end_line = line;
	return 0;
}

static int klog_record(struct ci *c, uint64_t line, const struct klog_rec *rec,
		       const struct klog_finding *classified)
{
	uint64_t *slot = NULL;
	struct klog_finding f;
	int r;

	c->again = 0;
	c->again_detail = 0;
	c->again_line = line;
	r = record_line(c, line, rec);
	if (r < 0)
		return r;
	if (classified) {
		if (classified->kind == KLOG_FINDING_NONE)
			return 0;
		return klog_finding(c, line, rec->msg, rec->msg_len, classified, NULL);
	}
	if (!klog_classify_memo(c->memo, rec->msg, rec->msg_len, &f, &slot))
		return 0;
	return klog_finding(c, line, rec->msg, rec->msg_len, &f, slot);
}

int ci_klog(struct ci *c, uint64_t line, const struct klog_rec *rec)
{
	return klog_record(c, line, rec, NULL);
}

int ci_klog_classified(struct ci *c, uint64_t line, const struct klog_rec *rec,
		       const struct klog_finding *f)
{
	return klog_record(c, line, rec, f);
}

int ci_klog_repeat(struct ci *c, uint64_t first, uint64_t last, uint64_t n)
{
	struct evidence ev = { .first = first, .last = last, .detail = c->again_detail };

	if (!n)
		return 0;
	if (!c->again_line || !c->in_boot || first <= c->again_line || last < first ||
	    last - first + 1 < n)
		return -EINVAL;
	/* as record_line() for each: no banner, and the last line ends the boot */
	if (last > cur_boot(c)->end_line)
		cur_boot(c)->end_line = last;
	c->again_line = last;
	if (!c->again)
		return 0;
	return agg_add_n(c, &c->aggs[c->again - 1], &ev, n);
}

int ci_text(struct ci *c, uint64_t line, const char *s, size_t len)
{
	uint64_t *slot;
	struct klog_finding f;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	while (len && (*s == '\r' || *s == ' ')) {
		s++;
		len--;
	}
	/* only kmod's and udev's own lines: kernel formats need the kernel's record */
	if (len < 10 || (memcmp(s, "modprobe: ", 10) != 0 && memcmp(s, "insmod: ", 8) != 0 &&
			 !memmem(s, len, ": Worker [", 10)))
		return 0;
	if (!klog_classify_memo(c->memo, s, len, &f, &slot) ||
	    (f.kind != KLOG_FINDING_MODPROBE_ERROR && f.kind != KLOG_FINDING_UDEV_WORKER_TIMEOUT))
		return 0;
	return klog_finding(c, line, s, len, &f, slot);
}

static int event_line_cmp(const void *x, const void *y)
{
	const struct ci_event_line *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static bool lines_sorted(const struct ci_event_line *lines, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (event_line_cmp(&lines[i - 1], &lines[i]) > 0)
			return false;
	return true;
}

/*
 * The first line at or after @after with an event of @pid at @ts, or 0. A trace may
 * hold the same (ts, pid) twice (time went back: two traces in one file), so an exit
 * is looked for after its enter.
 */
static uint64_t event_line(const struct ci_event_line *lines, size_t n, double ts, int pid,
			   uint64_t after)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lines[mid].ts < ts || (lines[mid].ts == ts && lines[mid].pid < pid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && lines[lo].ts == ts && lines[lo].pid == pid; lo++)
		if (lines[lo].line >= after)
			return lines[lo].line;
	return 0;
}

static int trace_requester(struct ci *c, const struct ledger *l, const struct attempt *a,
			   uint32_t *ret_comm, uint32_t *ret_site)
{
	const char *comm = a->comm, *site = NULL;
	int r;

	if (a->request >= 0 && (size_t)a->request < l->n_requests) {
		comm = l->requests[a->request].comm;
		site = l->requests[a->request].call_site;
	}
	r = intern(c, comm, strnlen(comm, sizeof(a->comm)), ret_comm);
	if (r < 0)
		return r;
	return intern(c, site, site ? strlen(site) : 0, ret_site);
}

/*
 * The boot's figures from its ledger, as report has them: attempts and failed from
 * ledger_summarize(), duplicates its modules' (attempt_is_duplicate()), the waste the
 * cost model's total (else what the vmalloc events measured). The gates' leave out
 * --allow's modules.
 */
static int trace_figures(struct ci *c, const struct ledger *l, const struct cost_result *cost)
{
	struct boot *b = cur_boot(c);
	struct ledger_summary *s = NULL;
	int r;

	r = ledger_summarize(l, &s);
	if (r < 0)
		return r;
	b->traced = true;
	b->all = (struct ci_figures){ s->attempts, s->failed, 0, 0 };
	for (size_t i = 0; i < s->n_modules; i++)
		b->all.duplicates += s->modules[i].duplicate;
	if (cost) {
		b->all.wasted = cost->wasted;
		b->waste_known = true;
	} else if (l->saw_vmap_events) {
		b->all.wasted = s->wasted_measured;
		b->waste_known = true;
	}
	b->gated = b->all;
	for (size_t i = 0; i < s->n_modules; i++) {
		const struct module_summary *m = &s->modules[i];

		if (!m->name || !module_allowed(c, m->name))
			continue;
		b->gated.attempts -= m->total;
		b->gated.failed -= m->failed;
		b->gated.duplicates -= m->duplicate;
	}
	for (size_t i = 0; i < l->n_attempts && b->waste_known; i++) {
		const struct attempt *a = &l->attempts[i];
		uint64_t w = cost ? (i < cost->n ? cost->att[i].wasted : 0) : attempt_wasted(a);

		if (a->module && module_allowed(c, a->module))
			b->gated.wasted -= w < b->gated.wasted ? w : b->gated.wasted;
	}
	ledger_summary_free(s);
	return 0;
}

int ci_trace(struct ci *c, const struct ledger *l,
	     const struct cost_result *cost, struct ci_event_line *lines, size_t n_lines)
{
	int r;

	/*
	 * @lines is NULL for a trace without syscalls, and qsort() must not be passed NULL.
	 * A trace in time order gives them sorted: no sort, and no copy of them that
	 * glibc's merge sort would allocate.
	 */
	if (n_lines && !lines_sorted(lines, n_lines))
		qsort(lines, n_lines, sizeof(*lines), event_line_cmp);
	if (!c->in_boot) {
		r = boot_open(c, 1);
		if (r < 0)
			return r;
	}
	if (l->saw_vmap_events)
		c->waste_available = true;
	r = trace_figures(c, l, cost);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_attempts; i++) {
		const struct attempt *a = &l->attempts[i];
		struct evidence ev = { .trace = true };
		uint32_t module;
		int cls;

		if (a->outcome == OUTCOME_LOADED)
			continue;
		cls = class_of_outcome(a->outcome);
		if (cls < 0)
			continue;
		ev.first = event_line(lines, n_lines, a->start, a->pid, 0);
		ev.last = a->complete ? event_line(lines, n_lines, a->end, a->pid, ev.first) : 0;
		if (!ev.first)
			ev.first = ev.last ? ev.last : 1;
		if (a->measured) {
			ev.has_waste = true;
			ev.wasted = attempt_wasted(a);
		} else if (cost && i < cost->n && cost->att[i].estimated) {
			ev.has_waste = true;
			ev.wasted = cost->att[i].wasted;
			c->waste_available = true;
		}
		r = trace_requester(c, l, a, &ev.comm, &ev.site);
		if (r < 0)
			return r;
		r = intern_module(c, a->module, a->module ? strlen(a->module) : 0, false, &module);
		if (r < 0)
			return r;
		r = add_finding(c, (size_t)cls, module, &ev);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < l->n_requests; i++) {
		const struct autoload_request *rq = &l->requests[i];
		struct evidence ev = { .trace = true };
		const char *name;
		uint32_t module;
		size_t cls;

		if (rq->needless && rq->n_resolved) {
			cls = CLS_NEEDLESS;
			name = rq->resolved[0];
		} else if (!rq->resolve_failed && rq->n_resolved == 0) {
			cls = CLS_UNRESOLVED;
			name = rq->alias;
		} else {
			continue;
		}
		ev.first = event_line(lines, n_lines, rq->ts, rq->pid, 0);
		if (!ev.first)
			ev.first = 1;
		r = intern(c, rq->comm, strnlen(rq->comm, sizeof(rq->comm)), &ev.comm);
		if (r >= 0)
			r = intern(c, rq->call_site, rq->call_site ? strlen(rq->call_site) : 0,
				   &ev.site);
		if (r >= 0)
			r = intern_module(c, name, name ? strlen(name) : 0, cls == CLS_UNRESOLVED,
					  &module);
		if (r >= 0)
			r = add_finding(c, cls, module, &ev);
		if (r < 0)
			return r;
	}
	return 0;
}

int ci_input_end(struct ci *c, const struct ci_input_stats *st)
{
	struct input *in = &c->inputs[c->n_inputs - 1];
	int r;

	/* ci_klog_repeat() repeats a kernel record only right after it */
	c->again_line = 0;

	in->st = *st;
	c->records += st->records;
	/* a trace or a log without banner and findings is one boot all the same */
	if (!in->n_boots && st->records) {
		r = boot_open(c, 1);
		if (r < 0)
			return r;
	}
	if (c->in_boot && cur_boot(c)->input == c->n_inputs - 1 &&
	    st->lines > cur_boot(c)->end_line)
		cur_boot(c)->end_line = st->lines;
	if (c->join_next)
		return 0;
	return boot_close(c);
}

/* --- gates and baseline ---------------------------------------------------------------- */

static int gate_detail(struct gate *g, const char *fmt, ...) _printf_format_(2, 3);

static int gate_detail(struct gate *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(g->detail);
	g->detail = NULL;
	va_start(ap, fmt);
	n = vasprintf(&g->detail, fmt, ap);
	va_end(ap);
	if (n < 0) {
		g->detail = NULL;
		return -ENOMEM;
	}
	return 0;
}

static const char *const gate_names[_GATE_MAX] = {
	[GATE_MAX_DUPLICATES] = "max-duplicates",
	[GATE_MAX_FAILURES] = "max-failures",
	[GATE_MAX_WASTED] = "max-wasted",
	[GATE_FAIL_ON] = "fail-on",
	[GATE_BASELINE_NEW] = "baseline-new",
	[GATE_BASELINE_INCREASE] = "baseline-increase",
};

static const char *boot_where(const struct ci *c, long boot, char *buf, size_t size)
{
	const struct boot *b;

	if (boot < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	b = boot_at(c, boot);
	snprintf(buf, size, "%s:%" PRIu64 " (boot %" PRIu64 ")", c->inputs[b->input].path,
		 b->line, b->number);
	return buf;
}

static int count_gate(struct ci *c, enum gate_id id, int64_t limit, enum ci_group group)
{
	struct gate *g = &c->gates[id];
	char where[300];
	int m;

	g->enabled = true;
	g->limit = limit;
	g->boot = -1;
	g->agg = -1;
	m = id == GATE_MAX_WASTED ? 2 : group == CI_GROUP_DUPLICATE ? 0 : 1;
	for (size_t i = 0; i < c->n_boots; i++) {
		uint64_t v = boot_metric(&c->boots[i], m);

		if (g->boot < 0 || v > g->value) {
			g->value = v;
			g->boot = (long)i;
		}
	}
	/* the unlisted boots come after the listed ones: the first worst stays first */
	if (c->have_worst && (g->boot < 0 || boot_metric(&c->worst[m], m) > g->value)) {
		g->value = boot_metric(&c->worst[m], m);
		g->boot = (long)(c->n_boots + (size_t)m);
	}
	g->passed = g->value <= (uint64_t)limit;
	if (!g->passed) {
		uint32_t worst_input = boot_at(c, g->boot)->input;

		for (size_t i = 0; i < c->n_aggs; i++) {
			struct agg *a = &c->aggs[i];
			bool hit = id == GATE_MAX_WASTED ? a->wasted > 0
							 : classes[a->cls].group == group;

			if (a->allowed || !hit)
				continue;
			a->gated = true;
			/* where to point: the first such finding of the worst boot's input */
			if (g->agg < 0 || (c->aggs[g->agg].input != worst_input &&
					   a->input == worst_input))
				g->agg = (long)i;
		}
	}
	boot_where(c, g->boot, where, sizeof(where));
	if (id == GATE_MAX_WASTED) {
		char v[32], lim[32];

		format_bytes(g->value, v, sizeof(v));
		format_bytes((uint64_t)limit, lim, sizeof(lim));
		return gate_detail(g, "%s%s wasted in the worst boot, %s, limit %s",
				   g->boot >= 0 && boot_at(c, g->boot)->waste_lower_bound ? "at least " : "",
				   v, where, lim);
	}
	return gate_detail(g, "%" PRIu64 " %s in the worst boot, %s, limit %" PRId64, g->value,
			   group == CI_GROUP_DUPLICATE ? "duplicate attempts" : "failed attempts",
			   where,
			   limit);
}

static int fail_on_gate(struct ci *c)
{
	struct gate *g = &c->gates[GATE_FAIL_ON];

	g->enabled = true;
	g->agg = -1;
	g->boot = -1;
	for (size_t i = 0; i < c->n_aggs; i++) {
		struct agg *a = &c->aggs[i];

		if (a->allowed || !(c->opt->fail_on & (1ull << a->cls)))
			continue;
		g->value += a->attempts;
		a->gated = true;
		if (g->agg < 0)
			g->agg = (long)i;
	}
	g->passed = g->value == 0;
	if (g->passed)
		return gate_detail(g, "none of the classes it names was found");
	return gate_detail(g, "%" PRIu64 " findings of the classes it names, the first %s at %s:%"
			   PRIu64, g->value, classes[c->aggs[g->agg].cls].name,
			   c->inputs[c->aggs[g->agg].input].path, c->aggs[g->agg].first_line);
}

struct total {
	const char *cls;
	const char *module;
	uint64_t count;
	bool offending;
};

static int total_cmp(const void *x, const void *y)
{
	const struct total *a = x, *b = y;
	int r = strcmp(a->cls, b->cls);

	if (r)
		return r;
	if (!a->module || !b->module)
		return !a->module - !b->module;
	return strcmp(a->module, b->module);
}

/* Sums rows of the same (class, module) over the inputs; @t sorted, merged in place. */
static size_t merge_totals(struct total *t, size_t n)
{
	size_t k = 0;

	qsort(t, n, sizeof(*t), total_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && total_cmp(&t[k - 1], &t[i]) == 0) {
			t[k - 1].count += t[i].count;
			t[k - 1].offending |= t[i].offending;
			continue;
		}
		t[k++] = t[i];
	}
	return k;
}

static bool is_offending(const struct ci *c, const struct agg *a)
{
	return !a->allowed && classes[a->cls].level >= CI_FMT_WARNING;
}

static void mark_gated(struct ci *c, const struct delta *d)
{
	for (size_t i = 0; i < c->n_aggs; i++) {
		struct agg *a = &c->aggs[i];
		const char *m = name_of(c, a->module);

		if (strcmp(classes[a->cls].name, d->cls) == 0 && !a->allowed &&
		    ((!m && !d->module) || (m && d->module && strcmp(m, d->module) == 0)))
			a->gated = true;
	}
}

static int baseline_gates(struct ci *c)
{
	const struct ci_fmt_baseline *bl = c->opt->baseline;
	struct total *cur = NULL, *old = NULL;
	size_t n_cur, n_old, i = 0, k = 0;
	struct gate *gn = &c->gates[GATE_BASELINE_NEW], *gi = &c->gates[GATE_BASELINE_INCREASE];
	double f = 1.0 + c->opt->tolerance / 100.0;
	uint64_t wasted = 0;
	bool wasted_known = false;
	int r = -ENOMEM;

	cur = calloc(c->n_aggs + 1, sizeof(*cur));
	old = calloc(bl->n + 1, sizeof(*old));
	c->deltas = calloc(c->n_aggs + bl->n + 1, sizeof(*c->deltas));
	if (!cur || !old || !c->deltas)
		goto out;
	for (size_t j = 0; j < c->n_aggs; j++) {
		const struct agg *a = &c->aggs[j];

		cur[j] = (struct total){ classes[a->cls].name, name_of(c, a->module), a->attempts,
					 is_offending(c, a) };
		if (!a->allowed && a->wasted_known) {
			wasted = add_sat_u64(wasted, a->wasted);
			wasted_known = true;
		}
	}
	for (size_t j = 0; j < bl->n; j++) {
		const struct ci_fmt_baseline_item *it = &bl->items[j];

		old[j] = (struct total){ it->class, it->module, it->count, false };
	}
	n_cur = merge_totals(cur, c->n_aggs);
	n_old = merge_totals(old, bl->n);
	gn->enabled = gi->enabled = true;
	gn->boot = gi->boot = gn->agg = gi->agg = -1;
	while (i < n_cur || k < n_old) {
		int cmp = i == n_cur ? 1 : k == n_old ? -1 : total_cmp(&cur[i], &old[k]);
		struct delta *d = &c->deltas[c->n_deltas++];

		if (cmp < 0) {
			*d = (struct delta){ cur[i].cls, cur[i].module, 0, cur[i].count, DELTA_NEW,
					     cur[i].offending };
			i++;
		} else if (cmp > 0) {
			*d = (struct delta){ old[k].cls, old[k].module, old[k].count, 0, DELTA_GONE,
					     false };
			k++;
		} else {
			enum delta_status s = DELTA_SAME;

			if (cur[i].count > old[k].count)
				s = (double)cur[i].count > (double)old[k].count * f ? DELTA_INCREASED
										    : DELTA_SAME;
			else if (cur[i].count < old[k].count)
				s = DELTA_DECREASED;
			*d = (struct delta){ cur[i].cls, cur[i].module, old[k].count, cur[i].count,
					     s, cur[i].offending };
			i++;
			k++;
		}
		if (!d->offending)
			continue;
		if (d->status == DELTA_NEW) {
			gn->value++;
			mark_gated(c, d);
		} else if (d->status == DELTA_INCREASED) {
			gi->value++;
			mark_gated(c, d);
		}
	}
	/* the total waste, when both runs could estimate it */
	if (wasted_known && bl->wasted_known && (double)wasted > (double)bl->wasted * f)
		gi->value++;
	c->baseline_wasted_old = bl->wasted;
	gn->passed = gn->value == 0;
	gi->passed = gi->value == 0;
	r = gate_detail(gn, "%" PRIu64 " offending (class, module) pairs not in the baseline",
			gn->value);
	if (r >= 0)
		r = gate_detail(gi, "%" PRIu64 " counts above the baseline by more than %g%%",
				gi->value, c->opt->tolerance);
out:
	free(cur);
	free(old);
	return r;
}

int ci_finish(struct ci *c, enum ci_result *ret)
{
	const struct ci_options *o = c->opt;
	bool failed = false;
	int r = 0;

	if (c->in_boot) {
		r = boot_close(c);
		if (r < 0)
			return r;
	}
	if (o->max_duplicates >= 0)
		r = count_gate(c, GATE_MAX_DUPLICATES, o->max_duplicates, CI_GROUP_DUPLICATE);
	if (r >= 0 && o->max_failures >= 0)
		r = count_gate(c, GATE_MAX_FAILURES, o->max_failures, CI_GROUP_FAILURE);
	if (r >= 0 && o->max_wasted >= 0) {
		if (c->waste_available) {
			r = count_gate(c, GATE_MAX_WASTED, o->max_wasted, CI_GROUP_FAILURE);
		} else {
			struct gate *g = &c->gates[GATE_MAX_WASTED];

			g->enabled = g->unknown = true;
			g->limit = o->max_wasted;
			g->boot = g->agg = -1;
			r = gate_detail(g, "no estimate: no module files (--root or --moduledir) "
					   "and no trace with vmalloc events");
		}
	}
	if (r >= 0 && o->fail_on)
		r = fail_on_gate(c);
	if (r >= 0 && o->baseline)
		r = baseline_gates(c);
	if (r < 0)
		return r;
	for (int i = 0; i < _GATE_MAX; i++)
		if (c->gates[i].enabled && !c->gates[i].unknown && !c->gates[i].passed)
			failed = true;
	if (c->records == 0)
		c->result = CI_EMPTY;
	else if (c->gates[GATE_MAX_WASTED].unknown)
		c->result = CI_UNKNOWN_WASTE;
	else
		c->result = failed ? CI_FAIL : CI_PASS;
	c->finished = true;
	*ret = c->result;
	return 0;
}

size_t ci_finding_count(const struct ci *c)
{
	return c->n_aggs;
}

void ci_finding_get(const struct ci *c, size_t i, struct ci_finding_info *ret)
{
	const struct agg *a = &c->aggs[i];

	*ret = (struct ci_finding_info){
		.cls = classes[a->cls].name,
		.module = name_of(c, a->module),
		.path = c->inputs[a->input].path,
		.count = a->count,
		.attempts = a->attempts,
		.first_line = a->first_line,
		.last_line = a->last_line,
		.boots = a->boots,
		.wasted_known = a->wasted_known,
		.wasted = a->wasted,
		.gated = a->gated,
		.allowed = a->allowed,
	};
}

size_t ci_boot_count(const struct ci *c)
{
	return (size_t)c->all_boots;
}

const char *ci_boot_release(const struct ci *c, size_t i)
{
	return i < c->n_boots ? c->boots[i].release : "";
}

/* --- rendering ------------------------------------------------------------------------- */

static const char *result_name(enum ci_result r)
{
	switch (r) {
	case CI_PASS:
		return "pass";
	case CI_FAIL:
		return "fail";
	case CI_EMPTY:
		return "empty";
	default:
		return "error";
	}
}

/* Findings in report order: by input, failures first, then by count */

static int group_rank(enum ci_group g)
{
	static const int rank[_CI_GROUP_MAX] = {
		[CI_GROUP_FAILURE] = 0,
		[CI_GROUP_DUPLICATE] = 1,
		[CI_GROUP_AUTOLOAD] = 2,
		[CI_GROUP_NOTICE] = 3,
	};

	return rank[g];
}

static int agg_order_cmp(const void *x, const void *y, void *userdata)
{
	const struct ci *c = userdata;
	const struct agg *a = &c->aggs[*(const size_t *)x];
	const struct agg *b = &c->aggs[*(const size_t *)y];
	int ga = group_rank(classes[a->cls].group), gb = group_rank(classes[b->cls].group);

	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (ga != gb)
		return ga - gb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls - b->cls;
	return a->module < b->module ? -1 : a->module > b->module;
}

static size_t *agg_order(const struct ci *c)
{
	size_t *idx = calloc(c->n_aggs + 1, sizeof(size_t));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < c->n_aggs; i++)
		idx[i] = i;
	qsort_r(idx, c->n_aggs, sizeof(size_t), agg_order_cmp, (void *)c);
	return idx;
}

/* "storm (inet_create)" and "+2" for the others */
static char *requester_text(const struct ci *c, const struct agg *a, bool with_others)
{
	const struct req *best = NULL;
	size_t others = 0;
	char *s = NULL;
	int n;

	for (int i = 0; i < REQ_MAX; i++) {
		if (!a->req[i].n)
			continue;
		if (!best || a->req[i].n > best->n)
			best = &a->req[i];
		others++;
	}
	if (!best)
		return NULL;
	others = others - 1 + (a->req_other ? 1 : 0);
	if (best->site)
		n = asprintf(&s, "%s (%s)", name_of(c, best->comm) ? name_of(c, best->comm) : "-",
			     name_of(c, best->site));
	else
		n = asprintf(&s, "%s", name_of(c, best->comm) ? name_of(c, best->comm) : "-");
	if (n < 0)
		return NULL;
	if (with_others && others) {
		char *t = NULL;

		n = asprintf(&t, "%s +%zu", s, others);
		free(s);
		s = n < 0 ? NULL : t;
	}
	return s;
}

static const struct req *top_req(const struct agg *a)
{
	const struct req *best = NULL;

	for (int i = 0; i < REQ_MAX; i++)
		if (a->req[i].n && (!best || a->req[i].n > best->n))
			best = &a->req[i];
	return best;
}

enum {
	IC_FILE,
	IC_FORMAT,
	IC_COMPRESSION,
	IC_LINES,
	IC_RECORDS,
	IC_SKIPPED,
	IC_BOOTS,
	IC_FINDINGS,
	IC_FILTERED,
	_IC_MAX,
};

static const struct col_desc input_cols[_IC_MAX] = {
	[IC_FILE] = { "FILE", "path", COL_STR, 0, "the input as given" },
	[IC_FORMAT] = { "FORMAT", "format", COL_STR, 0, "what its content was recognised as" },
	[IC_COMPRESSION] = { "COMPRESSION", "compression", COL_STR, 0, "by magic bytes" },
	[IC_LINES] = { "LINES", "lines", COL_U64, COL_RIGHT, "lines read" },
	[IC_RECORDS] = { "RECORDS", "records", COL_U64, COL_RIGHT | COL_NOTEXT,
			 "kernel records or trace events parsed" },
	[IC_SKIPPED] = { "SKIPPED", "skipped_lines", COL_U64, COL_RIGHT,
			 "malformed or over-long lines" },
	[IC_BOOTS] = { "BOOTS", "boots", COL_U64, COL_RIGHT, "boots found" },
	[IC_FINDINGS] = { "FINDINGS", "findings", COL_U64, COL_RIGHT, "evidence lines and attempts" },
	[IC_FILTERED] = { "FILTERED", "filtered", COL_BOOL, COL_NOTEXT,
			  "only lines holding a needle were parsed after the first record" },
};

enum {
	BC_INDEX,
	BC_FILE,
	BC_LINE,
	BC_END,
	BC_RELEASE,
	BC_BOOT_ID,
	BC_ATTEMPTS,
	BC_DUPS,
	BC_FAILS,
	BC_WASTED,
	BC_SUMMARY,
	_BC_MAX,
};

static const struct col_desc boot_cols[_BC_MAX] = {
	[BC_INDEX] = { "BOOT", "index", COL_U64, COL_RIGHT, "1-based, over all inputs" },
	[BC_FILE] = { "FILE", "path", COL_STR, 0, "the input" },
	[BC_LINE] = { "LINE", "line", COL_U64, COL_RIGHT, "its banner, marker or first line" },
	[BC_END] = { "END", "end_line", COL_U64, COL_RIGHT | COL_NOTEXT,
		     "its last line: before the next boot's first" },
	[BC_RELEASE] = { "RELEASE", "release", COL_STR, 0, "from the Linux version banner" },
	[BC_BOOT_ID] = { "BOOT ID", "boot_id", COL_STR, COL_NOTEXT, "journal boot id" },
	[BC_ATTEMPTS] = { "ATTEMPTS", "attempts", COL_U64, COL_RIGHT,
			  "load attempts: the trace's, else the log's evidence" },
	[BC_DUPS] = { "DUP", "duplicates", COL_U64, COL_RIGHT, "duplicate load attempts" },
	[BC_FAILS] = { "FAIL", "failed", COL_U64, COL_RIGHT, "failed load attempts" },
	[BC_WASTED] = { "WASTED", "wasted", COL_BYTES, COL_RIGHT, "vmap bytes wasted" },
	[BC_SUMMARY] = { "FINDINGS", "summary", COL_STR, 0, "classes by count" },
};

enum {
	FC_CLASS,
	FC_GROUP,
	FC_LEVEL,
	FC_MODULE,
	FC_ATTEMPTS,
	FC_COUNT,
	FC_COUNT_V1,
	FC_BOOTS,
	FC_REQUESTER,
	FC_REQ_COMM,
	FC_REQ_SITE,
	FC_WASTED,
	FC_FILE,
	FC_FIRST,
	FC_LAST,
	FC_EVIDENCE,
	FC_ALLOWED,
	FC_GATED,
	FC_SAMPLE,
	_FC_MAX,
};

static const struct col_desc finding_cols[_FC_MAX] = {
	[FC_CLASS] = { "CLASS", "class", COL_STR, 0, "finding class (man page: CI FINDINGS)" },
	[FC_GROUP] = { "GROUP", "group", COL_STR, COL_NOTEXT, "duplicates, failures, ..." },
	[FC_LEVEL] = { "LEVEL", "level", COL_STR, COL_NOTEXT, "error, warning, note" },
	[FC_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "module, alias or driver; - none" },
	[FC_ATTEMPTS] = { "ATTEMPTS", "attempts", COL_U64, COL_RIGHT,
			  "load attempts (or events) the evidence makes" },
	[FC_COUNT] = { "LINES", "evidence_lines", COL_U64, COL_RIGHT,
		       "evidence lines (a trace's: its attempts)" },
	/* schema 1's name, kept for the readers of its documented field (baselines) */
	[FC_COUNT_V1] = { "COUNT", "count", COL_U64, COL_NOTEXT, "evidence_lines" },
	[FC_BOOTS] = { "BOOTS", "boots", COL_U64, COL_RIGHT, "boots it occurs in" },
	[FC_REQUESTER] = { "REQUESTER", "requester_text", COL_STR, COL_NOJSON,
			   "who asked, and the kernel call site" },
	[FC_REQ_COMM] = { "REQUESTER", "requester", COL_STR, COL_NOTEXT, "task that asked" },
	[FC_REQ_SITE] = { "CALL SITE", "call_site", COL_STR, COL_NOTEXT,
			  "kernel function that called request_module()" },
	[FC_WASTED] = { "WASTED", "wasted", COL_BYTES, COL_RIGHT,
			"vmap bytes measured or estimated; - unknown" },
	[FC_FILE] = { "FILE", "file", COL_STR, COL_NOTEXT, "input of the evidence" },
	[FC_FIRST] = { "FIRST", "first_line", COL_U64, COL_NOTEXT, "first evidence line" },
	[FC_LAST] = { "LAST", "last_line", COL_U64, COL_NOTEXT, "last evidence line" },
	[FC_EVIDENCE] = { "EVIDENCE", "evidence", COL_STR, COL_NOJSON, "FILE:FIRST-LAST" },
	[FC_ALLOWED] = { "ALLOWED", "allowed", COL_BOOL, COL_NOTEXT, "--allow matched" },
	[FC_GATED] = { "GATED", "gated", COL_BOOL, COL_NOTEXT, "it made a gate fail" },
	[FC_SAMPLE] = { "SAMPLE", "sample", COL_STR, COL_NOTEXT, "first evidence line" },
};

enum {
	GC_GATE,
	GC_LIMIT,
	GC_VALUE,
	GC_RESULT,
	GC_DETAIL,
	GC_PASSED,
	_GC_MAX,
};

static const struct col_desc gate_cols[_GC_MAX] = {
	[GC_GATE] = { "GATE", "name", COL_STR, 0, "the option" },
	[GC_LIMIT] = { "LIMIT", "limit", COL_I64, COL_RIGHT, "its value" },
	[GC_VALUE] = { "VALUE", "value", COL_U64, COL_RIGHT, "what was found" },
	[GC_RESULT] = { "RESULT", "result", COL_STR, 0, "pass, fail, unknown" },
	[GC_DETAIL] = { "DETAIL", "detail", COL_STR, 0, "" },
	[GC_PASSED] = { "PASSED", "passed", COL_BOOL, COL_NOTEXT, "" },
};

enum {
	DC_CLASS,
	DC_MODULE,
	DC_OLD,
	DC_NEW,
	DC_DELTA,
	DC_STATUS,
	DC_OFFENDING,
	_DC_MAX,
};

static const struct col_desc delta_cols[_DC_MAX] = {
	[DC_CLASS] = { "CLASS", "class", COL_STR, 0, "" },
	[DC_MODULE] = { "MODULE", "module", COL_STR, COL_NAME, "" },
	[DC_OLD] = { "BASELINE", "baseline", COL_U64, COL_RIGHT, "count in the baseline" },
	[DC_NEW] = { "NOW", "count", COL_U64, COL_RIGHT, "count now" },
	[DC_DELTA] = { "DELTA", "delta", COL_I64, COL_RIGHT, "" },
	[DC_STATUS] = { "STATUS", "status", COL_STR, 0, "new, increased, same, decreased, gone" },
	[DC_OFFENDING] = { "OFFENDING", "offending", COL_BOOL, COL_NOTEXT,
			   "a warning or error, not allowed" },
};

static int render_inputs(const struct ci *c, struct out *o)
{
	struct table *t;
	int r = table_new(input_cols, _IC_MAX, &t);

	for (size_t i = 0; r >= 0 && i < c->n_inputs; i++) {
		const struct input *in = &c->inputs[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, IC_FILE, in->path);
		if (r >= 0)
			r = table_set_str(t, row, IC_FORMAT, in->format);
		if (r >= 0)
			r = table_set_str(t, row, IC_COMPRESSION, in->compression);
		if (r < 0)
			break;
		table_set_u64(t, row, IC_LINES, in->st.lines);
		table_set_u64(t, row, IC_RECORDS, in->st.records);
		table_set_u64(t, row, IC_SKIPPED, in->st.skipped);
		table_set_u64(t, row, IC_BOOTS, in->n_boots);
		table_set_u64(t, row, IC_FINDINGS, in->findings);
		table_set_bool(t, row, IC_FILTERED, in->st.filtered);
	}
	if (r >= 0)
		out_table(o, "inputs", "Inputs", t);
	table_free(t);
	return r;
}

static int render_boots(const struct ci *c, struct out *o)
{
	struct table *t;
	int r = table_new(boot_cols, _BC_MAX, &t);

	for (size_t i = 0; r >= 0 && i < c->n_boots; i++) {
		const struct boot *b = &c->boots[i];
		size_t row;

		r = table_add_row(t, &row);
		if (r < 0)
			break;
		table_set_u64(t, row, BC_INDEX, i + 1);
		r = table_set_str(t, row, BC_FILE, c->inputs[b->input].path);
		table_set_u64(t, row, BC_LINE, b->line);
		table_set_u64(t, row, BC_END, b->end_line);
		if (r >= 0 && b->release[0])
			r = table_set_str(t, row, BC_RELEASE, b->release);
		if (r >= 0 && b->boot_id[0])
			r = table_set_str(t, row, BC_BOOT_ID, b->boot_id);
		table_set_u64(t, row, BC_ATTEMPTS, b->all.attempts);
		table_set_u64(t, row, BC_DUPS, b->all.duplicates);
		table_set_u64(t, row, BC_FAILS, b->all.failed);
		if (b->waste_known || (!b->waste_possible && c->waste_available))
			table_set_u64(t, row, BC_WASTED, b->all.wasted);
		if (r >= 0)
			r = table_set_str(t, row, BC_SUMMARY, b->summary);
	}
	if (r >= 0)
		out_table(o, "boots", "Boots", t);
	table_free(t);
	return r;
}

static int finding_row(const struct ci *c, struct table *t, const struct agg *a)
{
	const struct ci_class *k = &classes[a->cls];
	const struct req *best = top_req(a);
	char *req = requester_text(c, a, true), ev[400];
	size_t row;
	int r;

	r = table_add_row(t, &row);
	if (r >= 0)
		r = table_set_str(t, row, FC_CLASS, k->name);
	if (r >= 0)
		r = table_set_str(t, row, FC_GROUP, ci_group_name(k->group));
	if (r >= 0)
		r = table_set_str(t, row, FC_LEVEL, level_name(k->level));
	if (r >= 0)
		r = table_set_str(t, row, FC_MODULE, name_of(c, a->module));
	if (r >= 0)
		r = table_set_str(t, row, FC_REQUESTER, req);
	if (r >= 0 && best)
		r = table_set_str(t, row, FC_REQ_COMM, name_of(c, best->comm));
	if (r >= 0 && best)
		r = table_set_str(t, row, FC_REQ_SITE, name_of(c, best->site));
	if (r >= 0)
		r = table_set_str(t, row, FC_FILE, c->inputs[a->input].path);
	if (a->last_line > a->first_line)
		snprintf(ev, sizeof(ev), "%s:%" PRIu64 "-%" PRIu64, c->inputs[a->input].path,
			 a->first_line, a->last_line);
	else
		snprintf(ev, sizeof(ev), "%s:%" PRIu64, c->inputs[a->input].path, a->first_line);
	if (r >= 0)
		r = table_set_str(t, row, FC_EVIDENCE, ev);
	if (r >= 0)
		r = table_set_str(t, row, FC_SAMPLE, a->sample);
	free(req);
	if (r < 0)
		return r;
	table_set_u64(t, row, FC_ATTEMPTS, a->attempts);
	table_set_u64(t, row, FC_COUNT, a->count);
	table_set_u64(t, row, FC_COUNT_V1, a->count);
	table_set_u64(t, row, FC_BOOTS, a->boots);
	if (a->wasted_known)
		table_set_u64(t, row, FC_WASTED, a->wasted);
	table_set_u64(t, row, FC_FIRST, a->first_line);
	table_set_u64(t, row, FC_LAST, a->last_line);
	table_set_bool(t, row, FC_ALLOWED, a->allowed);
	table_set_bool(t, row, FC_GATED, a->gated);
	return 0;
}

static int render_findings(const struct ci *c, struct out *o)
{
	size_t *idx = agg_order(c);
	struct table *t = NULL;
	int r;

	if (!idx)
		return -ENOMEM;
	r = table_new(finding_cols, _FC_MAX, &t);
	for (size_t i = 0; r >= 0 && i < c->n_aggs; i++)
		r = finding_row(c, t, &c->aggs[idx[i]]);
	if (r >= 0)
		out_table(o, "findings", "Findings", t);
	table_free(t);
	free(idx);
	return r;
}

static int render_gates(const struct ci *c, struct out *o)
{
	struct table *t;
	int r = table_new(gate_cols, _GC_MAX, &t);

	for (int i = 0; r >= 0 && i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		size_t row;

		if (!g->enabled)
			continue;
		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, GC_GATE, gate_names[i]);
		if (r >= 0)
			r = table_set_str(t, row, GC_RESULT,
					  g->unknown ? "unknown" : g->passed ? "pass" : "FAIL");
		if (r >= 0)
			r = table_set_str(t, row, GC_DETAIL, g->detail);
		if (r < 0)
			break;
		if (i != GATE_FAIL_ON && i != GATE_BASELINE_NEW && i != GATE_BASELINE_INCREASE)
			table_set_i64(t, row, GC_LIMIT, g->limit);
		if (!g->unknown) {
			table_set_u64(t, row, GC_VALUE, g->value);
			table_set_bool(t, row, GC_PASSED, g->passed);
		}
	}
	/* text: the result line says when there is none */
	if (r >= 0 && (t->nrows || out_format(o) == OUT_JSON))
		out_table(o, "gates", "Gates", t);
	table_free(t);
	return r;
}

static const char *delta_status_name(enum delta_status s)
{
	static const char *const n[] = {
		[DELTA_NEW] = "new",	     [DELTA_INCREASED] = "increased", [DELTA_SAME] = "same",
		[DELTA_DECREASED] = "decreased", [DELTA_GONE] = "gone",
	};

	return n[s];
}

static int render_baseline(const struct ci *c, struct out *o)
{
	struct table *t;
	int r;

	out_section_begin(o, "baseline", "Baseline");
	out_str(o, "path", "file", c->opt->baseline_path);
	{
		char tol[32];

		snprintf(tol, sizeof(tol), "%g", c->opt->tolerance);
		out_str(o, "tolerance_percent", "tolerance (%)", tol);
	}
	if (c->opt->baseline->wasted_known)
		out_bytes(o, "wasted", "wasted then", c->baseline_wasted_old);
	else
		out_null(o, "wasted", "wasted then", "unknown");
	r = table_new(delta_cols, _DC_MAX, &t);
	for (size_t i = 0; r >= 0 && i < c->n_deltas; i++) {
		const struct delta *d = &c->deltas[i];
		size_t row;

		/* text: what changed; JSON: all */
		if (out_format(o) == OUT_TEXT && d->status == DELTA_SAME)
			continue;
		r = table_add_row(t, &row);
		if (r >= 0)
			r = table_set_str(t, row, DC_CLASS, d->cls);
		if (r >= 0)
			r = table_set_str(t, row, DC_MODULE, d->module);
		if (r >= 0)
			r = table_set_str(t, row, DC_STATUS, delta_status_name(d->status));
		if (r < 0)
			break;
		table_set_u64(t, row, DC_OLD, d->old_count);
		table_set_u64(t, row, DC_NEW, d->new_count);
		table_set_i64(t, row, DC_DELTA, (int64_t)d->new_count - (int64_t)d->old_count);
		table_set_bool(t, row, DC_OFFENDING, d->offending);
	}
	if (r >= 0)
		out_table(o, "deltas", "Changes since the baseline", t);
	table_free(t);
	out_section_end(o);
	return r;
}

static int n_gates(const struct ci *c, size_t *ret_failed)
{
	int n = 0;

	*ret_failed = 0;
	for (int i = 0; i < _GATE_MAX; i++) {
		if (!c->gates[i].enabled)
			continue;
		n++;
		if (!c->gates[i].unknown && !c->gates[i].passed)
			(*ret_failed)++;
	}
	return n;
}

static void totals(const struct ci *c, uint64_t *ret_evidence, size_t *ret_modules)
{
	bool *seen = NULL;
	uint32_t max_id = 0;
	size_t n_seen = 0;

	*ret_evidence = 0;
	/* distinct modules by their name id: a scan of those seen was quadratic */
	for (size_t i = 0; i < c->n_aggs; i++)
		if (c->aggs[i].module > max_id)
			max_id = c->aggs[i].module;
	seen = calloc((size_t)max_id + 1, sizeof(*seen));
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[i];

		*ret_evidence += a->count;
		if (a->allowed)
			continue;
		if (seen && a->module && !seen[a->module]) {
			seen[a->module] = true;
			n_seen++;
		}
	}
	*ret_modules = n_seen;
	free(seen);
}

int ci_render(const struct ci *c, struct out *o)
{
	uint64_t evidence;
	bool wasted_known = c->waste_available || c->total_wasted_known;
	size_t modules, failed;
	int ng = n_gates(c, &failed), r;
	char buf[160];

	totals(c, &evidence, &modules);
	out_str(o, "command", NULL, "ci");
	/* 2: totals count attempts (failed, not failures), findings have attempts */
	out_u64(o, "schema_version", NULL, 2);
	out_str(o, "result", NULL, result_name(c->result));
	out_section_begin(o, NULL, "kmodtop ci");
	switch (c->result) {
	case CI_EMPTY:
		snprintf(buf, sizeof(buf), "nothing to analyse: no kernel log records or trace "
					   "events");
		break;
	case CI_UNKNOWN_WASTE:
		snprintf(buf, sizeof(buf), "error: --max-wasted cannot be evaluated");
		break;
	default:
		if (ng == 0)
			snprintf(buf, sizeof(buf), "%s: no gates set", result_name(c->result));
		else
			snprintf(buf, sizeof(buf), "%s: %zu of %d gates failed",
				 c->result == CI_FAIL ? "FAIL" : "pass", failed, ng);
	}
	out_str(o, NULL, "result", buf);
	out_section_end(o);

	out_section_begin(o, "totals", NULL);
	out_u64(o, "inputs", "inputs", c->n_inputs);
	out_u64(o, "boots", "boots", c->all_boots);
	out_u64(o, "findings", "findings", c->n_aggs);
	out_u64(o, "evidence_lines", "evidence lines", evidence);
	out_u64(o, "modules", "modules with findings", modules);
	out_u64(o, "attempts", "load attempts", c->total.attempts);
	out_u64(o, "failed", "failed attempts", c->total.failed);
	out_u64(o, "duplicates", "duplicate attempts", c->total.duplicates);
	if (wasted_known)
		out_bytes(o, "wasted", c->waste_lower_bound ? "wasted (at least)" : "wasted",
			  c->total.wasted);
	else
		out_null(o, "wasted", "wasted", "unknown: counts only");
	out_bool(o, "wasted_lower_bound", NULL, c->waste_lower_bound);
	out_section_end(o);
	if (!c->waste_available)
		out_note(o, "no vmap waste estimate: no module files (pass --root or --moduledir) "
			    "and no trace with vmalloc events; counts only");
	else if (c->waste_lower_bound)
		out_note(o, "waste from a kernel log alone is a lower bound: it counts the failed "
			    "loads the log shows (a load that misses symbols logs each once), not "
			    "those that logged nothing (idempotent waiters); give the boot's trace "
			    "with it for report's figures");
	if (c->capped)
		out_note(o, "too many distinct names: the rest are counted under \"(other)\"");
	if (c->all_boots > c->n_boots) {
		char note[160];

		snprintf(note, sizeof(note),
			 "%" PRIu64 " boots: only the first %zu are listed; the others are counted "
			 "in the findings and the gates", c->all_boots, c->n_boots);
		out_note(o, note);
	}

	r = render_inputs(c, o);
	if (r >= 0)
		r = render_boots(c, o);
	if (r >= 0)
		r = render_findings(c, o);
	if (r >= 0)
		r = render_gates(c, o);
	if (r >= 0 && c->opt->baseline)
		r = render_baseline(c, o);
	return r;
}

/* --- CI formats ------------------------------------------------------------------------ */

static char *finding_message(const struct ci *c, const struct agg *a)
{
	const char *m = name_of(c, a->module);
	char *req = requester_text(c, a, false), *s = NULL, w[40] = "";
	int n;

	if (a->wasted_known && a->wasted) {
		char b[32];

		snprintf(w, sizeof(w), ", %s wasted", format_bytes(a->wasted, b, sizeof(b)));
	}
	n = asprintf(&s, "%s%s%s: %" PRIu64 " %s in %" PRIu32 " boot%s%s%s%s%s%s%s",
		     classes[a->cls].name, m ? " " : "", m ? m : "",
		     a->from_trace || is_log_attempt_class(a->cls) ? a->attempts : a->count,
		     a->from_trace || is_log_attempt_class(a->cls) ? "attempt(s)" : "line(s)",
		     a->boots, a->boots == 1 ? "" : "s",
		     w, req ? ", requested by " : "", req ? req : "", a->sample ? " - \"" : "",
		     a->sample ? a->sample : "", a->sample ? "\"" : "");
	free(req);
	return n < 0 ? NULL : s;
}

static enum ci_fmt_level finding_level(const struct agg *a)
{
	if (a->gated)
		return CI_FMT_ERROR;
	if (a->allowed)
		return CI_FMT_NOTE;
	return classes[a->cls].level == CI_FMT_NOTE ? CI_FMT_NOTE : CI_FMT_WARNING;
}

int ci_write_sarif(const struct ci *c, FILE *f, bool pretty)
{
	struct ci_fmt_rule rules[ARRAY_SIZE(classes)];
	struct ci_fmt_result *res = calloc(c->n_aggs + 1, sizeof(*res));
	size_t *idx = agg_order(c);
	char **msgs = calloc(c->n_aggs + 1, sizeof(char *));
	char **reqs = calloc(c->n_aggs + 1, sizeof(char *));
	int r = -ENOMEM;

	if (!res || !idx || !msgs || !reqs)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		rules[i] = (struct ci_fmt_rule){ classes[i].name, classes[i].help,
						 classes[i].level };
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];

		msgs[i] = finding_message(c, a);
		reqs[i] = requester_text(c, a, false);
		if (!msgs[i])
			goto out;
		res[i] = (struct ci_fmt_result){
			.rule = a->cls,
			.level = finding_level(a),
			.message = msgs[i],
			.first = { c->inputs[a->input].path, a->first_line },
			.last = { c->inputs[a->input].path, a->last_line },
			.module = name_of(c, a->module),
			.count = a->count,
			.attempts = a->attempts,
			.requester = reqs[i],
			.allowed = a->allowed,
		};
	}
	r = ci_sarif_write(f, PACKAGE_VERSION, pretty, rules, ARRAY_SIZE(classes), res,
			   c->n_aggs);
out:
	for (size_t i = 0; msgs && reqs && i < c->n_aggs; i++) {
		free(msgs[i]);
		free(reqs[i]);
	}
	free(msgs);
	free(reqs);
	free(idx);
	free(res);
	return r;
}

struct strs {
	char **v;
	size_t n, cap;
};

static char *strs_add(struct strs *s, char *p)
{
	if (!p || grow((void **)&s->v, &s->cap, s->n + 1, sizeof(char *)) < 0) {
		free(p);
		return NULL;
	}
	s->v[s->n++] = p;
	return p;
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static char *fmt_dup(const char *fmt, ...) _printf_format_(1, 2);

static char *fmt_dup(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* A module's findings as lines, for its testcase */
static char *module_text(const struct ci *c, const size_t *idx, uint32_t module, bool *ret_gated)
{
	size_t len = 0, cap = 0;
	char *s = NULL;

	*ret_gated = false;
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];
		char *raw, *line;
		size_t n;

		if (a->module != module || !is_offending(c, a))
			continue;
		*ret_gated |= a->gated;
		raw = fmt_dup("%s: %" PRIu64 " at %s:%" PRIu64 "-%" PRIu64 "%s%s",
			      classes[a->cls].name, a->count, c->inputs[a->input].path,
			      a->first_line, a->last_line, a->sample ? ": " : "",
			      a->sample ? a->sample : "");
		/* escaped here: a newline inside a log line must not start a line of its own */
		line = raw ? escape_dup(raw, strlen(raw)) : NULL;
		free(raw);
		if (!line || grow((void **)&s, &cap, len + strlen(line) + 2, 1) < 0) {
			free(line);
			free(s);
			return NULL;
		}
		n = strlen(line);
		memcpy(s + len, line, n);
		memcpy(s + len + n, "\n", 2);
		len += n + 1;
		free(line);
	}
	return s;
}

int ci_write_junit(const struct ci *c, FILE *f)
{
	struct ci_fmt_testcase *gates = calloc(_GATE_MAX + 1, sizeof(*gates));
	struct ci_fmt_testcase *mods = calloc(c->n_aggs + 1, sizeof(*mods));
	uint32_t *seen = calloc(c->n_aggs + 1, sizeof(*seen));
	size_t *idx = agg_order(c);
	size_t n_gates = 0, n_mods = 0, n_seen = 0;
	struct strs keep = {0};
	struct ci_fmt_suite suites[2];
	int r = -ENOMEM;

	if (!gates || !mods || !seen || !idx)
		goto out;
	for (int i = 0; i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		struct ci_fmt_testcase *t = &gates[n_gates++];

		if (!g->enabled) {
			n_gates--;
			continue;
		}
		t->classname = "kmodtop.ci.gates";
		t->name = gate_names[i];
		t->system_out = strs_add(&keep, g->detail ? escape_dup(g->detail, strlen(g->detail))
							  : NULL);
		if (g->detail && !t->system_out)
			goto out;
		if (g->unknown) {
			t->skipped_message = g->detail;
		} else if (!g->passed) {
			t->failure_type = gate_names[i];
			t->failure_message = g->detail;
		}
	}
	if (c->result == CI_EMPTY) {
		struct ci_fmt_testcase *t = &gates[n_gates++];

		t->classname = "kmodtop.ci.gates";
		t->name = "inputs";
		t->skipped_message = "nothing to analyse: no kernel log records or trace events";
	}
	/* one testcase per offending module, failed when its findings failed a gate */
	for (size_t i = 0; i < c->n_aggs; i++) {
		const struct agg *a = &c->aggs[idx[i]];
		struct ci_fmt_testcase *t;
		bool dup = false, gated;
		char *text;

		if (!is_offending(c, a))
			continue;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = seen[k] == a->module;
		if (dup)
			continue;
		seen[n_seen++] = a->module;
		text = strs_add(&keep, module_text(c, idx, a->module, &gated));
		if (!text)
			goto out;
		t = &mods[n_mods++];
		t->classname = "kmodtop.ci.modules";
		t->name = name_of(c, a->module) ? name_of(c, a->module) : "(unnamed)";
		t->system_out = gated ? NULL : text;
		if (gated) {
			t->failure_type = classes[a->cls].name;
			t->failure_message = strs_add(
				&keep, fmt_dup("%s: findings that failed a gate", t->name));
			t->failure_text = text;
			if (!t->failure_message)
				goto out;
		}
	}
	suites[0] = (struct ci_fmt_suite){ "gates", gates, n_gates };
	suites[1] = (struct ci_fmt_suite){ "modules", mods, n_mods };
	r = ci_junit_write(f, "kmodtop ci", suites, 2);
out:
	strs_free(&keep);
	free(idx);
	free(seen);
	free(mods);
	free(gates);
	return r;
}

int ci_write_github(const struct ci *c, FILE *f)
{
	struct ci_fmt_annotation *an = calloc(c->n_aggs + _GATE_MAX + 2, sizeof(*an));
	size_t *idx = agg_order(c);
	struct strs keep = {0};
	size_t n = 0, skipped = 0;
	int r = -ENOMEM;

	if (!an || !idx)
		goto out;
	for (int i = 0; i < _GATE_MAX; i++) {
		const struct gate *g = &c->gates[i];
		char *title;

		if (!g->enabled || g->passed || g->unknown)
			continue;
		title = strs_add(&keep, fmt_dup("kmodtop ci: gate %s failed", gate_names[i]));
		if (!title)
			goto out;
		an[n++] = (struct ci_fmt_annotation){
			.level = CI_FMT_ERROR,
			.file = g->agg >= 0 ? c->inputs[c->aggs[g->agg].input].path : NULL,
			.line = g->agg >= 0 ? c->aggs[g->agg].first_line : 0,
			.title = title,
			.message = g->detail,
		};
	}
	for (int pass = 0; pass < 2; pass++) {
		/* gated findings first, then the other warnings and errors */
		for (size_t i = 0; i < c->n_aggs; i++) {
			const struct agg *a = &c->aggs[idx[i]];
			enum ci_fmt_level lvl = finding_level(a);
			char *msg, *title;

			if (lvl == CI_FMT_NOTE || (pass == 0) != a->gated)
				continue;
			if (n >= GITHUB_MAX) {
				skipped++;
				continue;
			}
			msg = strs_add(&keep, finding_message(c, a));
			title = strs_add(&keep, fmt_dup("%s%s%s", classes[a->cls].name,
							name_of(c, a->module) ? " " : "",
							name_of(c, a->module) ? name_of(c, a->module)
									      : ""));
			if (!msg || !title)
				goto out;
			an[n++] = (struct ci_fmt_annotation){
				.level = lvl,
				.file = c->inputs[a->input].path,
				.line = a->first_line,
				.end_line = a->last_line,
				.title = title,
				.message = msg,
			};
		}
	}
	if (skipped) {
		char *msg = strs_add(&keep, fmt_dup("%zu more findings not annotated; see the "
						    "report", skipped));

		if (!msg)
			goto out;
		an[n++] = (struct ci_fmt_annotation){ .level = CI_FMT_NOTE,
						      .title = "kmodtop ci",
						      .message = msg };
	}
	r = ci_github_write(f, an, n);
out:
	strs_free(&keep);
	free(idx);
	free(an);
	return r;
}

int ci_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGTPE";
	unsigned long long whole = 0;
	uint64_t mult = 1, frac_num = 0, frac_den = 1, v;
	const char *p = s, *u;

	if (!s || !(*p >= '0' && *p <= '9'))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (frac_den >= 1000000000000ull)
				continue;
			frac_num = frac_num * 10 + (uint64_t)(*p - '0');
			frac_den *= 10;
		}
	}
	if (*p && (u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 32 : *p))) {
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B')
		p++;
	if (*p)
		return -EINVAL;
	if (whole && mult > UINT64_MAX / whole)
		return -ERANGE;
	v = (uint64_t)whole * mult;
	v += (uint64_t)((double)frac_num / (double)frac_den * (double)mult);
	*ret = v;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define STREAM_X86 1
#else
#define STREAM_X86 0
#endif

#include "util/array.h"
#include "util/codec.h"
#include "util/macro.h"
#include "stream.h"

#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

/* Raw (compressed) input is read in blocks of this size. */
#define RAW_BLOCK (128 * 1024)
/* Text is handed out from a buffer of this size plus max_line (L2-sized: scanned hot). */
#define TEXT_BLOCK (256 * 1024)

const char *stream_compression_name(enum stream_compression c)
{
	return codec_name((enum codec_type)c);
}

/* --- needles --------------------------------------------------------------------------- */

/*
 * A "Teddy" search (Hyperscan's packed matcher, as Rust's aho-corasick crate describes
 * it). Each needle is looked for by three consecutive bytes of it, its fingerprint;
 * needles that can share one share it. Each fingerprint has a bucket, and a position
 * may start a fingerprint of bucket b only if its byte and the next two have the low
 * and high nibbles of that fingerprint's bytes; PSHUFB answers that for 16 positions
 * from 16-entry nibble tables. There are 8 buckets (a byte of bits per position), so
 * fingerprints share them and the test is loose; SSSE3 looks at 16 positions a step,
 * AVX2 at 32 (the tables in both lanes). Sixteen exact buckets (one lane each, 16
 * positions a step) were slower on both of bench/ci.sh's logs once fingerprints share
 * with care (assign_buckets()). The candidates left are checked against the needles.
 */
#define FP_LEN 3
#define N_BUCKETS 8

struct needle {
	char s[STREAM_NEEDLE_LEN_MAX];
	size_t len;
	size_t fp_off;			/* where its fingerprint is */
	uint32_t head, head_mask;	/* the first bytes, for a cheap check before memcmp */
};

struct stream_needles {
	struct needle needles[STREAM_NEEDLES_MAX];
	size_t n;
	/* needle indexes per bucket */
	uint8_t bucket[N_BUCKETS][STREAM_NEEDLES_MAX];
	size_t bucket_n[N_BUCKETS];
	/* per fingerprint byte and nibble: the buckets it may be in */
	uint8_t lo[FP_LEN][16], hi[FP_LEN][16];
	int simd;			/* 0 scalar, 1 SSSE3, 2 AVX2 */
};

/* How common a byte is in log text, roughly: spaces, lower-case letters, digits. */
static int commonness(unsigned char c)
{
	static const char frequent[] = " etaoinsrhldcum0123456789.-:fpgwyb";
	const char *p = c ? strchr(frequent, c) : NULL;

	return p ? (int)(sizeof(frequent) - (size_t)(p - frequent)) : 0;
}

static int window_score(const char *s)
{
	return commonness((unsigned char)s[0]) + commonness((unsigned char)s[1]) +
	       commonness((unsigned char)s[2]);
}

/*
 * Fingerprints: a window shared by several needles first (one bucket for all of
 * them), then each remaining needle's rarest window.
 */
static void choose_windows(struct stream_needles *nd)
{
	bool done[STREAM_NEEDLES_MAX] = { false };

	for (;;) {
		size_t best_n = 1, best_i = 0, best_o = 0;
		int best_score = 0;

		for (size_t i = 0; i < nd->n; i++) {
			if (done[i])
				continue;
			for (size_t o = 0; o + FP_LEN <= nd->needles[i].len; o++) {
				const char *w = nd->needles[i].s + o;
				size_t shared = 1;
				int score = window_score(w);

				for (size_t k = 0; k < nd->n; k++)
					if (k != i && !done[k] &&
					    memmem(nd->needles[k].s, nd->needles[k].len, w, FP_LEN))
						shared++;
				if (shared > best_n || (shared == best_n && shared > 1 &&
							score < best_score)) {
					best_n = shared;
					best_i = i;
					best_o = o;
					best_score = score;
				}
			}
		}
		if (best_n < 2)
			break;
		for (size_t k = 0; k < nd->n; k++) {
			const char *w = nd->needles[best_i].s + best_o;
			const char *at;

			if (done[k] && k != best_i)
				continue;
			at = memmem(nd->needles[k].s, nd->needles[k].len, w, FP_LEN);
			if (!at)
				continue;
			nd->needles[k].fp_off = (size_t)(at - nd->needles[k].s);
			done[k] = true;
		}
	}
	for (size_t i = 0; i < nd->n; i++) {
		size_t best = 0;

		if (done[i])
			continue;
		for (size_t o = 1; o + FP_LEN <= nd->needles[i].len; o++)
			if (window_score(nd->needles[i].s + o) < window_score(nd->needles[i].s + best))
				best = o;
		nd->needles[i].fp_off = best;
	}
}

/* Fingerprint @fp into bucket @b of the nibble tables @lo and @hi */
static void set_bucket(uint8_t lo[FP_LEN][16], uint8_t hi[FP_LEN][16], size_t b,
		       const char *fp)
{
	for (int k = 0; k < FP_LEN; k++) {
		unsigned char c = (unsigned char)fp[k];

		lo[k][c & 0xf] |= (uint8_t)(1u << b);
		hi[k][c >> 4] |= (uint8_t)(1u << b);
	}
}

/*
 * How often a bucket's tables let a position through: per fingerprint byte, the text's
 * bytes whose nibbles both pass, weighted by how common they are, multiplied.
 */
static double bucket_cost(const uint8_t lo[FP_LEN][16], const uint8_t hi[FP_LEN][16],
			  unsigned int bit)
{
	double cost = 1;

	for (int k = 0; k < FP_LEN; k++) {
		double pass = 0;

		for (unsigned int c = 0; c < 256; c++)
			if (lo[k][c & 0xf] & hi[k][c >> 4] & bit)
				pass += 1 + commonness((unsigned char)c);
		cost *= pass;
	}
	return cost;
}

/*
 * More fingerprints than buckets: they share, and a bucket lets through every mix of
 * its fingerprints' nibbles. Each goes, rarest-looking last, where it adds the least.
 */
static void assign_buckets(struct stream_needles *nd, char fps[][FP_LEN], size_t n_fp,
			   size_t *ret_bucket)
{
	bool placed[STREAM_NEEDLES_MAX] = { false };

	for (size_t round = 0; round < n_fp; round++) {
		size_t f = n_fp, best = 0;
		double best_add = 0;

		for (size_t g = 0; g < n_fp; g++)
			if (!placed[g] && (f == n_fp || window_score(fps[g]) > window_score(fps[f])))
				f = g;
		for (size_t b = 0; b < N_BUCKETS; b++) {
			uint8_t lo[FP_LEN][16], hi[FP_LEN][16];
			double add;

			memcpy(lo, nd->lo, sizeof(lo));
			memcpy(hi, nd->hi, sizeof(hi));
			set_bucket(lo, hi, b, fps[f]);
			add = bucket_cost(lo, hi, 1u << b) - bucket_cost(nd->lo, nd->hi, 1u << b);
			if (b == 0 || add < best_add) {
				best = b;
				best_add = add;
			}
		}
		set_bucket(nd->lo, nd->hi, best, fps[f]);
		ret_bucket[f] = best;
		placed[f] = true;
	}
}

int stream_needles_new(const char *const *needles, size_t n, struct stream_needles **ret)
{
	char fps[STREAM_NEEDLES_MAX][FP_LEN];
	size_t fp_of[STREAM_NEEDLES_MAX], bucket_of[STREAM_NEEDLES_MAX];
	struct stream_needles *nd;
	size_t n_fp = 0;

	if (n == 0 || n > STREAM_NEEDLES_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(needles[i]);

		if (len < STREAM_NEEDLE_MIN || len > STREAM_NEEDLE_LEN_MAX ||
		    memchr(needles[i], '\n', len))
			return -EINVAL;
	}
	nd = calloc(1, sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct needle *e = &nd->needles[i];
		size_t k = 0;

		e->len = strlen(needles[i]);
		memcpy(e->s, needles[i], e->len);
		for (; k < 4 && k < e->len; k++)
			((uint8_t *)&e->head_mask)[k] = 0xff;
		memcpy(&e->head, e->s, k);
	}
	nd->n = n;
	choose_windows(nd);
	for (size_t i = 0; i < n; i++) {
		const struct needle *e = &nd->needles[i];
		size_t f;

		for (f = 0; f < n_fp; f++)
			if (memcmp(fps[f], e->s + e->fp_off, FP_LEN) == 0)
				break;
		if (f == n_fp)
			memcpy(fps[n_fp++], e->s + e->fp_off, FP_LEN);
		fp_of[i] = f;
	}
	assign_buckets(nd, fps, n_fp, bucket_of);
	for (size_t i = 0; i < n; i++) {
		size_t b = bucket_of[fp_of[i]];

		nd->bucket[b][nd->bucket_n[b]++] = (uint8_t)i;
	}
#if STREAM_X86
	if (__builtin_cpu_supports("avx2"))
		nd->simd = 2;
	else if (__builtin_cpu_supports("ssse3"))
		nd->simd = 1;
#endif
	*ret = nd;
	return 0;
}

void stream_needles_limit_simd(struct stream_needles *nd, int level)
{
	if (level < nd->simd)
		nd->simd = level < 0 ? 0 : level;
}

struct stream_needles *stream_needles_free(struct stream_needles *nd)
{
	free(nd);
	return NULL;
}

/* After the first four bytes: needles are short, a loop beats a call to memcmp() */
static inline bool same_tail(const char *p, const struct needle *e)
{
	for (size_t i = 4; i < e->len; i++)
		if (p[i] != e->s[i])
			return false;
	return true;
}

/*
 * The start of a needle of a bucket in @bits whose fingerprint is at @buf + @q, or
 * (size_t)-1. @bits: bit b is bucket b.
 */
static size_t verify(const struct stream_needles *nd, unsigned int bits, const char *buf,
		     size_t q, size_t len)
{
	while (bits) {
		int b = __builtin_ctz(bits);

		bits &= bits - 1;
		for (size_t i = 0; i < nd->bucket_n[b]; i++) {
			const struct needle *e = &nd->needles[nd->bucket[b][i]];
			const char *p;
			uint32_t w = 0;

			if (q < e->fp_off || q - e->fp_off + e->len > len)
				continue;
			p = buf + q - e->fp_off;
			/* fixed sizes: a variable one is a call to memcpy() */
			if (e->len >= 4)
				memcpy(&w, p, 4);
			else
				memcpy(&w, p, STREAM_NEEDLE_MIN);
			if ((w & e->head_mask) == e->head && same_tail(p, e))
				return q - e->fp_off;
		}
	}
	return (size_t)-1;
}

static size_t find_scalar(const struct stream_needles *nd, const char *buf, size_t from,
			  size_t len)
{
	for (size_t q = from; q + FP_LEN <= len; q++) {
		const unsigned char *p = (const unsigned char *)buf + q;
		unsigned int bits = 0xff;
		size_t s;

		for (int k = 0; k < FP_LEN; k++)
			bits &= nd->lo[k][p[k] & 0xf] & nd->hi[k][p[k] >> 4];
		if (bits && (s = verify(nd, bits, buf, q, len)) != (size_t)-1)
			return s;
	}
	return len;
}

#if STREAM_X86
/*
 * verify() of the candidates of a vector step at @i: bit j of @m set where the bytes at
 * @i + j fit a fingerprint, of the buckets in @bits[j]
 */
static size_t verify_step(const struct stream_needles *nd, const uint8_t *bits, unsigned int m,
			  const char *buf, size_t i, size_t len)
{
	while (m) {
		unsigned int j = (unsigned int)__builtin_ctz(m);
		size_t s;

		m &= m - 1;
		s = verify(nd, bits[j], buf, i + j, len);
		if (s != (size_t)-1)
			return s;
	}
	return (size_t)-1;
}

__attribute__((target("ssse3"))) static size_t
find_ssse3(const struct stream_needles *nd, const char *buf, size_t len)
{
	const __m128i mask = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
	__m128i lo[FP_LEN], hi[FP_LEN];
	size_t i = 0;

	for (int k = 0; k < FP_LEN; k++) {
		lo[k] = _mm_loadu_si128((const __m128i *)nd->lo[k]);
		hi[k] = _mm_loadu_si128((const __m128i *)nd->hi[k]);
	}
	/* three overlapping loads: position j's bits need bytes j, j+1 and j+2 */
	for (; i + 16 + FP_LEN - 1 <= len; i += 16) {
		__m128i r = _mm_set1_epi8(-1);
		unsigned int m;

		for (int k = 0; k < FP_LEN; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(buf + i + k));
			__m128i l = _mm_shuffle_epi8(lo[k], _mm_and_si128(v, mask));
			__m128i h = _mm_shuffle_epi8(hi[k], _mm_and_si128(_mm_srli_epi16(v, 4), mask));

			r = _mm_and_si128(r, _mm_and_si128(l, h));
		}
		m = ~(unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(r, zero)) & 0xffff;
		if (m) {
			uint8_t bits[16];
			size_t s;

			_mm_storeu_si128((__m128i *)bits, r);
			s = verify_step(nd, bits, m, buf, i, len);
			if (s != (size_t)-1)
				return s;
		}
	}
	return find_scalar(nd, buf, i, len);
}

/* find_ssse3() over 32 bytes a step: the same tables in both lanes */
__attribute__((target("avx2"))) static size_t
find_avx2(const struct stream_needles *nd, const char *buf, size_t len)
{
	const __m256i mask = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	__m256i lo[FP_LEN], hi[FP_LEN];
	size_t i = 0;

	for (int k = 0; k < FP_LEN; k++) {
		lo[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nd->lo[k]));
		hi[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)nd->hi[k]));
	}
	for (; i + 32 + FP_LEN - 1 <= len; i += 32) {
		__m256i r = _mm256_set1_epi8(-1);
		unsigned int m;

		for (int k = 0; k < FP_LEN; k++) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(buf + i + k));
			__m256i l = _mm256_shuffle_epi8(lo[k], _mm256_and_si256(v, mask));
			__m256i h = _mm256_shuffle_epi8(
				hi[k], _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));

			r = _mm256_and_si256(r, _mm256_and_si256(l, h));
		}
		m = ~(unsigned int)_mm256_movemask_epi8(_mm256_cmpeq_epi8(r, zero));
		if (m) {
			uint8_t bits[32];
			size_t s;

			_mm256_storeu_si256((__m256i *)bits, r);
			s = verify_step(nd, bits, m, buf, i, len);
			if (s != (size_t)-1)
				return s;
		}
	}
	return find_scalar(nd, buf, i, len);
}

/* '\n' bytes in @p[0..@n) with AVX2: 64 bytes a step, counted with popcount */
__attribute__((target("avx2,popcnt"))) static uint64_t count_newlines_avx2(const char *p,
									 size_t n)
{
	const __m256i nl = _mm256_set1_epi8('\n');
	uint64_t total = 0;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
		uint64_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl)) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, nl))
				     << 32;

		total += (uint64_t)__builtin_popcountll(m);
	}
	for (; i < n; i++)
		total += p[i] == '\n';
	return total;
}

/* libgcc fills the CPU model before main(): a load, no race between threads */
static bool have_avx2(void)
{
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

/* '\n' bytes in @p[0..@n): byte counters per lane, summed before they can wrap */
static uint64_t count_newlines(const char *p, size_t n)
{
	if (n >= 256 && have_avx2())
		return count_newlines_avx2(p, n);
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	uint64_t total = 0;
	size_t i = 0;

	while (i + 16 <= n) {
		__m128i acc = zero, sad;
		size_t stop = n - i >= 255 * 16 ? i + 255 * 16 : i + (n - i) / 16 * 16;

		for (; i < stop; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + i));

			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
		}
		sad = _mm_sad_epu8(acc, zero);
		total += (uint64_t)_mm_cvtsi128_si64(sad) +
			 (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sad, sad));
	}
	for (; i < n; i++)
		total += p[i] == '\n';
	return total;
}
#else
static uint64_t count_newlines(const char *p, size_t n)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += p[i] == '\n';
	return total;
}
#endif

/* Bit i for a '\n' at @p[i], of the first 64 bytes (@n fewer: those) */
static inline __attribute__((always_inline)) uint64_t newline_mask64(const char *p, size_t n)
{
	uint64_t m = 0;

#if STREAM_X86
	if (n >= 64) {
		const __m128i nl = _mm_set1_epi8('\n');
		__m128i a = _mm_loadu_si128((const __m128i *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(p + 32));
		__m128i d = _mm_loadu_si128((const __m128i *)(p + 48));

		return (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)) |
		       (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, nl)) << 16 |
		       (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, nl)) << 32 |
		       (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, nl)) << 48;
	}
#endif
	for (size_t i = 0; i < n && i < 64; i++)
		m |= (uint64_t)(p[i] == '\n') << i;
	return m;
}

size_t stream_needles_find(const struct stream_needles *nd, const char *buf, size_t len)
{
#if STREAM_X86
	if (nd->simd == 2)
		return find_avx2(nd, buf, len);
	if (nd->simd == 1)
		return find_ssse3(nd, buf, len);
#endif
	return find_scalar(nd, buf, 0, len);
}

/* --- decompression ---------------------------------------------------------------------- */

/* The stream's names for the formats are util/codec.h's, in the same order. */
_Static_assert((int)STREAM_PLAIN == (int)CODEC_NONE && (int)STREAM_GZIP == (int)CODEC_GZIP &&
		       (int)STREAM_XZ == (int)CODEC_XZ && (int)STREAM_ZSTD == (int)CODEC_ZSTD,
	       "enum stream_compression follows enum codec_type");

struct stream {
	int fd;
	enum stream_compression comp;
	/* raw bytes: the sniffed head first, then read() blocks */
	uint8_t *in;
	size_t in_pos, in_len;
	bool in_eof;
	struct codec_decoder *dec;	/* made at the first fill */
	/* text */
	char *buf;
	size_t cap, start, end;
	bool eof;
	int err;		/* sticky: -EBADMSG, -ENOMEM, -errno */
	size_t max_line;
	bool skipping;		/* inside an over-long line */
	uint64_t lineno, bytes;
	bool missing_newline;
};

/* Refills the raw buffer once it is used up. 0 or -errno. */
static int raw_fill(struct stream *s)
{
	ssize_t n;

	if (s->in_pos < s->in_len || s->in_eof)
		return 0;
	do
		n = read(s->fd, s->in, RAW_BLOCK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	s->in_pos = 0;
	s->in_len = (size_t)n;
	s->in_eof = n == 0;
	return 0;
}

/* Plain text: what is left of the sniffed head, then straight into @dst. */
static int plain_fill(struct stream *s, char *dst, size_t cap, size_t *ret_n)
{
	ssize_t n;

	if (s->in_pos < s->in_len) {
		size_t k = MIN_SIZE(cap, s->in_len - s->in_pos);

		memcpy(dst, s->in + s->in_pos, k);
		s->in_pos += k;
		*ret_n = k;
		return 0;
	}
	if (s->in_eof) {
		*ret_n = 0;
		return 0;
	}
	do
		n = read(s->fd, dst, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	s->in_eof = n == 0;
	*ret_n = (size_t)n;
	return 0;
}

/* Some text into @dst (*ret_n 0 at the end). 0, -EBADMSG, -ENOMEM, -errno. */
static int backend_fill(struct stream *s, char *dst, size_t cap, size_t *ret_n)
{
	/* concatenated files ("cat a.gz b.gz") are one log, as zcat reads them */
	static const struct codec_options opts = { .flags = CODEC_CONCATENATED };
	int r;

	*ret_n = 0;
	if (s->comp == STREAM_PLAIN)
		return plain_fill(s, dst, cap, ret_n);
	if (!s->dec) {
		r = codec_decoder_new((enum codec_type)s->comp, &opts, &s->dec);
		if (r < 0)
			return r;
	}
	for (;;) {
		const uint8_t *p;
		size_t len, n;

		r = raw_fill(s);
		if (r < 0)
			return r;
		p = s->in + s->in_pos;
		len = s->in_len - s->in_pos;
		r = codec_decode(s->dec, &p, &len, s->in_eof, (uint8_t *)dst, cap, &n);
		s->in_pos = s->in_len - len;
		/* the text of a call that failed is dropped: it may be garbage */
		if (r < 0)
			return r == -ENOMEM ? -ENOMEM : -EBADMSG;
		if (n || r == 1) {
			*ret_n = n;
			return 0;
		}
	}
}

/* --- magic bytes ----------------------------------------------------------------------- */

int stream_new(int fd, size_t max_line, struct stream **ret, const char **reterr_what)
{
	enum codec_type type;
	struct stream *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	s->fd = fd;
	s->max_line = max_line ? max_line : STREAM_LINE_MAX_DEFAULT;
	s->cap = TEXT_BLOCK + s->max_line + 1;
	s->in = malloc(RAW_BLOCK);
	s->buf = malloc(s->cap);
	if (!s->in || !s->buf) {
		r = -ENOMEM;
		goto fail;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	/* short reads from pipes: gather the head before looking at it */
	while (s->in_len < CODEC_SNIFF_LEN && !s->in_eof) {
		ssize_t n = read(fd, s->in + s->in_len, RAW_BLOCK - s->in_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto fail;
		}
		s->in_len += (size_t)n;
		s->in_eof = n == 0;
	}
	r = codec_detect(s->in, s->in_len, &type, reterr_what);
	if (r < 0)
		goto fail;
	s->comp = (enum stream_compression)type;
	*ret = s;
	return 0;
fail:
	stream_free(s);
	return r;
}

struct stream *stream_free(struct stream *s)
{
	if (!s)
		return NULL;
	codec_decoder_free(s->dec);
	if (s->fd >= 0)
		close(s->fd);
	free(s->in);
	free(s->buf);
	free(s);
	return NULL;
}

enum stream_compression stream_compression(const struct stream *s)
{
	return s->comp;
}

uint64_t stream_lineno(const struct stream *s)
{
	return s->lineno;
}

uint64_t stream_bytes(const struct stream *s)
{
	return s->bytes;
}

bool stream_missing_newline(const struct stream *s)
{
	return s->missing_newline;
}

/* Moves the unread text to the front and appends more. 0, or the sticky error. */
static int refill(struct stream *s)
{
	size_t n = 0;
	int r;

	if (s->start > 0) {
		memmove(s->buf, s->buf + s->start, s->end - s->start);
		s->end -= s->start;
		s->start = 0;
	}
	/* one byte stays free for the NUL after a last line without '\n' */
	r = backend_fill(s, s->buf + s->end, s->cap - 1 - s->end, &n);
	if (r < 0) {
		s->err = r;
		return r;
	}
	if (n == 0)
		s->eof = true;
	s->end += n;
	s->bytes += n;
	return 0;
}

/* More than a line's room without its end: the line is skipped (skip_long()) from here */
static bool start_skipping(struct stream *s)
{
	if (s->end - s->start <= s->max_line)
		return false;
	s->skipping = true;
	s->start = s->end;
	return true;
}

/* At the end of the file: the text left, if any, from *ret_from, is a last line without '\n' */
static bool last_line(struct stream *s, size_t *ret_from)
{
	size_t from = s->start;

	if (s->end == from)
		return false;
	s->start = s->end;
	s->missing_newline = true;
	*ret_from = from;
	return true;
}

/* Inside an over-long line: drops text up to its end. 1 when the line is over. */
static int skip_long(struct stream *s)
{
	char *nl = memchr(s->buf + s->start, '\n', s->end - s->start);

	if (nl) {
		s->start = (size_t)(nl + 1 - s->buf);
		s->skipping = false;
		s->lineno++;
		return 1;
	}
	s->start = s->end;
	if (s->eof) {
		s->skipping = false;
		s->missing_newline = true;
		s->lineno++;
		return 1;
	}
	return 0;
}

static int take_line(struct stream *s, size_t from, size_t to, char **ret_line,
		     size_t *ret_len)
{
	s->buf[to] = '\0';
	s->lineno++;
	if (to - from > s->max_line)
		return -E2BIG;
	*ret_line = s->buf + from;
	*ret_len = to - from;
	return 1;
}

int stream_next_line(struct stream *s, char **ret_line, size_t *ret_len)
{
	for (;;) {
		char *nl;

		if (s->err)
			return s->err;
		if (s->skipping) {
			if (skip_long(s))
				return -E2BIG;
		} else {
			nl = memchr(s->buf + s->start, '\n', s->end - s->start);
			if (nl) {
				size_t from = s->start, to = (size_t)(nl - s->buf);

				s->start = to + 1;
				return take_line(s, from, to, ret_line, ret_len);
			}
			if (start_skipping(s))
				continue;
			if (s->eof) {
				size_t from;

				if (!last_line(s, &from))
					return 0;
				return take_line(s, from, s->end, ret_line, ret_len);
			}
		}
		if (refill(s) < 0)
			return s->err;
	}
}

int stream_next_match(struct stream *s, const struct stream_needles *nd, char **ret_line,
		      size_t *ret_len)
{
	for (;;) {
		char *last;
		size_t lim;

		if (s->err)
			return s->err;
		if (s->skipping) {
			if (skip_long(s))
				return -E2BIG;
			if (refill(s) < 0)
				return s->err;
			continue;
		}
		/* complete lines only: [start, lim) ends with '\n' */
		last = memrchr(s->buf + s->start, '\n', s->end - s->start);
		lim = last ? (size_t)(last + 1 - s->buf) : s->start;
		if (lim > s->start) {
			size_t off = stream_needles_find(nd, s->buf + s->start, lim - s->start);

			if (off < lim - s->start) {
				size_t hit = s->start + off, from, to;
				char *p = memrchr(s->buf + s->start, '\n', off);

				from = p ? (size_t)(p + 1 - s->buf) : s->start;
				s->lineno += count_newlines(s->buf + s->start, from - s->start);
				to = (size_t)((char *)memchr(s->buf + hit, '\n', lim - hit) - s->buf);
				s->start = to + 1;
				return take_line(s, from, to, ret_line, ret_len);
			}
			s->lineno += count_newlines(s->buf + s->start, lim - s->start);
			s->start = lim;
		}
		if (start_skipping(s))
			continue;
		if (s->eof) {
			size_t from;

			if (!last_line(s, &from))
				return 0;
			if (stream_needles_find(nd, s->buf + from, s->end - from) < s->end - from)
				return take_line(s, from, s->end, ret_line, ret_len);
			s->lineno++;
			return 0;
		}
		if (refill(s) < 0)
			return s->err;
	}
}

/* --- stream_scan(): blocks of lines on several threads ----------------------------- */

/*
 * The reading thread cuts the text into blocks of whole lines (the start of a line cut
 * off is carried to the next block) and hands them to a ring of slots; the workers
 * (and the reading thread, when it has nothing else to do) scan a block for needles
 * and map its lines; one thread at a time, whichever finds the next block mapped,
 * reduces the blocks in order, when the number of lines before each is known. Blocks
 * are L2-sized, few lines of a block are kept.
 */
#define SCAN_BLOCK (256 * 1024)
/* lines a worker maps of a block, at most: 2,800 of a dense kernel log's hold a needle */
#define SCAN_MAX_LINES 4096
/*
 * With ops->line, blocks go line by line while 3 of 8 lines or more hold a needle, as
 * the last block's search or line by line found (of 256 lines or more).
 */
#define SCAN_DENSE_NUM 3
#define SCAN_DENSE_DEN 8
#define SCAN_DENSE_MIN_LINES 256

enum { SLOT_FREE, SLOT_FILLED, SLOT_BUSY, SLOT_MAPPED };

struct scan_slot {
	char *buf;			/* text of whole lines, then one spare byte */
	size_t len;
	bool long_first;		/* an over-long line, skipped, comes before the text */
	bool partial_last;		/* the text ends without '\n': the input ended */
	uint64_t seq;
	int state;
	struct stream_match *m;
	size_t n, cap_m;
	char *results;
	size_t cap_results;
	uint64_t lines;			/* the lines of the block, its skipped one too */
	size_t pos;			/* where the scan goes on (len: it is over) */
	uint64_t nl;			/* newlines before pos */
	int err;
	/* threads write their slots' fields line by line: none shares a cache line */
} __attribute__((aligned(128)));

struct scan {
	struct stream *s;
	const struct stream_needles *nd;
	const struct stream_scan_ops *ops;
	void *userdata;
	size_t block;
	struct scan_slot *slots;
	size_t n_slots;
	uint64_t next_fill, next_map, next_reduce;
	char *carry;			/* the start of a line the last block cut off */
	size_t carry_len;
	bool skipping;			/* inside an over-long line */
	bool eof;
	bool quit;
	/* the last block searched had many lines with needles: read by all, __atomic */
	bool dense;
	bool reducing;			/* a thread is in reduce */
	int err;			/* a worker's reduce failed */
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a block to map, or quit */
	pthread_cond_t done;		/* a block mapped */
};

static void scan_note_density(struct scan *sc, size_t matched, uint64_t lines)
{
	if (lines >= SCAN_DENSE_MIN_LINES)
		__atomic_store_n(&sc->dense, matched * SCAN_DENSE_DEN >= lines * SCAN_DENSE_NUM,
				 __ATOMIC_RELAXED);
}

/* Up to @cap bytes of text: what the stream holds first, then from the backend. */
static int scan_gather(struct scan *sc, char *dst, size_t cap, size_t *ret_n)
{
	struct stream *s = sc->s;
	size_t n = 0;

	while (n < cap && !sc->eof) {
		size_t k;
		int r;

		if (s->start < s->end) {
			k = MIN_SIZE(cap - n, s->end - s->start);
			memcpy(dst + n, s->buf + s->start, k);
			s->start += k;
			n += k;
			continue;
		}
		if (s->eof) {
			sc->eof = true;
			break;
		}
		r = backend_fill(s, dst + n, cap - n, &k);
		if (r < 0) {
			s->err = r;
			return r;
		}
		if (k == 0)
			s->eof = sc->eof = true;
		n += k;
		s->bytes += k;
	}
	*ret_n = n;
	return 0;
}

/* The next block of whole lines into @slot: 1, 0 when the text is over, or <0. */
static int scan_fill(struct scan *sc, struct scan_slot *slot)
{
	size_t len, n;
	char *last;
	int r;

	slot->long_first = slot->partial_last = false;
	memcpy(slot->buf, sc->carry, sc->carry_len);
	len = sc->carry_len;
	sc->carry_len = 0;
	for (;;) {
		r = scan_gather(sc, slot->buf + len, sc->block - len, &n);
		if (r < 0)
			return r;
		len += n;
		if (sc->skipping) {
			char *nl = memchr(slot->buf, '\n', len);

			if (!nl && !sc->eof) {
				len = 0;	/* still inside it */
				continue;
			}
			sc->skipping = false;
			slot->long_first = true;
			if (!nl) {
				sc->s->missing_newline = true;
				len = 0;
			} else {
				len -= (size_t)(nl + 1 - slot->buf);
				memmove(slot->buf, nl + 1, len);
			}
		}
		if (sc->eof)
			break;
		last = memrchr(slot->buf, '\n', len);
		n = last ? (size_t)(last + 1 - slot->buf) : 0;
		if (len - n > sc->s->max_line) {
			/* the last line is over-long: the block ends before it */
			sc->skipping = true;
			len = n;
			if (len || slot->long_first)
				break;
			continue;
		}
		sc->carry_len = len - n;
		memcpy(sc->carry, slot->buf + n, sc->carry_len);
		len = n;
		break;
	}
	if (len && slot->buf[len - 1] != '\n') {
		slot->partial_last = true;
		sc->s->missing_newline = true;
	}
	slot->len = len;
	slot->buf[len] = '\0';
	return len || slot->long_first;
}

static int scan_push(struct scan_slot *slot, char *line, size_t len, uint64_t lineno, int err)
{
	int r = array_grow_uninit((void **)&slot->m, slot->n, &slot->cap_m, sizeof(*slot->m));

	if (r < 0)
		return r;
	slot->m[slot->n++] = (struct stream_match){ line, len, lineno, err, 0, slot->buf };
	return 0;
}

static int scan_results_grow(struct scan *sc, struct scan_slot *slot, size_t n)
{
	size_t need = n * sc->ops->result_size;
	char *res;

	if (need <= slot->cap_results)
		return 0;
	res = realloc(slot->results, need);
	if (!res)
		return -ENOMEM;
	slot->results = res;
	slot->cap_results = need;
	return 0;
}

/*
 * scan_map_part() where most lines hold a needle: each line to ops->line(), which
 * may know it without searching. The same lines come out as of the search.
 */
static void scan_lines_part(struct scan *sc, void **state, struct scan_slot *slot)
{
	const size_t tlen = slot->len, max_line = sc->s->max_line, size = sc->ops->result_size;
	const uint64_t skipped = slot->long_first, nl_before = slot->nl;
	const size_t n_before = slot->n;
	int (*const line_op)(void *, void *, struct stream_match *, const void *, void *) =
		sc->ops->line;
	size_t (*const run_op)(void *, void *, struct stream_run *) = sc->ops->run;
	void *const userdata = sc->userdata;
	char *buf = slot->buf, *results;
	const void *prev;
	struct stream_match *m;
	/* in locals, not the slot: the op may change what it points to, for all gcc knows */
	size_t n = slot->n, pos = slot->pos, base = 0;
	uint64_t nl = slot->nl, mask = 0;
	bool masked = false;
	void *st;

	slot->err = scan_results_grow(sc, slot, SCAN_MAX_LINES);
	if (slot->err >= 0)
		slot->err = array_grow_uninit((void **)&slot->m, SCAN_MAX_LINES - 1, &slot->cap_m,
					      sizeof(*slot->m));
	if (slot->err < 0)
		return;
	if (!*state && sc->ops->state_new)
		*state = sc->ops->state_new(sc->userdata);
	st = *state;
	m = slot->m + n;
	results = slot->results + n * size;
	/* none written yet: a part starts with its first line, or the block's refused one */
	prev = NULL;
	while (pos < tlen && n < SCAN_MAX_LINES) {
		size_t from = pos, to;
		bool has_nl;

		if (run_op) {
			struct stream_run r = { buf + pos, tlen - pos, max_line, prev, m, results,
						SCAN_MAX_LINES - n, 0, 0 };
			size_t took = run_op(userdata, st, &r);

			if (took) {
				for (size_t i = 0; i < r.kept; i++)
					m[i].lineno += skipped + nl + 1;
				prev = r.prev;
				m += r.kept;
				n += r.kept;
				results += r.kept * size;
				nl += r.lines;
				pos += took;
				masked = false;
				continue;
			}
		}
		/* the newlines of 64 bytes at a time from @base, each taken once: lines are short */
		if (!masked) {
			base = pos;
			mask = newline_mask64(buf + base, tlen - base);
			masked = true;
		}
		while (!mask && base + 64 < tlen) {
			base += 64;
			mask = newline_mask64(buf + base, tlen - base);
		}
		has_nl = mask != 0;
		to = has_nl ? base + (size_t)__builtin_ctzll(mask) : tlen;
		mask &= mask - 1;
		buf[to] = '\0';
		*m = (struct stream_match){ buf + from, to - from, skipped + nl + 1, 0, 0, buf };
		nl += has_nl;
		pos = has_nl ? to + 1 : tlen;
		if (to - from > max_line) {
			/* as the search: refused if it holds a needle, else not seen at all */
			m->err = -E2BIG;
			if (stream_needles_find(sc->nd, m->line, m->len) < m->len) {
				m++, n++;
				results += size;
				prev = NULL;
			}
		} else {
			int kept = line_op(userdata, st, m, prev, results);

			if (kept == 1)
				prev = results;
			if (kept) {
				m++, n++;
				results += size;
			}
		}
	}
	slot->n = n;
	slot->pos = pos;
	slot->nl = nl;
	slot->lines = skipped + nl + slot->partial_last;
	scan_note_density(sc, n - n_before, nl - nl_before);
}

/*
 * Scans and maps the next part of a block (@first: from its start): its lines up to
 * SCAN_MAX_LINES of them, so that a block of short lines each holding a needle takes
 * no more memory than one of ordinary lines; reduce maps the rest on its own thread
 * (slot->pos < slot->len). Line numbers are the block's own until reduce.
 */
static void scan_map_part(struct scan *sc, void **state, struct scan_slot *slot, bool first)
{
	const size_t tlen = slot->len, max_line = sc->s->max_line;
	const uint64_t skipped = slot->long_first;
	char *buf = slot->buf;
	uint64_t nl_before;

	slot->n = 0;
	if (first) {
		slot->err = 0;
		slot->pos = 0;
		slot->nl = 0;
		if (slot->long_first && (slot->err = scan_push(slot, NULL, 0, 1, -E2BIG)) < 0)
			return;
	}
	if (sc->ops->line && __atomic_load_n(&sc->dense, __ATOMIC_RELAXED)) {
		scan_lines_part(sc, state, slot);
		return;
	}
	nl_before = slot->nl;
	while (slot->pos < tlen && slot->n < SCAN_MAX_LINES) {
		size_t pos = slot->pos, hit, from, to;
		size_t off = stream_needles_find(sc->nd, buf + pos, tlen - pos);
		char *p, *q;

		if (off >= tlen - pos) {
			slot->nl += count_newlines(buf + pos, tlen - pos);
			slot->pos = tlen;
			break;
		}
		hit = pos + off;
		p = memrchr(buf + pos, '\n', off);
		from = p ? (size_t)(p + 1 - buf) : pos;
		slot->nl += count_newlines(buf + pos, from - pos);
		q = memchr(buf + hit, '\n', tlen - hit);
		to = q ? (size_t)(q - buf) : tlen;
		buf[to] = '\0';
		slot->err = scan_push(slot, buf + from, to - from, skipped + slot->nl + 1,
				      to - from > max_line ? -E2BIG : 0);
		if (slot->err < 0)
			return;
		slot->nl += q != NULL;
		slot->pos = q ? to + 1 : tlen;
	}
	slot->lines = skipped + slot->nl + slot->partial_last;
	if (sc->ops->line)
		scan_note_density(sc, slot->n, slot->nl - nl_before);
	slot->err = scan_results_grow(sc, slot, slot->n);
	if (slot->err < 0 || !slot->n)
		return;
	if (!*state && sc->ops->state_new)
		*state = sc->ops->state_new(sc->userdata);
	sc->ops->map(sc->userdata, *state, slot->m, slot->n, slot->results);
}

static void scan_map(struct scan *sc, void **state, struct scan_slot *slot)
{
	scan_map_part(sc, state, slot, true);
}

static void scan_state_free(struct scan *sc, void *state)
{
	if (state && sc->ops->state_free)
		sc->ops->state_free(state);
}

/* Reduces a block, and maps and reduces what its worker left (SCAN_MAX_LINES) */
static int scan_reduce(struct scan *sc, void **state, struct scan_slot *slot)
{
	struct stream *s = sc->s;
	const uint64_t base = s->lineno;

	for (;;) {
		int r;

		if (slot->err < 0)
			return slot->err;
		for (size_t i = 0; i < slot->n; i++)
			slot->m[i].lineno += base;
		r = slot->n ? sc->ops->reduce(sc->userdata, slot->m, slot->n, slot->results) : 0;
		if (r < 0)
			return r;
		if (slot->pos >= slot->len)
			break;
		scan_map_part(sc, state, slot, false);
	}
	s->lineno = base + slot->lines;
	return 0;
}

/*
 * With sc->lock held: reduces the next blocks in order while they are mapped and no
 * other thread reduces, so that a reading thread busy decompressing does not hold the
 * blocks up. Drops the lock while it reduces.
 */
static void scan_reduce_ready(struct scan *sc, void **state)
{
	for (;;) {
		struct scan_slot *slot = &sc->slots[sc->next_reduce % sc->n_slots];
		int r;

		if (sc->reducing || sc->err || sc->quit || sc->next_reduce == sc->next_fill ||
		    slot->state != SLOT_MAPPED)
			return;
		sc->reducing = true;
		pthread_mutex_unlock(&sc->lock);
		r = scan_reduce(sc, state, slot);
		pthread_mutex_lock(&sc->lock);
		sc->reducing = false;
		if (r < 0) {
			sc->err = r;
			return;
		}
		slot->state = SLOT_FREE;
		sc->next_reduce++;
		/* the reading thread may be waiting for a free slot to fill */
		pthread_cond_broadcast(&sc->done);
	}
}

static void *scan_worker(void *arg)
{
	struct scan *sc = arg;
	void *state = NULL;

	pthread_mutex_lock(&sc->lock);
	for (;;) {
		struct scan_slot *slot;

		while (!sc->quit && sc->next_map == sc->next_fill)
			pthread_cond_wait(&sc->work, &sc->lock);
		if (sc->quit)
			break;
		slot = &sc->slots[sc->next_map++ % sc->n_slots];
		slot->state = SLOT_BUSY;
		pthread_mutex_unlock(&sc->lock);
		scan_map(sc, &state, slot);
		pthread_mutex_lock(&sc->lock);
		slot->state = SLOT_MAPPED;
		scan_reduce_ready(sc, &state);
		pthread_cond_broadcast(&sc->done);
	}
	pthread_mutex_unlock(&sc->lock);
	scan_state_free(sc, state);
	return NULL;
}

/* The reading thread: fill, reduce, and map when there is nothing else to do. */
static int scan_run(struct scan *sc, void **state)
{
	enum { FILL, MAP, REDUCE, DONE } what;
	struct scan_slot *slot;
	int r = 0;

	for (;;) {
		pthread_mutex_lock(&sc->lock);
		for (;;) {
			if (sc->err) {
				r = sc->err;
				pthread_mutex_unlock(&sc->lock);
				return r;
			}
			slot = &sc->slots[sc->next_reduce % sc->n_slots];
			if (!sc->reducing && sc->next_reduce < sc->next_fill &&
			    slot->state == SLOT_MAPPED) {
				sc->reducing = true;
				what = REDUCE;
				break;
			}
			slot = &sc->slots[sc->next_fill % sc->n_slots];
			if (!sc->eof && slot->state == SLOT_FREE) {
				what = FILL;
				break;
			}
			if (sc->next_map < sc->next_fill) {
				slot = &sc->slots[sc->next_map++ % sc->n_slots];
				slot->state = SLOT_BUSY;
				what = MAP;
				break;
			}
			if (sc->eof && sc->next_reduce == sc->next_fill) {
				what = DONE;
				break;
			}
			pthread_cond_wait(&sc->done, &sc->lock);
		}
		pthread_mutex_unlock(&sc->lock);

		switch (what) {
		case DONE:
			return 0;
		case REDUCE:
			r = scan_reduce(sc, state, slot);
			pthread_mutex_lock(&sc->lock);
			sc->reducing = false;
			if (r < 0) {
				pthread_mutex_unlock(&sc->lock);
				return r;
			}
			slot->state = SLOT_FREE;
			sc->next_reduce++;
			pthread_mutex_unlock(&sc->lock);
			break;
		case MAP:
			scan_map(sc, state, slot);
			pthread_mutex_lock(&sc->lock);
			slot->state = SLOT_MAPPED;
			pthread_mutex_unlock(&sc->lock);
			break;
		case FILL:
			r = scan_fill(sc, slot);
			if (r < 0)
				return r;
			pthread_mutex_lock(&sc->lock);
			if (r > 0) {
				slot->seq = sc->next_fill++;
				slot->state = SLOT_FILLED;
				pthread_cond_signal(&sc->work);
			}
			pthread_mutex_unlock(&sc->lock);
			break;
		}
	}
}

int stream_scan(struct stream *s, const struct stream_needles *nd, unsigned int workers,
		const struct stream_scan_ops *ops, void *userdata)
{
	struct scan sc = { .s = s, .nd = nd, .ops = ops, .userdata = userdata };
	pthread_t *threads = NULL;
	void *state = NULL;
	unsigned int started = 0;
	int r = 0;

	if (s->err)
		return s->err;
	if (workers > 64)
		workers = 64;
	/* a block holds the longest line allowed, and more */
	sc.block = s->max_line < SCAN_BLOCK / 2 ? SCAN_BLOCK : 2 * s->max_line + 2;
	sc.n_slots = 2 * (size_t)workers + 2;
	sc.slots = aligned_alloc(_Alignof(struct scan_slot), sc.n_slots * sizeof(*sc.slots));
	if (sc.slots)
		memset(sc.slots, 0, sc.n_slots * sizeof(*sc.slots));
	sc.carry = malloc(s->max_line + 1);
	threads = calloc(workers ? workers : 1, sizeof(*threads));
	if (!sc.slots || !sc.carry || !threads) {
		r = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < sc.n_slots; i++) {
		sc.slots[i].buf = malloc(sc.block + 1);
		if (!sc.slots[i].buf) {
			r = -ENOMEM;
			goto out_free;
		}
	}
	/* a line the stream skips now is over before the blocks */
	if (s->skipping) {
		s->skipping = false;
		sc.skipping = true;
	}
	pthread_mutex_init(&sc.lock, NULL);
	pthread_cond_init(&sc.work, NULL);
	pthread_cond_init(&sc.done, NULL);
	for (; started < workers; started++) {
		if (pthread_create(&threads[started], NULL, scan_worker, &sc) != 0) {
			r = -EAGAIN;
			break;
		}
	}
	if (r == 0)
		r = scan_run(&sc, &state);
	pthread_mutex_lock(&sc.lock);
	sc.quit = true;
	pthread_cond_broadcast(&sc.work);
	pthread_mutex_unlock(&sc.lock);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	scan_state_free(&sc, state);
	pthread_cond_destroy(&sc.done);
	pthread_cond_destroy(&sc.work);
	pthread_mutex_destroy(&sc.lock);
	if (r == 0) {
		s->start = s->end = 0;
		s->eof = true;
	}
out_free:
	if (sc.slots)
		for (size_t i = 0; i < sc.n_slots; i++) {
			free(sc.slots[i].buf);
			free(sc.slots[i].m);
			free(sc.slots[i].results);
		}
	free(sc.slots);
	free(sc.carry);
	free(threads);
	return r;
}

/* --- the text as a FILE ---------------------------------------------------------------- */

/* bytes handed out that a rewind can go back into */
#define STREAM_REWIND_MAX (64 * 1024)

struct stream_cookie {
	struct stream *s;
	char *head;		/* the first bytes handed out, for a rewind */
	size_t head_len;
	uint64_t pos;		/* of the next byte to hand out */
	uint64_t out;		/* bytes taken from the stream */
};

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
	struct stream_cookie *k = cookie;
	struct stream *s = k->s;
	size_t n;

	/* after a rewind: the copy first */
	if (k->pos < k->out) {
		n = MIN_SIZE(size, (size_t)(k->out - k->pos));
		memcpy(buf, k->head + k->pos, n);
		k->pos += n;
		return (ssize_t)n;
	}
	while (s->start == s->end && !s->eof && !s->err) {
		s->start = s->end = 0;
		(void)refill(s);
	}
	if (s->err) {
		errno = -s->err;
		return -1;
	}
	n = MIN_SIZE(size, s->end - s->start);
	memcpy(buf, s->buf + s->start, n);
	s->start += n;
	if (k->out < STREAM_REWIND_MAX) {
		size_t keep = MIN_SIZE(n, (size_t)(STREAM_REWIND_MAX - k->out));

		memcpy(k->head + k->out, buf, keep);
	}
	k->out += n;
	k->pos = k->out;
	return (ssize_t)n;
}

static int cookie_seek(void *cookie, off64_t *offset, int whence)
{
	struct stream_cookie *k = cookie;
	int64_t to;

	if (whence == SEEK_SET)
		to = *offset;
	else if (whence == SEEK_CUR)
		to = (int64_t)k->pos + *offset;
	else
		to = -1;
	/* only back into what the copy holds, or where it is */
	if (to < 0 || (uint64_t)to > k->out ||
	    ((uint64_t)to != k->out && k->out > STREAM_REWIND_MAX)) {
		errno = ESPIPE;
		return -1;
	}
	k->pos = (uint64_t)to;
	*offset = to;
	return 0;
}

static int cookie_close(void *cookie)
{
	struct stream_cookie *k = cookie;

	stream_free(k->s);
	free(k->head);
	free(k);
	return 0;
}

int stream_fwrap(FILE **f, const char **reterr_what)
{
	static const cookie_io_functions_t io = { .read = cookie_read, .seek = cookie_seek,
						  .close = cookie_close };
	uint8_t head[CODEC_SNIFF_LEN];
	struct stream_cookie *k;
	ssize_t n;
	FILE *nf;
	int fd = fileno(*f), r;

	if (fd < 0)
		return 0;
	/* a file as it is when it is plain: its fd, offset and pread() stay a file's */
	n = pread(fd, head, sizeof(head), 0);
	if (n >= 0) {
		enum codec_type type;

		/* a refused format is not plain: stream_new() says which it is */
		if (codec_detect(head, (size_t)n, &type, NULL) == 0 && type == CODEC_NONE)
			return 0;
	}
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->head = malloc(STREAM_REWIND_MAX))) {
		free(k);
		close(fd);
		return -ENOMEM;
	}
	r = stream_new(fd, 0, &k->s, reterr_what);
	if (r < 0) {
		free(k->head);
		free(k);
		return r;
	}
	nf = fopencookie(k, "r", io);
	if (!nf) {
		cookie_close(k);
		return -ENOMEM;
	}
	fclose(*f);
	*f = nf;
	return 0;
}

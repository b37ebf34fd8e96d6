/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "loadpath.h"

void loadpath_from_release(const char *release, struct loadpath *ret)
{
	struct loadpath lp = { .era = '?' };

	if (release && kver_parse(release, &lp.v) == 0) {
		const struct kver *v = &lp.v;

		lp.known = true;
		lp.busy_on_going = kver_cmp_mm(v, 6, 2) >= 0;
		/* Since 6.4 the duplicate check runs before layout allocation: 064f4536d139 */
		lp.early_dup_check = kver_cmp_mm(v, 6, 4) >= 0;
		/* module_layout became mod_mem_type[] in the same merge window: ac3b43283923 */
		lp.per_type_alloc = kver_cmp_mm(v, 6, 4) >= 0;
		lp.modstats_possible = kver_cmp_mm(v, 6, 4) >= 0;
		/* Concurrent finit_module() of one inode are merged since 6.5: 9b9879fc0327 */
		lp.idempotent_finit = kver_cmp_mm(v, 6, 5) >= 0;
		lp.execmem = kver_cmp_mm(v, 6, 10) >= 0;
		lp.decompress_capable = kver_cmp_mm(v, 5, 17) >= 0;
		lp.zstd_decompress_capable = kver_cmp_mm(v, 6, 2) >= 0;
		if (kver_cmp_mm(v, 5, 3) < 0)
			lp.era = 'A';
		else if (kver_cmp_mm(v, 6, 2) < 0)
			lp.era = 'B';
		else if (kver_cmp_mm(v, 6, 4) < 0)
			lp.era = 'C';
		else if (kver_cmp_mm(v, 6, 5) < 0)
			lp.era = 'D';
		else if (kver_cmp_mm(v, 6, 10) < 0)
			lp.era = 'E';
		else
			lp.era = 'F';
	}
	*ret = lp;
}

const char *loadpath_summary(const struct loadpath *lp)
{
	switch (lp->era) {
	case 'A':
		return "before 5.3: duplicates allocate the final layout; GOING modules give EEXIST";
	case 'B':
		return "5.3-6.1: duplicates allocate the final layout; loads wait for GOING modules";
	case 'C':
		return "6.2-6.3: duplicates allocate the final layout; EBUSY for GOING modules";
	case 'D':
		return "6.4: duplicate check before layout allocation";
	case 'E':
		return "6.5-6.9: duplicate check before layout allocation; idempotent finit_module";
	case 'F':
		return "6.10+: duplicate check before layout allocation; idempotent finit_module; execmem";
	}
	return "unknown kernel release";
}

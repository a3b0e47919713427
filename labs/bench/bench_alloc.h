/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_alloc.h - the buffer of make bench's largest instances.
 *
 * The lab drivers allocate their buffer with alloc_pages(), which cannot hand
 * out more than 2^MAX_PAGE_ORDER pages (1024 on x86) in one physically
 * contiguous block. For the 4096-page measurement, scripts/labs/build-module-set.sh
 * builds bench instances whose alloc_pages() + split_page() is replaced by
 * bench_alloc_contig_pages() below (and this header is included). The
 * pages it returns are order-0 pages with one reference each, as after
 * split_page(), so the drivers' own teardown (__free_page() on each) stays.
 * Needs CONFIG_CONTIG_ALLOC (the kit kernels set CONFIG_CMA for it).
 *
 * Never part of a lab or of the example driver.
 */
#ifndef BENCH_ALLOC_H
#define BENCH_ALLOC_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>

/*
 * alloc_contig_range()'s third argument: the range's migrate type on 6.12,
 * flags on mainline (which names them ACR_FLAGS_*).
 */
#ifdef ACR_FLAGS_NONE
#define BENCH_CONTIG_HOW	ACR_FLAGS_NONE
#else
#define BENCH_CONTIG_HOW	MIGRATE_MOVABLE
#endif

/**
 * bench_alloc_contig_pages() - allocate physically contiguous, zeroed pages
 * @nr: number of pages, a power of two (the range is aligned on it)
 *
 * alloc_contig_range() is what both kernels export (6.12 does not export
 * alloc_contig_pages(), which searches by itself): the range is searched
 * here, aligned on @nr, from 64 MB up, keeping to ranges in one zone (a
 * range that spans two is not allowed). In a freshly booted guest the first
 * try succeeds.
 *
 * Return: the first page, or NULL when no range could be had.
 */
static inline struct page *bench_alloc_contig_pages(unsigned long nr)
{
	unsigned long pfn;

	for (pfn = SZ_64M >> PAGE_SHIFT; pfn + nr <= totalram_pages(); pfn += nr) {
		if (page_zone(pfn_to_page(pfn)) != page_zone(pfn_to_page(pfn + nr - 1)))
			continue;
		if (alloc_contig_range(pfn, pfn + nr, BENCH_CONTIG_HOW, GFP_KERNEL))
			continue;
		/* The lab drivers asked for __GFP_ZERO; the direct map is contiguous. */
		memset(pfn_to_kaddr(pfn), 0, nr << PAGE_SHIFT);
		return pfn_to_page(pfn);
	}
	return NULL;
}

#endif /* BENCH_ALLOC_H */

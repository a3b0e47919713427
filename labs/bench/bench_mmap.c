// SPDX-License-Identifier: GPL-2.0
/*
 * bench_mmap - the performance lab's guest program (make bench).
 *
 * Times, inside one guest, the lab drivers loaded side by side:
 *
 *  - prepopulation: mmap() of N pages + one read of every page, for each
 *    size in MMAP_LAB_BENCH_SIZES. A driver that maps the whole range at
 *    mmap() time (legacy remap_pfn_range(), the remap action) pays once;
 *    a fault handler (stage 1) pays one page fault per page;
 *  - setup cost: mmap() + munmap() of one page, MMAP_LAB_BENCH_LOOPS times
 *    per sample, with no touch;
 *  - idle noise: a fixed loop of arithmetic, to show how much the guest's
 *    own timing varies when nothing but the CPU is involved.
 *
 * Every sample goes to stdout as a TAP comment "# csv,KIND,DRIVER,PAGES,
 * REP,TICKS" (TSC ticks, see now_ticks()); scripts/perf/bench-report.py turns
 * them into the table, the CSV and the plot. The drivers take turns within
 * each repetition, so a slow moment of the host is spread over all of
 * them. The TAP tests only say
 * that every measurement ran and that every mapping showed the device's
 * data: the performance guards are judged on the host, from the samples.
 *
 * Settings (environment, exported from the bench's conf by the guest):
 *   MMAP_LAB_BENCH_DEVICES  "NAME=/dev/path ..." the drivers to compare
 *   MMAP_LAB_BENCH_SIZES    mapping sizes in pages, e.g. "64 256 1024"
 *   MMAP_LAB_BENCH_REPS     repetitions of every measurement
 *   MMAP_LAB_BENCH_LOOPS    mmap()+munmap() pairs per setup-cost sample
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES	4
#define MAX_SIZES	8
#define PAGE		4096UL

/**
 * struct bench_device - one driver under test
 * @name: its name in the CSV (legacy-remap, fault-per-page, ...)
 * @path: its device node
 * @fd: open read-write for the whole run
 */
struct bench_device {
	char name[32];
	char path[64];
	int fd;
};

static struct bench_device devices[MAX_DEVICES];
static int n_devices;
static unsigned long sizes[MAX_SIZES];
static int n_sizes;
static unsigned long reps, loops;
static int test_no;

static void tap(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++test_no, what);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The time stamp counter. Under TCG the guest kernel often cannot calibrate
 * the TSC (no HPET, and the PIT too slow to measure against on a busy host)
 * and falls back to the jiffies clocksource: clock_gettime() then moves in
 * steps of 4 ms. RDTSC still reads QEMU's fine-grained counter, so samples
 * are taken in ticks and converted once, with the tick rate measured
 * against CLOCK_MONOTONIC over the whole run (seconds: the 4 ms steps cost
 * well under 1 %). Ratios, the lab's real results, need no conversion.
 */
static uint64_t now_ticks(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

static int parse_settings(void)
{
	char list[256], *tok, *save;

	snprintf(list, sizeof(list), "%s", env_or("MMAP_LAB_BENCH_DEVICES", ""));
	for (tok = strtok_r(list, " ", &save); tok && n_devices < MAX_DEVICES;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return -1;
		*eq = '\0';
		snprintf(devices[n_devices].name, sizeof(devices[0].name), "%s", tok);
		snprintf(devices[n_devices].path, sizeof(devices[0].path), "%s", eq + 1);
		n_devices++;
	}
	snprintf(list, sizeof(list), "%s", env_or("MMAP_LAB_BENCH_SIZES", "64 256 1024"));
	for (tok = strtok_r(list, " ", &save); tok && n_sizes < MAX_SIZES;
	     tok = strtok_r(NULL, " ", &save))
		sizes[n_sizes++] = strtoul(tok, NULL, 0);
	reps = strtoul(env_or("MMAP_LAB_BENCH_REPS", "7"), NULL, 0);
	loops = strtoul(env_or("MMAP_LAB_BENCH_LOOPS", "50"), NULL, 0);
	return n_devices && n_sizes && reps && loops ? 0 : -1;
}

/*
 * Write the index of every page into its first word, through write(), so
 * that a read through any mapping can tell whether it sees the right page.
 */
static int fill_device(struct bench_device *dev, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++) {
		uint64_t word = i + 1;

		if (pwrite(dev->fd, &word, sizeof(word), i * PAGE) != sizeof(word))
			return -1;
	}
	return 0;
}

/*
 * One prepopulation sample: map @pages pages, read the first word of each;
 * @ticks is the time of both, @mmap_ticks that of the mmap() call alone (where
 * the time goes: a prepopulating driver spends it in mmap(), a fault
 * handler in the reads). The sum of the words proves the pages are the
 * device's.
 */
static int prepopulate_once(struct bench_device *dev, unsigned long pages,
			    uint64_t *ticks, uint64_t *mmap_ticks)
{
	uint64_t sum = 0, start;
	volatile uint64_t *map;
	unsigned long i;

	start = now_ticks();
	map = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	*mmap_ticks = now_ticks() - start;
	for (i = 0; i < pages; i++)
		sum += map[i * (PAGE / sizeof(*map))];
	*ticks = now_ticks() - start;
	munmap((void *)map, pages * PAGE);
	return sum == (uint64_t)pages * (pages + 1) / 2 ? 0 : -EIO;
}

/* One setup-cost sample: @loops mmap()+munmap() pairs of one page. */
static int setup_once(struct bench_device *dev, uint64_t *ticks)
{
	uint64_t start = now_ticks();
	unsigned long i;
	void *map;

	for (i = 0; i < loops; i++) {
		map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, 0);
		if (map == MAP_FAILED)
			return -errno;
		munmap(map, PAGE);
	}
	*ticks = (now_ticks() - start) / loops;
	return 0;
}

/*
 * The @n-th of the n_devices! orders of the devices (factorial number
 * system), into @order.
 */
static void permutation(unsigned long n, int *order)
{
	int left[MAX_DEVICES], count = n_devices, i, j;
	unsigned long f = 1;

	for (i = 0; i < n_devices; i++) {
		left[i] = i;
		f *= i + 1;
	}
	n %= f;
	for (i = 0; i < n_devices; i++) {
		f /= count;
		j = n / f;
		n %= f;
		order[i] = left[j];
		memmove(&left[j], &left[j + 1], (count - j - 1) * sizeof(left[0]));
		count--;
	}
}

/* A fixed amount of arithmetic: the guest's timing noise without the mm. */
static uint64_t idle_once(void)
{
	uint64_t start = now_ticks();
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < 200000; i++)
		x += i;
	return now_ticks() - start;
}

int main(void)
{
	char msg[160];
	struct utsname u;
	uint64_t ticks, mmap_ticks, t0, t1, m0, m1;
	char clocksource[32];
	unsigned long r;
	FILE *cs;
	int d, i, s, err = 0;

	printf("TAP version 13\n");
	if (parse_settings()) {
		printf("1..1\n");
		printf("not ok 1 - MMAP_LAB_BENCH_DEVICES/SIZES/REPS/LOOPS are set and valid\n");
		return 1;
	}
	uname(&u);
	printf("# bench: kernel %s, %d devices, %lu repetitions, %lu loops per setup sample\n",
	       u.release, n_devices, reps, loops);
	printf("# csv,kind,driver,pages,rep,ticks\n");
	t0 = now_ticks();
	m0 = mono_ns();

	for (d = 0; d < n_devices; d++) {
		devices[d].fd = open(devices[d].path, O_RDWR);
		if (devices[d].fd < 0 || fill_device(&devices[d], sizes[n_sizes - 1])) {
			snprintf(msg, sizeof(msg), "%s: open and fill %lu pages of %s (%s)",
				 devices[d].name, sizes[n_sizes - 1], devices[d].path,
				 strerror(errno));
			tap(0, msg);
			printf("1..%d\n", test_no);
			return 1;
		}
	}

	/* Warm-up: one untimed round, so no first-touch cost lands in a sample. */
	for (d = 0; d < n_devices; d++)
		prepopulate_once(&devices[d], sizes[0], &ticks, &mmap_ticks);

	/*
	 * The drivers take turns, in another order in every repetition (all
	 * n! orders in turn): which driver runs right after which, e.g. after
	 * the fault-per-page run and its munmap() of 1024 refcounted pages,
	 * is the same for all of them over the run. Before each sample the
	 * program yields the CPU, so that kernel threads woken by the previous
	 * sample's work can run outside the measurement. (Sleeping instead,
	 * 1 ms, let the guest CPU idle and made the spreads wider.)
	 */
	for (r = 0; r < reps; r++) {
		int order[MAX_DEVICES];

		permutation(r, order);
		for (s = 0; s < n_sizes; s++) {
			for (i = 0; i < n_devices; i++) {
				int e;

				d = order[i];
				sched_yield();
				e = prepopulate_once(&devices[d], sizes[s], &ticks, &mmap_ticks);

				if (e) {
					printf("# %s, %lu pages: %s\n", devices[d].name, sizes[s],
					       e == -EIO ? "wrong data through the mapping" :
					       strerror(-e));
					err = 1;
					continue;
				}
				printf("# csv,prepopulate,%s,%lu,%lu,%llu\n", devices[d].name,
				       sizes[s], r, (unsigned long long)ticks);
				printf("# csv,prepopulate-mmap,%s,%lu,%lu,%llu\n", devices[d].name,
				       sizes[s], r, (unsigned long long)mmap_ticks);
			}
		}
		for (i = 0; i < n_devices; i++) {
			d = order[i];
			sched_yield();
			if (setup_once(&devices[d], &ticks)) {
				err = 1;
				continue;
			}
			printf("# csv,setup,%s,1,%lu,%llu\n", devices[d].name, r,
			       (unsigned long long)ticks);
		}
		printf("# csv,idle,arithmetic,0,%lu,%llu\n", r, (unsigned long long)idle_once());
	}
	t1 = now_ticks();
	m1 = mono_ns();
	clocksource[0] = '\0';
	cs = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (cs) {
		if (!fgets(clocksource, sizeof(clocksource), cs))
			clocksource[0] = '\0';
		clocksource[strcspn(clocksource, "\n")] = '\0';
		fclose(cs);
	}
	printf("# ticks-per-us: %.3f (over %.2f s of CLOCK_MONOTONIC, clocksource %s)\n",
	       (double)(t1 - t0) * 1000.0 / (double)(m1 - m0), (double)(m1 - m0) / 1e9,
	       clocksource[0] ? clocksource : "unknown");
	snprintf(msg, sizeof(msg),
		 "every mapping of %d drivers x %d sizes x %lu repetitions read back the device's page indexes",
		 n_devices, n_sizes, reps);
	tap(!err, msg);
	printf("1..%d\n", test_no);
	return err;
}

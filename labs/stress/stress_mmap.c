// SPDX-License-Identifier: GPL-2.0
/*
 * stress_mmap - the stress run's guest program (make stress; a short run in
 * make check). One SMP guest, every lab driver and the example driver
 * loaded side by side; the program:
 *
 *  1. unloads them all, takes the baseline (/proc/meminfo, /proc/vmallocinfo)
 *     and loads them again itself (finit_module);
 *  2. starts MMAP_LAB_STRESS_PROCS worker processes, spread over the
 *     devices. Each owns a slice of its device's buffer and does
 *     MMAP_LAB_STRESS_ROUNDS rounds of: mmap, write a pattern through the
 *     mapping, read it back with pread() and compare, then munmap, with a
 *     partial munmap or an mremap() move every few rounds and a fork() every
 *     100 rounds whose child checks the shared mapping and exits. Meanwhile
 *     MMAP_LAB_STRESS_THREADS threads of the same process map and unmap the
 *     same device in a loop, each thread in address windows of its own
 *     (see reserve_window()). The workers of MMAP_LAB_STRESS_ARMED devices
 *     also arm the action's fault injection (fail_mmap_action) for
 *     themselves at a low probability: a failed mmap() must give that
 *     device's errno and leave no VMA behind;
 *  3. meanwhile one process tries to unload every module in a loop: it must
 *     be refused for as long as files are open;
 *  4. at the end every module must unload, and Committed_AS, MemFree and the
 *     busy areas of /proc/vmallocinfo must be back at the baseline.
 *
 * The edu device (stage 3) has no buffer: its workers map BAR 0 and read the
 * identification register instead of writing a pattern.
 *
 * Prints TAP, one test per rule, and "# rate: DEVICE N rounds/s" lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define PAGE		4096UL
#define MAX_DEVICES	8
#define MAX_PROCS	32
#define EDU_ID_MASK	0xffffu
#define EDU_ID		0x00edu	/* low half of the identification register */

/**
 * struct stress_device - one device under test
 * @name: a short name for the output (lab0, example, ...)
 * @path: its device node
 * @pages: size of its buffer in pages; 0 for the edu BAR
 * @action_errno: errno of a failed action (0: the driver has no action)
 * @armed: its workers arm the fault injection
 */
struct stress_device {
	char name[16];
	char path[48];
	unsigned long pages;
	int action_errno;
	int armed;
};

/**
 * struct worker_result - what a worker process reports, in shared memory
 * @rounds: rounds completed by the main thread
 * @thread_rounds: map/unmap rounds of the helper threads
 * @mismatches: words read back wrong (read() or the forked child)
 * @forks: children that checked the mapping
 * @fork_attempts: forks started
 * @injected: mmap() calls that failed as injected, cleanly
 * @errors: anything else that went wrong (counted; the first is described)
 * @seconds: time the rounds took
 * @first_error: the first error, for the TAP output
 */
struct worker_result {
	long rounds, thread_rounds, mismatches, forks, fork_attempts, injected, errors;
	double seconds;
	char first_error[160];
};

/**
 * struct control - shared by all processes of the run
 * @opened: workers that have their device open
 * @go: set once every worker has its file open and the unloader runs
 * @done: workers whose rounds are over (their file still open)
 * @release: set once the unloader stopped: the workers close and exit
 * @stop_unloader: tells the unloader to stop
 * @attempts: the unloader's rmmod attempts
 * @unloaded: how many of them succeeded (while files were open: a bug)
 * @what: the first module that unloaded
 */
struct control {
	atomic_int opened, go, done, release, stop_unloader;
	long attempts, unloaded;
	char what[64];
};

static struct control *ctl;
static struct stress_device devices[MAX_DEVICES];
static int n_devices;
static char modules[256];
static long procs, rounds, threads, fail_percent;
static struct worker_result *results;
static int test_no, failures;

static void tap(int ok, const char *fmt, ...) __printf(2, 3);
static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

/* "name=/dev/x:pages:ERRNO ..." (pages 0: the edu BAR; ERRNO "-": no action). */
static int parse_devices(void)
{
	char list[512], *tok, *save, errname[16];
	char armed[128];

	snprintf(list, sizeof(list), "%s", env_or("MMAP_LAB_STRESS_DEVICES", ""));
	snprintf(armed, sizeof(armed), " %s ", env_or("MMAP_LAB_STRESS_ARMED", ""));
	for (tok = strtok_r(list, " ", &save); tok && n_devices < MAX_DEVICES;
	     tok = strtok_r(NULL, " ", &save)) {
		struct stress_device *d = &devices[n_devices];
		char pattern[16];

		if (sscanf(tok, "%15[^=]=%47[^:]:%lu:%15s", d->name, d->path, &d->pages,
			   errname) != 4)
			return -1;
		d->action_errno = !strcmp(errname, "ENOMEM") ? ENOMEM :
				  !strcmp(errname, "EAGAIN") ? EAGAIN : 0;
		snprintf(pattern, sizeof(pattern), " %s ", d->name);
		d->armed = !!strstr(armed, pattern);
		n_devices++;
	}
	return n_devices ? 0 : -1;
}

/* Modules ------------------------------------------------------------------ */

static int load_module(const char *name)
{
	char path[96];
	int fd, ret;

	snprintf(path, sizeof(path), "/lib/modules/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret ? -errno : 0;
}

static int unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Apply fn to every module of MMAP_LAB_STRESS_MODULES; 0 or the first error. */
static int apply_to_modules(int (*fn)(const char *), char *failed, size_t size)
{
	char list[256], *tok, *save;
	int err;

	snprintf(list, sizeof(list), "%s", modules);
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		err = fn(tok);
		if (err) {
			snprintf(failed, size, "%s: %s", tok, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Baseline --------------------------------------------------------------- */

/**
 * struct mem_state - what must come back after the run
 * @committed_kb: Committed_AS of /proc/meminfo
 * @free_kb: MemFree
 * @vmalloc_kb: busy areas of /proc/vmallocinfo, less kernel stacks (each CPU
 *              caches the stacks of exited tasks) and areas waiting for a
 *              lazy purge
 * @vmalloc_areas: number of those areas
 */
struct mem_state {
	long committed_kb, free_kb, vmalloc_kb, vmalloc_areas;
};

static long meminfo_kb(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

static void mem_state(struct mem_state *s)
{
	char line[512];
	FILE *f;

	/* Let deferred work (RCU frees, lazy vfree purges) settle first. */
	sync();
	usleep(300000);
	s->committed_kb = meminfo_kb("Committed_AS");
	s->free_kb = meminfo_kb("MemFree");
	s->vmalloc_kb = 0;
	s->vmalloc_areas = 0;
	f = fopen("/proc/vmallocinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long size;

		/* "START-END SIZE CALLER ...": the addresses may be hidden. */
		if (strstr(line, "unpurged") || strstr(line, "thread_stack") ||
		    sscanf(line, "%*s %lu", &size) != 1)
			continue;
		s->vmalloc_kb += size / 1024;
		s->vmalloc_areas++;
	}
	fclose(f);
}

/* Workers ---------------------------------------------------------------- */

/**
 * struct worker - one worker process's setup
 * @dev: its device
 * @index: its number among all workers
 * @first_page: first buffer page of its slice
 * @pages: pages in its slice (1 for the edu BAR)
 * @fd: the open device
 * @stop: set when the main thread is done, to stop the helper threads
 * @res: its results, in shared memory
 */
struct worker {
	struct stress_device *dev;
	int index;
	unsigned long first_page, pages;
	int fd;
	atomic_int stop;
	struct worker_result *res;
};

static void worker_error(struct worker *w, const char *fmt, ...) __printf(2, 3);
static void worker_error(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	/* Counters are shared with the helper threads: atomic adds. */
	if (__atomic_fetch_add(&w->res->errors, 1, __ATOMIC_RELAXED) == 0) {
		va_start(ap, fmt);
		vsnprintf(w->res->first_error, sizeof(w->res->first_error), fmt, ap);
		va_end(ap);
	}
}

static uint64_t pattern(uint64_t seed, unsigned long i)
{
	return (seed * 0x9e3779b97f4a7c15ULL) ^ (i * 0xbf58476d1ce4e5b9ULL) ^ i;
}

/* Count the words of a slice that differ from the pattern. */
static long compare(const volatile uint64_t *p, unsigned long words, uint64_t seed)
{
	unsigned long i;
	long bad = 0;

	for (i = 0; i < words; i++)
		bad += p[i] != pattern(seed, i);
	return bad;
}

/*
 * Address windows. Every thread maps its device only into windows of its
 * own, kept reserved (PROT_NONE) when nothing is mapped there, with
 * MAP_FIXED: no thread of the process ever asks the kernel to choose an
 * address while the others run, so a range that is free after a failed
 * mmap() can only be free because the failure left nothing behind.
 */
static void *reserve_window(size_t len)
{
	return mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* Put the reservation back over a window, replacing whatever is there. */
static void restore_window(struct worker *w, void *win, size_t len)
{
	if (mmap(win, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) != win)
		worker_error(w, "cannot restore the window at %p: %s", win, strerror(errno));
}

/*
 * mmap() the worker's slice over the window @win (MAP_FIXED). With the fault
 * injection armed, a failure with the device's errno is expected now and
 * then: MAP_FIXED removed the reservation first, and the failure must leave
 * no VMA there, so a MAP_FIXED_NOREPLACE reservation of the window must
 * succeed. Returns the mapping, or NULL after a clean injected failure (or
 * an error, counted); either way the window is reserved again.
 */
static void *map_slice(struct worker *w, void *win, int prot)
{
	size_t len = w->pages * PAGE;
	void *map, *probe;
	int e;

	map = mmap(win, len, prot, MAP_SHARED | MAP_FIXED, w->fd, w->first_page * PAGE);
	if (map != MAP_FAILED)
		return map;
	e = errno;
	probe = mmap(win, len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (probe != win) {
		worker_error(w, "a failed mmap (%s) left a VMA at %p", strerror(e), win);
		restore_window(w, win, len);
		return NULL;
	}
	if (!w->dev->armed || e != w->dev->action_errno)
		worker_error(w, "mmap of %s: %s", w->dev->path, strerror(e));
	else
		__atomic_fetch_add(&w->res->injected, 1, __ATOMIC_RELAXED);
	return NULL;
}

/**
 * struct helper - a helper thread
 * @w: its worker process
 * @win: its own window
 */
struct helper {
	struct worker *w;
	void *win;
};

/* The helper threads: map the same slice read-only, touch it, unmap. */
static void *helper_thread(void *arg)
{
	struct helper *h = arg;
	struct worker *w = h->w;
	size_t len = w->pages * PAGE;

	while (!atomic_load(&w->stop)) {
		volatile uint64_t *map = map_slice(w, h->win, PROT_READ);
		unsigned long i;
		uint64_t sink = 0;

		if (!map)
			continue;
		for (i = 0; i < w->pages; i++)
			sink += map[i * (PAGE / 8)];
		(void)sink;
		restore_window(w, h->win, len);
		__atomic_fetch_add(&w->res->thread_rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A buffer device's round, in the windows @win and @move_to: write, read
 * back, then one way of unmapping (a partial munmap, an mremap() move, or
 * all at once).
 */
static void buffer_round(struct worker *w, long round, uint64_t *readback, void *win,
			 void *move_to)
{
	size_t len = w->pages * PAGE, words = len / 8;
	uint64_t seed = (uint64_t)w->index << 32 | round;
	volatile uint64_t *map = map_slice(w, win, PROT_READ | PROT_WRITE);
	unsigned long i;

	if (!map)
		return;
	for (i = 0; i < words; i++)
		map[i] = pattern(seed, i);
	if (pread(w->fd, readback, len, w->first_page * PAGE) != (ssize_t)len)
		worker_error(w, "pread of %s: %s", w->dev->path, strerror(errno));
	else
		w->res->mismatches += compare(readback, words, seed);

	if (round % 100 == 50) {
		/* The child sees the same pages through its copy of the VMA. */
		pid_t pid;
		int status;

		w->res->fork_attempts++;
		pid = fork();
		if (pid == 0)
			_exit(compare(map, words, seed) ? 1 : 0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			worker_error(w, "fork/wait of the checking child failed");
		else if (WEXITSTATUS(status))
			w->res->mismatches++;
		else
			w->res->forks++;
	}

	if (round % 10 == 3 && w->pages > 1) {
		/* Partial munmap: the first page must stay mapped and intact. */
		if (munmap((void *)(map + PAGE / 8), len - PAGE))
			worker_error(w, "partial munmap: %s", strerror(errno));
		w->res->mismatches += compare(map, PAGE / 8, seed);
	} else if (round % 10 == 7) {
		/* Move the mapping (same size: VM_DONTEXPAND forbids growing). */
		void *moved = mremap((void *)map, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, move_to);

		if (moved == MAP_FAILED)
			worker_error(w, "mremap move: %s", strerror(errno));
		else
			w->res->mismatches += compare(moved, words, seed);
		restore_window(w, move_to, len);
	}
	restore_window(w, win, len);
}

/* The edu BAR's round: map, read the identification register, unmap. */
static void edu_round(struct worker *w, void *win)
{
	volatile uint32_t *map = map_slice(w, win, PROT_READ | PROT_WRITE);

	if (!map)
		return;
	if ((map[0] & EDU_ID_MASK) != EDU_ID)
		w->res->mismatches++;
	restore_window(w, win, PAGE);
}

static int arm_injection(int on)
{
	int fd = open("/proc/self/make-it-fail", O_WRONLY);
	int ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -EIO;
}

static void run_worker(struct worker *w)
{
	size_t len = w->pages * PAGE;
	uint64_t *readback = malloc(len);
	struct helper helpers[8];
	pthread_t tids[8];
	void *win, *move_to;
	long r, t, n_threads = threads < 8 ? threads : 8;
	double start;

	w->fd = open(w->dev->path, O_RDWR);
	win = reserve_window(len);
	move_to = reserve_window(len);
	if (w->fd < 0 || !readback || win == MAP_FAILED || move_to == MAP_FAILED) {
		worker_error(w, "open %s: %s", w->dev->path, strerror(errno));
		atomic_fetch_add(&ctl->opened, 1);
		atomic_fetch_add(&ctl->done, 1);
		_exit(1);
	}
	/* Every worker holds its file open from here until the unloader stopped. */
	atomic_fetch_add(&ctl->opened, 1);
	while (!atomic_load(&ctl->go))
		usleep(1000);
	if (w->dev->armed && arm_injection(1))
		worker_error(w, "cannot arm /proc/self/make-it-fail");
	atomic_store(&w->stop, 0);
	/* All windows first: once a thread runs, no one picks addresses. */
	for (t = 0; t < n_threads; t++) {
		helpers[t].w = w;
		helpers[t].win = reserve_window(len);
	}
	for (t = 0; t < n_threads; t++) {
		if (helpers[t].win == MAP_FAILED ||
		    pthread_create(&tids[t], NULL, helper_thread, &helpers[t])) {
			worker_error(w, "cannot start helper thread %ld", t);
			n_threads = t;
			break;
		}
	}
	start = now();
	for (r = 0; r < rounds; r++) {
		if (w->dev->pages)
			buffer_round(w, r, readback, win, move_to);
		else
			edu_round(w, win);
		w->res->rounds++;
	}
	w->res->seconds = now() - start;
	atomic_store(&w->stop, 1);
	for (t = 0; t < n_threads; t++)
		pthread_join(tids[t], NULL);
	atomic_fetch_add(&ctl->done, 1);
	while (!atomic_load(&ctl->release))
		usleep(1000);
	close(w->fd);
	_exit(0);
}

/*
 * The unloader: every module, in a loop, until told to stop. Every module
 * has a file open by some worker all along, so every attempt must fail; one
 * that succeeds is counted and the module loaded again.
 */
static void run_unloader(void)
{
	char list[256], *tok, *save;

	while (!atomic_load(&ctl->stop_unloader)) {
		snprintf(list, sizeof(list), "%s", modules);
		for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			ctl->attempts++;
			if (!unload_module(tok)) {
				if (!ctl->unloaded++)
					snprintf(ctl->what, sizeof(ctl->what), "%s", tok);
				load_module(tok);
			}
		}
		usleep(2000);
	}
	_exit(0);
}

static void print_state(const char *when, const struct mem_state *m)
{
	printf("# %s: Committed_AS %ld kB, MemFree %ld kB, vmalloc %ld kB in %ld areas\n",
	       when, m->committed_kb, m->free_kb, m->vmalloc_kb, m->vmalloc_areas);
}

static int set_fault_injection(void)
{
	char pct[16];
	int ok = 1, fd, i;
	const char *files[][2] = {
		{ "/sys/kernel/debug/fail_mmap_action/task-filter", "Y" },
		{ "/sys/kernel/debug/fail_mmap_action/interval", "1" },
		{ "/sys/kernel/debug/fail_mmap_action/times", "-1" },
		{ "/sys/kernel/debug/fail_mmap_action/verbose", "0" },
		{ "/sys/kernel/debug/fail_mmap_action/probability", pct },
	};

	snprintf(pct, sizeof(pct), "%ld", fail_percent);
	for (i = 0; i < 5; i++) {
		fd = open(files[i][0], O_WRONLY);
		ok &= fd >= 0 && write(fd, files[i][1], strlen(files[i][1])) > 0;
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/* Fork the workers, spread over the devices; each gets a slice of a buffer. */
static void start_workers(pid_t *pids)
{
	struct worker w;
	long p, q;

	for (p = 0; p < procs; p++) {
		int sharers = 0, slot = 0;

		memset(&w, 0, sizeof(w));
		w.index = p;
		w.dev = &devices[p % n_devices];
		for (q = 0; q < procs; q++) {
			if (q % n_devices == p % n_devices) {
				slot += q < p;
				sharers++;
			}
		}
		w.pages = w.dev->pages ? w.dev->pages / sharers : 1;
		w.first_page = w.dev->pages ? slot * w.pages : 0;
		w.res = &results[p];
		pids[p] = fork();
		if (pids[p] == 0)
			run_worker(&w);
	}
}

int main(void)
{
	struct mem_state unloaded0, loaded0, loaded1, unloaded1;
	pid_t pids[MAX_PROCS], unloader;
	char failed[128];
	long p, total_rounds = 0, total_threads = 0, mismatches = 0, forks = 0;
	long injected = 0, errors = 0, fork_attempts = 0, d_rounds[MAX_DEVICES] = { 0 };
	double d_seconds[MAX_DEVICES] = { 0 };
	int d, status, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	snprintf(modules, sizeof(modules), "%s", env_or("MMAP_LAB_STRESS_MODULES", ""));
	procs = strtol(env_or("MMAP_LAB_STRESS_PROCS", "8"), NULL, 0);
	rounds = strtol(env_or("MMAP_LAB_STRESS_ROUNDS", "200"), NULL, 0);
	threads = strtol(env_or("MMAP_LAB_STRESS_THREADS", "1"), NULL, 0);
	fail_percent = strtol(env_or("MMAP_LAB_STRESS_FAIL_PERCENT", "2"), NULL, 0);
	results = mmap(NULL, sizeof(*results) * MAX_PROCS, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (parse_devices() || procs < 1 || procs > MAX_PROCS || rounds < 1 ||
	    results == MAP_FAILED || ctl == MAP_FAILED) {
		tap(0, "MMAP_LAB_STRESS_DEVICES/MODULES/PROCS/ROUNDS are set and valid");
		printf("1..%d\n", test_no);
		return 1;
	}
	memset(results, 0, sizeof(*results) * MAX_PROCS);
	memset(ctl, 0, sizeof(*ctl));
	printf("# stress: %ld processes x %ld rounds, %ld helper threads each, %ld CPUs online, "
	       "fault injection %ld%% for the armed devices\n",
	       procs, rounds, threads, sysconf(_SC_NPROCESSORS_ONLN), fail_percent);

	/*
	 * Two baselines: without the modules (they must leave nothing behind
	 * when unloaded) and with them loaded (the run must leave nothing).
	 */
	err = apply_to_modules(unload_module, failed, sizeof(failed));
	tap(!err, "the modules loaded at boot unload before the run%s%s", err ? ": " : "",
	    err ? failed : "");
	mem_state(&unloaded0);
	print_state("no modules", &unloaded0);
	err = apply_to_modules(load_module, failed, sizeof(failed));
	tap(!err, "the program loads every module again (finit_module)%s%s", err ? ": " : "",
	    err ? failed : "");
	if (err) {
		printf("1..%d\n", test_no);
		return 1;
	}
	mem_state(&loaded0);
	print_state("modules loaded, before the run", &loaded0);
	/* So that the vmalloc comparisons below can fail: the modules show. */
	tap(loaded0.vmalloc_areas > unloaded0.vmalloc_areas,
	    "/proc/vmallocinfo shows the modules' areas (%ld with them, %ld without)",
	    loaded0.vmalloc_areas, unloaded0.vmalloc_areas);

	if (fail_percent)
		tap(set_fault_injection(),
		    "fail_mmap_action armed at %ld%% for the tasks that ask (task-filter)",
		    fail_percent);

	start_workers(pids);
	while (atomic_load(&ctl->opened) < procs)
		usleep(1000);
	unloader = fork();
	if (unloader == 0)
		run_unloader();
	atomic_store(&ctl->go, 1);
	while (atomic_load(&ctl->done) < procs)
		usleep(10000);
	atomic_store(&ctl->stop_unloader, 1);
	waitpid(unloader, &status, 0);
	atomic_store(&ctl->release, 1);

	for (p = 0; p < procs; p++) {
		struct worker_result *r = &results[p];
		int dev = p % n_devices;

		if (waitpid(pids[p], &status, 0) != pids[p] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			r->errors++;
		total_rounds += r->rounds;
		total_threads += r->thread_rounds;
		mismatches += r->mismatches;
		forks += r->forks;
		fork_attempts += r->fork_attempts;
		injected += r->injected;
		errors += r->errors;
		d_rounds[dev] += r->rounds;
		d_seconds[dev] += r->seconds;
		if (r->errors)
			printf("# worker %ld (%s): %ld errors, first: %s\n", p, devices[dev].name,
			       r->errors, r->first_error);
	}
	for (d = 0; d < n_devices; d++)
		if (d_seconds[d] > 0)
			printf("# rate: %s %.0f rounds/s per process\n", devices[d].name,
			       d_rounds[d] / d_seconds[d]);

	tap(total_rounds == procs * rounds, "%ld processes finished %ld rounds each (%ld rounds)",
	    procs, rounds, total_rounds);
	tap(errors == 0, "no unexpected error in any worker or helper thread (%ld)", errors);
	tap(mismatches == 0,
	    "no data mismatch through read(), partial munmap, mremap or a fork child (%ld)",
	    mismatches);
	tap(forks > 0 && forks == fork_attempts,
	    "every forked child checked the shared mapping and exited (%ld of %ld)", forks,
	    fork_attempts);
	tap(total_threads > 0,
	    "helper threads mapped and unmapped the same devices concurrently (%ld rounds)",
	    total_threads);
	if (fail_percent)
		tap(injected > 0,
		    "injected action failures gave the device's errno and left no VMA (%ld)",
		    injected);
	tap(ctl->attempts > 0 && ctl->unloaded == 0,
	    "rmmod refused while files were open (%ld attempts, %ld succeeded%s%s)",
	    ctl->attempts, ctl->unloaded, ctl->unloaded ? ", first: " : "", ctl->what);

	if (fail_percent) {
		int fd = open("/sys/kernel/debug/fail_mmap_action/probability", O_WRONLY);

		if (fd < 0 || write(fd, "0", 1) != 1)
			printf("# could not disarm fail_mmap_action\n");
		if (fd >= 0)
			close(fd);
	}
	mem_state(&loaded1);
	print_state("modules loaded, after the run", &loaded1);
	tap(labs(loaded1.committed_kb - loaded0.committed_kb) <= 1024,
	    "Committed_AS back at its value before the run, within 1 MiB (%+ld kB)",
	    loaded1.committed_kb - loaded0.committed_kb);
	tap(loaded1.free_kb - loaded0.free_kb >= -4096,
	    "MemFree back at its value before the run, within 4 MiB (%+ld kB)",
	    loaded1.free_kb - loaded0.free_kb);
	tap(loaded1.vmalloc_kb == loaded0.vmalloc_kb &&
	    loaded1.vmalloc_areas == loaded0.vmalloc_areas,
	    "vmallocinfo's busy areas as before the run (%+ld kB, %+ld areas)",
	    loaded1.vmalloc_kb - loaded0.vmalloc_kb,
	    loaded1.vmalloc_areas - loaded0.vmalloc_areas);

	err = apply_to_modules(unload_module, failed, sizeof(failed));
	tap(!err, "every module unloads at the end%s%s", err ? ": " : "", err ? failed : "");
	mem_state(&unloaded1);
	print_state("no modules, after the run", &unloaded1);
	tap(unloaded1.vmalloc_kb == unloaded0.vmalloc_kb &&
	    unloaded1.vmalloc_areas == unloaded0.vmalloc_areas,
	    "unloaded, vmallocinfo's busy areas as before the modules were loaded (%+ld kB)",
	    unloaded1.vmalloc_kb - unloaded0.vmalloc_kb);
	tap(unloaded1.free_kb - unloaded0.free_kb >= -4096,
	    "unloaded, MemFree back at its value before they were loaded, within 4 MiB (%+ld kB)",
	    unloaded1.free_kb - unloaded0.free_kb);
	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}

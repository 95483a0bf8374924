/*
 * daemon/shm_stats.h - shm-enable: the statistics in System V shared
 * memory, laid out as Unbound 1.17 (64-bit Linux, Debian's build) lays
 * them out, so that `unbound-control stats_shm` reads petrel's counters.
 *
 * Two segments: key shm-key holds the process-wide values (an int, the
 * number of threads; time.now, time.up, time.elapsed as struct timeval;
 * the memory counters), key shm-key+1 one block of SHM_STATS_THREAD_WORDS
 * 64-bit words per thread, the total first. unbound-control takes the
 * number of threads from its own config, not from the segment. The
 * supervisor creates both at start, writes them from its own loop (every
 * statistics-interval seconds, or every second when that is 0) with the
 * counters petrel-control stats_noreset prints, and removes them at exit.
 * Nothing on the query path touches them.
 */
#ifndef DAEMON_SHM_STATS_H
#define DAEMON_SHM_STATS_H

struct daemon;
struct stats_info;
struct stats_globals;

/** 64-bit words of Unbound 1.17's struct ub_stats_info (5264 bytes) */
#define SHM_STATS_THREAD_WORDS 658
/** 64-bit words of the first segment (struct ub_shm_stat_info and room) */
#define SHM_STATS_MAIN_WORDS 32

/**
 * Fill the two segments' images from the counters (what the timer writes;
 * a pure function, for the tests).
 * @param main: SHM_STATS_MAIN_WORDS words: the number of threads, the
 *	times and the memory counters.
 * @param threads: (room + 1) blocks of SHM_STATS_THREAD_WORDS words: the
 *	total, then one per worker.
 * @param info: n workers' counters, all counted in the total.
 * @param n: their number.
 * @param room: the worker blocks threads has room for (those past it are
 *	only in the total).
 * @param g: the process-wide values.
 */
void shm_stats_fill(void *main, void *threads, const struct stats_info *info,
	int n, int room, const struct stats_globals *g);

/**
 * With shm-enable: create the segments and the timer that writes them,
 * on d->base. An error (a segment with another size, no permission) is
 * logged once and petrel runs without them.
 * @return 0 (also when there is no shm), -1 when out of memory.
 */
int shm_stats_start(struct daemon *d);

/** Stop writing, detach and remove the segments (IPC_RMID). */
void shm_stats_stop(struct daemon *d);

#endif /* DAEMON_SHM_STATS_H */

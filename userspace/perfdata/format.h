/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format: perf.data's on-disk structures that perf stat record writes and
 * perf stat report reads, copied from perf's own headers (Linux
 * tools/lib/perf/include/perf/event.h for the records, tools/perf/util/
 * header.h for the file header and its features). Host endianness, as
 * perf writes them; the sizes are asserted below and the layout is
 * checked byte for byte against a file perf wrote (tests/statrec_test.c).
 *
 * Only what a stat record holds is here: sampling records are not.
 */
#ifndef CTXSTAT_PERFDATA_FORMAT_H
#define CTXSTAT_PERFDATA_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* "PERFILE2" read as a host-endian u64 */
#define CXS_PERF_MAGIC		0x32454c4946524550ULL

/* perf's record types (enum perf_user_event_type) that stat uses */
enum {
	CXS_PERF_RECORD_HEADER_ATTR	= 64,
	CXS_PERF_RECORD_THREAD_MAP	= 73,
	CXS_PERF_RECORD_CPU_MAP		= 74,
	CXS_PERF_RECORD_STAT_CONFIG	= 75,
	CXS_PERF_RECORD_STAT		= 76,
	CXS_PERF_RECORD_STAT_ROUND	= 77,
	CXS_PERF_RECORD_EVENT_UPDATE	= 78,
};

/* header.h's feature bits, in perf's order (bits of adds_features) */
enum {
	CXS_HEADER_HOSTNAME	= 3,
	CXS_HEADER_OSRELEASE	= 4,
	CXS_HEADER_VERSION	= 5,
	CXS_HEADER_ARCH		= 6,
	CXS_HEADER_NRCPUS	= 7,
	CXS_HEADER_CMDLINE	= 11,
	CXS_HEADER_EVENT_DESC	= 12,
	CXS_HEADER_STAT		= 19,
	CXS_HEADER_FEAT_BITS	= 256,
};

/* do_write_string(): a string's length is padded to this, NUL included */
#define CXS_PERF_NAME_ALIGN	64

struct cxs_perf_file_section {
	uint64_t offset;
	uint64_t size;
};

struct cxs_perf_file_header {
	uint64_t magic;
	uint64_t size;		/* sizeof(struct cxs_perf_file_header) */
	uint64_t attr_size;	/* sizeof(struct cxs_perf_file_attr) */
	struct cxs_perf_file_section attrs;
	struct cxs_perf_file_section data;
	struct cxs_perf_file_section event_types;	/* ignored, zeros */
	uint64_t adds_features[CXS_HEADER_FEAT_BITS / 64];
};

struct cxs_perf_pipe_file_header {
	uint64_t magic;
	uint64_t size;		/* sizeof(struct cxs_perf_pipe_file_header) */
};

struct cxs_perf_file_attr {
	struct perf_event_attr attr;
	struct cxs_perf_file_section ids;
};

/* PERF_RECORD_HEADER_ATTR: the attr, then one u64 id per instance. */
struct cxs_perf_record_attr {
	struct perf_event_header header;
	struct perf_event_attr attr;
};

enum {
	CXS_PERF_EVENT_UPDATE_UNIT	= 0,
	CXS_PERF_EVENT_UPDATE_SCALE	= 1,
	CXS_PERF_EVENT_UPDATE_NAME	= 2,
};

/* PERF_RECORD_EVENT_UPDATE: a NUL-terminated unit or name, or a double. */
struct cxs_perf_record_event_update {
	struct perf_event_header header;
	uint64_t type;
	uint64_t id;
	/* char unit[] / char name[] / double scale follow */
};

struct cxs_perf_thread_map_entry {
	uint64_t pid;
	char comm[16];
};

struct cxs_perf_record_thread_map {
	struct perf_event_header header;
	uint64_t nr;
	struct cxs_perf_thread_map_entry entries[];
};

enum {
	CXS_PERF_CPU_MAP_CPUS		= 0,
	CXS_PERF_CPU_MAP_MASK		= 1,
	CXS_PERF_CPU_MAP_RANGE_CPUS	= 2,
};

/*
 * PERF_RECORD_CPU_MAP's data, packed as perf's: a u16 type, then for
 * CPUS a u16 count and a u16 per CPU (-1: "any CPU", a task's counters),
 * the whole padded to 8 bytes.
 */
struct cxs_perf_cpu_map_cpus {
	uint16_t type;
	uint16_t nr;
	uint16_t cpu[];
} __attribute__((packed));

/* type MASK: nr words of long_size bytes (4 or 8) follow */
struct cxs_perf_cpu_map_mask {
	uint16_t type;
	uint16_t nr;
	uint16_t long_size;
} __attribute__((packed));

/* type RANGE_CPUS: start_cpu..end_cpu, with -1 first when any_cpu */
struct cxs_perf_cpu_map_range {
	uint16_t type;
	uint8_t any_cpu;
	uint8_t pad;
	uint16_t start_cpu;
	uint16_t end_cpu;
} __attribute__((packed));

/*
 * PERF_RECORD_STAT_CONFIG's terms. perf 6.1 writes the first three;
 * AGGR_LEVEL came later (--per-cache), and readers take any number.
 */
enum {
	CXS_PERF_STAT_CONFIG_AGGR_MODE	= 0,
	CXS_PERF_STAT_CONFIG_INTERVAL	= 1,
	CXS_PERF_STAT_CONFIG_SCALE	= 2,
};

/*
 * perf's enum aggr_mode: only the first two values are the same in
 * every perf (the others moved when per-cluster and per-cache came).
 * Per thread is perf 6.1's number (Debian 12's perf, the one tested):
 * a later perf reads perf 6.1's own per-thread files as per cache too.
 */
enum {
	CXS_PERF_AGGR_NONE	= 0,
	CXS_PERF_AGGR_GLOBAL	= 1,
	CXS_PERF_6_1_AGGR_THREAD = 5,
};

struct cxs_perf_stat_config_entry {
	uint64_t tag;
	uint64_t val;
};

struct cxs_perf_record_stat_config {
	struct perf_event_header header;
	uint64_t nr;
	struct cxs_perf_stat_config_entry data[];
};

/* PERF_RECORD_STAT: one counter's reading on one CPU for one thread. */
struct cxs_perf_record_stat {
	struct perf_event_header header;
	uint64_t id;
	uint32_t cpu;		/* the CPU's number; (u32)-1 for any CPU */
	uint32_t thread;	/* index in the thread map */
	uint64_t val, ena, run;
};

enum {
	CXS_PERF_STAT_ROUND_INTERVAL	= 0,
	CXS_PERF_STAT_ROUND_FINAL	= 1,
};

/* PERF_RECORD_STAT_ROUND: the readings so far make one table. */
struct cxs_perf_record_stat_round {
	struct perf_event_header header;
	uint64_t type;
	uint64_t time;		/* ns: the run's wall time (FINAL) */
};

_Static_assert(sizeof(struct cxs_perf_file_header) == 104, "perf_file_header");
_Static_assert(sizeof(struct cxs_perf_thread_map_entry) == 24, "thread map entry");
_Static_assert(sizeof(struct cxs_perf_record_stat) == 48, "perf_record_stat");
_Static_assert(sizeof(struct cxs_perf_record_stat_round) == 24, "stat_round");
_Static_assert(sizeof(struct cxs_perf_record_event_update) == 24, "event_update");
_Static_assert(sizeof(struct cxs_perf_cpu_map_range) == 8, "range cpu map");
_Static_assert(offsetof(struct cxs_perf_cpu_map_cpus, cpu) == 4, "cpus cpu map");

#endif

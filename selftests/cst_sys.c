// SPDX-License-Identifier: GPL-2.0
/*
 * cst_sys: the system the selftests run on (see cst_sys.h): the module,
 * its parameters, the programs' paths, CPUs and perf's own counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "cst_nl.h"
#include "cst_run.h"
#include "cst_sys.h"

int cst_cpu_is_online(int cpu)
{
	char path[128], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

ssize_t cst_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

int cst_cpu_set_online(int cpu, int on)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

bool cst_module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/ctxcount", &st) == 0;
}

int cst_param_get(const char *name, long *val)
{
	char path[256], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ctxcount/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*val = strtol(buf, NULL, 0);
	return 0;
}

bool cst_param_is_set(const char *name)
{
	char path[256], buf[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ctxcount/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] == 'Y' || buf[0] == '1';
}

int cst_param_set(const char *name, long val)
{
	char path[256];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/module/ctxcount/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%ld\n", val) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

const char *cst_ko_path(void)
{
	const char *p = getenv("CTXCOUNT_KO");

	return p && *p ? p : "/ctx/module/ctxcount.ko";
}

const char *cst_ctxstat_path(void)
{
	const char *p = getenv("CTXSTAT");

	return p && *p ? p : "/ctx/bin/ctxstat";
}

const char *cst_ctxload_path(void)
{
	const char *p = getenv("CTXLOAD");

	return p && *p ? p : "/ctx/bin/ctxload";
}

const char *cst_self_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return dir;
}

const char *cst_workload_path(void)
{
	static char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/ctx_workload", cst_self_dir());
	return path;
}

static int cst_copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

const char *cst_workload_copy(void)
{
	char dir[] = "/tmp/ctx_workload.XXXXXX";
	static char path[sizeof(dir) + 16];
	int err;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof(path), "%s/ctx_workload", dir);
	err = cst_copy_file(cst_workload_path(), path, 0755);
	if (err) {
		unlink(path);
		rmdir(dir);
		errno = -err;
		return NULL;
	}
	return path;
}

void cst_workload_copy_remove(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (!path)
		return;
	unlink(path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		rmdir(dir);
	}
}

int cst_irq_hooked(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/enabled_functions",
		"/sys/kernel/debug/tracing/enabled_functions",
	};
	char line[512];
	unsigned int i;
	FILE *f = NULL;
	int found = 0;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !f; i++)
		f = fopen(paths[i], "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "irq_enter_rcu ", 14))
			found = 1;
	fclose(f);
	return found;
}

int cst_irq_hooked_wait(int want, int ms)
{
	int ret = cst_irq_hooked();

	for (; ret >= 0 && ret != want && ms > 0; ms -= 20) {
		usleep(20000);
		ret = cst_irq_hooked();
	}
	return ret;
}

int cst_rmmod(void)
{
	int i;

	/* A session's last reference may be dropped by RCU; retry briefly. */
	for (i = 0; i < 50; i++) {
		if (!syscall(SYS_delete_module, "ctxcount", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(100000);
	}
	return -errno;
}

int cst_insmod(const char *params)
{
	int fd = open(cst_ko_path(), O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

/* The loaded module's numeric parameters, "name=value ...": their length. */
static size_t current_limits(char *buf, size_t len)
{
	static const char *const names[] = {
		"max_sessions", "max_sessions_per_user",
		"max_counters_per_user", "max_sessions_per_socket",
	};
	size_t n = 0;
	unsigned int i;
	long v;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if (!cst_param_get(names[i], &v))
			n += snprintf(buf + n, len - n, "%s%s=%ld",
				      n ? " " : "", names[i], v);
	return n < len ? n : len;
}

void cst_current_params(char *buf, size_t len)
{
	size_t n = current_limits(buf, len);

	if (n < len && cst_param_is_set("irq_source_entry_reads"))
		snprintf(buf + n, len - n, "%sirq_source_entry_reads=1",
			 n ? " " : "");
}

int cst_reload(int entry_reads)
{
	char params[320];
	size_t n = current_limits(params, sizeof(params));
	int ret;

	if (entry_reads < 0)
		entry_reads = cst_param_is_set("irq_source_entry_reads");
	if (entry_reads && n < sizeof(params))
		snprintf(params + n, sizeof(params) - n,
			 "%sirq_source_entry_reads=1", n ? " " : "");
	ret = cst_module_loaded() ? cst_rmmod() : 0;
	return ret ?: cst_insmod(params);
}

const char *cst_cannot_run(void)
{
	struct cst_sock s;
	int ret;

	if (geteuid() != 0)
		return "must run as root\n";
	if (!cst_module_loaded())
		return "ctxcount module not loaded (insmod ctxcount.ko first)\n";
	ret = cst_open(&s);
	if (ret == -ENOENT)
		return "ctxcount module loaded but its genl family is missing\n";
	if (ret)
		return "cannot open a generic netlink socket\n";
	cst_close(&s);
	return NULL;
}

long long cst_perf_count(uint32_t type, uint64_t config, uint32_t flags,
			 void (*fn)(void *), void *arg)
{
	struct perf_event_attr pa;
	long long count;
	int fd;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config = config;
	pa.disabled = 1;
	pa.exclude_user = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_USER);
	pa.exclude_kernel = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL);
	pa.exclude_hv = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_HV);
	fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -EIO;
	close(fd);
	return count;
}

int cst_stat_argv(char **argv, bool perf, const char *event)
{
	int n = 0;

	argv[n++] = (char *)(perf ? cst_perf_path() : cst_ctxstat_path());
	if (perf)
		argv[n++] = "stat";
	argv[n++] = "-x,";
	argv[n++] = "-e";
	argv[n++] = (char *)event;
	return n;
}

const char *cst_perf_path(void)
{
	/*
	 * A versioned binary first: where /usr/bin/perf is Debian's wrapper
	 * it looks for perf_$(running kernel), which may not be installed.
	 */
	static const char *const cands[] = {
		"/usr/bin/perf_6.1", "/usr/bin/perf_6.12", "/usr/bin/perf",
		"/usr/local/bin/perf", "/usr/sbin/perf",
	};
	const char *env = getenv("PERF");
	unsigned int i;

	if (env && *env && !access(env, X_OK))
		return env;
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!access(cands[i], X_OK))
			return cands[i];
	return NULL;
}

/*
 * Whether the hardware instruction counter counts here: the module's answer
 * first, then the kernel's own perf_event_open on a known loop.
 */
const char *cst_no_insn_reason(char *buf, size_t len)
{
	static const struct cst_ev insn = CST_EV_HW(INSTRUCTIONS, 0, "instructions");
	uint64_t n = 100000;
	long long c;
	int err = cst_event_error(&insn);

	if (err) {
		snprintf(buf, len, "no hardware PMU (instructions: %s)",
			 strerror(-err));
		return buf;
	}
	c = cst_perf_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0,
			   cst_loop_fn, &n);
	if (c <= 0) {
		snprintf(buf, len,
			 "no hardware PMU (perf_event_open instructions: %lld)", c);
		return buf;
	}
	return NULL;
}

int cst_paranoid_get(long *val)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%ld", val) != 1)
		ret = -EIO;
	fclose(f);
	return ret;
}

int cst_paranoid_set(long val)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%ld\n", val) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

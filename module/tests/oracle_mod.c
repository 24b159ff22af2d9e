// SPDX-License-Identifier: GPL-2.0
/*
 * Test-bed oracle for ctxcount's attribution: interrupts that do known work,
 * raised on the CPU of the task that asks for them, so a session on that
 * task can be checked against what the interrupts did (selftests/oracle).
 *
 * /sys/kernel/debug/ctxoracle/run takes one command per write:
 *
 *   hardirq N K M  N hardirqs, one after the other (an irq_work self-IPI
 *                  where the architecture has one, else an hrtimer), each
 *                  running K iterations of oracle_loop(); with M > 0 each
 *                  also schedules a tasklet of M iterations, which runs on
 *                  the way out of that hardirq (TASKLET softirq)
 *   softirq N M    N tasklets of M iterations, each run by the writer's
 *                  own local_bh_enable(): softirqs without a hardirq
 *   nmi N T        (x86) N NMIs sent to this CPU, each handler spinning
 *                  until local_clock() moved T ns
 *   storm HZ [T]   an hrtimer pinned to this CPU, firing HZ times a second
 *                  in hard interrupt context and doing nothing else (no
 *                  wake-up, no softirq), or with T = 1 scheduling an empty
 *                  tasklet (softirqs on its way out); 0 stops it
 *   devirq N K     N interrupts of the oracle's own irq ("ctxoracle" in
 *                  /proc/interrupts: a dummy-chip irq with a handler of K
 *                  iterations, IRQF_NO_THREAD), each raised by
 *                  generic_handle_irq() from a hard irq_work: the irq's
 *                  window nests in the irq_work interrupt's (arm64: IPI 5;
 *                  x86: the irq_work vector), and each shows twice in
 *                  /proc/interrupts
 *   kloop N        N iterations of oracle_loop() in the writer's own
 *                  context, interrupts enabled: what an interrupt costs
 *                  the task when it lands in kernel mode (a storm's
 *                  against a user-space loop's)
 *   tpprobe 1|0    an empty probe on the irq_handler_exit tracepoint on
 *                  or off: what the kernel's dispatch of a handler window
 *                  costs before ctxcount's probe does anything
 *                  (selftests/bench, section 1)
 *
 * A write returns once every interrupt it asked for has run (-ETIMEDOUT if
 * one did not come within a second). /sys/kernel/debug/ctxoracle/stats
 * counts the handlers that ran: "hardirqs H tasklets T nmis N storm S
 * devirqs D virq V" (V: the oracle irq's number, -1 without one).
 *
 * oracle_loop() is two instructions per iteration (see selftests/README.md,
 * "The loop of known length"), so K iterations retire exactly 2K.
 *
 * It also registers a PMU "ctxoracle_uncore" that behaves as uncore PMUs
 * do for what ctxcount must refuse (issue 21): no task context, and a CPU
 * event moved to the first online CPU (the package's); each read adds
 * 1,000 to the count.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

/* module/compat.h, copied next to this file by scripts/vm */
#include "compat.h"

#define ORACLE_TIMEOUT_NS	NSEC_PER_SEC
#define ORACLE_MAX_STORM_HZ	200000

static DEFINE_MUTEX(oracle_lock);
static unsigned long oracle_k;		/* loop iterations per hardirq */
static unsigned long oracle_m;		/* loop iterations per tasklet */
static atomic_long_t oracle_hardirqs;
static atomic_long_t oracle_tasklets;
static atomic_long_t oracle_nmis;
/* local_clock() time its NMI handlers spun, which a busy host shortens */
static atomic64_t oracle_nmi_spun_ns;
static atomic_long_t oracle_storm_fired;
static atomic_long_t oracle_devirqs;
static unsigned long oracle_dev_k;	/* loop iterations per devirq */
static int oracle_virq = -1;
static struct dentry *oracle_dir;

/* Exactly two instructions per iteration; @n > 0. */
static noinline void oracle_loop(unsigned long n)
{
#if defined(CONFIG_ARM64)
	asm volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r" (n) : : "cc");
#elif defined(CONFIG_X86)
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
#else
	while (n--)
		barrier();
#endif
}

static void oracle_tasklet_fn(struct tasklet_struct *t)
{
	if (oracle_m)
		oracle_loop(oracle_m);
	atomic_long_inc(&oracle_tasklets);
}

static DECLARE_TASKLET(oracle_tasklet, oracle_tasklet_fn);

static void oracle_hardirq_body(void)
{
	if (oracle_k)
		oracle_loop(oracle_k);
	if (oracle_m)
		tasklet_schedule(&oracle_tasklet);
	atomic_long_inc(&oracle_hardirqs);
}

static void oracle_irq_work_fn(struct irq_work *work)
{
	oracle_hardirq_body();
}

/* Hard interrupt context on PREEMPT_RT too. */
static struct irq_work oracle_irq_work = IRQ_WORK_INIT_HARD(oracle_irq_work_fn);

static struct hrtimer oracle_oneshot;

static irqreturn_t oracle_devirq_handler(int irq, void *dev)
{
	if (oracle_dev_k)
		oracle_loop(oracle_dev_k);
	atomic_long_inc(&oracle_devirqs);
	return IRQ_HANDLED;
}

/* A hard irq_work: a hardirq on PREEMPT_RT too. */
static void oracle_devirq_work_fn(struct irq_work *work)
{
	generic_handle_irq(oracle_virq);
}

static struct irq_work oracle_devirq_work =
	IRQ_WORK_INIT_HARD(oracle_devirq_work_fn);

static enum hrtimer_restart oracle_oneshot_fn(struct hrtimer *t)
{
	oracle_hardirq_body();
	return HRTIMER_NORESTART;
}

/* Spin until @counter reaches @want; false after ORACLE_TIMEOUT_NS. */
static bool oracle_wait(atomic_long_t *counter, long want)
{
	u64 t0 = local_clock();

	while (atomic_long_read(counter) < want) {
		if (local_clock() - t0 > ORACLE_TIMEOUT_NS)
			return false;
		cpu_relax();
	}
	return true;
}

static void oracle_raise_hardirq(void)
{
	if (arch_irq_work_has_interrupt())
		irq_work_queue(&oracle_irq_work);
	else
		hrtimer_start(&oracle_oneshot, 0, HRTIMER_MODE_REL_PINNED_HARD);
}

static int oracle_hardirqs_run(unsigned long n)
{
	long want = atomic_long_read(&oracle_hardirqs);
	long tasklets = atomic_long_read(&oracle_tasklets);
	unsigned long i;
	bool ok = true;

	for (i = 0; i < n && ok; i++) {
		/* On this CPU. */
		preempt_disable();
		oracle_raise_hardirq();
		ok = oracle_wait(&oracle_hardirqs, ++want);
		preempt_enable();
		/* Already run on the way out of the hardirq, except on RT. */
		if (ok && oracle_m)
			ok = oracle_wait(&oracle_tasklets, ++tasklets);
	}
	return ok ? 0 : -ETIMEDOUT;
}

static int oracle_devirqs_run(unsigned long n, unsigned long k)
{
	long want = atomic_long_read(&oracle_devirqs);
	unsigned long i;
	bool ok = true;

	if (oracle_virq < 0 || !arch_irq_work_has_interrupt())
		return -EOPNOTSUPP;
	oracle_dev_k = k;
	for (i = 0; i < n && ok; i++) {
		preempt_disable();
		irq_work_queue(&oracle_devirq_work);
		ok = oracle_wait(&oracle_devirqs, ++want);
		preempt_enable();
	}
	return ok ? 0 : -ETIMEDOUT;
}

/*
 * The oracle's irq: a descriptor of its own on the dummy chip, as the
 * kernel's irq_sim makes them (no domain: the same code on every kernel).
 * Optional: without it, devirq fails.
 */
static void oracle_virq_setup(void)
{
	int irq, err;

	irq = irq_alloc_desc(NUMA_NO_NODE);
	if (irq < 0)
		return;
	irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
	irq_modify_status(irq, IRQ_NOREQUEST | IRQ_NOAUTOEN, IRQ_NOPROBE);
	err = request_irq(irq, oracle_devirq_handler, IRQF_NO_THREAD,
			  "ctxoracle", &oracle_devirqs);
	if (err) {
		irq_free_desc(irq);
		return;
	}
	oracle_virq = irq;
}

static void oracle_virq_teardown(void)
{
	irq_work_sync(&oracle_devirq_work);
	if (oracle_virq < 0)
		return;
	free_irq(oracle_virq, &oracle_devirqs);
	irq_free_desc(oracle_virq);
}

static int oracle_softirqs_run(unsigned long n)
{
	long want = atomic_long_read(&oracle_tasklets);
	unsigned long i;
	bool ok = true;

	for (i = 0; i < n && ok; i++) {
		/* local_bh_enable() runs the pending tasklet right here. */
		local_bh_disable();
		tasklet_schedule(&oracle_tasklet);
		local_bh_enable();
		ok = oracle_wait(&oracle_tasklets, ++want);
	}
	return ok ? 0 : -ETIMEDOUT;
}

#ifdef CONFIG_X86
#define ORACLE_NMI_MAX_SPINS	1000000UL	/* 200 us: about 10,000 */
static u64 oracle_nmi_ns;		/* spin per NMI */
static atomic_t oracle_nmi_pending;

static int oracle_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned long spins = 0;
	u64 t0;

	if (atomic_dec_if_positive(&oracle_nmi_pending) < 0)
		return NMI_DONE;
	/*
	 * Bounded: local_clock() need not move inside an NMI (with the TSC
	 * marked unstable, as on a busy TCG host, sched_clock follows
	 * jiffies, which this CPU may be the one to update). Unbounded, the
	 * x86_64-6.1 guest hung here once, its other CPU stuck in an IPI
	 * to this one.
	 */
	t0 = local_clock();
	while (local_clock() - t0 < oracle_nmi_ns && ++spins < ORACLE_NMI_MAX_SPINS)
		cpu_relax();
	atomic64_add(local_clock() - t0, &oracle_nmi_spun_ns);
	atomic_long_inc(&oracle_nmis);
	return NMI_HANDLED;
}

static int oracle_nmis_run(unsigned long n, u64 ns)
{
	long want = atomic_long_read(&oracle_nmis);
	unsigned long i;
	bool ok = true;

	oracle_nmi_ns = ns;
	for (i = 0; i < n && ok; i++) {
		preempt_disable();
		atomic_inc(&oracle_nmi_pending);
		apic->send_IPI(smp_processor_id(), NMI_VECTOR);
		ok = oracle_wait(&oracle_nmis, ++want);
		preempt_enable();
	}
	/* An NMI that never came must not claim a later, foreign one. */
	atomic_set(&oracle_nmi_pending, 0);
	return ok ? 0 : -ETIMEDOUT;
}

static int oracle_nmi_register(void)
{
	return register_nmi_handler(NMI_LOCAL, oracle_nmi, 0, "ctxoracle");
}

static void oracle_nmi_unregister(void)
{
	unregister_nmi_handler(NMI_LOCAL, "ctxoracle");
}
#else
static int oracle_nmis_run(unsigned long n, u64 ns)
{
	return -EOPNOTSUPP;
}

static int oracle_nmi_register(void)
{
	return 0;
}

static void oracle_nmi_unregister(void)
{
}
#endif /* CONFIG_X86 */

static struct hrtimer oracle_storm;
static ktime_t oracle_storm_period;
static bool oracle_storm_tasklet;

static void oracle_empty_fn(struct tasklet_struct *t)
{
}

static DECLARE_TASKLET(oracle_empty, oracle_empty_fn);

static enum hrtimer_restart oracle_storm_fn(struct hrtimer *t)
{
	/* One softirq run per interrupt from task context, none nested. */
	if (oracle_storm_tasklet && !in_serving_softirq())
		tasklet_schedule(&oracle_empty);
	hrtimer_forward_now(t, oracle_storm_period);
	atomic_long_inc(&oracle_storm_fired);
	return HRTIMER_RESTART;
}

static int oracle_storm_set(unsigned long hz, bool tasklet)
{
	hrtimer_cancel(&oracle_storm);
	oracle_storm_tasklet = tasklet;
	if (!hz)
		return 0;
	if (hz > ORACLE_MAX_STORM_HZ)
		return -EINVAL;
	oracle_storm_period = ns_to_ktime(NSEC_PER_SEC / hz);
	/* Pinned to the writer's CPU. */
	preempt_disable();
	hrtimer_start(&oracle_storm, oracle_storm_period,
		      HRTIMER_MODE_REL_PINNED_HARD);
	preempt_enable();
	return 0;
}

static struct tracepoint *oracle_tp;
static bool oracle_tp_on;

static void oracle_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "irq_handler_exit"))
		oracle_tp = tp;
}

static void oracle_tp_empty(void *data, int irq, struct irqaction *action,
			    int ret)
{
}

static int oracle_tpprobe_set(bool on)
{
	int err;

	if (on == oracle_tp_on)
		return 0;
	if (!oracle_tp)
		for_each_kernel_tracepoint(oracle_tp_find, NULL);
	if (!oracle_tp)
		return -ENOENT;
	if (on)
		err = tracepoint_probe_register(oracle_tp, oracle_tp_empty, NULL);
	else
		err = tracepoint_probe_unregister(oracle_tp, oracle_tp_empty, NULL);
	if (err)
		return err;
	if (!on)
		tracepoint_synchronize_unregister();
	oracle_tp_on = on;
	return 0;
}

static int oracle_command(const char *cmd)
{
	unsigned long n, a, b;

	if (sscanf(cmd, "hardirq %lu %lu %lu", &n, &a, &b) == 3) {
		oracle_k = a;
		oracle_m = b;
		return oracle_hardirqs_run(n);
	}
	if (sscanf(cmd, "devirq %lu %lu", &n, &a) == 2)
		return oracle_devirqs_run(n, a);
	if (sscanf(cmd, "softirq %lu %lu", &n, &b) == 2) {
		oracle_m = b;
		return oracle_softirqs_run(n);
	}
	if (sscanf(cmd, "nmi %lu %lu", &n, &a) == 2)
		return oracle_nmis_run(n, a);
	if (sscanf(cmd, "storm %lu %lu", &n, &a) == 2)
		return oracle_storm_set(n, a);
	if (sscanf(cmd, "storm %lu", &n) == 1)
		return oracle_storm_set(n, false);
	if (sscanf(cmd, "tpprobe %lu", &n) == 1)
		return oracle_tpprobe_set(n);
	if (sscanf(cmd, "kloop %lu", &n) == 1) {
		if (n)
			oracle_loop(n);
		return 0;
	}
	return -EINVAL;
}

static ssize_t oracle_run_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[64];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&oracle_lock);
	err = oracle_command(buf);
	mutex_unlock(&oracle_lock);
	return err ?: len;
}

static const struct file_operations oracle_run_fops = {
	.owner = THIS_MODULE,
	.write = oracle_run_write,
	.llseek = noop_llseek,
};

static int oracle_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "hardirqs %ld tasklets %ld nmis %ld storm %ld devirqs %ld virq %d nmi_ns %lld\n",
		   atomic_long_read(&oracle_hardirqs),
		   atomic_long_read(&oracle_tasklets),
		   atomic_long_read(&oracle_nmis),
		   atomic_long_read(&oracle_storm_fired),
		   atomic_long_read(&oracle_devirqs), oracle_virq,
		   (long long)atomic64_read(&oracle_nmi_spun_ns));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(oracle_stats);

static struct pmu oracle_uncore_pmu;

static int oracle_uncore_init(struct perf_event *event)
{
	if (event->attr.type != oracle_uncore_pmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EINVAL;
	/* One counter per package, on its first CPU, as uncore drivers do. */
	event->cpu = cpumask_first(cpu_online_mask);
	return 0;
}

static void oracle_uncore_read(struct perf_event *event)
{
	local64_add(1000, &event->count);
}

static int oracle_uncore_add(struct perf_event *event, int flags)
{
	return 0;
}

static void oracle_uncore_del(struct perf_event *event, int flags)
{
}

static void oracle_uncore_start(struct perf_event *event, int flags)
{
}

static void oracle_uncore_stop(struct perf_event *event, int flags)
{
}

static struct pmu oracle_uncore_pmu = {
	.task_ctx_nr	= perf_invalid_context,
	.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,
	.event_init	= oracle_uncore_init,
	.add		= oracle_uncore_add,
	.del		= oracle_uncore_del,
	.start		= oracle_uncore_start,
	.stop		= oracle_uncore_stop,
	.read		= oracle_uncore_read,
};

static int __init oracle_init(void)
{
	int err;

	ctx_hrtimer_setup(&oracle_oneshot, oracle_oneshot_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
	ctx_hrtimer_setup(&oracle_storm, oracle_storm_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
	err = oracle_nmi_register();
	if (err)
		return err;
	err = perf_pmu_register(&oracle_uncore_pmu, "ctxoracle_uncore", -1);
	if (err) {
		oracle_nmi_unregister();
		return err;
	}
	oracle_virq_setup();
	oracle_dir = debugfs_create_dir("ctxoracle", NULL);
	debugfs_create_file("run", 0200, oracle_dir, NULL, &oracle_run_fops);
	debugfs_create_file("stats", 0444, oracle_dir, NULL,
			    &oracle_stats_fops);
	return 0;
}

static void __exit oracle_exit(void)
{
	debugfs_remove_recursive(oracle_dir);
	oracle_tpprobe_set(false);
	hrtimer_cancel(&oracle_storm);
	hrtimer_cancel(&oracle_oneshot);
	irq_work_sync(&oracle_irq_work);
	oracle_virq_teardown();
	tasklet_kill(&oracle_tasklet);
	tasklet_kill(&oracle_empty);
	perf_pmu_unregister(&oracle_uncore_pmu);
	oracle_nmi_unregister();
}

module_init(oracle_init);
module_exit(oracle_exit);
MODULE_DESCRIPTION("ctxcount test bed: interrupts with known work, on request");
MODULE_LICENSE("GPL");

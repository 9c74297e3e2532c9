/*
 * hwloc.c - NUMA nodes (id, CPUs, latency matrix) from hwloc, and the XML
 * export that `fabtop capture` stores as fabtop/hwloc.xml.
 *
 * Where hwloc reads from: live "/" as usual; a capture's fabtop/hwloc.xml;
 * otherwise the mirror directory itself through HWLOC_FSROOT (hwloc 2.9 has
 * no set_fsroot API), only when the mirror has its CPU directories and
 * hwloc's CPUs are exactly those (else hwloc fills in this machine's).
 * When hwloc fails, the sysfs node directories are read through the root
 * instead, so the NUMA pane still has data; without them NUMA is unknown.
 * hwloc's XML import is not hardened against hostile files, so a capture's
 * hwloc.xml is loaded in a child process first (xml_probe): one that
 * crashes hwloc is "not read", and fabtop goes on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <hwloc.h>
#include "fabtop/collect.h"
#include "sysread.h"
#include "fabtop/util.h"

#define MAX_NODES 256
#define NODE_DIR "/sys/devices/system/node"

struct node_tmp {
	int id;
	hwloc_obj_t obj;
	char cpulist[FAB_LIST_LEN];
};

static int cmp_node(const void *a, const void *b)
{
	const struct node_tmp *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* Parses "10 21\n" into dist[]; returns how many numbers it read. */
static int parse_distances(const char *s, int *dist, int max)
{
	int n = 0;
	while (*s && n < max) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		dist[n++] = (int)v;
		s = end;
	}
	return n;
}

/* The kernel's distance row for one node, read through the root. */
static void sysfs_distances(const struct fab_root *r, struct fab_numa_node *n)
{
	char path[128], line[1024];
	snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", n->id);
	if (root_read_line(r, path, line, sizeof(line)) == 0)
		n->ndist = parse_distances(line, n->dist, 16);
}

/* The CPUs a mirror has: its /sys/devices/system/cpu/cpuN directories.
 * Returns how many. */
static int mirror_cpus(const struct fab_root *r, hwloc_bitmap_t set)
{
	char **names;
	int n = root_list(r, "/sys/devices/system/cpu", &names), found = 0;
	for (int i = 0; i < n; i++) {
		char *end;
		if (strncmp(names[i], "cpu", 3) != 0 || names[i][3] < '0' || names[i][3] > '9')
			continue;
		long id = strtol(names[i] + 3, &end, 10);
		if (*end || id < 0 || id > 65535)
			continue;
		hwloc_bitmap_set(set, (unsigned)id);
		found++;
	}
	if (n > 0)
		root_free_list(names, n);
	return found;
}

/* What every load asks of hwloc, here and in xml_probe()'s child. */
static void topology_setup(hwloc_topology_t t, bool with_io)
{
	/* The capture keeps every PCI and OS device, like lstopo --whole-io;
	 * the NUMA collector needs none (PCI comes from sysfs and libpci), and
	 * skipping them halves the load. */
	hwloc_topology_set_io_types_filter(t, with_io ? HWLOC_TYPE_FILTER_KEEP_ALL
						      : HWLOC_TYPE_FILTER_KEEP_NONE);
	/* The NUMA collector reads NUMA nodes, their CPUs and distances, and
	 * nothing of cores or caches: without those hwloc's Linux backend
	 * skips each CPU's cache files. Packages and groups stay: a NUMA node
	 * takes the CPU set of the object it hangs below, and without them
	 * that is the whole machine. The capture's XML keeps everything. */
	if (!with_io) {
		hwloc_topology_set_cache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
		hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
		hwloc_topology_set_type_filter(t, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_NONE);
	}

	/* PCI from sysfs by hwloc's Linux backend, live and under HWLOC_FSROOT
	 * alike: the libpciaccess plugin reads this machine's bus even for a
	 * mirror, leaks its pci.ids tables (ASan runs fail), and fabtop names
	 * devices through libpci anyway. */
	hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
}

/* What xml_probe() found hwloc does with an XML buffer. */
enum probe {
	PROBE_LOADS,          /* set_xmlbuffer and load succeed */
	PROBE_BAD_XML,        /* set_xmlbuffer refuses it (garbage) */
	PROBE_NO_LOAD,        /* the load refuses it */
	PROBE_CRASH,          /* hwloc died on it (err says how) */
};

/* hwloc's XML import trusts its input: hwloc 2.9 dereferences NULL loading
 * an object that has a cpuset but no complete_cpuset, and leaks objects
 * when it refuses a file (fuzz/fuzz_capture.c found both); a capture's
 * hwloc.xml is a stranger's file. So the buffer is loaded in a child
 * first, which dies instead of fabtop and tells how far hwloc got (with
 * errno, *e); fabtop loads only what the child loaded. */
static enum probe xml_probe(const char *xml, const char *buf, size_t len, bool with_io,
			    int *e, char *err, size_t errlen)
{
	int p[2];
	pid_t parent = getpid(), pid;
	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		snprintf(err, errlen, "cannot check %s in a child process: %s", xml, strerror(errno));
		return PROBE_CRASH;
	}
	if (pid == 0) {
		/* Die of what hwloc does, quietly (no sanitizer report, no core),
		 * with fabtop, and within a time. */
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
			signal(fatal[i], SIG_DFL);
		struct rlimit none = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		alarm(30);
		close(p[0]);
		hwloc_topology_t t;
		int res[2] = { PROBE_NO_LOAD, 0 };
		if (hwloc_topology_init(&t) == 0) {
			topology_setup(t, with_io);
			if (hwloc_topology_set_xmlbuffer(t, buf, (int)len + 1) != 0)
				res[0] = PROBE_BAD_XML;
			else if (hwloc_topology_load(t) == 0)
				res[0] = PROBE_LOADS;
		}
		res[1] = errno;
		_exit(write(p[1], res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(p[1]);
	int res[2], st;
	ssize_t n;
	while ((n = read(p[0], res, sizeof(res))) < 0 && errno == EINTR)
		;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(res) && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	    res[0] >= PROBE_LOADS && res[0] <= PROBE_NO_LOAD) {
		*e = res[1];
		return (enum probe)res[0];
	}
	char how[64];
	if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "%s", strsignal(WTERMSIG(st)));
	else
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(st));
	snprintf(err, errlen, "hwloc crashed loading %s (%s): a malformed topology, not read",
		 xml, how);
	return PROBE_CRASH;
}

/* Loads a topology the way the root asks for; -1 with err naming the source,
 * -2 when the mirror holds nothing hwloc could read. */
static int load_topology(const struct fab_root *r, bool with_io, hwloc_topology_t *out,
			 char *err, size_t errlen)
{
	hwloc_topology_t t;
	const char *xml = "/fabtop/hwloc.xml";

	/* hwloc prints its complaints about odd sysfs trees to stderr, which
	 * would scribble over the TUI; failures reach the user as notes. main()
	 * sets it before any thread runs; set here too for other callers
	 * (tests), where no GPU thread reads the environment. */
	if (!getenv("HWLOC_HIDE_ERRORS"))
		setenv("HWLOC_HIDE_ERRORS", "2", 0);
	if (hwloc_topology_init(&t) != 0) {
		snprintf(err, errlen, "hwloc_topology_init failed: %s", strerror(errno));
		return -1;
	}
	topology_setup(t, with_io);

	if (r->live) {
		if (hwloc_topology_load(t) != 0) {
			snprintf(err, errlen, "hwloc could not read this node's topology: %s",
				 strerror(errno));
			goto fail;
		}
		*out = t;
		return 0;
	}

	if (root_exists(r, xml)) {
		/* Read through the root (never a FIFO, never a link out of it),
		 * then handed to hwloc as a buffer. */
		char *buf;
		size_t len;
		int rc = root_read_alloc(r, xml, &buf, &len);
		if (rc < 0) {
			snprintf(err, errlen, "cannot read %s: %s", xml, rc == -EFBIG ?
				 "larger than the format allows" : root_strerror(-rc));
			goto fail;
		}
		int e = 0;
		enum probe pr = xml_probe(xml, buf, len, with_io, &e, err, errlen);
		if (pr == PROBE_CRASH) {
			free(buf);
			goto fail;
		}
		/* set_xmlbuffer fails at once on garbage; carrying on would load
		 * the live machine and show it as the capture. */
		if (pr == PROBE_BAD_XML || hwloc_topology_set_xmlbuffer(t, buf, (int)len + 1) != 0) {
			snprintf(err, errlen, "cannot use %s as an hwloc topology: %s "
				 "(not hwloc XML? re-create it with `lstopo-no-graphics "
				 "--whole-io --of xml`)", xml, strerror(pr == PROBE_BAD_XML ? e : errno));
			free(buf);
			goto fail;
		}
		/* The buffer lives until the load: hwloc may parse it there.
		 * One the child could not load is not loaded here (hwloc leaks). */
		rc = pr == PROBE_NO_LOAD ? -1 : hwloc_topology_load(t);
		if (pr != PROBE_NO_LOAD)
			e = errno;
		free(buf);
		if (rc != 0) {
			snprintf(err, errlen, "hwloc could not load %s: %s", xml, strerror(e));
			goto fail;
		}
		*out = t;
		return 0;
	}

	/* A capture in memory has no path for hwloc's Linux backend: its NUMA
	 * nodes come from sysfs through the root (sysfs_numa). */
	if (r->mem) {
		snprintf(err, errlen, "no fabtop/hwloc.xml in capture %s", r->name);
		hwloc_topology_destroy(t);
		return -2;
	}
	/* Without the CPU tree (cpu/cpuN) hwloc's Linux backend falls back to
	 * THIS machine's processor count and shows it as the mirror's. */
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	if (!cpus || mirror_cpus(r, cpus) == 0) {
		snprintf(err, errlen, "no fabtop/hwloc.xml and no CPU directories (cpuN) in "
			 "/sys/devices/system/cpu of %s", r->name);
		hwloc_bitmap_free(cpus);
		hwloc_topology_destroy(t);
		return -2;
	}
	/* A plain mirror: point hwloc's Linux backend at it, then put the
	 * environment back as it was (the TUI reloads other roots later). */
	/* The x86 backend reads THIS machine's CPUID (caches, packages) even
	 * under an fsroot, mixing the host into the mirror's topology. */
	hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
	const char *prev = getenv("HWLOC_FSROOT");
	char *saved = prev ? strdup(prev) : NULL;
	setenv("HWLOC_FSROOT", r->dir, 1);
	int rc = hwloc_topology_load(t);
	int e = errno;
	if (saved) {
		setenv("HWLOC_FSROOT", saved, 1);
		free(saved);
	} else {
		unsetenv("HWLOC_FSROOT");
	}
	if (rc != 0) {
		snprintf(err, errlen, "hwloc could not read the topology under %s "
			 "(HWLOC_FSROOT): %s", r->dir, strerror(e));
		hwloc_bitmap_free(cpus);
		goto fail;
	}
	/* Anything hwloc filled in from elsewhere (this machine) is not the mirror's. */
	bool same = hwloc_bitmap_isequal(hwloc_topology_get_complete_cpuset(t), cpus);
	hwloc_bitmap_free(cpus);
	if (!same) {
		snprintf(err, errlen, "hwloc's CPUs under %s (HWLOC_FSROOT) are not the "
			 "cpuN directories the mirror has", r->dir);
		goto fail;
	}
	*out = t;
	return 0;
fail:
	hwloc_topology_destroy(t);
	return -1;
}

static void hwloc_numa(const struct fab_root *r, hwloc_topology_t t, struct fab_model *m)
{
	struct node_tmp nodes[MAX_NODES];
	int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
	if (n > MAX_NODES) {
		/* Said, never silent: the nodes past the table are not shown. */
		model_note_cut(m, "hwloc", "", "NUMA nodes", n, MAX_NODES);
		n = MAX_NODES;
	}
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
		nodes[i].id = (int)o->os_index;
		nodes[i].obj = o;
		nodes[i].cpulist[0] = '\0';
		/* Memory-only nodes (HBM, CXL, Grace GPU memory) have no CPUs: "". */
		if (o->cpuset && !hwloc_bitmap_iszero(o->cpuset))
			hwloc_bitmap_list_snprintf(nodes[i].cpulist, sizeof(nodes[i].cpulist),
						   o->cpuset);
	}
	qsort(nodes, (size_t)n, sizeof(nodes[0]), cmp_node);

	/* The OS latency matrix (what `numactl -H` shows), when hwloc has it. */
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;
	if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
		d = NULL;

	for (int i = 0; i < n; i++) {
		struct fab_numa_node *mn = model_add_numa(m);
		mn->id = nodes[i].id;
		fab_strlcpy(mn->cpulist, nodes[i].cpulist, sizeof(mn->cpulist));
		if (d) {
			int row = hwloc_distances_obj_index(d, nodes[i].obj);
			for (int j = 0; row >= 0 && j < n && j < 16; j++) {
				int col = hwloc_distances_obj_index(d, nodes[j].obj);
				if (col < 0)
					break;
				mn->dist[j] = (int)d->values[(unsigned)row * d->nbobjs + (unsigned)col];
				mn->ndist = j + 1;
			}
		}
		if (mn->ndist == 0)
			sysfs_distances(r, mn);
	}
	if (d)
		hwloc_distances_release(t, d);
}

/* The kernel's own view: /sys/devices/system/node/nodeN/{cpulist,distance}. */
static int sysfs_numa(const struct fab_root *r, struct fab_model *m)
{
	char **names;
	int n = root_list(r, NODE_DIR, &names), found = 0;
	if (n < 0 && n != -ENOENT)
		sys_note_errno(m, NODE_DIR, -n);   /* there, but unreadable: not "no NUMA" */
	for (int i = 0; i < n; i++) {
		char *end, path[FAB_PATH_LEN], line[FAB_LIST_LEN];
		if (strncmp(names[i], "node", 4) != 0)
			continue;
		long id = strtol(names[i] + 4, &end, 10);
		if (end == names[i] + 4 || *end)
			continue;
		snprintf(path, sizeof(path), NODE_DIR "/%s/cpulist", names[i]);
		if (sys_line(r, m, path, line, sizeof(line)) != 0)
			line[0] = '\0';
		struct fab_numa_node *mn = model_add_numa(m);
		mn->id = (int)id;
		fab_strlcpy(mn->cpulist, line, sizeof(mn->cpulist));
		sysfs_distances(r, mn);
		found++;
	}
	if (n > 0)
		root_free_list(names, n);
	return found;
}

int collect_numa(const struct fab_root *r, struct fab_model *m)
{
	hwloc_topology_t t;
	char err[FAB_PATH_LEN + 256];

	int rc = load_topology(r, false, &t, err, sizeof(err));
	if (rc == 0) {
		hwloc_numa(r, t, m);
		hwloc_topology_destroy(t);
		return 0;
	}
	int found = sysfs_numa(r, m);
	if (rc == -2) {
		/* A fixture without CPU data: the node files, if any, are all. */
		if (!found)
			model_note(m, "hwloc", "NUMA unknown: %s or %s", err, NODE_DIR);
		return 0;
	}
	model_note(m, "hwloc", "%s; NUMA nodes %s", err,
		   found ? "read from " NODE_DIR " instead" : "unknown (no " NODE_DIR " either)");
	return found ? 0 : -1;
}

int collect_hwloc_xml(char **xml, size_t *len, char *err, size_t errlen)
{
	struct fab_root live = { .live = true };
	hwloc_topology_t t;
	char *b = NULL;
	int blen = 0;
	*xml = NULL;
	*len = 0;
	if (load_topology(&live, true, &t, err, errlen) != 0)
		return -1;
	/* Exported to memory: the capture holds its members in memory. */
	if (hwloc_topology_export_xmlbuffer(t, &b, &blen, 0) != 0 || blen < 1) {
		snprintf(err, errlen, "hwloc could not export its XML: %s", strerror(errno));
		hwloc_topology_destroy(t);
		return -1;
	}
	/* blen counts the terminating NUL, which the file does not hold. */
	*xml = malloc((size_t)blen);
	if (*xml) {
		memcpy(*xml, b, (size_t)blen);
		*len = (size_t)blen - 1;
	} else {
		snprintf(err, errlen, "out of memory for hwloc's XML");
	}
	hwloc_free_xmlbuffer(t, b);
	hwloc_topology_destroy(t);
	return *xml ? 0 : -1;
}

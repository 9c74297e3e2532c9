#!/usr/bin/env python3
"""mkfleet.py - a generated fleet for `fabtop fleet`: N node captures made
from the bundled scenarios, with varied rates, firmware and findings, and
each node's `report all --json`, the same nodes for jq and for fleet.

  mkfleet.py --fabtop BIN --scenarios build/scenarios --nodes N OUT
  mkfleet.py --fabtop BIN --scenarios build/scenarios --nodes N --cache DIR

writes (into OUT, or into DIR/<key> printed on stdout; the key covers this
script, the fabtop binary, the scenario trees it uses and N, so a rerun with
the same inputs reuses the set and a changed one makes a new one):

  captures/nodeNNNN.tar.gz   one capture per node (host nodeNNNN)
  json/nodeNNNN.json         that node's `report all --json`
  manifest.tsv               host, variant, base scenario, what was changed
  odd                        "HOST<TAB>NIC/PORT<TAB>RATE<TAB>MAJORITY": the one
                             planted odd node (a port at 200 among nodes of
                             its kind at 400)
  variants.tsv               per variant: verdict and findings by severity

How it stays fast (2,000 nodes in well under a minute on 2 cores): a
handful of variant trees (copies of scenario directories with one thing
changed) are captured once each with the real `fabtop capture`; a node's
capture is then that variant's capture with only its head rewritten: the
tar members up to the last one naming the host (fabtop/meta.json's host and
time, fabtop/report.json's host and time when the capture embeds one,
proc/sys/kernel/hostname) are re-serialised and gzipped per node, and the
rest of the tar stream, gzipped once per variant, is appended as a second
gzip member (gzip members concatenate into one stream; libarchive and GNU
tar read them so, and the generator checks fabtop does: it reads the first
node of each variant back). Member order and the top folder name stay the
variant capture's, so the embedded report, when there is one, stays among
the first members.
"""
import argparse
import concurrent.futures
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.abspath(__file__)
BASE_TIME = 1796200000          # meta.json time of node0000; node i is + i s

# name, base scenario, weight (share of the nodes), changes: (what, args)
#   rate    NIC PORT TEXT   the port's sysfs rate file
#   fw      VERSION         every HCA's fw_ver
#   counter NIC PORT NAME VALUE   a port counter (a finding when it counts errors)
#   state   NIC PORT STATE PHYS   the port's state and phys_state
VARIANTS = [
	("dgx", "dgx-h100", 0.40, []),
	("dgx-fw", "dgx-h100", 0.05, [("fw", "28.40.1000")]),
	("dgx-symerr", "dgx-h100", 0.03, [("counter", "mlx5_3", "1", "symbol_error", "1200"),
	                                  ("counter", "mlx5_3", "1", "link_downed", "3")]),
	("ib8", "ib-8port", 0.30, []),
	("ib8-down", "ib-8port", 0.02, [("state", "mlx5_5", "1", "1: DOWN", "3: Disabled")]),
	("pcie2", "pcie-2numa", 0.09, []),
	("roce", "roce-faults", 0.05, []),
	("spark", "gb10-spark", 0.06, []),
	# the one odd node: exactly one node, never drawn by weight
	("dgx-rate200", "dgx-h100", 0.0, [("rate", "mlx5_0", "1", "200 Gb/sec (4X HDR)")]),
]
ODD = ("dgx-rate200", "mlx5_0/1", "200", "400")


def die(msg):
	print("mkfleet: " + msg, file=sys.stderr)
	sys.exit(2)


def scenario_hash(h, d):
	"""Adds a scenario tree (names, link targets, contents) to h."""
	for dirpath, dirs, files in os.walk(d):
		dirs.sort()
		for name in sorted(dirs + files):
			p = os.path.join(dirpath, name)
			h.update(os.path.relpath(p, d).encode() + b"\0")
			if os.path.islink(p):
				h.update(b"L" + os.readlink(p).encode() + b"\0")
			elif os.path.isfile(p):
				with open(p, "rb") as f:
					h.update(hashlib.sha256(f.read()).digest())


def inside_write(vdir, rel, text):
	"""Writes text to vdir/rel, through the tree's own (relative) links but
	never out of the tree."""
	p = os.path.realpath(os.path.join(vdir, rel))
	if not p.startswith(os.path.realpath(vdir) + os.sep) or not os.path.isfile(p):
		die("variant file %s is not a file inside %s" % (rel, vdir))
	with open(p, "w") as f:
		f.write(text + "\n")


def apply_change(vdir, ch):
	ib = "sys/class/infiniband"
	what = ch[0]
	if what == "rate":
		inside_write(vdir, "%s/%s/ports/%s/rate" % (ib, ch[1], ch[2]), ch[3])
	elif what == "fw":
		for dev in sorted(os.listdir(os.path.join(vdir, ib))):
			inside_write(vdir, "%s/%s/fw_ver" % (ib, dev), ch[1])
	elif what == "counter":
		inside_write(vdir, "%s/%s/ports/%s/counters/%s" % (ib, ch[1], ch[2], ch[3]), ch[4])
	elif what == "state":
		inside_write(vdir, "%s/%s/ports/%s/state" % (ib, ch[1], ch[2]), ch[3])
		inside_write(vdir, "%s/%s/ports/%s/phys_state" % (ib, ch[1], ch[2]), ch[4])
	else:
		die("unknown change " + what)


def run(argv, out=None):
	r = subprocess.run(argv, stdout=out or subprocess.PIPE, stderr=subprocess.PIPE)
	return r


class Variant:
	"""A variant's capture split into the head rewritten per node and the
	tail gzipped once."""

	def __init__(self, name, cap, report):
		with gzip.open(cap, "rb") as f:
			raw = f.read()
		tf = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")
		members = tf.getmembers()
		end = tf.offset            # where the end-of-archive blocks start
		if not members:
			die("%s: empty capture" % cap)
		self.top = members[0].name.split("/")[0]
		want = {self.top + "/fabtop/meta.json": "meta",
		        self.top + "/fabtop/report.json": "report",
		        self.top + "/proc/sys/kernel/hostname": "hostname"}
		last = -1
		for i, m in enumerate(members):
			if m.name.split("/")[0] != self.top:
				die("%s: member %s outside the top folder %s" % (cap, m.name, self.top))
			if m.name in want:
				last = i
		if last < 0:
			die("%s: no meta.json or hostname member" % cap)
		offs = [m.offset for m in members] + [end]
		# head: (raw bytes | (TarInfo, kind, data)) per member up to last
		self.head = []
		self.embedded = None
		for i in range(last + 1):
			m = members[i]
			kind = want.get(m.name)
			if kind is None:
				self.head.append(raw[offs[i]:offs[i + 1]])
				continue
			data = tf.extractfile(m).read()
			if kind == "report":
				self.embedded = json.loads(data)
				data = None
			elif kind == "meta":
				data = json.loads(data)
			self.head.append((m, kind, data))
		self.tail_gz = gzip.compress(raw[offs[last + 1]:], 6, mtime=0)
		self.report = report           # report all --json of the capture
		# The embedded report as a string with placeholders, dumped once.
		self.emb_tpl = None
		if self.embedded is not None:
			d = dict(self.embedded)
			d["host"] = "@@FLEET_HOST@@"
			if "time" in d:
				d["time"] = 1111111111111
			self.emb_tpl = json.dumps(d, indent=2)
		d = dict(report)
		d["host"] = "@@FLEET_HOST@@"
		self.json_tpl = json.dumps(d, indent=2) + "\n"

	@staticmethod
	def member(m, data):
		ti = tarfile.TarInfo(m.name)
		ti.size = len(data)
		ti.mode, ti.uid, ti.gid, ti.mtime, ti.type = m.mode, m.uid, m.gid, m.mtime, m.type
		ti.uname, ti.gname = m.uname, m.gname
		buf = ti.tobuf(tarfile.USTAR_FORMAT, "utf-8", "strict")
		pad = (-len(data)) % tarfile.BLOCKSIZE
		return buf + data + b"\0" * pad

	def node_capture(self, host, when):
		parts = []
		for h in self.head:
			if isinstance(h, bytes):
				parts.append(h)
				continue
			m, kind, data = h
			if kind == "meta":
				d = dict(data)
				d["host"] = host
				d["time"] = when
				b = (json.dumps(d, indent=2) + "\n").encode()
			elif kind == "report":
				b = (self.emb_tpl.replace('"@@FLEET_HOST@@"', json.dumps(host))
				     .replace("1111111111111", str(when)) + "\n").encode()
			else:
				b = (host + "\n").encode()
			parts.append(self.member(m, b))
		return gzip.compress(b"".join(parts), 6, mtime=0) + self.tail_gz

	def node_json(self, host):
		return self.json_tpl.replace('"@@FLEET_HOST@@"', json.dumps(host))


def assign(n):
	"""The variant of each node: drawn by weight (seeded), and the one odd
	node placed at 5/8 of the list."""
	rnd = random.Random(16)
	names = [v[0] for v in VARIANTS if v[2] > 0]
	weights = [v[2] for v in VARIANTS if v[2] > 0]
	out = rnd.choices(names, weights, k=n)
	odd = (n * 5) // 8
	out[odd] = ODD[0]
	return out, odd


def generate(args, out):
	fab = os.path.abspath(args.fabtop)
	os.makedirs(os.path.join(out, "captures"))
	os.makedirs(os.path.join(out, "json"))
	work = os.path.join(out, "variants")
	os.makedirs(work)
	plan, odd = assign(args.nodes)
	used = [v for v in VARIANTS if v[0] in set(plan)]
	t0 = time.time()
	def make(v):
		name, base, _, changes = v
		vdir = os.path.join(work, name)
		shutil.copytree(os.path.join(args.scenarios, base), vdir, symlinks=True)
		for ch in changes:
			apply_change(vdir, ch)
		cap = os.path.join(work, name + ".tar.gz")
		r = run([fab, "capture", "--root", vdir, "-o", cap])
		if r.returncode != 0:
			return "capture of %s failed (%d): %s" % (name, r.returncode, r.stderr.decode(errors="replace")[-500:])
		r = run([fab, "--root", cap, "report", "all", "--json"])
		if r.returncode not in (0, 1):
			return "report all --json of %s failed (%d): %s" % (name, r.returncode, r.stderr.decode(errors="replace")[-500:])
		shutil.rmtree(vdir)
		return json.loads(r.stdout)

	# A capture mostly waits on the file system: a few at once.
	with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
		reports = list(ex.map(make, used))
	variants = {}
	vrows = []
	for (name, base, _, _), rep in zip(used, reports):
		if isinstance(rep, str):
			die(rep)
		variants[name] = Variant(name, os.path.join(work, name + ".tar.gz"), rep)
		sev = {"info": 0, "warning": 0, "error": 0}
		for f in rep.get("findings", []):
			sev[f.get("severity")] = sev.get(f.get("severity"), 0) + 1
		vrows.append("%s\t%s\t%s\tinfo=%d warning=%d error=%d\t%s\n" % (
			name, base, rep.get("verdict"), sev["info"], sev["warning"], sev["error"],
			"embedded report.json" if variants[name].embedded is not None else "no embedded report"))
	t1 = time.time()
	first = {}
	man = []
	for i, vname in enumerate(plan):
		host = "node%04d" % i
		v = variants[vname]
		cap = os.path.join(out, "captures", host + ".tar.gz")
		with open(cap, "wb") as f:
			f.write(v.node_capture(host, BASE_TIME + i))
		with open(os.path.join(out, "json", host + ".json"), "w") as f:
			f.write(v.node_json(host))
		base = [x for x in VARIANTS if x[0] == vname][0]
		man.append("%s\t%s\t%s\t%s\n" % (host, vname, base[1],
		           "; ".join(" ".join(c) for c in base[3]) or "-"))
		if vname not in first:
			first[vname] = (host, cap)

	def check(vname):
		# fabtop reads the two gzip members as one capture: the host of the
		# rewritten head, and the rest as the variant's report had it
		host, cap = first[vname]
		r = run([fab, "--root", cap, "report", "all", "--json"])
		if r.returncode not in (0, 1):
			return "fabtop cannot read the generated %s (%d): %s" % (cap, r.returncode, r.stderr.decode(errors="replace")[-500:])
		got = json.loads(r.stdout)
		if got.get("host") != host:
			return "%s reads back with host %r, not %s" % (cap, got.get("host"), host)
		ref = dict(variants[vname].report)
		ref["host"] = host
		for k in ("time", "source"):
			ref.pop(k, None)
			got.pop(k, None)
		if got != ref:
			return "%s reads back other than its variant's report" % cap
		return None

	with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
		for err in ex.map(check, sorted(first)):
			if err:
				die(err)
	with open(os.path.join(out, "manifest.tsv"), "w") as f:
		f.writelines(man)
	with open(os.path.join(out, "variants.tsv"), "w") as f:
		f.writelines(vrows)
	with open(os.path.join(out, "odd"), "w") as f:
		f.write("node%04d\t%s\t%s\t%s\n" % (odd, ODD[1], ODD[2], ODD[3]))
	print("mkfleet: %d variants captured in %.1f s, %d nodes written in %.1f s" % (
		len(used), t1 - t0, args.nodes, time.time() - t1), file=sys.stderr)


def main():
	ap = argparse.ArgumentParser(description="a generated fleet of node captures")
	ap.add_argument("--fabtop", required=True)
	ap.add_argument("--scenarios", required=True)
	ap.add_argument("--nodes", type=int, default=2000)
	ap.add_argument("--cache", help="cache folder: the set goes to CACHE/<key>, printed")
	ap.add_argument("out", nargs="?")
	args = ap.parse_args()
	if args.nodes < 8 or args.nodes > 9999:
		die("--nodes must be 8..9999")
	if bool(args.cache) == bool(args.out):
		die("give OUT or --cache DIR")
	for v in VARIANTS:
		if not os.path.isdir(os.path.join(args.scenarios, v[1])):
			die("no scenario %s in %s (make scenarios)" % (v[1], args.scenarios))
	if args.out:
		if os.path.exists(args.out):
			die(args.out + " exists")
		generate(args, args.out)
		return
	h = hashlib.sha256()
	with open(HERE, "rb") as f:
		h.update(f.read())
	with open(args.fabtop, "rb") as f:
		h.update(hashlib.sha256(f.read()).digest())
	for base in sorted({v[1] for v in VARIANTS}):
		scenario_hash(h, os.path.join(args.scenarios, base))
	h.update(b"nodes=%d" % args.nodes)
	key = "n%d-%s" % (args.nodes, h.hexdigest()[:16])
	os.makedirs(args.cache, exist_ok=True)
	final = os.path.join(args.cache, key)
	if os.path.isfile(os.path.join(final, "odd")):
		print(final)
		return
	tmp = os.path.join(args.cache, ".%s.%d" % (key, os.getpid()))
	try:
		generate(args, tmp)
		os.rename(tmp, final)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
	# Older sets of the same size are from another binary or scenario set.
	for e in os.listdir(args.cache):
		if e.startswith("n%d-" % args.nodes) and e != key:
			shutil.rmtree(os.path.join(args.cache, e), ignore_errors=True)
	print(final)


if __name__ == "__main__":
	main()

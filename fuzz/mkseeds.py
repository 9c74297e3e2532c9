#!/usr/bin/env python3
"""mkseeds.py - the seed corpora of the fuzz targets that read whole roots.

  mkseeds.py capture OUT SCENARIOS
      fuzz_capture's seeds: every bundled scenario (SCENARIOS/NAME.tar.gz)
      as a plain .tar (libFuzzer's mutations are useless on gzip), the
      hostile captures of tests/hostile/mkhostile.py aimed at the fuzzer's
      canary (CANARY, outside every root), and three more that point at it:
      an absolute class link, a FIFO member, and a 75-deep link chain that
      climbs out to the canary's device folder; and a small capture cut
      from one (one HCA), which libFuzzer runs many times faster. The bomb and the oversized
      member stay gzip'd: compression is their point, and they are small.

  mkseeds.py json OUT SCENARIOS
      fuzz_json's seeds: each JSON file the loaders read, from every
      scenario that has it, prefixed with its selector byte (the index in
      fuzz_json.c's table, which this list must follow). samples.json is
      cut to its first 3 samples (the whole is up to 1.8 MB), and a process
      record (fabtop/procs/<pid>.json, which no scenario has) is made here.
"""
import gzip
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile

CANARY = "/tmp/fabtop-fuzz-canary"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "hostile"))
import mkhostile  # noqa: E402

# fuzz_json.c's table, in order: the selector byte is the index.
JSON_FILES = ["fabtop/meta.json", "fabtop/devices.json", "fabtop/nvml.json",
              "fabtop/netlink.json", "fabtop/samples.json", "fabtop/procs/4242.json"]

PROC = {
    "pid": 4242,
    "comm": "all_reduce_perf",
    "netns": "net:[4026531840]",
    "nccl_lib": "/usr/lib/x86_64-linux-gnu/libnccl.so.2",
    "nccl_var": True,
    "env": {
        "HOSTNAME": "node1",
        "NCCL_DEBUG": "INFO",
        "NCCL_DEBUG_FILE": "/tmp/nccl.%h.%p.log",
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_NET_GDR_LEVEL": "PHB",
        "RANK": "0",
        "LOCAL_RANK": "0",
    },
}


def gunzip(src, dst):
    with gzip.open(src, "rb") as f, open(dst, "wb") as g:
        shutil.copyfileobj(f, g)


def tar_dir(src, top, dst):
    """A plain (uncompressed) tar of src as top/..., links and FIFOs kept."""
    with tarfile.open(dst, "w", format=tarfile.PAX_FORMAT) as t:
        t.add(src, arcname=top, recursive=True)


def canary_seeds(out, scen, work):
    """The captures that reach for the canary, each as a plain tar."""
    secret = CANARY + "/shadow"
    mkhostile.deep_link(work, scen, secret)
    gunzip(os.path.join(work, "deep-link.tar.gz"), os.path.join(out, "hostile-deep-link.tar"))

    # The class link itself absolute, at the canary's device folder.
    root = os.path.join(work, "abs-link")
    mkhostile.copy_scenario(scen, root)
    _, link = mkhostile.device_dir(root, "mlx5_0")
    os.unlink(link)
    os.symlink(CANARY + "/mlx5_0", link)
    tar_dir(root, "abs-link", os.path.join(out, "hostile-abs-link.tar"))

    # The class link through the deep folder's "up" to the canary's device
    # folder: every link alone stays inside by its text.
    root = os.path.join(work, "deep-dev")
    mkhostile.copy_scenario(scen, root)
    _, link = mkhostile.device_dir(root, "mlx5_0")
    rel = "/".join("d%d" % i for i in range(1, mkhostile.DEPTH + 1))
    bottom = os.path.join(root, "sys/devices", rel)
    os.makedirs(bottom)
    os.symlink("../" * (mkhostile.DEPTH + 3), os.path.join(bottom, "up"))
    os.unlink(link)
    os.symlink("../../devices/%s/up/%s%s/mlx5_0" % (rel, "../" * 64, CANARY.lstrip("/")), link)
    tar_dir(root, "deep-dev", os.path.join(out, "hostile-deep-dev.tar"))

    mkhostile.fifo(work, scen)
    tar_dir(os.path.join(work, "fifo"), "fifo", os.path.join(out, "hostile-fifo.tar"))


def mini(scen, dst, keep_pci="pci0000:15"):
    """A small capture cut from scen: one PCI root complex (one HCA and its
    netdev), the links that lead into it, and the small fabtop/ files. A
    fraction of the scenario's size: libFuzzer runs it many times faster."""
    skip_fabtop = ("hwloc.xml", "nvml.json", "samples.json", "rdma-qp.bin")

    def dropped(rel):
        parts = rel.split("/")
        if len(parts) >= 3 and parts[:2] == ["sys", "devices"] and parts[2].startswith("pci") \
                and parts[2] != keep_pci:
            return True
        return len(parts) == 2 and parts[0] == "fabtop" and parts[1] in skip_fabtop

    with tarfile.open(dst, "w", format=tarfile.PAX_FORMAT) as t:
        for d, dirs, files in os.walk(scen):
            dirs.sort()
            for n in sorted(dirs) + sorted(files):
                p = os.path.join(d, n)
                rel = os.path.relpath(p, scen)
                if dropped(rel):
                    continue
                if os.path.islink(p):
                    target = os.path.relpath(os.path.realpath(p), scen)
                    if dropped(target) or not os.path.exists(p):
                        continue
                elif os.path.isdir(p) and n in dirs and dropped(rel + "/x"):
                    continue
                t.add(p, arcname="mini/" + rel, recursive=False)


def capture(out, scenarios):
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(scenarios)):
        if name.endswith(".tar.gz"):
            gunzip(os.path.join(scenarios, name), os.path.join(out, "scen-" + name[:-3]))
    scen = os.path.join(scenarios, "roce-faults")
    mini(scen, os.path.join(out, "mini-roce-faults.tar"))
    with tempfile.TemporaryDirectory() as work:
        canary_seeds(out, scen, work)
        mkhostile.bomb(work, scen)
        mkhostile.big_member(work, scen)
        mkhostile.many(work)
        mkhostile.longname(work, scen)
        mkhostile.hwloc_crash(work, scen)
        mkhostile.hwloc_refused(work, scen)
        for n in ("bomb", "big-member"):
            shutil.copy(os.path.join(work, n + ".tar.gz"), os.path.join(out, "hostile-%s.tar.gz" % n))
        for n in ("many", "longname", "hwloc-crash", "hwloc-refused"):
            gunzip(os.path.join(work, n + ".tar.gz"), os.path.join(out, "hostile-%s.tar" % n))


def cut_samples(data, keep=3):
    doc = json.loads(data)
    if isinstance(doc, dict) and isinstance(doc.get("samples"), list):
        doc["samples"] = doc["samples"][:keep]
    return json.dumps(doc, indent=1).encode()


def json_seeds(out, scenarios):
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(scenarios)):
        d = os.path.join(scenarios, name)
        if not os.path.isfile(os.path.join(d, "fabtop/meta.json")):
            continue
        for sel, rel in enumerate(JSON_FILES):
            p = os.path.join(d, rel)
            if not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                data = f.read()
            if rel.endswith("samples.json"):
                data = cut_samples(data)
            with open(os.path.join(out, "%d-%s-%s" % (sel, name, os.path.basename(rel))), "wb") as f:
                f.write(bytes([sel]) + data)
    sel = JSON_FILES.index("fabtop/procs/4242.json")
    with open(os.path.join(out, "%d-proc.json" % sel), "wb") as f:
        f.write(bytes([sel]) + json.dumps(PROC, indent=1).encode())


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("capture", "json"):
        sys.exit("usage: mkseeds.py capture|json OUT SCENARIOS")
    what, out, scenarios = sys.argv[1:]
    if not os.path.isfile(os.path.join(scenarios, "roce-faults/fabtop/meta.json")):
        sys.exit("mkseeds.py: no scenarios at %s (make scenarios)" % scenarios)
    if what == "capture":
        capture(out, scenarios)
    else:
        json_seeds(out, scenarios)


if __name__ == "__main__":
    main()

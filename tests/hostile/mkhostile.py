#!/usr/bin/env python3
"""mkhostile.py OUT SCENARIOS SECRET - builds the hostile roots of issue 12.

Every input is a real scenario (SCENARIOS/roce-faults, from mkscenarios.py)
with one hostile change, as a directory root (what plain `tar -x` of a
ticket gives) and/or a capture tarball. SECRET is a file of the test's own,
outside every root, that fabtop must never print; its first line is the
"shadow line" the attack of the issue read as an HCA type.

  deep-link/, deep-link.tar.gz
      mlx5_0's class link points into a 75-deep folder holding the device;
      its hca_type climbs out through "up", a link at the bottom that
      climbs to the folder above the capture: each link alone stays inside
      when judged by its text, together they reach SECRET.
  abs-link/ (+ outside-dev/ beside it)
      mlx5_0's class link is absolute and points out of the mirror, at a
      device folder whose hca_type is SECRET's first line.
  fifo/
      fabtop/devices.json is a FIFO.
  bomb.tar.gz
      64 members of 1 MiB of zeros each (each within the format's 1 MiB,
      64 MiB in all, about 70 KB compressed).
  big-member.tar.gz
      one sysfs member of 1 MiB + 1 byte.
  many.tar.gz
      a small capture plus 2000 empty members.
  hwloc-crash.tar.gz
      fabtop/hwloc.xml with one PU's complete_cpuset attribute misspelt
      (complete_cpusep): hwloc 2.9's load dereferences NULL on it (found by
      fuzz/fuzz_capture.c).
  hwloc-refused.tar.gz
      fabtop/hwloc.xml with one info element's end broken ('" /' newline
      '>'): hwloc refuses to load it, and leaks what it had built (found by
      fuzz/fuzz_capture.c).
  longname.tar.gz
      two members with names over PATH_MAX that agree on their first 4095
      bytes (cut to PATH_MAX, the second would overwrite the first).
"""
import io
import os
import shutil
import sys
import tarfile

DEPTH = 75
PATH_MAX = 4096


def copy_scenario(scen, dst):
    shutil.copytree(scen, dst, symlinks=True)


def device_dir(root, dev):
    link = os.path.join(root, "sys/class/infiniband", dev)
    return os.path.realpath(link), link


def pack(src_dir, top, tarball, extra=()):
    """Tars src_dir as top/..., plus extra (name, bytes) members."""
    with tarfile.open(tarball, "w:gz", format=tarfile.PAX_FORMAT) as t:
        t.add(src_dir, arcname=top, recursive=True)
        for name, data in extra:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(data))


def zeros_member(name, size):
    """A member of size zero bytes, streamed (no size-long string)."""
    class Zeros(io.RawIOBase):
        def __init__(self, n):
            self.left = n

        def readable(self):
            return True

        def readinto(self, b):
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n
    ti = tarfile.TarInfo(name)
    ti.size = size
    ti.mode = 0o644
    return ti, Zeros(size)


def deep_link(out, scen, secret):
    root = os.path.join(out, "deep-link")
    copy_scenario(scen, root)
    real, link = device_dir(root, "mlx5_0")
    rel = "/".join("d%d" % i for i in range(1, DEPTH + 1))
    bottom = os.path.join(root, "sys/devices", rel)
    os.makedirs(bottom)
    dev = os.path.join(bottom, "mlx5_0")
    shutil.copytree(real, dev, symlinks=True)
    os.unlink(link)
    os.symlink("../../devices/%s/mlx5_0" % rel, link)
    # "up", at the bottom, climbs to the folder that holds the capture's top
    # folder (the unpack directory; for a directory root, its parent).
    os.symlink("../" * (DEPTH + 3), os.path.join(bottom, "up"))
    os.unlink(os.path.join(dev, "hca_type"))
    os.symlink("../up/" + "../" * 64 + secret.lstrip("/"), os.path.join(dev, "hca_type"))
    pack(root, "deep-link", os.path.join(out, "deep-link.tar.gz"))


def abs_link(out, scen, secret):
    root = os.path.join(out, "abs-link")
    copy_scenario(scen, root)
    real, link = device_dir(root, "mlx5_0")
    outside = os.path.join(out, "outside-dev")
    shutil.copytree(real, outside, symlinks=True)
    with open(secret) as f:
        first = f.readline()
    with open(os.path.join(outside, "hca_type"), "w") as f:
        f.write(first)
    os.unlink(link)
    os.symlink(os.path.abspath(outside), link)


def fifo(out, scen):
    root = os.path.join(out, "fifo")
    copy_scenario(scen, root)
    p = os.path.join(root, "fabtop/devices.json")
    os.unlink(p)
    os.mkfifo(p)


def bomb(out, scen):
    with tarfile.open(os.path.join(out, "bomb.tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as t:
        t.add(scen, arcname="bomb", recursive=True)
        for i in range(64):
            t.addfile(*zeros_member("bomb/sys/zeros/z%02d" % i, 1 << 20))


def big_member(out, scen):
    with tarfile.open(os.path.join(out, "big-member.tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as t:
        t.add(scen, arcname="big-member", recursive=True)
        t.addfile(*zeros_member("big-member/sys/zeros/big", (1 << 20) + 1))


def many(out):
    with tarfile.open(os.path.join(out, "many.tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as t:
        meta = b'{"format": 1}\n'
        ti = tarfile.TarInfo("many/fabtop/meta.json")
        ti.size = len(meta)
        t.addfile(ti, io.BytesIO(meta))
        for i in range(2000):
            t.addfile(tarfile.TarInfo("many/sys/e%04d" % i), io.BytesIO(b""))


def hwloc_edit(out, scen, name, edit):
    """NAME.tar.gz: scen with its fabtop/hwloc.xml passed through edit."""
    root = os.path.join(out, name)
    copy_scenario(scen, root)
    p = os.path.join(root, "fabtop/hwloc.xml")
    with open(p) as f:
        xml = edit(f.read())
    with open(p, "w") as f:
        f.write(xml)
    pack(root, name, os.path.join(out, name + ".tar.gz"))
    shutil.rmtree(root)


def hwloc_crash(out, scen):
    def edit(xml):
        at = xml.index(' complete_cpuset="', xml.index('<object type="PU"'))
        return xml[:at] + ' complete_cpusep="' + xml[at + len(' complete_cpuset="'):]
    hwloc_edit(out, scen, "hwloc-crash", edit)


def hwloc_refused(out, scen):
    def edit(xml):
        at = xml.index('"/>', xml.index('<info name="Port1GID'))
        return xml[:at] + '" /\n>' + xml[at + 3:]
    hwloc_edit(out, scen, "hwloc-refused", edit)


def longname(out, scen):
    comp = "x" * 199
    stem = "longname/" + "/".join([comp] * 25)   # 5009 bytes, 25 folders
    assert len(stem) > PATH_MAX
    first, second = stem + "/a", stem + "/b"
    assert first[:PATH_MAX - 1] == second[:PATH_MAX - 1]
    pack(scen, "longname", os.path.join(out, "longname.tar.gz"),
         [(first, b"first\n"), (second, b"second\n")])


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: mkhostile.py OUT SCENARIOS SECRET")
    out, scenarios, secret = sys.argv[1:]
    scen = os.path.join(scenarios, "roce-faults")
    if not os.path.isfile(os.path.join(scen, "fabtop/meta.json")):
        sys.exit("mkhostile.py: no scenario at %s (make scenarios)" % scen)
    os.makedirs(out, exist_ok=True)
    deep_link(out, scen, secret)
    abs_link(out, scen, secret)
    fifo(out, scen)
    bomb(out, scen)
    big_member(out, scen)
    many(out)
    longname(out, scen)
    hwloc_crash(out, scen)
    hwloc_refused(out, scen)


if __name__ == "__main__":
    main()

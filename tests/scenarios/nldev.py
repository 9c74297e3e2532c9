#!/usr/bin/env python3
"""nldev.py - RDMA netlink (nldev) QP dump replies, byte for byte as the
kernel lays them out, for fixtures and demo scenarios.

No kernel here speaks RDMA netlink, so these bytes come from this builder,
not from a recording. The layout follows drivers/infiniband/core/nldev.c:
res_get_common_dumpit() puts, per message, DEV_INDEX, DEV_NAME and an
RES_QP nest (no NLA_F_NESTED flag) of RES_QP_ENTRY nests; fill_res_qp_entry()
fills each entry in the order used below; one dump per device (the kernel
requires DEV_INDEX), NLM_F_MULTI on every part, then NLMSG_DONE.

    nldev.py DIR          writes the test fixtures into DIR
    nldev.py --constants  prints NAME VALUE for the numbers hard-coded here
                          (test_rdma_res compares them with the C headers)

Others import qp_dump(devices) to write a capture's fabtop/rdma-qp.bin.
Standard library only. Netlink is host byte order: little-endian here.
"""
import os
import struct
import sys

# linux/netlink.h
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_DUMP = 0x300

# rdma/rdma_netlink.h: enum rdma_nl_clients, enum rdma_nldev_command,
# enum rdma_nldev_attr (ABI, never renumbered)
RDMA_NL_NLDEV = 5
RDMA_NLDEV_CMD_GET = 1
RDMA_NLDEV_CMD_RES_QP_GET = 10
RDMA_NLDEV_ATTR_DEV_INDEX = 1
RDMA_NLDEV_ATTR_DEV_NAME = 2
RDMA_NLDEV_ATTR_PORT_INDEX = 3
RDMA_NLDEV_ATTR_RES_QP = 19
RDMA_NLDEV_ATTR_RES_QP_ENTRY = 20
RDMA_NLDEV_ATTR_RES_LQPN = 21
RDMA_NLDEV_ATTR_RES_RQPN = 22
RDMA_NLDEV_ATTR_RES_RQ_PSN = 23
RDMA_NLDEV_ATTR_RES_SQ_PSN = 24
RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE = 25
RDMA_NLDEV_ATTR_RES_TYPE = 26
RDMA_NLDEV_ATTR_RES_STATE = 27
RDMA_NLDEV_ATTR_RES_PID = 28
RDMA_NLDEV_ATTR_RES_KERN_NAME = 29
RDMA_NLDEV_ATTR_DRIVER = 52
RDMA_NLDEV_ATTR_DRIVER_STRING = 54
RDMA_NLDEV_ATTR_RES_PDN = 60

CONSTANTS = sorted(k for k in dict(globals()) if k.startswith(("NLM", "RDMA_")))

# rdma/ib_user_verbs.h enum ib_uverbs_qp_type / kernel enum ib_qp_type
QP_TYPES = {"SMI": 0, "GSI": 1, "RC": 2, "UC": 3, "UD": 4, "RAW_IPV6": 5,
            "RAW_ETHERTYPE": 6, "RAW_PACKET": 8, "XRC_INI": 9, "XRC_TGT": 10,
            "DRIVER": 0xFF}
# enum ib_qp_state
QP_STATES = {"RESET": 0, "INIT": 1, "RTR": 2, "RTS": 3, "SQD": 4, "SQE": 5, "ERR": 6}

PORTID = 31337       # the requesting socket's port id, echoed in every reply


def qp_msg_type():
    return (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_RES_QP_GET


def attr(atype, payload):
    """One attribute: nla_len counts header and payload, not the padding."""
    raw = struct.pack("<HH", 4 + len(payload), atype) + payload
    return raw + b"\0" * (-len(raw) % 4)


def u32(atype, v):
    return attr(atype, struct.pack("<I", v))


def u8(atype, v):
    return attr(atype, struct.pack("<B", v))


def string(atype, s):
    return attr(atype, s.encode() + b"\0")


def nest(atype, *parts):
    return attr(atype, b"".join(parts))


def nlmsg(mtype, flags, seq, payload, pid=PORTID):
    return struct.pack("<IHHII", 16 + len(payload), mtype, flags, seq, pid) + payload


def done(seq, err=0):
    return nlmsg(NLMSG_DONE, NLM_F_MULTI, seq, struct.pack("<i", err))


def request(seq, dev_index):
    """What fabtop sends for one device's QPs."""
    return nlmsg(qp_msg_type(), NLM_F_REQUEST | NLM_F_DUMP, seq,
                 u32(RDMA_NLDEV_ATTR_DEV_INDEX, dev_index))


def error_reply(seq, errno, dev_index):
    """NLMSG_ERROR: the error, then the request echoed whole (no NETLINK_CAP_ACK)."""
    return nlmsg(NLMSG_ERROR, 0, seq, struct.pack("<i", -errno) + request(seq, dev_index))


def qp_entry(qp):
    """fill_res_qp_entry() order: PORT_INDEX (once bound), LQPN, PDN (user QPs),
    KERN_NAME or PID, RQPN and RQ_PSN (RC/UC), SQ_PSN, PATH_MIG_STATE
    (RC/UC/XRC), TYPE, STATE, then the driver's own nest."""
    qtype = QP_TYPES[qp["type"]] if isinstance(qp["type"], str) else qp["type"]
    parts = []
    if qp.get("port"):
        parts.append(u32(RDMA_NLDEV_ATTR_PORT_INDEX, qp["port"]))
    parts.append(u32(RDMA_NLDEV_ATTR_RES_LQPN, qp["lqpn"]))
    if "kern" in qp:
        parts.append(string(RDMA_NLDEV_ATTR_RES_KERN_NAME, qp["kern"]))
    else:
        parts.append(u32(RDMA_NLDEV_ATTR_RES_PDN, qp.get("pdn", 1)))
        if qp.get("pid"):     # a zombie owner has no pid left
            parts.append(u32(RDMA_NLDEV_ATTR_RES_PID, qp["pid"]))
    if qtype in (QP_TYPES["RC"], QP_TYPES["UC"]):
        parts.append(u32(RDMA_NLDEV_ATTR_RES_RQPN, qp.get("rqpn", 0)))
        parts.append(u32(RDMA_NLDEV_ATTR_RES_RQ_PSN, qp.get("rq_psn", 0)))
    parts.append(u32(RDMA_NLDEV_ATTR_RES_SQ_PSN, qp.get("sq_psn", 0)))
    if qtype in (QP_TYPES["RC"], QP_TYPES["UC"], QP_TYPES["XRC_INI"], QP_TYPES["XRC_TGT"]):
        parts.append(u8(RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, qp.get("path_mig", 0)))
    parts.append(u8(RDMA_NLDEV_ATTR_RES_TYPE, qtype))
    parts.append(u8(RDMA_NLDEV_ATTR_RES_STATE, QP_STATES[qp["state"]]))
    if "driver" in qp:
        parts.append(nest(RDMA_NLDEV_ATTR_DRIVER,
                          string(RDMA_NLDEV_ATTR_DRIVER_STRING, qp["driver"])))
    return nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, *parts)


def handle(dev):
    return u32(RDMA_NLDEV_ATTR_DEV_INDEX, dev["index"]) + string(RDMA_NLDEV_ATTR_DEV_NAME, dev["name"])


def qp_message(dev, qps, seq):
    return nlmsg(qp_msg_type(), NLM_F_MULTI, seq,
                 handle(dev) + nest(RDMA_NLDEV_ATTR_RES_QP, *[qp_entry(q) for q in qps]))


def device_dump(dev, seq):
    """One device's reply: its QPs in messages of dev["per_message"] entries
    (all in one when absent), then NLMSG_DONE. No QPs: NLMSG_DONE alone."""
    qps = dev.get("qps", [])
    step = dev.get("per_message") or max(len(qps), 1)
    out = [qp_message(dev, qps[i:i + step], seq) for i in range(0, len(qps), step)]
    return b"".join(out) + done(seq)


def qp_dump(devices, first_seq=1):
    """The bytes of fabtop/rdma-qp.bin: each device's dump, back to back.

    devices: [{"index": 1, "name": "mlx5_0", "per_message": None,
               "qps": [{"lqpn": 1, "type": "GSI", "state": "RTS", "port": 1,
                        "kern": "ib_core"},
                       {"lqpn": 420, "type": "RC", "state": "RTS", "port": 1,
                        "pid": 4242, "rqpn": 689, "sq_psn": 0, "rq_psn": 0,
                        "pdn": 3}]}]
    """
    return b"".join(device_dump(d, first_seq + i) for i, d in enumerate(devices))


# ---- the fixtures (tests/fixtures/netlink) ----

MLX5_0 = {"index": 1, "name": "mlx5_0", "qps": [
    {"lqpn": 1, "type": "GSI", "state": "RTS", "port": 1, "kern": "ib_core"},
    {"lqpn": 420, "type": "RC", "state": "RTS", "port": 1, "pid": 4242, "rqpn": 689,
     "sq_psn": 1234567, "rq_psn": 7654321, "pdn": 3},
    {"lqpn": 421, "type": "RC", "state": "RTS", "port": 1, "pid": 4242, "rqpn": 690, "pdn": 3},
    {"lqpn": 422, "type": "RC", "state": "ERR", "port": 1, "pid": 4242, "rqpn": 691, "pdn": 3},
]}

MLX5_1 = {"index": 2, "name": "mlx5_1", "qps": [
    {"lqpn": 1, "type": "GSI", "state": "RTS", "port": 1, "kern": "ib_core"},
    {"lqpn": 300, "type": "RC", "state": "RTS", "port": 1, "pid": 4243, "rqpn": 500},
    {"lqpn": 301, "type": "RC", "state": "SQE", "port": 1, "pid": 4243, "rqpn": 501},
    {"lqpn": 302, "type": "UD", "state": "RTS", "port": 1, "pid": 4243},
    # created, not yet bound to a port: no PORT_INDEX
    {"lqpn": 303, "type": "RC", "state": "RESET", "pid": 4243},
]}

MLX5_2 = {"index": 3, "name": "mlx5_2", "per_message": 4, "qps": [
    {"lqpn": 1000 + i, "type": "RC", "state": "RTS", "port": 2, "pid": 5150,
     "rqpn": 2000 + i, **({"driver": "dc"} if i == 5 else {})} for i in range(6)
]}

GOOD2 = {"index": 1, "name": "mlx5_0", "qps": MLX5_0["qps"][1:3]}  # first message of the bad ones


def set_u16(raw, off, v):
    return raw[:off] + struct.pack("<H", v) + raw[off + 2:]


def fixtures():
    """name -> bytes, and name -> offset of the defect (for the README)."""
    out, where = {}, {}
    out["two-devs.bin"] = qp_dump([MLX5_0, MLX5_1])
    out["multipart.bin"] = device_dump(MLX5_2, 7)
    out["error-eopnotsupp.bin"] = error_reply(1, 95, 1)

    first = qp_message(GOOD2, GOOD2["qps"], 1)
    where_first = len(first)

    # the dump callback failed after one message went out
    out["done-error.bin"] = first + done(1, -22)
    where["done-error.bin"] = where_first

    # the second message is cut 10 bytes short of its nlmsg_len
    second = qp_message(GOOD2, MLX5_0["qps"][3:], 1)
    out["truncated.bin"] = first + second[:-10]
    where["truncated.bin"] = where_first

    # the RES_QP table claims 100 bytes more than its message holds
    table_off = 16 + len(handle(GOOD2))
    nla_len = struct.unpack_from("<H", second, table_off)[0]
    out["attr-past-end.bin"] = first + set_u16(second, table_off, nla_len + 100)
    where["attr-past-end.bin"] = where_first + table_off

    # DEV_NAME "mlx5_1" without its NUL, padded with 0xff rather than zeros
    bad_name = struct.pack("<HH", 4 + 6, RDMA_NLDEV_ATTR_DEV_NAME) + b"mlx5_1" + b"\xff\xff"
    body = u32(RDMA_NLDEV_ATTR_DEV_INDEX, 2) + bad_name + \
        nest(RDMA_NLDEV_ATTR_RES_QP, qp_entry(MLX5_1["qps"][1]))
    out["unterminated-name.bin"] = first + nlmsg(qp_msg_type(), NLM_F_MULTI, 1, body)
    where["unterminated-name.bin"] = where_first + 16 + 8

    # second entry's STATE (its last attribute) claims 40 bytes; 8 are left in the nest
    e1, e2 = qp_entry(MLX5_1["qps"][1]), qp_entry(MLX5_1["qps"][2])
    state_off = len(e2) - 8
    e2 = set_u16(e2, state_off, 40)
    dev1 = {"index": 2, "name": "mlx5_1"}
    msg = nlmsg(qp_msg_type(), NLM_F_MULTI, 1,
                handle(dev1) + nest(RDMA_NLDEV_ATTR_RES_QP, e1, e2))
    out["nest-bad-inner.bin"] = first + msg
    where["nest-bad-inner.bin"] = where_first + 16 + len(handle(dev1)) + 4 + len(e1) + state_off

    # the LQPN of the first entry says nla_len 2, less than an attribute header
    e = qp_entry(MLX5_1["qps"][1])
    lqpn_off = 4 + 8     # entry header, then PORT_INDEX
    e = set_u16(e, lqpn_off, 2)
    msg = nlmsg(qp_msg_type(), NLM_F_MULTI, 1, handle(dev1) + nest(RDMA_NLDEV_ATTR_RES_QP, e))
    out["attr-short.bin"] = first + msg
    where["attr-short.bin"] = where_first + 16 + len(handle(dev1)) + 4 + lqpn_off
    return out, where


def main(argv):
    if len(argv) == 2 and argv[1] == "--constants":
        for name in CONSTANTS:
            print(name, globals()[name])
        return 0
    if len(argv) != 2:
        print("usage: nldev.py DIR | --constants", file=sys.stderr)
        return 2
    out, where = fixtures()
    os.makedirs(argv[1], exist_ok=True)
    for name, raw in sorted(out.items()):
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(raw)
        note = f", defect at offset {where[name]}" if name in where else ""
        print(f"{name}: {len(raw)} bytes{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

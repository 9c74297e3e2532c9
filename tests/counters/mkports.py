"""mkports.py DIR N: a node tree with N single-port mlx5 functions, laid out
as the kernel lays sysfs out: each function a PCI device under
/sys/devices/pci0000:00, its RDMA device in its infiniband/ folder, the
class folder /sys/class/infiniband holding links to them. Each port has
mlx5's counters/ (the PMA set) and hw_counters/ files; every value differs,
so a counter read from the wrong file, or not read, shows. Error counters
are 0 and traffic counters plausible: a healthy node, exit 0."""
import os, sys

PMA = ["port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
       "unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets",
       "multicast_rcv_packets", "symbol_error", "link_error_recovery", "link_downed",
       "port_rcv_errors", "port_xmit_discards", "port_xmit_wait"]
HW = ["out_of_buffer", "out_of_sequence", "local_ack_timeout_err", "rnr_nak_retry_err",
      "packet_seq_err", "np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"]


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


top, n = sys.argv[1], int(sys.argv[2])
os.makedirs(top + "/sys/class/infiniband", exist_ok=True)
for i in range(n):
    bdf = "0000:%02x:00.0" % (i + 1)
    pci = "/sys/devices/pci0000:00/" + bdf
    dev = "mlx5_%d" % i
    put(top + pci + "/vendor", "0x15b3\n")
    put(top + pci + "/device", "0x101d\n")
    put(top + pci + "/class", "0x020700\n")
    ib = pci + "/infiniband/" + dev
    put(top + ib + "/node_type", "1: CA\n")
    put(top + ib + "/fw_ver", "28.39.1002\n")
    put(top + ib + "/node_guid", "b8ce:f603:00%02x:0001\n" % i)
    port = top + ib + "/ports/1"
    put(port + "/state", "4: ACTIVE\n")
    put(port + "/phys_state", "5: LinkUp\n")
    put(port + "/rate", "400 Gb/sec (4X NDR)\n")
    put(port + "/link_layer", "InfiniBand\n")
    for k, name in enumerate(PMA):
        traffic = k < 8
        put(port + "/counters/" + name, "%d\n" % (1000 * i + k if traffic else 0))
    for name in HW:
        put(port + "/hw_counters/" + name, "0\n")
    put(port + "/hw_counters/lifespan", "10\n")
    os.symlink("../../devices/pci0000:00/%s/infiniband/%s" % (bdf, dev),
               top + "/sys/class/infiniband/" + dev)

#!/bin/sh
# No global symbol with a generic name: every function or variable that
# leaves its file carries its module's prefix (fab_, model_, report_,
# wizard_, ...), so `fatal`, `stopped` or `out_json` can never collide or
# mislead. Reads the objects of the shipped build (build/obj, made by
# `make tests`) with nm.
top=${FABTOP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
objs=$(find "$top/build/obj" -name '*.o' 2>/dev/null)
if ! command -v nm >/dev/null; then
	echo "ok - global symbols # SKIP nm is not installed (binutils)"; exit 0
fi
if [ -z "$objs" ]; then
	echo "not ok - global symbols: no objects under build/obj (run make tests)"; exit 0
fi
# One prefix per module; the view ops tables end in _view_ops.
prefixes='fab_|model_|collect_|report_|view_|wizard_|wiz_|run_|ab_|sampler_|live_|topo_|counter_|capture_|cap_|root_|out_|rule_|findings_|finding_|nccl_|perftest_|mtu_|job_|tui_|layout_|procfs_|rdma_res_|qp_|dl_|sys_|archive_|uverbs_|netlink_|nvml_|tbl_|ll_|port_|nic_|pcie_|gpu_|tri_|sev_|traffic_|ctr_|analyze_log_|links_|beneath_|ras_|gdr_|cuda_|ethtool_|dcb_|netdev_|verbs_|hazard_|lossless_|watch_|nodedoc_|nodefacts_|fleet_|diff_|scenario_|learn_|cfg_|i18n_|memtree_'
bad=$(nm -g --defined-only $objs 2>/dev/null | awk '$2 ~ /^[TDBRC]$/ {print $3}' | sort -u |
	grep -vE "^(${prefixes})|_view_ops$|^main$")
n=$(nm -g --defined-only $objs 2>/dev/null | awk '$2 ~ /^[TDBRC]$/' | wc -l)
if [ -z "$bad" ] && [ "$n" -gt 100 ]; then
	echo "ok - $n global symbols, each with its module's prefix"
else
	echo "not ok - global symbols without a module prefix"
	echo "$bad" | sed 's/^/#   /'
fi

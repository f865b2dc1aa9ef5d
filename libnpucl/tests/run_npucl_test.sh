#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make check: the collectives on 2, 3 and 4 ranks for every dtype and op,
# in one process (four in-process devices) and across processes
# (mpirun -np 4, oversubscribed), each result compared with numpy bit for
# bit (check_npucl.py). A small staging buffer makes the larger cases go in
# several pieces. Prints TAP.
BUILD=${BUILD:-build}
HERE=$(dirname "$0")
T=$BUILD/tests/libnpucl/npucl_test
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/npucl.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
export NPUCL_BUFFSIZE=${NPUCL_BUFFSIZE:-65536} NPU_SIM_VRAM_MB=${NPU_SIM_VRAM_MB:-64}
unset NPU_DEVICE

n=0
tap() {	# $1: 0 = ok, $2: description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
# A program's own TAP, folded into one line; its failures as diagnostics.
fold() {	# $1: rc, $2: log, $3: description
	passed=$(grep -c '^ok' "$2")
	failed=$(grep -c '^not ok' "$2")
	grep -E '^not ok|Bail|npucl:|rror' "$2" | sed 's/^/# /'
	[ "$1" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
	tap $? "$3 ($passed ok, $failed not ok)"
}

NPU_SIM_DEVICES=4 timeout 300 "$T" "$WORK/proc" > "$WORK/proc.log" 2>&1
fold $? "$WORK/proc.log" "in one process, 4 in-process devices"

NPU_SIM_DEVICES=4 timeout 120 "$BUILD/tests/libnpucl/tp_mlp_test" > "$WORK/tp.log" 2>&1
rc=$?
grep '^ok\|^not ok' "$WORK/tp.log" | sed 's/^\(not \)*ok [0-9]* - /# /'
fold $rc "$WORK/tp.log" "tensor-parallel MLP over 2 and 4 devices matches one device"

if ! command -v mpirun > /dev/null 2>&1; then
	n=$((n + 1))
	echo "ok $n - mpirun -np 4 # SKIP Open MPI not installed (openmpi-bin)"
else
	# CI runs as root; more ranks than cores need --oversubscribe
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout 300 mpirun --oversubscribe -np 4 \
		"$T" --mpi "$WORK/mpi" > "$WORK/mpirun.log" 2>&1
	rc=$?
	# every rank's TAP has its own file
	cat "$WORK"/mpi/tap_*.log "$WORK/mpirun.log" > "$WORK/mpi.log" 2> /dev/null
	ranks=$(ls "$WORK"/mpi/tap_*.log 2> /dev/null | wc -l)
	[ "$ranks" -eq 4 ] || rc=1
	fold $rc "$WORK/mpi.log" "mpirun -np 4, one in-process device per rank, $ranks ranks reported"
fi

if [ -x "$PY" ] && "$PY" -c 'import numpy' 2> /dev/null; then
	"$PY" "$HERE/check_npucl.py" "$WORK"/proc "$WORK"/mpi > "$WORK/np.log" 2>&1
	fold $? "$WORK/np.log" "every case equal to numpy's rank-order result, bit for bit"
else
	n=$((n + 1))
	echo "ok $n - numpy comparison # SKIP no numpy for $PY"
fi
echo "1..$n"

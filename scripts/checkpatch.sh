#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh - the kernel's checkpatch.pl --strict over the sources of
# npu_drv.ko, as TAP (one line per file).
#
# checkpatch.pl and the two files it reads (spelling.txt,
# const_structs.checkpatch) are extracted from Debian's linux-source
# tarball into $BUILD/checkpatch once; without the tarball (apt-get install
# linux-source-6.1) or perl the test skips. Run by `make check` and by
# `make checkpatch`. See Documentation/build.rst, "checkpatch".
#
# The files: what Kbuild compiles into the module (kernel/npu_drv/*.c,
# core/, pool/, ops/ without their userspace tests and homes), the headers
# beside them, and uapi/drm/npu_drm.h.
#
# Two idioms are not findings here, and are filtered by line, not by type:
# - `LINUX_VERSION_CODE >= KERNEL_VERSION(...)` (LINUX_VERSION_CODE and
#   CONSTANT_COMPARISON): the module is built out of tree (DKMS) against
#   several kernels;
# - BIT_MACRO in uapi/: BIT() does not exist for userspace, which includes
#   the uapi header.
#
# Environment: BUILD (build), LINUX_SOURCE (tarball, default the newest
# /usr/src/linux-source-*.tar.xz), CHECKPATCH_FILES (files to check instead
# of the module's).

set -u
BUILD=${BUILD:-build}
DIR=$BUILD/checkpatch
CP=$DIR/scripts/checkpatch.pl

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# Files with findings that are listed for fixing (issue 11), with how many
# each may have meanwhile: up to that many are reported as TODO (printed,
# not failing the run; prove says "unexpectedly succeeded" once a file is
# clean: then remove its line); more fail like any other file.
TODO_FILES="
kernel/npu_drv/core/npu_core_priv.h 3
"

command -v perl >/dev/null 2>&1 || skip_all "perl not installed"
TARBALL=${LINUX_SOURCE:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null |
	sort -V | tail -n 1)}

# Extract once per tarball.
if [ -n "$TARBALL" ] && [ -r "$TARBALL" ]; then
	src_id=$(ls -l --time-style=+%s "$TARBALL" | awk '{ print $5, $6, $7 }')
	if [ ! -f "$CP" ] || [ "$(cat "$DIR/.npu-source" 2>/dev/null)" != "$src_id" ]; then
		rm -rf "$DIR"
		mkdir -p "$DIR"
		top=$(tar -tJf "$TARBALL" | head -n 1 | cut -d/ -f1)
		if ! tar -xJf "$TARBALL" -C "$DIR" --strip-components=1 \
				"$top/scripts/checkpatch.pl" \
				"$top/scripts/spelling.txt" \
				"$top/scripts/const_structs.checkpatch"; then
			echo "1..1"
			echo "not ok 1 - extract checkpatch.pl from $TARBALL"
			exit 1
		fi
		echo "$src_id" > "$DIR/.npu-source"
	fi
fi
[ -f "$CP" ] || skip_all "no linux-source tarball (apt-get install linux-source-6.1)"

if [ -n "${CHECKPATCH_FILES:-}" ]; then
	files=$CHECKPATCH_FILES
else
	files=$( {
		ls kernel/npu_drv/*.c kernel/npu_drv/*.h
		ls kernel/npu_drv/core/*.[ch] kernel/npu_drv/pool/*.[ch] \
			kernel/npu_drv/ops/*.[ch]
		echo uapi/drm/npu_drm.h
	} 2>/dev/null | grep -Ev '\.mod\.c$|_user\.[ch]$|_tests?\.c$|test_[^/]*\.c$|_bench\.c$|_fuzz\.c$' |
		sort)
fi
[ -n "$files" ] || skip_all "no sources to check"

out=$BUILD/checkpatch/report.txt
# GIT_DIR: no git here, or checkpatch leaves a camelcase cache file in the
# working directory.
# shellcheck disable=SC2086
GIT_DIR=/nonexistent perl "$CP" --strict --no-tree --terse --show-types --no-summary \
	-f $files > "$out" 2>&1
# checkpatch exits 1 when it finds something; anything else is its failure.
rc=$?
if [ $rc -gt 1 ]; then
	echo "1..1"
	echo "not ok 1 - checkpatch.pl ran (exit $rc)"
	sed 's/^/# /' "$out" | tail -n 20
	exit 1
fi

# The filtered findings of one file.
findings() {	# $1: file
	grep -F "$1:" "$out" | while IFS= read -r line; do
		case $line in
		"$1:"[0-9]*) ;;
		*) continue ;;
		esac
		rest=${line#"$1:"}
		ln=${rest%%:*}
		case $line in
		*:LINUX_VERSION_CODE:* | *:CONSTANT_COMPARISON:*)
			sed -n "${ln}p" "$1" |
				grep -Eq 'LINUX_VERSION_CODE *[<>=]+ *KERNEL_VERSION *\(' &&
				continue ;;
		*:BIT_MACRO:*)
			case $1 in uapi/*) continue ;; esac ;;
		esac
		echo "$line"
	done
}

n=0
fails=0
for f in $files; do
	n=$((n + 1))
	found=$(findings "$f")
	count=0
	[ -z "$found" ] || count=$(echo "$found" | wc -l)
	listed=$(echo "$TODO_FILES" | awk -v f="$f" '$1 == f { print $2 }')
	if [ $count -eq 0 ]; then
		echo "ok $n - checkpatch --strict $f${listed:+ # TODO $listed findings listed for fixing}"
	elif [ -n "$listed" ] && [ $count -le "$listed" ]; then
		echo "not ok $n - checkpatch --strict $f # TODO $count findings, $listed listed for fixing"
	else
		echo "not ok $n - checkpatch --strict $f ($count findings${listed:+, only $listed listed})"
		fails=$((fails + 1))
	fi
	[ -z "$found" ] || echo "$found" | sed 's/^/# /'
done
echo "1..$n"
echo "# $(grep -c ': [A-Z]*:[A-Z_0-9]*:' "$out") findings before filtering; report in $out"
[ $fails -eq 0 ]

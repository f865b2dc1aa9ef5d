#!/bin/sh
# SPDX-License-Identifier: MIT
#
# What every tool shares (TAP): --version prints the stack's version
# (mk/version.mk), and no hint, message or page names an option a tool
# does not have: each "TOOL --option" in the sources, the Documentation
# and the README, and each bare --option in the compiler library's
# messages (options of npuc), is in that tool's --help.
set -u
B=${BUILD:-build}
TOOLS="npuc npu-run npu-om npu-smi npu-plan npu-quant"
VERSION=$(sed -n 's/^NPU_VERSION[ \t]*:=[ \t]*//p' mk/version.mk)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

n=0
fails=0
t() {	# $1: description, rest: command
	n=$((n + 1))
	d=$1
	shift
	if "$@"; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		fails=$((fails + 1))
	fi
}

for tool in $TOOLS; do
	v=$("$B/bin/$tool" --version 2>&1)
	t "$tool --version: $v" sh -c "echo '$v' | grep -q '^$tool $VERSION\\( \\|\$\\)'"
	"$B/bin/$tool" --help >"$T/$tool.help" 2>&1
done

# "TOOL --option" wherever users read it
grep -rhoE '(npuc|npu-run|npu-smi|npu-om|npu-plan|npu-quant)( +\[?-[A-Za-z]+[^ ]*)* +--[a-z][a-z0-9_-]*' \
	--include='*.c' --include='*.h' --include='*.rst' --include='*.md' \
	--include='*.py' --include='*.sh' \
	compiler libnpurt tools kernel Documentation README.md models examples \
	2>/dev/null | sed -E 's/^([a-z-]+).* (--[a-z0-9_-]+)$/\1 \2/' |
	sort -u >"$T/mentions"
# bare options in the compiler library's messages are npuc's
find compiler -name '*.c' -not -path '*/tests/*' -exec grep -ohE '"[^"]*' {} + |
	grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u | sed 's/^/npuc /' >>"$T/mentions"
bad=""
while read -r tool opt; do
	grep -qe "$opt\\([^a-z0-9_-]\\|\$\\)" "$T/$tool.help" || bad="$bad $tool $opt;"
done <"$T/mentions"
t "every option named in hints and docs exists ($(wc -l <"$T/mentions") checked)${bad:+: missing:$bad}" \
	test -z "$bad"

echo "1..$n"
[ $fails -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make install` (TAP): into a DESTDIR with Debian's directories (PREFIX=
# /usr, the multiarch LIBDIR), every tool, the library, its header and
# pkg-config file, the manual pages and the documentation are where they
# belong; the pages render with man(1), document every option of their
# tool's --help and every function of npurt.h; the installed tools run;
# the Debian version agrees with mk/version.mk.
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TRIPLET=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
LIBDIR=/usr/lib/$TRIPLET
R=$T/root
TOOLS="npuc npu-run npu-om npu-smi npu-plan npu-quant"

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

make -s --no-print-directory install DESTDIR="$R" PREFIX=/usr \
	LIBDIR="$LIBDIR" BUILD="$B" >"$T/install.log" 2>&1
st=$?
[ $st -eq 0 ] || sed 's/^/# /' "$T/install.log"
t "make install DESTDIR PREFIX=/usr LIBDIR=$LIBDIR" test $st -eq 0

missing=""
for tool in $TOOLS; do
	[ -x "$R/usr/bin/$tool" ] || missing="$missing bin/$tool"
	[ -f "$R/usr/share/man/man1/$tool.1" ] || missing="$missing man1/$tool.1"
done
for f in "$LIBDIR/libnpurt.so.1" "$LIBDIR/libnpurt.so" "$LIBDIR/libnpurt.a" \
	 "$LIBDIR/pkgconfig/libnpurt.pc" /usr/include/npurt.h \
	 "$LIBDIR/libnpuc.so.1" "$LIBDIR/libnpuc.so" "$LIBDIR/pkgconfig/libnpuc.pc" \
	 /usr/include/npuc.h "$LIBDIR/libnpucl.so.1" "$LIBDIR/libnpucl.so" \
	 /usr/include/npucl.h /usr/share/doc/npu/collectives.rst \
	 "$LIBDIR/npu/plugins/libnpucl_ops.so" /usr/share/doc/npu/deploy.rst \
	 /usr/include/npuc.h /usr/include/npuc_plugin.h \
	 /usr/share/man/man3/npurt.3 /usr/share/doc/npu/ops.rst \
	 /usr/share/doc/npu/npu-run.rst; do
	[ -e "$R$f" ] || missing="$missing $f"
done
t "the tree has every tool, library, header, page and doc${missing:+ (missing:$missing)}" \
	test -z "$missing"
t "libnpurt.so.1 is a link to the versioned file, with that soname" \
	sh -c "[ -L '$R$LIBDIR/libnpurt.so.1' ] &&
	       readelf -d '$R$LIBDIR/libnpurt.so.1' | grep -q 'SONAME.*\\[libnpurt.so.1\\]'"
t "nothing lands outside PREFIX" \
	sh -c "[ \"\$(ls '$R')\" = usr ] && [ -z \"\$(ls '$R/usr' | grep -v -x -e bin -e lib -e include -e share)\" ]"

export PKG_CONFIG_PATH="$R$LIBDIR/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R"
t "pkg-config: multiarch libdir and the header's version" \
	sh -c "pkg-config --libs libnpurt | grep -q -- '-L$R$LIBDIR' &&
	       [ \"\$(pkg-config --variable=libdir libnpurt)\" = '$R$LIBDIR' ] &&
	       [ \"\$(pkg-config --modversion libnpurt)\" = \"\$(sed -n 's/^#define NPURT_VERSION_[A-Z]*[[:space:]]*\\([0-9]*\\)\$/\\1/p' libnpurt/include/npurt.h | paste -sd.)\" ]"

for p in $TOOLS; do
	MANWIDTH=80 man --nh --nj -l "$R/usr/share/man/man1/$p.1" >"$T/$p.txt" 2>"$T/$p.err"
	t "man -l renders $p(1) without warnings" \
		sh -c "[ -s '$T/$p.txt' ] && [ ! -s '$T/$p.err' ] &&
		       grep -q '^NAME' '$T/$p.txt' && grep -q '^SYNOPSIS' '$T/$p.txt' &&
		       grep -q '^OPTIONS' '$T/$p.txt'"
	# every long option of --help is documented on the page
	undocumented=$("$R/usr/bin/$p" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9_-]+' |
		sort -u | while read -r o; do
			grep -q -- "$o" "$T/$p.txt" || echo "$o"; done | tr '\n' ' ')
	t "$p(1) documents every option of $p --help${undocumented:+ (missing: $undocumented)}" \
		test -z "$undocumented"
done
MANWIDTH=80 man --nh --nj -l "$R/usr/share/man/man3/npurt.3" >"$T/npurt.txt" 2>"$T/npurt.err"
undocumented=$(grep -oE '\bnpurt_[a-z0-9_]+\(' "$R/usr/include/npurt.h" | tr -d '(' |
	sort -u | while read -r f; do
		grep -q "\\b$f\\b" "$T/npurt.txt" || echo "$f"; done | tr '\n' ' ')
t "npurt(3) renders and names every function of npurt.h${undocumented:+ (missing: $undocumented)}" \
	sh -c "[ ! -s '$T/npurt.err' ] && [ -z '$undocumented' ]"
# one page per API section: each renders, and each function of the
# header is described on one of them
: >"$T/sections.txt"
for s in error device stream memory model online profile; do
	MANWIDTH=80 man --nh --nj -l "$R/usr/share/man/man3/npurt_$s.3" \
		>>"$T/sections.txt" 2>>"$T/sections.err"
done
undocumented=$(grep -oE '\bnpurt_[a-z0-9_]+\(' "$R/usr/include/npurt.h" | tr -d '(' |
	sort -u | while read -r f; do
		grep -q "\\b$f\\b" "$T/sections.txt" || echo "$f"; done | tr '\n' ' ')
t "npurt_model(3), npurt_memory(3) ... (7 section pages) render and describe every function${undocumented:+ (missing: $undocumented)}" \
	sh -c "[ ! -s '$T/sections.err' ] && [ -z '$undocumented' ]"

t "the installed tools run (npuc compiles, npu-run runs on the in-process device)" \
	sh -c "LD_LIBRARY_PATH='$R$LIBDIR' '$R/usr/bin/npuc' models/tinynet/model.onnx -o '$T/t.om' --no-cache >/dev/null &&
	       NPU_DEVICE=sim '$R/usr/bin/npu-run' '$T/t.om' >/dev/null"

v=$(sed -n 's/^NPU_VERSION[ \t]*:=[ \t]*//p' mk/version.mk)
dv=$(sed -n '1s/^[^(]*(\([^)-]*\).*/\1/p' debian/changelog)
t "debian/changelog ($dv) and mk/version.mk ($v) agree" test "$v" = "$dv"

echo "1..$n"
[ $fails -eq 0 ]

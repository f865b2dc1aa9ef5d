#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Installs what building and testing the NPU stack needs on Debian 12.
# Run as root (or through sudo). Safe to run again.
set -eu

PACKAGES="
	build-essential pkg-config
	libdrm-dev libnuma-dev libprotobuf-c-dev libxxhash-dev protobuf-c-compiler libonnx-dev
	python3-onnx python3-numpy python3-torch python3-torchvision
	clang libclang-rt-14-dev llvm valgrind graphviz
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static
	cpio kmod time libdrm-tests
	libopenmpi-dev openmpi-bin
	linux-source-6.1 flex bison bc libelf-dev xz-utils
	python3-docutils man-db
	libjpeg62-turbo-dev libpng-dev python3-pil
	debhelper dh-dkms dkms fakeroot lintian mmdebstrap
"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
# Node.js and npm (for the ONNX Runtime side of the benchmarks) come from
# Debian only where the machine has none: a NodeSource nodejs already bundles
# npm and conflicts with Debian's npm package.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q $missing

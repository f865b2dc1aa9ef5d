# SPDX-License-Identifier: MIT
#
# Toolchain, flags and dependencies shared by every part of the tree.
# Each directory describes itself in a build.mk fragment (see the top-level
# Makefile); fragments only append to the variables documented in mk/rules.mk.

include mk/version.mk

CC		?= cc
AR		?= ar
PKG_CONFIG	?= pkg-config
PYTHON		?= /usr/bin/python3
# Installation (`make install`; Documentation/build.rst). Debian's rules
# pass PREFIX=/usr and LIBDIR with the multiarch triplet.
PREFIX		?= /usr/local
DESTDIR		?=
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/npu
RST2MAN		?= rst2man

# make SAN=1 builds everything with ASan+UBSan into build-san/.
ifeq ($(SAN),1)
BUILD		?= build-san
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
else
BUILD		?= build
SAN_FLAGS	:=
endif

# -ffp-contract=off: no FMA contraction, so the op kernels give the same bits
# in userspace and in the kernel module (which is built without it as well).
CSTD		:= -std=c11 -D_GNU_SOURCE
WARN		:= -Wall -Wextra -Werror -Wno-unused-parameter \
		   -Wmissing-prototypes -Wstrict-prototypes -Wvla
OPT		?= -O2 -g
CFLAGS		+= $(CSTD) $(WARN) $(OPT) -fPIC -ffp-contract=off \
		   -fno-strict-aliasing $(SAN_FLAGS)
LDFLAGS		+= $(SAN_FLAGS)

# The uapi header includes "drm.h" like the kernel's DRM headers do;
# libdrm's pkg-config file puts its copy on the include path.
DRM_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libdrm 2>/dev/null)
DRM_LIBS	:= $(shell $(PKG_CONFIG) --libs libdrm 2>/dev/null)
PROTOBUF_C_CFLAGS := $(shell $(PKG_CONFIG) --cflags libprotobuf-c 2>/dev/null)
PROTOBUF_C_LIBS	:= $(shell $(PKG_CONFIG) --libs libprotobuf-c 2>/dev/null)
# The compile cache's keys (XXH3-128 over the graph and its weights)
XXHASH_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libxxhash 2>/dev/null)
XXHASH_LIBS	:= $(shell $(PKG_CONFIG) --libs libxxhash 2>/dev/null)
NUMA_LIBS	:= -lnuma
# Image decoding in libnpurt (Documentation/media.rst)
IMG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libjpeg libpng 2>/dev/null)
IMG_LIBS	:= $(shell $(PKG_CONFIG) --libs libjpeg libpng 2>/dev/null)

UAPI_CFLAGS	:= -Iuapi $(DRM_CFLAGS)

# $(call objs,SOURCES): the object files of SOURCES (pattern rule in
# mk/rules.mk). Defined here so fragments can use it in prerequisites.
objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# SPDX-License-Identifier: MIT
#
# The version of the stack: what every tool's --version prints and the
# upstream part of the Debian packages' version (debian/changelog must
# agree; tests/install/test_install.sh checks it). The runtime library
# keeps its own ABI version (libnpurt/include/npurt.h, the soname).
NPU_VERSION	:= 1.1.0

# For the tools' objects: -DNPU_VERSION, rebuilt when this file changes.
VERSION_CPPFLAGS := -DNPU_VERSION='"$(NPU_VERSION)"'

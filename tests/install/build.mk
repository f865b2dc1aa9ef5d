# SPDX-License-Identifier: MIT
# make install into a DESTDIR (tests/install/test_install.sh); the Debian
# packages: `make deb`, `make check-deb` (debian/tests/, not in make check:
# it builds every package and a chroot).
TESTS += tests/install/test_install.sh

# ---- Debian packages ----
# `make deb`: dpkg-buildpackage -us -uc -b on a copy of the source tree
# (tracked and untracked files git does not ignore) in $(BUILD)/deb/src,
# so the .deb files land in $(BUILD)/deb/, then lintian on them.
DEB_DIR		:= $(BUILD)/deb
LINTIAN_FAIL	?= error,warning

.PHONY: deb check-deb
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	git ls-files -co --exclude-standard | while read -r f; do \
		[ -e "$$f" ] && printf '%s\n' "$$f"; done | \
		tar -cf - -T - | tar -xf - -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b \
		>../build.log 2>&1 || { tail -40 ../build.log; exit 1; }
	lintian --fail-on $(LINTIAN_FAIL) --info --display-info \
		$(DEB_DIR)/*.changes > $(DEB_DIR)/lintian.log; st=$$?; \
		cat $(DEB_DIR)/lintian.log; exit $$st
	@ls -l $(DEB_DIR)/*.deb

# The packages installed in a Debian chroot (or the VM): see
# debian/tests/check-deb.sh.
check-deb: deb
	debian/tests/check-deb.sh $(DEB_DIR)

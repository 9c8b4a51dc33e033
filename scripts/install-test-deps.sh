#!/usr/bin/env bash
# install-test-deps.sh — the Debian packages bootsmith's test suites use, in one list, for
# `npm test` (which runs this first) and `.ci/run`.
#
# As root on Debian (apt-get and dpkg-query present): installs the missing ones quietly
# (`apt-get update` first, only when something is missing, so a second run costs one dpkg-query).
# Otherwise: prints which packages are missing, which suites skip without them, and the command
# that installs them. Also says whether ../shared (the shared fixtures and contracts beside the
# checkout) is there, and which tests skip without it.
#
# Exit status: 0, also when something is missing (outside CI those suites skip with a message;
# under CI=true they fail, test/support/requirements.ts); 1 only when CI is set and the
# installation failed. BOOTSMITH_SKIP_TEST_DEPS=1 skips the installation (the report still runs).
set -euo pipefail
cd "$(dirname "$0")/.."

# package → what needs it (keep in step with docs/developer/testing.md and test/support/probes.ts)
declare -A NEEDED_BY=(
	[xorriso]='fixture ISOs and ISO checks (unit, fuzz, boot tests)'
	[isolinux]='fixture ISOs (fixtures/build-live-iso.sh)'
	[syslinux-common]='fixture ISOs (fixtures/build-live-iso.sh)'
	[mtools]='fixture ISOs with an EFI image'
	[dosfstools]='fixture ISOs with an EFI image'
	[cpio]='initrd checks (unit, fuzz)'
	[xz-utils]='xz archives (unit, fuzz, EMBED_COMPRESSION=xz)'
	[zstd]='zstd initrd checks (unit)'
	[gzip]='gzip archive checks (unit)'
	[curl]='range-layer checks against curl (unit), documentation examples (doc test)'
	[zip]='zipped image sources (unit)'
	[openssl]='TLS certificates (unit, fuzz), fixture rootfs'
	[qemu-system-x86]='boot tests (npm run test:e2e)'
	[qemu-block-extra]="boot tests: qemu's HTTP block driver"
	[ipxe-qemu]='boot tests: iPXE chain-boot'
	[busybox-static]='boot tests: the bootable fixture ISO'
	[tmux]="the CLI's hosts list --watch test"
	[network-manager]='static networking checked by NetworkManager (nmcli --offline, the daemon)'
	[dbus-daemon]='static networking: the NetworkManager daemon test'
	[postgresql]='external-PostgreSQL runs (TEST_DATABASE_URL) and npm run test:scale'
	[haproxy]='npm run test:scale'
	[chromium]='web console tests (src/console/console-ui.chromium.test.ts)'
	[zbar-tools]='web console QR code checks (zbarimg)'
	[ignition]="the discovery Ignition's real consumer (ignition-validate, the Ignition binary; unit tier and the boot tests' guest)"
	[systemd]='systemd-analyze verify and the unit parser on generated units (unit tier)'
	[linux-image-amd64]="boot tests: the bootable fixture's signed kernel"
	[kmod]="boot tests: the guest's NIC, disk and efivarfs modules"
	[passwd]="boot tests: useradd/groupadd for Ignition's users stage in the guest"
	[policycoreutils]="setfiles for Ignition's relabelling (guest and scratch-root runs)"
	[ovmf]='boot tests: UEFI and Secure Boot (OVMF with Microsoft keys)'
	[shim-signed]="boot tests: the fixture's Microsoft-signed shim"
	[grub-efi-amd64-signed]="boot tests: the fixture's signed GRUB"
	[dnsmasq-base]='boot tests: UEFI HTTP Boot (DHCP in a network namespace)'
	[iproute2]='boot tests: network namespaces and veth pairs'
	[ipxe]='PXE wing: the loaders it serves (undionly.kpxe, ipxe.efi) in its network-namespace tests and bench/pxe-fleet.mjs'
	[atftp]='PXE wing: a real TFTP client (windowsize) against its TFTP server'
	[tftp-hpa]='PXE wing: a real TFTP client against its TFTP server'
	[docker-registry]="registry sources: Debian's distribution registry on loopback (TLS, htpasswd, mirrors)"
	[skopeo]="registry sources: pushes test images, reads the generated registries.conf and policy.json"
	[umoci]="registry sources: builds test images (OCI layouts)"
	[apache2-utils]="registry sources: htpasswd for the test registries"
	[qemu-system-arm]='per-arch boot tests: the aarch64 guest (test/e2e/arch-aarch64.test.ts)'
	[qemu-efi-aarch64]="per-arch boot tests: AAVMF, the aarch64 guest's UEFI firmware"
	[qemu-system-ppc]='per-arch boot tests: the ppc64le guest under SLOF (test/e2e/arch-ppc64le.test.ts)'
	[qemu-system-misc]="per-arch boot tests: the s390x guest under s390-ccw (test/e2e/arch-s390x.test.ts)"
	[binutils]="per-arch fixtures: readelf finds the foreign programs' libraries (fixtures/build-arch-iso.sh)"
	[grub-common]="per-arch fixtures: grub-mkimage builds the ppc64le fixture's powerpc-ieee1275 GRUB"
	[python3-sushy]="the Redfish emulator checked by Ironic's library (sushy)"
	[redfishtool]="the Redfish emulator checked by redfishtool"
	[g++]="the kernel I/O addon (npm ci builds native/kernel-io.c with node-gyp; HTTP_BODY_IO tests)"
	[make]="the kernel I/O addon (node-gyp's build)"
	[python3]="the kernel I/O addon (node-gyp's gyp)"
)
PACKAGES=(
	xorriso isolinux syslinux-common mtools dosfstools cpio xz-utils zstd gzip curl zip openssl
	qemu-system-x86 qemu-block-extra ipxe-qemu busybox-static tmux
	network-manager dbus-daemon
	ignition systemd linux-image-amd64 kmod passwd policycoreutils
	ovmf shim-signed grub-efi-amd64-signed dnsmasq-base iproute2 ipxe atftp tftp-hpa
	qemu-system-arm qemu-efi-aarch64 qemu-system-ppc qemu-system-misc binutils grub-common
	docker-registry skopeo umoci apache2-utils
	python3-sushy redfishtool
	g++ make python3
	postgresql haproxy chromium zbar-tools
)

ci() { [ -n "${CI:-}" ] && [ "${CI:-}" != false ] && [ "${CI:-}" != 0 ]; }

missing() {
	local p
	for p in "${PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
			printf '%s\n' "$p"
		fi
	done
}

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-test-deps: not a Debian system (no dpkg-query): install the equivalents of: ${PACKAGES[*]}" >&2
	echo "install-test-deps: suites whose tools are missing skip with a message naming them" >&2
	exit 0
fi

mapfile -t todo < <(missing)
if [ "${#todo[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && [ "${BOOTSMITH_SKIP_TEST_DEPS:-}" != 1 ] &&
	command -v apt-get >/dev/null 2>&1; then
	echo "install-test-deps: installing ${todo[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get update -qq >/dev/null &&
		apt-get install -y -qq --no-install-recommends "${todo[@]}" >/dev/null; then
		mapfile -t todo < <(missing)
	else
		echo "install-test-deps: apt-get failed" >&2
		if ci; then exit 1; fi
	fi
fi

if [ "${#todo[@]}" -gt 0 ]; then
	echo "install-test-deps: missing Debian packages; these tests will skip (fail under CI=true):" >&2
	for p in "${todo[@]}"; do echo "  $p: ${NEEDED_BY[$p]}" >&2; done
	echo "install-test-deps: to install them: sudo apt-get install --no-install-recommends ${todo[*]}" >&2
	echo "install-test-deps: (as root, npm test installs them itself)" >&2
fi
if [ ! -d ../shared/fixtures/coreos-installer ]; then
	echo "install-test-deps: no ../shared/fixtures/coreos-installer beside the checkout: the" \
		"coreos-installer compatibility tests (its fixture ISOs) will skip" >&2
fi
if [ ! -f ../shared/contracts/assisted-service-swagger.yaml ]; then
	echo "install-test-deps: no ../shared/contracts/assisted-service-swagger.yaml beside the checkout:" \
		"the upstream swagger contract tests will skip" >&2
fi
exit 0

# The devices our QEMU is built with (configure --without-default-devices
# --with-devices-aarch64=pmu; build.sh copies this file into the source
# as configs/devices/aarch64-softmmu/pmu.mak). Only what harness/qemu.sh
# and harness/qemu/test-bare.sh boot: the virt board, with what it
# selects (GICv3, PL011, fw_cfg, flash for ACPI=1's firmware, virtio-mmio),
# virtio-9p for SHARE= and the generic loader (-device loader).
CONFIG_ARM_VIRT=y
CONFIG_VIRTIO_9P=y
CONFIG_GENERIC_LOADER=y

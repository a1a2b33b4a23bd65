# SPDX-License-Identifier: GPL-2.0
#
# kunit.py's --qemu_config for our KUnit suites on our QEMU: the base's
# arm64 config (qemu_configs/arm64.py) with our qemu-system-aarch64, whose
# -cpu max has the BRBE model that brbe_test_write_config programs
# (Debian's QEMU lacks it, and the test skips). kunit.py runs
# 'qemu-system-' + qemu_arch from PATH, so our binary's folder goes first
# in PATH; harness/qemu/build.sh builds it and names it.

import os
import subprocess

from ..qemu_config import QemuArchParams

_BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'qemu', 'build.sh')
_QEMU = subprocess.run([_BUILD, 'path'], check=True, capture_output=True,
                       text=True).stdout.strip()
if not os.access(_QEMU, os.X_OK):
    raise FileNotFoundError(f'no QEMU at {_QEMU}: run {_BUILD} build')
os.environ['PATH'] = os.path.dirname(_QEMU) + os.pathsep + os.environ['PATH']

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
                           kconfig='''
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
                           qemu_arch='aarch64',
                           kernel_path='arch/arm64/boot/Image.gz',
                           kernel_command_line='console=ttyAMA0',
                           extra_qemu_params=['-machine', 'virt,gic-version=3',
                                              '-cpu', 'max'])

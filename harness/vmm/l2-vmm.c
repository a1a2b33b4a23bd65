// SPDX-License-Identifier: GPL-2.0
/*
 * l2-vmm: the smallest VMM that boots our arm64 kernel as a KVM guest
 * inside our QEMU guest (issues 28 and 29, "A Linux guest").
 *
 * One vCPU (PSCI 0.2 and a vPMU on PPI 7, INTID 23), an in-kernel vGICv3,
 * the architected timer, RAM at 0x40000000, and a PL011 that only
 * transmits: every other MMIO access reads 0 and ignores writes. The
 * kernel Image, the initrd and the DTB go at fixed IPAs (l2.dts); the one
 * thing the DTB cannot know in advance, the initrd's end, is a placeholder
 * that the VMM overwrites. Registers at entry follow
 * Documentation/arch/arm64/booting.rst: x0 = DTB, x1..x3 = 0, PC = Image.
 *
 *   l2-vmm KERNEL INITRD DTB
 *
 * The guest's console is written to stdout. The VMM exits 0 when the
 * guest powers off (PSCI SYSTEM_OFF), 2 when it resets, 1 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kvm.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;

/* The guest's physical map; l2.dts describes the same addresses. */
#define RAM_BASE	0x40000000UL
#define RAM_SIZE	(512UL << 20)
#define INITRD_BASE	0x50000000UL
#define DTB_BASE	0x5fe00000UL
#define DTB_MAX		(2UL << 20)
#define GICD_BASE	0x08000000UL
#define GICR_BASE	0x080a0000UL
#define UART_BASE	0x09000000UL
#define UART_SIZE	0x1000UL
#define PMU_INTID	23		/* PPI 7 */
#define SPE_INTID	21		/* PPI 5, as l2.dts says */

/* Our KVM's guest SPE (Documentation/virt/kvm/devices/vcpu.rst) */
#ifndef KVM_ARM_VCPU_SPE_CTRL
#define KVM_ARM_VCPU_SPE_CTRL	3
#define KVM_ARM_VCPU_SPE_IRQ	0
#define KVM_ARM_VCPU_SPE_INIT	1
#endif

/* linux,initrd-end in l2.dts, replaced by the real end at load time */
static const u8 initrd_end_magic[8] = {
	0xf0, 0x0d, 0xca, 0xfe, 0xde, 0xad, 0xbe, 0xef
};

/* PL011 registers this model answers */
#define UART_DR		0x000
#define UART_FR		0x018
#define BIT(n)		(1U << (n))
#define UART_FR_TXFE	BIT(7)
#define UART_FR_RXFE	BIT(4)
#define UART_PERIPH_ID	0xfe0

/* PL011 (r1p5) peripheral and PrimeCell IDs, one byte per word */
static const u8 uart_ids[8] = {
	0x11, 0x10, 0x14, 0x00, 0x0d, 0xf0, 0x05, 0xb1
};

static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	fputs("l2-vmm: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s)\n", strerror(err));
	exit(1);
}

/**
 * load_file() - read a whole file into guest memory
 * @path:	the file
 * @dst:	where it goes, in the VMM's mapping of guest RAM
 * @max:	the room there
 *
 * Return: the file's size.
 */
static size_t load_file(const char *path, u8 *dst, size_t max)
{
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	while ((n = read(fd, dst + done, max - done)) > 0)
		done += n;
	if (n < 0)
		die("read %s", path);
	if (done == max) {
		errno = EFBIG;
		die("%s does not fit in %zu bytes", path, max);
	}
	close(fd);
	return done;
}

/**
 * check_image() - check an arm64 Image header and where it lands
 * @img:	the Image, loaded at RAM_BASE
 *
 * The header (booting.rst) gives the text offset from a 2 MiB aligned
 * base and the size the kernel needs, BSS included: it must end before
 * the initrd.
 *
 * Return: the text offset, the entry point's offset from RAM_BASE.
 */
static u64 check_image(const u8 *img)
{
	u64 text_offset, image_size;

	memcpy(&text_offset, img + 8, 8);
	memcpy(&image_size, img + 16, 8);
	if (memcmp(img + 56, "ARM\x64", 4)) {
		errno = EINVAL;
		die("not an arm64 Image");
	}
	if (RAM_BASE + text_offset + image_size > INITRD_BASE) {
		errno = EFBIG;
		die("Image needs 0x%llx bytes, past the initrd",
		    (unsigned long long)image_size);
	}
	return text_offset;
}

/**
 * patch_initrd_end() - write the initrd's end into the loaded DTB
 * @dtb:	the DTB in guest memory
 * @size:	its size
 * @end:	the initrd's end IPA
 */
static void patch_initrd_end(u8 *dtb, size_t size, u64 end)
{
	size_t i;
	int s;

	for (i = 0; i + 8 <= size; i++) {
		if (memcmp(dtb + i, initrd_end_magic, 8))
			continue;
		/* FDT cells are big-endian */
		for (s = 0; s < 8; s++)
			dtb[i + s] = end >> (56 - 8 * s);
		return;
	}
	errno = EINVAL;
	die("no linux,initrd-end placeholder in the DTB");
}

static void set_dev_attr(int fd, u32 group, u64 attr, void *addr,
			 const char *what)
{
	struct kvm_device_attr a = {
		.group = group, .attr = attr, .addr = (u64)addr,
	};

	if (ioctl(fd, KVM_SET_DEVICE_ATTR, &a))
		die("%s", what);
}

static void set_core_reg(int vcpu, u64 off, u64 val)
{
	struct kvm_one_reg reg = {
		.id = KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | off,
		.addr = (u64)&val,
	};

	if (ioctl(vcpu, KVM_SET_ONE_REG, &reg))
		die("KVM_SET_ONE_REG 0x%llx", (unsigned long long)reg.id);
}

#define CORE_REG(x) (offsetof(struct kvm_regs, x) / sizeof(u32))

/**
 * create_vgic() - create the in-kernel vGICv3 at l2.dts's addresses
 * @vm:	the VM
 *
 * Return: the vGIC device's fd, to initialize once the vCPU exists.
 */
static int create_vgic(int vm)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	u64 dist = GICD_BASE, redist = GICR_BASE;

	if (ioctl(vm, KVM_CREATE_DEVICE, &dev))
		die("KVM_CREATE_DEVICE vGICv3");
	set_dev_attr(dev.fd, KVM_DEV_ARM_VGIC_GRP_ADDR,
		     KVM_VGIC_V3_ADDR_TYPE_DIST, &dist, "vGIC distributor");
	set_dev_attr(dev.fd, KVM_DEV_ARM_VGIC_GRP_ADDR,
		     KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist, "vGIC redistributor");
	return dev.fd;
}

/**
 * create_vcpu() - create vCPU 0 with PSCI 0.2, a vPMU and SPE if KVM has it
 * @kvm:	/dev/kvm
 * @vm:		the VM
 * @gic:	the vGIC, initialized here: the vPMU needs it
 *
 * The VMM asks KVM for guest SPE where KVM offers it, naming the buffer
 * management interrupt, the PPI that l2.dts names, and claims it with
 * INIT. Without guest SPE the guest's driver finds no SPE and leaves that
 * node alone.
 *
 * Return: the vCPU's fd.
 */
static int create_vcpu(int kvm, int vm, int gic)
{
	struct kvm_vcpu_init init;
	int irq = PMU_INTID, spe_irq = SPE_INTID;
	struct kvm_device_attr spe_attr = {
		.group = KVM_ARM_VCPU_SPE_CTRL, .attr = KVM_ARM_VCPU_SPE_IRQ,
	};
	int vcpu;

	if (ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_ARM_PMU_V3) <= 0) {
		errno = ENODEV;
		die("KVM has no vPMU (KVM_CAP_ARM_PMU_V3)");
	}
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	if (ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init))
		die("KVM_ARM_PREFERRED_TARGET");
	init.features[0] |= BIT(KVM_ARM_VCPU_PSCI_0_2) |
			    BIT(KVM_ARM_VCPU_PMU_V3);
	if (ioctl(vcpu, KVM_ARM_VCPU_INIT, &init))
		die("KVM_ARM_VCPU_INIT");

	set_dev_attr(gic, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT,
		     NULL, "vGIC init");
	set_dev_attr(vcpu, KVM_ARM_VCPU_PMU_V3_CTRL, KVM_ARM_VCPU_PMU_V3_IRQ,
		     &irq, "vPMU interrupt");
	set_dev_attr(vcpu, KVM_ARM_VCPU_PMU_V3_CTRL, KVM_ARM_VCPU_PMU_V3_INIT,
		     NULL, "vPMU init");
	if (!ioctl(vcpu, KVM_HAS_DEVICE_ATTR, &spe_attr)) {
		set_dev_attr(vcpu, KVM_ARM_VCPU_SPE_CTRL, KVM_ARM_VCPU_SPE_IRQ,
			     &spe_irq, "SPE interrupt");
		set_dev_attr(vcpu, KVM_ARM_VCPU_SPE_CTRL, KVM_ARM_VCPU_SPE_INIT,
			     NULL, "SPE init");
		fprintf(stderr, "l2-vmm: guest SPE on INTID %d\n", spe_irq);
	}
	return vcpu;
}

/**
 * uart_access() - the PL011: transmit, report an empty FIFO, name itself
 * @run:	the vCPU's run structure: an MMIO exit inside the UART's page
 */
static void uart_access(struct kvm_run *run)
{
	u64 off = run->mmio.phys_addr - UART_BASE;
	u32 val = 0;

	if (run->mmio.is_write) {
		if (off == UART_DR && write(STDOUT_FILENO, run->mmio.data, 1) < 0)
			die("console write");
		return;
	}
	if (off == UART_FR)
		val = UART_FR_TXFE | UART_FR_RXFE;
	else if (off >= UART_PERIPH_ID && off < UART_PERIPH_ID + 32 && !(off & 3))
		val = uart_ids[(off - UART_PERIPH_ID) / 4];
	memset(run->mmio.data, 0, sizeof(run->mmio.data));
	memcpy(run->mmio.data, &val, run->mmio.len < 4 ? run->mmio.len : 4);
}

/**
 * mmio_access() - an MMIO exit: the UART, or nothing
 * @run:	the vCPU's run structure
 *
 * An access outside the UART reads 0: the guest's DT names no other
 * device, so one is a guest bug; it is reported once.
 */
static void mmio_access(struct kvm_run *run)
{
	static int warned;
	u64 pa = run->mmio.phys_addr;

	if (pa >= UART_BASE && pa < UART_BASE + UART_SIZE) {
		uart_access(run);
		return;
	}
	if (!warned++)
		fprintf(stderr, "l2-vmm: %s of unmapped IPA 0x%llx\n",
			run->mmio.is_write ? "write" : "read",
			(unsigned long long)pa);
	if (!run->mmio.is_write)
		memset(run->mmio.data, 0, sizeof(run->mmio.data));
}

/**
 * run_vcpu() - run the vCPU until the guest powers off or resets
 * @vcpu:	the vCPU
 * @run:	its mapped run structure
 *
 * Return: the VMM's exit status.
 */
static int run_vcpu(int vcpu, struct kvm_run *run)
{
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) && errno != EINTR)
			die("KVM_RUN");
		switch (run->exit_reason) {
		case KVM_EXIT_MMIO:
			mmio_access(run);
			break;
		case KVM_EXIT_INTR:
			break;
		case KVM_EXIT_SYSTEM_EVENT:
			if (run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN)
				return 0;
			fprintf(stderr, "l2-vmm: system event %u\n",
				run->system_event.type);
			return 2;
		default:
			errno = EINVAL;
			die("unexpected exit %u", run->exit_reason);
		}
	}
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region mem;
	size_t initrd_size, dtb_size;
	u64 text_offset;
	struct kvm_run *run;
	int kvm, vm, gic, vcpu;
	u8 *ram;
	long run_size;

	if (argc != 4) {
		fprintf(stderr, "usage: %s KERNEL INITRD DTB\n", argv[0]);
		return 1;
	}
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");

	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap guest RAM");
	mem = (struct kvm_userspace_memory_region) {
		.slot = 0, .guest_phys_addr = RAM_BASE,
		.memory_size = RAM_SIZE, .userspace_addr = (u64)ram,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mem))
		die("KVM_SET_USER_MEMORY_REGION");

	/* the Image first at RAM_BASE to read its header, then at its offset */
	load_file(argv[1], ram, INITRD_BASE - RAM_BASE);
	text_offset = check_image(ram);
	if (text_offset)
		load_file(argv[1], ram + text_offset,
			  INITRD_BASE - RAM_BASE - text_offset);
	initrd_size = load_file(argv[2], ram + INITRD_BASE - RAM_BASE,
				DTB_BASE - INITRD_BASE);
	dtb_size = load_file(argv[3], ram + DTB_BASE - RAM_BASE, DTB_MAX);
	patch_initrd_end(ram + DTB_BASE - RAM_BASE, dtb_size,
			 INITRD_BASE + initrd_size);

	gic = create_vgic(vm);
	vcpu = create_vcpu(kvm, vm, gic);
	set_core_reg(vcpu, CORE_REG(regs.pc), RAM_BASE + text_offset);
	set_core_reg(vcpu, CORE_REG(regs.regs[0]), DTB_BASE);

	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < 0)
		die("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap kvm_run");
	return run_vcpu(vcpu, run);
}

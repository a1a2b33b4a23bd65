/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A vCPU's statistic by name (the base library reads only the VM's), for
 * the arm64 PMU and BRBE guest tests.
 */
#ifndef SELFTEST_KVM_AARCH64_VCPU_STAT_H
#define SELFTEST_KVM_AARCH64_VCPU_STAT_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kvm_util.h>
#include <test_util.h>

static inline uint64_t vcpu_stat(struct kvm_vcpu *vcpu, const char *name)
{
	struct kvm_stats_header header;
	struct kvm_stats_desc *descs, *d;
	uint64_t val = 0;
	int fd, i;

	fd = vcpu_get_stats_fd(vcpu);
	read_stats_header(fd, &header);
	descs = read_stats_descriptors(fd, &header);
	for (i = 0; i < header.num_desc; i++) {
		d = get_stats_descriptor(descs, i, &header);
		if (!strcmp(d->name, name)) {
			read_stat_data(fd, &header, d, &val, 1);
			break;
		}
	}
	TEST_ASSERT(i < header.num_desc, "no vcpu stat %s", name);
	free(descs);
	close(fd);
	return val;
}

#endif /* SELFTEST_KVM_AARCH64_VCPU_STAT_H */

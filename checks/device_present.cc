#include "checks/device_present.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "facts/container.h"

namespace rdmacheck {
namespace {

std::string YesNo(const std::optional<bool>& b, const char* yes, const char* no) {
  if (!b) return "unknown";
  return *b ? yes : no;
}

// The command that binds rxe to the interface of the default route: the
// netdev a first Soft-RoCE setup almost always wants.
constexpr char kAddRxeLink[] =
    "rdma link add rxe0 type rxe netdev $(ip -o -4 route show default | awk '{print $5; exit}')";

void ExplainNoDevice(const HostInfo& h, ResultBuilder& r) {
  r.Expect("host /sys/class/infiniband", "present", YesNo(h.sysfs_infiniband, "present", "absent"),
           h.sysfs_infiniband.value_or(true) ? Verdict::kPass : Verdict::kFail);
  r.Expect("host rdma_rxe module", "loaded (for Soft-RoCE)", YesNo(h.rxe_loaded, "loaded", "not loaded"),
           Verdict::kPass);
  if (h.providers_known) {
    r.Expect("host ibverbs provider libraries", "at least one installed",
             h.providers.empty() ? "none" : absl::StrJoin(h.providers, " "),
             h.providers.empty() ? Verdict::kFail : Verdict::kPass);
  }
  bool in_container = h.in_container.value_or(false);
  if (in_container) {
    r.Expect("host /dev/infiniband (container)", "present",
             YesNo(h.dev_infiniband, "present", "absent"),
             // Only a fault when the host has devices to pass in.
             h.dev_infiniband.value_or(true) || !h.sysfs_infiniband.value_or(false)
                 ? Verdict::kPass
                 : Verdict::kFail);
  }

  // Every cause that applies, most specific first: fixing only the first
  // would leave the user at the next one.
  bool any = false;
  // rdma's exclusive netns mode: a namespace lists only the RDMA devices
  // moved into it (measured in the guest: none in a new namespace; and
  // `rdma dev set rxe1 netns NS` answers "Operation not supported" on 6.1).
  if (!in_container && h.rdma_netns_mode.value_or("") == "exclusive" &&
      h.own_netns.value_or(false)) {
    any = true;
    r.Expect("rdma netns mode", "shared, or this process in the devices' namespace",
             "exclusive, and this process is in another network namespace than PID 1's", Verdict::kFail);
    r.Note("likely cause: rdma's netns mode is exclusive (/sys/module/ib_core/parameters/netns_mode N): "
           "this network namespace lists only the RDMA devices moved into it, and none were");
    r.Remedy("nsenter -t 1 -n rdmacheck   # the checks in the host's network namespace, where the devices are");
    r.Remedy("rdma system show   # netns exclusive; rdma dev set DEV netns NS moves a device that supports it "
             "(rxe does not: Operation not supported)");
  }
  if (in_container && h.sysfs_infiniband.value_or(false) && !h.dev_infiniband.value_or(true)) {
    any = true;
    r.Note(absl::StrCat("likely cause: the host has RDMA devices but this container was not given "
                        "/dev/infiniband; ", DescribeContainer(h)));
    for (const std::string& line : ContainerRemedies(h, kNeedDevices)) r.Remedy(line);
    r.Remedy("ls -l /dev/infiniband   # inside the container: uverbs0 and rdma_cm must be listed");
  }
  if (h.providers_known && h.providers.empty()) {
    any = true;
    r.Note("likely cause: no ibverbs provider library is installed, so libibverbs lists no device");
    r.Remedy("apt-get install ibverbs-providers rdma-core   # Debian/Ubuntu; "
             "dnf install libibverbs rdma-core on RHEL/Fedora");
  }
  if (!h.sysfs_infiniband.value_or(false) && !h.rxe_loaded.value_or(false)) {
    any = true;
    // /sys/class/infiniband is not namespaced: absent in a container means
    // absent on the host too, so the fix is on the host.
    r.Note(absl::StrCat("likely cause: the kernel has no RDMA device: no hardware driver bound and the "
                        "Soft-RoCE module rdma_rxe is not loaded",
                        in_container ? " (run these on the host, not in this container)" : ""));
    r.Remedy("modprobe rdma_rxe   # 'Module rdma_rxe not found': this kernel lacks Soft-RoCE; "
             "boot a distribution kernel (Debian linux-image-amd64) or use ci/softroce-vm");
    r.Remedy(kAddRxeLink);
  } else if (h.rxe_loaded.value_or(false) && !any) {
    any = true;
    r.Note("likely cause: rdma_rxe is loaded but no rxe link was added");
    r.Remedy(kAddRxeLink);
  }
  if (!any) {
    r.Note("likely cause: /sys/class/infiniband exists but libibverbs sees no device: "
           "the uverbs module is not loaded or the provider for the device's driver is missing");
    r.Remedy("modprobe ib_uverbs");
    r.Remedy("apt-get install ibverbs-providers");
  }
  r.Remedy("rdma link show && ibv_devices   # must list the device");
}

// Devices the kernel lists that this process cannot open (no node here).
std::vector<const DeviceInfo*> WithoutNode(const DeviceView& v,
                                           const std::vector<const DeviceInfo*>& devs) {
  std::vector<const DeviceInfo*> out;
  for (const DeviceInfo* d : devs)
    if (UverbsNodeMissing(v.host, *d)) out.push_back(d);
  return out;
}

// FAIL rows and the remedy for devices present in sysfs but not usable here.
void ExplainMissingNodes(const DeviceView& v, const std::vector<const DeviceInfo*>& missing,
                         ResultBuilder& r) {
  std::vector<std::string> uverbs;
  for (const DeviceInfo* d : missing) {
    uverbs.push_back(*d->uverbs);
    r.Expect(absl::StrCat(d->name, " /dev/infiniband/", *d->uverbs),
             "present (libibverbs lists a device only with its node)", "missing", Verdict::kFail);
  }
  if (v.host.in_container.value_or(false)) {
    r.Note(absl::StrCat("the kernel has the device but this container was not given its "
                        "/dev/infiniband node, so no verbs application here can see it; ",
                        DescribeContainer(v.host)));
    for (const std::string& line : ContainerRemedies(v.host, kNeedDevices, uverbs)) r.Remedy(line);
    r.Remedy("ls -l /dev/infiniband   # inside the container: the uverbs node and rdma_cm must be listed");
    return;
  }
  r.Note("the kernel has the device but /dev/infiniband has no node for it: ib_uverbs is not "
         "loaded, or udev has not made the node");
  r.Remedy("modprobe ib_uverbs");
  r.Remedy("ls -l /dev/infiniband; ibv_devices   # must list the device");
}

// A pasted ibv_devinfo that said "Failed to open device": devices listed
// here that this process could not open (their /dev/infiniband/uverbsN not
// given to the container, or not readable). The paste names none of them.
void ExplainNotOpened(const HostInfo& h, Verdict verdict, ResultBuilder& r) {
  const uint64_t n = *h.devices_not_opened;
  r.Expect("devices listed but not opened (ibv_devinfo: Failed to open device)", "0",
           absl::StrCat(n), verdict);
  r.Note(absl::StrCat("ibv_devinfo listed ", n, " device", n == 1 ? "" : "s",
                      " it could not open: the kernel has them, but this process (a container "
                      "or pod, most often) was not given their /dev/infiniband/uverbsN node or "
                      "may not open it"));
  r.Remedy("ls -l /dev/infiniband; rdma dev show   # where ibv_devinfo ran: which uverbs nodes "
           "exist, and which devices the kernel has");
  for (const std::string& line : ContainerRemedies(h, kNeedDevices)) r.Remedy(line);
}

}  // namespace

Result DevicePresentCheck::Run(const CheckContext& ctx) const {
  const DeviceView& v = ctx.view;
  std::optional<std::string> want = ctx.options.device ? ctx.options.device : ctx.plan.device;
  if (v.devices.empty() && v.host.devices_listed == false) {
    return ResultBuilder::Skip(*this, want ? absl::StrCat("RDMA device ", *want, " is present")
                                           : "At least one RDMA device is present",
                               "the input lists no devices (pastes of ulimit or ip addr alone): add the output of "
                               "ibv_devinfo, rdma link or ibstat (rdmacheck capture --from ...)");
  }
  std::vector<std::string> names;
  for (const DeviceInfo& d : v.devices) {
    names.push_back(d.driver ? absl::StrCat(d.name, " (", *d.driver, ")") : d.name);
  }

  if (want) {
    ResultBuilder r(*this, absl::StrCat("RDMA device ", *want, " is present"));
    if (const DeviceInfo* d = v.Device(*want)) {
      r.Expect("RDMA device", *want, absl::StrJoin(names, ", "));
      ExplainMissingNodes(v, WithoutNode(v, {d}), r);
      if (v.host.devices_not_opened.value_or(0) > 0) {
        // The device asked for opened; the others are not this run's concern.
        r.Note(absl::StrCat("ibv_devinfo could not open ", *v.host.devices_not_opened,
                            " other listed device(s) (Failed to open device): not given to "
                            "this container, or not readable"));
      }
      return r.Build();
    }
    r.Expect("RDMA device", *want,
             names.empty() ? "no RDMA device" : absl::StrCat("only ", absl::StrJoin(names, ", ")),
             Verdict::kFail);
    if (v.host.devices_not_opened.value_or(0) > 0) {
      ExplainNotOpened(v.host, Verdict::kFail, r);
      return r.Build();
    }
    if (!names.empty()) {
      r.Note(absl::StrCat(*want, " is not among this node's devices; a typo in -d or the plan's "
                          "device, or its rxe link was never added"));
      r.Remedy(absl::StrCat("rdmacheck -d ", v.devices.front().name,
                            "   # or fix the device name in the plan"));
      r.Remedy("rdma link show; ibv_devices   # the devices that exist");
      return r.Build();
    }
    ExplainNoDevice(v.host, r);
    return r.Build();
  }

  ResultBuilder r(*this, "At least one RDMA device is present");
  if (!v.devices.empty()) {
    r.Expect("RDMA devices", ">= 1", absl::StrCat(v.devices.size(), ": ", absl::StrJoin(names, ", ")));
    std::vector<const DeviceInfo*> all;
    for (const DeviceInfo& d : v.devices) all.push_back(&d);
    std::vector<const DeviceInfo*> missing = WithoutNode(v, all);
    // One usable device is enough for "at least one".
    if (missing.size() == all.size()) ExplainMissingNodes(v, missing, r);
    if (v.host.devices_not_opened.value_or(0) > 0) ExplainNotOpened(v.host, Verdict::kWarn, r);
    return r.Build();
  }
  r.Expect("RDMA devices (ibv_get_device_list)", ">= 1", "0", Verdict::kFail);
  if (v.host.devices_without_provider.value_or(0) > 0) {
    const uint64_t n = *v.host.devices_without_provider;
    r.Expect("devices without a userspace provider (libibverbs: no userspace device-specific "
             "driver found)",
             "0", absl::StrCat(n), Verdict::kFail);
    r.Note(absl::StrCat("the kernel has ", n, " RDMA device", n == 1 ? "" : "s",
                        " but libibverbs found no provider library for ", n == 1 ? "it" : "them",
                        ", so it lists none (rdma-core libibverbs/init.c)"));
    r.Remedy("apt-get install ibverbs-providers   # Debian/Ubuntu; dnf install libibverbs on "
             "RHEL/Fedora; MLNX_OFED hosts: its libmlx5/libmlx4 packages");
    r.Remedy("ls /etc/libibverbs.d/ /usr/lib/*/libibverbs/   # the provider's .driver file and "
             "library must be there");
    r.Remedy("ibv_devices   # must list the device");
    return r.Build();
  }
  if (v.host.devices_not_opened.value_or(0) > 0) {
    ExplainNotOpened(v.host, Verdict::kFail, r);
    return r.Build();
  }
  ExplainNoDevice(v.host, r);
  return r.Build();
}

}  // namespace rdmacheck

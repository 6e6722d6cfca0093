// DeviceList and Context: finding an RDMA device by name and opening it.
// Move-only RAII over ibv_get_device_list / ibv_open_device.
//
//   absl::StatusOr<verbs::Context> ctx = verbs::Context::Open("rxe0");
//   if (absl::IsNotFound(ctx.status())) ...  // "no RDMA device named rxe0 (found: none)"
//   absl::StatusOr<ibv_port_attr> port = ctx->QueryPort(1);
//
// Lifetime: a Context shares ownership of its ibv_context with every object
// made from it (verbs/resources.h), so the device is closed only after the
// last PD, CQ, QP, MR and channel is gone, whatever order they are destroyed
// in; each object in turn keeps what it needs (a QP its PD and CQs), which
// gives the teardown order QP -> CQ -> MR -> PD -> channel -> context.
#ifndef RDMACHECK_VERBS_CONTEXT_H_
#define RDMACHECK_VERBS_CONTEXT_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck::verbs {

class DeviceList {
 public:
  // The devices libibverbs sees. A host without RDMA support (ENOSYS: no
  // uverbs in the kernel) gives an empty list, not an error.
  static absl::StatusOr<DeviceList> Get();

  DeviceList(DeviceList&&) = default;
  DeviceList& operator=(DeviceList&&) = default;
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ibv_device* operator[](size_t i) const { return list_.get()[i]; }
  // ibv_get_device_name of each, in list order.
  std::vector<std::string> Names() const;
  // nullptr when absent.
  ibv_device* Find(absl::string_view name) const;

 private:
  struct Free {
    void operator()(ibv_device** l) const;
  };
  DeviceList(ibv_device** list, size_t size) : list_(list), size_(size) {}
  std::unique_ptr<ibv_device*, Free> list_;
  size_t size_ = 0;
};

class Context {
 public:
  // NotFound "no RDMA device named X (found: a, b)" when absent; the
  // ibv_open_device errno otherwise. While a ContextCache lives, a device it
  // has opened is not opened again: the Context shares that ibv_context.
  static absl::StatusOr<Context> Open(absl::string_view name);
  // Always a context of its own: for a caller that consumes the context's
  // async events (another holder's events would be mixed into its stream).
  static absl::StatusOr<Context> OpenUncached(absl::string_view name);

  Context(Context&&) = default;
  Context& operator=(Context&&) = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const std::string& name() const { return name_; }
  ibv_context* get() const { return ctx_.get(); }
  // For the objects of verbs/resources.h, which keep the context open.
  const std::shared_ptr<ibv_context>& shared() const { return ctx_; }

  // ibv_query_device_ex; falls back to ibv_query_device (orig_attr only,
  // the rest zero) where the provider lacks the extended verb.
  absl::StatusOr<ibv_device_attr_ex> QueryDeviceEx() const;
  absl::StatusOr<ibv_port_attr> QueryPort(uint8_t port) const;
  // ibv_query_gid_table: the valid entries of every port, at most
  // max_entries (one ioctl where the kernel has it; rdma-core reads sysfs
  // itself where not).
  absl::StatusOr<std::vector<ibv_gid_entry>> QueryGidTable(size_t max_entries) const;

 private:
  Context(std::string name, std::shared_ptr<ibv_context> ctx)
      : name_(std::move(name)), ctx_(std::move(ctx)) {}
  std::string name_;
  std::shared_ptr<ibv_context> ctx_;
};

// One run's opened devices. ibv_open_device costs a few ms (much more under
// emulation) and each check and probe used to open the device again. While
// an instance lives, Context::Open returns the context it opened first; each
// Context still holds its own reference, so the device is closed when the
// last holder, cache or Context, lets go. Instances nest: only the outermost
// one caches. Thread-safe.
//
//   verbs::ContextCache cache;   // for the run
//   ... every Context::Open("rxe0") below opens rxe0 once ...
class ContextCache {
 public:
  ContextCache();
  ~ContextCache();
  ContextCache(const ContextCache&) = delete;
  ContextCache& operator=(const ContextCache&) = delete;
};

// "no RDMA device named X (found: a, b)" / "(found: none)": shared with
// callers that look devices up elsewhere (sysfs).
std::string NoSuchDeviceMessage(absl::string_view name,
                                const std::vector<std::string>& found);

}  // namespace rdmacheck::verbs

#endif  // RDMACHECK_VERBS_CONTEXT_H_

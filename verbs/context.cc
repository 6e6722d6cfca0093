#include "verbs/context.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "verbs/errors.h"

namespace rdmacheck::verbs {

void DeviceList::Free::operator()(ibv_device** l) const {
  if (l != nullptr) ibv_free_device_list(l);
}

absl::StatusOr<DeviceList> DeviceList::Get() {
  int n = 0;
  errno = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) {
    int err = errno;
    // No uverbs in the kernel (ENOSYS), or no sysfs class for it: nothing to
    // list, which is a fact about the host rather than a failure.
    if (err == ENOSYS || err == ENOENT || err == ENODEV) return DeviceList(nullptr, 0);
    return VerbsError("ibv_get_device_list()", err);
  }
  return DeviceList(list, n < 0 ? 0 : static_cast<size_t>(n));
}

std::vector<std::string> DeviceList::Names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < size_; ++i) names.emplace_back(ibv_get_device_name((*this)[i]));
  return names;
}

ibv_device* DeviceList::Find(absl::string_view name) const {
  for (size_t i = 0; i < size_; ++i) {
    if (name == ibv_get_device_name((*this)[i])) return (*this)[i];
  }
  return nullptr;
}

std::string NoSuchDeviceMessage(absl::string_view name,
                                const std::vector<std::string>& found) {
  return absl::StrCat("no RDMA device named ", name, " (found: ",
                      found.empty() ? "none" : absl::StrJoin(found, ", "), ")");
}

namespace {

struct CacheState {
  std::mutex mu;
  int depth = 0;
  std::map<std::string, std::shared_ptr<ibv_context>, std::less<>> open;
};

CacheState& Cache() {
  static CacheState* state = new CacheState;  // never destroyed: used at exit
  return *state;
}

}  // namespace

ContextCache::ContextCache() {
  std::lock_guard<std::mutex> lock(Cache().mu);
  ++Cache().depth;
}

ContextCache::~ContextCache() {
  std::map<std::string, std::shared_ptr<ibv_context>, std::less<>> closing;
  {
    std::lock_guard<std::mutex> lock(Cache().mu);
    if (--Cache().depth == 0) closing.swap(Cache().open);
  }
  // `closing` goes out of scope here, outside the lock: ibv_close_device.
}

absl::StatusOr<Context> Context::Open(absl::string_view name) {
  CacheState& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (cache.depth > 0) {
      auto it = cache.open.find(name);
      if (it != cache.open.end()) return Context(std::string(name), it->second);
    }
  }
  absl::StatusOr<Context> opened = OpenUncached(name);
  if (!opened.ok()) return opened;
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.depth > 0) {
    auto [it, inserted] = cache.open.emplace(std::string(name), opened->ctx_);
    if (!inserted) return Context(std::string(name), it->second);  // another thread won
  }
  return opened;
}

absl::StatusOr<Context> Context::OpenUncached(absl::string_view name) {
  absl::StatusOr<DeviceList> list = DeviceList::Get();
  if (!list.ok()) return list.status();
  ibv_device* dev = list->Find(name);
  if (dev == nullptr) return absl::NotFoundError(NoSuchDeviceMessage(name, list->Names()));
  errno = 0;
  ibv_context* raw = ibv_open_device(dev);
  if (raw == nullptr) {
    return VerbsError(absl::StrCat("ibv_open_device(dev=", name, ")"), errno);
  }
  std::string dev_name(name);
  // The device list is freed when `list` goes out of scope; an opened
  // context holds its own reference to the device (ibv_get_device_list(3)).
  std::shared_ptr<ibv_context> ctx(raw, [dev_name](ibv_context* c) {
    int rc = ibv_close_device(c);
    if (rc != 0) ReportTeardownFailure(absl::StrCat("ibv_close_device(dev=", dev_name, ")"), rc);
  });
  return Context(std::string(name), std::move(ctx));
}

absl::StatusOr<ibv_device_attr_ex> Context::QueryDeviceEx() const {
  if (!ctx_) return absl::FailedPreconditionError("Context: used after move");
  ibv_device_attr_ex attr;
  std::memset(&attr, 0, sizeof(attr));
  int rc = ibv_query_device_ex(ctx_.get(), nullptr, &attr);
  if (rc == EOPNOTSUPP || rc == ENOSYS) {
    std::memset(&attr, 0, sizeof(attr));
    rc = ibv_query_device(ctx_.get(), &attr.orig_attr);
    if (rc != 0) return VerbsError(absl::StrCat("ibv_query_device(dev=", name_, ")"), rc);
    return attr;
  }
  if (rc != 0) return VerbsError(absl::StrCat("ibv_query_device_ex(dev=", name_, ")"), rc);
  return attr;
}

absl::StatusOr<std::vector<ibv_gid_entry>> Context::QueryGidTable(size_t max_entries) const {
  if (!ctx_) return absl::FailedPreconditionError("Context: used after move");
  std::vector<ibv_gid_entry> entries(max_entries);
  ssize_t n = ibv_query_gid_table(ctx_.get(), entries.data(), entries.size(), 0);
  if (n < 0) {
    return VerbsError(absl::StrCat("ibv_query_gid_table(dev=", name_, " max_entries=", max_entries, ")"),
                      static_cast<int>(-n));
  }
  entries.resize(static_cast<size_t>(n));
  return entries;
}

absl::StatusOr<ibv_port_attr> Context::QueryPort(uint8_t port) const {
  if (!ctx_) return absl::FailedPreconditionError("Context: used after move");
  ibv_port_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  int rc = ibv_query_port(ctx_.get(), port, &attr);
  if (rc != 0) {
    return VerbsError(absl::StrCat("ibv_query_port(dev=", name_, " port=", static_cast<int>(port), ")"), rc);
  }
  return attr;
}

}  // namespace rdmacheck::verbs

#include "facts/link_window.h"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "facts/hw_counters.h"
#include "facts/pci.h"
#include "util/clock.h"
#include "util/stop_flag.h"
#include "verbs/context.h"
#include "verbs/errors.h"

namespace rdmacheck {
namespace {

// How often the wait looks at the stop flag.
constexpr int kSliceMs = 100;
// Events kept per device: a flapping link raises two a flap; past this the
// count is what matters.
constexpr size_t kMaxEventsPerDevice = 256;

bool InWindow(const LinkWindowOptions& o, const DeviceInfo& d) { return !o.only_device || d.name == *o.only_device; }

void Sample(const SysfsReader& sys, const LinkWindowOptions& o, DeviceView* view, bool after) {
  for (DeviceInfo& d : view->devices) {
    if (!InWindow(o, d)) continue;
    for (PortInfo& p : d.ports) {
      PortCounterSample s = ReadPortCounters(sys, d.name, p.port_num);
      if (after) {
        p.counters_after = std::move(s.counters);
        p.hw_counters_after = std::move(s.hw_counters);
        for (std::string& u : s.unreadable)
          if (std::find(p.unreadable_counters.begin(), p.unreadable_counters.end(), u) ==
              p.unreadable_counters.end())
            p.unreadable_counters.push_back(std::move(u));
      } else {
        p.counters = std::move(s.counters);
        p.hw_counters = std::move(s.hw_counters);
        p.unreadable_counters = std::move(s.unreadable);
      }
    }
    if (!d.pci_address) continue;
    (after ? d.aer_after : d.aer) = ReadAerTotals(sys, d.name);
  }
}

struct Watched {
  std::string device;
  verbs::Context ctx;
  size_t seen = 0;
};

// Every event pending on `w` now; `at_ms` is when poll said so.
void Drain(Watched& w, int64_t at_ms, LinkWindow* win) {
  while (true) {
    ibv_async_event ev;
    if (ibv_get_async_event(w.ctx.get(), &ev) != 0) return;  // EAGAIN: drained
    if (w.seen++ < kMaxEventsPerDevice) {
      AsyncEventSeen e;
      e.device = w.device;
      e.at_ms = at_ms;
      e.type = std::string(verbs::AsyncEventName(ev.event_type));
      switch (ev.event_type) {
        case IBV_EVENT_PORT_ACTIVE:
        case IBV_EVENT_PORT_ERR:
        case IBV_EVENT_LID_CHANGE:
        case IBV_EVENT_PKEY_CHANGE:
        case IBV_EVENT_SM_CHANGE:
        case IBV_EVENT_CLIENT_REREGISTER:
        case IBV_EVENT_GID_CHANGE:
          e.port = ev.element.port_num;
          break;
        default:
          break;
      }
      win->events.push_back(std::move(e));
    }
    ibv_ack_async_event(&ev);
  }
}

}  // namespace

void SampleLinkWindow(const SysfsReader& sys, const LinkWindowOptions& o, DeviceView* view) {
  // First, so it is destroyed last: on Ctrl-C the contexts below are closed
  // before SIGINT ends the process.
  SigintGuard sigint;
  LinkWindow win;
  std::vector<Watched> watched;
  if (o.watch_events) {
    for (const DeviceInfo& d : view->devices) {
      if (!InWindow(o, d)) continue;
      // Its own context: events go to every context of the device, and this
      // one's stream must not be read by anybody else.
      absl::StatusOr<verbs::Context> c = verbs::Context::OpenUncached(d.name);
      if (!c.ok()) {
        win.unwatched[d.name] = std::string(c.status().message());
        continue;
      }
      int fl = fcntl(c->get()->async_fd, F_GETFL);
      if (fl < 0 || fcntl(c->get()->async_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        win.unwatched[d.name] = absl::StrCat("fcntl(async_fd, O_NONBLOCK): ", std::strerror(errno));
        continue;
      }
      win.watched.push_back(d.name);
      watched.push_back({d.name, *std::move(c)});
    }
  } else {
    for (const DeviceInfo& d : view->devices)
      if (InWindow(o, d)) win.unwatched[d.name] = "not watched (not this host's devices)";
  }

  win.started = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", WallNow(), absl::UTCTimeZone());
  Sample(sys, o, view, /*after=*/false);
  const double t0 = MonotonicSeconds();
  const double end = t0 + std::max(0.0, o.seconds);
  std::vector<pollfd> fds;
  for (const Watched& w : watched) fds.push_back({w.ctx.get()->async_fd, POLLIN, 0});
  double next_check = t0 + o.check_every_s;
  while (true) {
    if (StopFlag().load()) {
      win.cut_short = true;
      break;
    }
    const double now = MonotonicSeconds();
    double left = end - now;
    if (left <= 0) break;
    if (o.give_up_when && now >= next_check) {
      next_check = now + o.check_every_s;
      Sample(sys, o, view, /*after=*/true);
      win.ms = static_cast<int64_t>(std::llround((now - t0) * 1000));
      view->window = win;
      if (o.give_up_when(*view)) break;
    }
    int ms = std::min(kSliceMs, static_cast<int>(std::ceil(left * 1000)));
    int n = fds.empty() ? poll(nullptr, 0, ms) : poll(fds.data(), fds.size(), ms);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    const int64_t at = static_cast<int64_t>(std::llround((MonotonicSeconds() - t0) * 1000));
    for (size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents & POLLIN) Drain(watched[i], at, &win);
  }
  // Events already queued when the window closes belong to it too.
  const int64_t at = static_cast<int64_t>(std::llround((MonotonicSeconds() - t0) * 1000));
  for (Watched& w : watched) Drain(w, at, &win);
  Sample(sys, o, view, /*after=*/true);
  win.ms = static_cast<int64_t>(std::llround((MonotonicSeconds() - t0) * 1000));
  view->window = std::move(win);
}

}  // namespace rdmacheck

// SampleLinkWindow: the second look that link-health and pcie judge. Every
// port counter (ports/N/counters and hw_counters) and the AER totals are read
// at the window's start and again at its end, and the async events the
// devices raise in between (port up/down, GID/LID/SM changes, a fatal
// device) are read from each device's async event fd: no traffic of ours is
// needed.
//
//   LinkWindowOptions o;
//   o.seconds = 2;
//   SampleLinkWindow(SysfsReader("/sys"), o, &view);
//   view.window->events;                    // {"rxe0", 512, "PORT_ERR", 1}, ...
//   view.devices[0].ports[0].hw_counters_after;
//
// The window ends early when StopFlag() is raised (Ctrl-C, the runner's
// deadline): what was seen so far is kept and LinkWindow::cut_short says so.
// It also ends early, without cut_short, when LinkWindowOptions::give_up_when
// says the window is of no more use (a run's window beside its own probes,
// once a counter it would judge has moved: checks/session.h).
#ifndef RDMACHECK_FACTS_LINK_WINDOW_H_
#define RDMACHECK_FACTS_LINK_WINDOW_H_

#include <functional>
#include <optional>
#include <string>

#include "facts/device_view.h"
#include "facts/sysfs.h"

namespace rdmacheck {

struct LinkWindowOptions {
  double seconds = 2;
  // Open each device (a context of its own) to read its async events. Off
  // for a fixture tree, whose devices are not this host's.
  bool watch_events = true;
  // Only this device (a run's -d): the others are neither opened nor read
  // again, which under emulation is most of the window's own cost.
  std::optional<std::string> only_device;
  // Asked every check_every_s with the end samples read then (and
  // view->window holding what was seen so far); true ends the window there.
  std::function<bool(const DeviceView&)> give_up_when;
  double check_every_s = 0.25;
};

// Fills view->window and, for every device and port of `view`, the start
// samples (counters, hw_counters, aer) and the end ones (..._after).
void SampleLinkWindow(const SysfsReader& sys, const LinkWindowOptions& o, DeviceView* view);

}  // namespace rdmacheck

#endif  // RDMACHECK_FACTS_LINK_WINDOW_H_

#include "facts/paste_import.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "facts/devinfo_import.h"
#include "facts/gid_table.h"
#include "facts/profile.h"
#include "facts/rdma_types.h"
#include "nlohmann/json.hpp"
#include "util/input_file.h"
#include "util/json_cut.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// "rx_write_requests 8 out_of_buffer 0": counters as `rdma stat show link`
// prints them after the port, name then value.
bool CounterPairs(const std::vector<absl::string_view>& w, size_t from) {
  if (w.size() < from + 2 || (w.size() - from) % 2 != 0) return false;
  for (size_t i = from; i < w.size(); i += 2) {
    uint64_t value;
    if (!std::all_of(w[i].begin(), w[i].end(), [](char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_'; }) ||
        !absl::ascii_islower(w[i][0]) || !absl::SimpleAtoi(w[i + 1], &value)) {
      return false;
    }
  }
  return true;
}
std::vector<absl::string_view> Words(absl::string_view l) {
  return absl::StrSplit(l, absl::ByAnyChar(" \t"), absl::SkipEmpty());
}
// `rdma stat show link`'s line: "link mlx5_2/1 rx_write_requests 8 ...".
bool RdmaStatLine(absl::string_view l) {
  const std::vector<absl::string_view> w = Words(l);
  return w.size() >= 4 && w[0] == "link" && absl::StrContains(w[1], "/") && CounterPairs(w, 2);
}

// A counters line a mail cut after a counter's name ("link mlx5_2/1
// rx_write_requests 0 rx_atomic_requests"): its value is on the next line.
bool RdmaStatHead(absl::string_view l) {
  std::vector<absl::string_view> w = Words(l);
  if (w.size() < 3 || w[0] != "link" || !absl::StrContains(w[1], "/") || (w.size() - 2) % 2 != 1) return false;
  w.push_back("0");  // the value it lacks
  return CounterPairs(w, 2);
}

// `rdma statistic show link DEV/PORT -p` prints "link mana_0/1" alone and
// then one counter a line.
bool BareLinkLine(absl::string_view l) {
  const std::vector<absl::string_view> w = Words(l);
  return w.size() == 2 && w[0] == "link" && absl::StrContains(w[1], "/");
}

// "7cfe:9003:0026:88ac": a GUID as rdma and ibv_devinfo print it.
bool GuidLike(absl::string_view w) {
  if (w.size() != 19) return false;
  for (size_t i = 0; i < w.size(); ++i)
    if (i % 5 == 4 ? w[i] != ':' : !absl::ascii_isxdigit(w[i])) return false;
  return true;
}

// `t` starts with a GUID key of `rdma dev` ("node_guid ...",
// "sys_image_guid ...") that the line before it, `prev`, lacks: wrapped.
bool GuidKeyStarts(absl::string_view t, absl::string_view prev) {
  for (absl::string_view key : {"node_guid", "sys_image_guid"})
    if (absl::StartsWith(t, absl::StrCat(key, " ")) && !absl::StrContains(prev, absl::StrCat(" ", key))) return true;
  return false;
}

std::vector<std::string> Lines(absl::string_view text) {
  std::vector<std::string> out;
  size_t into = 0;  // the line the last one was joined onto, if it was
  bool joined = false;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    std::string line = PastedLine(l);
    // `rdma link` wrapped by a mail client or terminal: "link mlx5_0/1
    // subnet_prefix ... lmc 0" then "<tab>state ACTIVE ...". Joined onto
    // its link line; the continuation's own line is left empty, so line
    // numbers stay those of the paste.
    absl::string_view t = absl::StripAsciiWhitespace(line);
    // `rdma dev` the same way: "node_guid ..." or "sys_image_guid ..." onto
    // its device's line.
    // `rdma stat show link` wrapped the same way, over several lines: its
    // counters onto the link line.
    if (!joined) into = out.size() - 1;
    const std::string* prev = out.empty() ? nullptr : &out[into];
    joined = prev != nullptr &&
             ((absl::StartsWith(t, "state ") && absl::StartsWith(*prev, "link ") &&
               !absl::StrContains(*prev, " state ")) ||
              (absl::StrContains(*prev, ": node_type ") && GuidKeyStarts(t, *prev)) ||
              // ... or between a GUID's key and its value.
              (absl::StrContains(*prev, ": node_type ") &&
               (absl::EndsWith(*prev, " node_guid") || absl::EndsWith(*prev, " sys_image_guid")) &&
               GuidLike(t.substr(0, t.find(' ')))) ||
              ((RdmaStatLine(*prev) || BareLinkLine(*prev)) && CounterPairs(Words(t), 0)) ||
              // ... or cut between a counter's name and its value.
              (RdmaStatHead(*prev) && (RdmaStatLine(absl::StrCat(*prev, " ", t)) ||
                                       RdmaStatHead(absl::StrCat(*prev, " ", t)))));
    if (joined) {
      absl::StrAppend(&out[into], " ", t);
      line.clear();
    }
    out.push_back(std::move(line));
  }
  return out;
}

absl::string_view Trim(absl::string_view s) { return absl::StripAsciiWhitespace(s); }

// The first line with text (for error messages).
std::string FirstLine(absl::string_view text, int* line_no) {
  int n = 0;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    ++n;
    if (!Trim(l).empty()) {
      *line_no = n;
      return std::string(Trim(l).substr(0, 120));
    }
  }
  *line_no = 1;
  return "";
}

// A profile: its first line that is neither blank nor a `#` comment is the
// version line (facts/profile.h; hand-written fixtures start with comments).
bool IsProfileText(absl::string_view text) {
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    l = Trim(l);
    if (l.empty() || l.front() == '#') continue;
    return absl::StartsWith(l, "rdmacheck-profile");
  }
  return false;
}

// The element of `v` whose `key` member is `value`, or null.
template <typename T, typename K>
T* FindBy(std::vector<T>& v, K T::*key, const K& value) {
  for (T& x : v)
    if (x.*key == value) return &x;
  return nullptr;
}

// The same, added when there is none.
template <typename T, typename K>
T& FindOrAdd(std::vector<T>& v, K T::*key, const K& value) {
  if (T* found = FindBy(v, key, value)) return *found;
  T x;
  x.*key = value;
  v.push_back(std::move(x));
  return v.back();
}

// A view being filled from one paste: facts set with their line.
class Builder {
 public:
  explicit Builder(absl::string_view file, absl::string_view format) : file_(file) {
    view_.source = absl::StrCat(format, ":", file);
  }
  DeviceInfo& Device(absl::string_view name) {
    return FindOrAdd(view_.devices, &DeviceInfo::name, std::string(name));
  }
  PortInfo& Port(DeviceInfo& d, int n) { return FindOrAdd(d.ports, &PortInfo::port_num, n); }
  NetdevInfo& Netdev(absl::string_view name) {
    return FindOrAdd(view_.netdevs, &NetdevInfo::name, std::string(name));
  }
  // Records where `fact` came from.
  void Source(const std::string& fact, int line) {
    view_.fact_sources.emplace(fact, absl::StrCat(file_, ":", line));
    Read(line);
  }
  // Records that `line` was read (a fact's, or a table's header).
  void Read(int line) { lines_.insert(line); }
  // The lines read.
  const std::set<int>& lines() const { return lines_; }
  void Warn(int line, absl::string_view what) {
    view_.warnings.push_back(absl::StrCat(file_, ":", line, ": ", what));
  }
  DeviceView& view() { return view_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  DeviceView view_;
  std::set<int> lines_;
};

std::string PortFact(const DeviceInfo& d, const PortInfo& p, absl::string_view what) {
  return absl::StrCat(d.name, " port ", p.port_num, " ", what);
}

// ibstat's "Active", "Down", "Initializing", "Armed" -> the view's spelling
// (rdma_types' port state names).
std::optional<std::string> StateWord(absl::string_view w) {
  std::string u = absl::AsciiStrToUpper(Trim(w));
  if (u == "INITIALIZING") u = "INIT";
  if (!PortStateCode(u)) return std::nullopt;
  return u;
}

// "LinkUp", "LINK_UP", "5: LinkUp", "Phy Test" -> the sysfs spelling
// (rdma_types' physical state names), compared without case, '_' or ' '.
std::optional<std::string> PhysWord(absl::string_view w) {
  w = Trim(w);
  size_t colon = w.find(": ");
  if (colon != absl::string_view::npos) w = w.substr(colon + 2);
  auto key = [](absl::string_view s) {
    std::string k;
    for (char c : s)
      if (c != '_' && c != ' ') k.push_back(absl::ascii_tolower(c));
    return k;
  };
  const std::string want = key(w);
  for (uint64_t code = 1;; ++code) {
    std::optional<std::string> name = PhysStateName(code);
    if (!name) return std::nullopt;
    if (key(*name) == want) return name;
  }
}

// "0x0002c90300fe1234" (ibstat) -> "0002:c903:00fe:1234" (ibv_devinfo, sysfs).
std::string GuidText(absl::string_view g) {
  g = Trim(g);
  absl::ConsumePrefix(&g, "0x");
  if (g.size() != 16) return std::string(g);
  return absl::StrCat(g.substr(0, 4), ":", g.substr(4, 4), ":", g.substr(8, 4), ":",
                      g.substr(12, 4));
}

std::optional<int> Int(absl::string_view v) {
  v = Trim(v);
  uint64_t n = 0;
  if (!ParseUnsigned(v, &n) || n > INT_MAX) return std::nullopt;
  return static_cast<int>(n);
}

// ---------------------------------------------------------------- ibstat

// A device (or netdev) listed again (two runs, or two hosts, in one paste):
// the first is read, and the warning names both lines.
void WarnAgain(Builder& b, absl::string_view kind, absl::string_view name, int ln, int first_ln) {
  b.Warn(ln, absl::StrCat(kind, " ", name, " again, in another run of the command: line ", first_ln,
                          " is read, this one left out"));
}
bool SeenBefore(std::map<std::string, int>& first, absl::string_view name, int ln, Builder& b,
                absl::string_view kind = "device") {
  auto [it, inserted] = first.emplace(std::string(name), ln);
  if (!inserted) WarnAgain(b, kind, name, ln, it->second);
  return !inserted;
}
// The same for what a tool prints alike when run again (`rdma link show
// DEV/PORT` then with -d, ibdev2netdev then -v): `says` is what the line
// says of `name` (its first line's, with it, in `first`). Said alike it is
// read again; said otherwise it is another run or host, left out and said.
bool SaidOtherwise(std::map<std::string, std::pair<int, std::string>>& first, const std::string& name,
                   const std::string& says, int ln, Builder& b) {
  auto [it, inserted] = first.emplace(name, std::make_pair(ln, says));
  if (inserted || it->second.second == says) return false;
  WarnAgain(b, "device", name, ln, it->second.first);
  return true;
}


// ibstatus's glob over /sys/class/infiniband/*/ports matched nothing: the
// script's way of saying there is no RDMA device.
bool IbstatusNoDevicesLine(absl::string_view l) {
  return absl::StrContains(l, "sys files not found (/sys/class/infiniband");
}
// ibstat's fatal error (infiniband-diags ibpanic), before any CA block.
bool IbpanicLine(absl::string_view l) { return absl::StartsWith(l, "ibpanic: ") && absl::StrContains(l, "IB device"); }

// A `Port N:` line with ibstat's keys under it ("State:", "Physical
// state:"): a fragment of ibstat cut or elided above its CA line.
bool IbstatPortLine(absl::string_view l) {
  return absl::StartsWith(l, "Port ") && absl::EndsWith(l, ":") && Int(l.substr(5, l.size() - 6)).has_value();
}
bool HeadlessIbstat(const std::vector<std::string>& lines) {
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!IbstatPortLine(Trim(lines[i]))) continue;
    for (size_t k = i + 1; k < lines.size() && k <= i + 3; ++k)
      if (absl::StartsWith(Trim(lines[k]), "Physical state:")) return true;
  }
  return false;
}

void ParseIbstat(const std::vector<std::string>& lines, Builder& b) {
  DeviceInfo* dev = nullptr;
  PortInfo* port = nullptr;
  std::map<std::string, int> first;
  bool skipping = false;  // a CA block seen before, left out
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    absl::string_view l = Trim(lines[i]);
    if (IbpanicLine(l)) {
      // ibstat stopped before its CA blocks: no device listed by it (a CA
      // block elsewhere in the paste lists them after all: ParsePaste).
      b.view().host.devices_listed = false;
      b.Warn(ln, absl::StrCat("ibstat stopped with an error before listing the devices (`", l, "`)"));
      continue;
    }
    if (absl::StartsWith(l, "CA '")) {
      size_t q = l.find('\'', 4);  // text after the name: the poster's own notes
      if (q == absl::string_view::npos || q == 4) continue;
      port = nullptr;
      skipping = SeenBefore(first, l.substr(4, q - 4), ln, b);
      dev = skipping ? nullptr : &b.Device(l.substr(4, q - 4));
      continue;
    }
    if (dev == nullptr && !skipping && IbstatPortLine(l)) {
      // Its CA line cut or elided above: the device's name is not known.
      dev = &b.Device("unknown");
      b.Warn(ln, absl::StrCat("`", l, "` before any `CA '...'` line (cut or elided above it): read as device "
                              "`unknown`"));
    }
    if (dev == nullptr) continue;
    if (absl::StartsWith(l, "Port ") && absl::EndsWith(l, ":")) {
      std::optional<int> n = Int(l.substr(5, l.size() - 6));
      if (n) {
        port = &b.Port(*dev, *n);
        continue;
      }
    }
    size_t colon = l.find(':');
    if (colon == absl::string_view::npos) continue;
    absl::string_view key = Trim(l.substr(0, colon)), value = Trim(l.substr(colon + 1));
    if (value.empty()) continue;
    if (port == nullptr) {
      if (key == "Firmware version") {
        dev->fw_ver = std::string(value);
        b.Source(dev->name + " fw_ver", ln);
      } else if (key == "Hardware version") {
        dev->hw_ver = std::string(value);
        b.Source(dev->name + " hw_ver", ln);
      } else if (key == "Node GUID") {
        dev->node_guid = GuidText(value);
        b.Source(dev->name + " node_guid", ln);
      } else if (key == "System image GUID") {
        dev->sys_image_guid = GuidText(value);
        b.Source(dev->name + " sys_image_guid", ln);
      }
      continue;
    }
    if (key == "State") {
      port->state = StateWord(value);
      if (port->state) b.Source(PortFact(*dev, *port, "state"), ln);
    } else if (key == "Physical state") {
      port->phys_state = PhysWord(value);
      if (port->phys_state) b.Source(PortFact(*dev, *port, "phys_state"), ln);
    } else if (key == "Rate") {
      // ibstat prints the Gb/s number alone.
      port->rate = absl::StrCat(value, " Gb/sec");
      b.Source(PortFact(*dev, *port, "rate"), ln);
    } else if (key == "Base lid") {
      port->lid = Int(value);
      if (port->lid) b.Source(PortFact(*dev, *port, "lid"), ln);
    } else if (key == "SM lid") {
      port->sm_lid = Int(value);
      if (port->sm_lid) b.Source(PortFact(*dev, *port, "sm_lid"), ln);
    } else if (key == "Link layer") {
      if (value == "Ethernet" || value == "InfiniBand") {
        port->link_layer = std::string(value);
        b.Source(PortFact(*dev, *port, "link_layer"), ln);
      }
    }
  }
}

// ---------------------------------------------------------------- ibstatus

void ParseIbstatus(const std::vector<std::string>& lines, Builder& b) {
  DeviceInfo* dev = nullptr;
  PortInfo* port = nullptr;
  std::map<std::string, int> first;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    absl::string_view l = Trim(lines[i]);
    if (IbstatusNoDevicesLine(l)) {
      // The device list, read: empty.
      b.Source("devices", ln);
      b.Warn(ln, absl::StrCat("ibstatus found no RDMA device (`", l, "`)"));
      continue;
    }
    if (absl::StartsWith(l, "Infiniband device '")) {
      // Infiniband device 'mlx5_0' port 1 status:
      absl::string_view rest = l.substr(19);
      size_t q = rest.find('\'');
      if (q == absl::string_view::npos) continue;
      absl::string_view name = rest.substr(0, q);
      std::vector<absl::string_view> w = absl::StrSplit(rest.substr(q + 1), ' ', absl::SkipEmpty());
      std::optional<int> n = w.size() >= 2 && w[0] == "port" ? Int(w[1]) : std::nullopt;
      if (!n) continue;
      // A second run (before and after a change): the first is read.
      if (SeenBefore(first, absl::StrCat(name, " port ", *n), ln, b)) {
        port = nullptr;
        continue;
      }
      dev = &b.Device(name);
      port = &b.Port(*dev, *n);
      continue;
    }
    if (port == nullptr) continue;
    size_t colon = l.find(':');
    if (colon == absl::string_view::npos) continue;
    absl::string_view key = Trim(l.substr(0, colon)), value = Trim(l.substr(colon + 1));
    if (key == "state") {
      // "4: ACTIVE"
      size_t c = value.find(": ");
      port->state = StateWord(c == absl::string_view::npos ? value : value.substr(c + 2));
      if (port->state) b.Source(PortFact(*dev, *port, "state"), ln);
    } else if (key == "phys state") {
      port->phys_state = PhysWord(value);
      if (port->phys_state) b.Source(PortFact(*dev, *port, "phys_state"), ln);
    } else if (key == "rate") {
      port->rate = std::string(value);
      b.Source(PortFact(*dev, *port, "rate"), ln);
    } else if (key == "link_layer") {
      if (value == "Ethernet" || value == "InfiniBand") {
        port->link_layer = std::string(value);
        b.Source(PortFact(*dev, *port, "link_layer"), ln);
      }
    }
  }
}

// ---------------------------------------------------------------- show_gids

void ParseShowGids(const std::vector<std::string>& lines, Builder& b) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    std::vector<absl::string_view> f = Words(lines[i]);
    // A row a mail client wrapped after its GID: "bnxt_re0 1 10 0000:...:2bbb"
    // then "172.31.43.187 v1 bnxt_roce.43"; the rest is read from the next line.
    if (f.size() == 4 && Int(f[1]) && Int(f[2]) && i + 1 < lines.size()) {
      std::vector<absl::string_view> rest = Words(lines[i + 1]);
      const bool ipv4 = !rest.empty() && rest[0].find('.') != absl::string_view::npos;
      if (!rest.empty() && rest.size() <= 3 && (rest[0] == "v1" || rest[0] == "v2" || ipv4)) {
        f.insert(f.end(), rest.begin(), rest.end());
        ++i;
      }
    }
    // DEV PORT INDEX GID [IPv4] VER [NETDEV]
    if (f.size() < 5 || f[0] == "DEV" || absl::StartsWith(f[0], "---")) continue;
    std::optional<int> port = Int(f[1]), index = Int(f[2]);
    std::optional<std::string> gid = GidText(f[3]);  // none for an all-zero entry
    if (!port || !index || !gid) continue;
    size_t v = 4;
    if (f[v].find('.') != absl::string_view::npos) ++v;  // the IPv4 column
    if (v >= f.size()) continue;
    GidType type = f[v] == "v2" ? GidType::kRoceV2 : f[v] == "v1" ? GidType::kRoceV1
                                                                   : GidType::kUnknown;
    DeviceInfo& d = b.Device(f[0]);
    PortInfo& p = b.Port(d, *port);
    GidEntry g;
    g.index = *index;
    g.gid = *gid;
    g.type = type;
    if (v + 1 < f.size()) {
      absl::string_view nd = f[v + 1];
      // A paste inside prose can end the row with the sentence's full stop
      // ("net1."); the kernel lets a name end with one, but no one names a
      // netdev so, so the stop is dropped and said.
      if (nd.size() > 1 && absl::EndsWith(nd, ".") && v + 2 == f.size()) {
        b.Warn(ln, absl::StrCat("netdev `", nd, "` read as ", nd.substr(0, nd.size() - 1),
                                " (the full stop taken for the text's)"));
        nd.remove_suffix(1);
      }
      g.netdev = std::string(nd);
    }
    p.gids.push_back(std::move(g));
    // show_gids lists every non-empty entry of the table.
    p.gids_known = true;
    b.Source(PortFact(d, p, absl::StrCat("gid ", *index)), ln);
  }
}

// ---------------------------------------------------------------- rdma link

// `rdma res`'s summary: "0: mlx5_0: pd 2 cq 3 qp 1 cm_id 0 mr 0 ctx 1 srq 2",
// also after a poster's own prefix ("[rdma resource]0: mlx5_0: pd 3 ...").
// The device's name, or empty.
absl::string_view RdmaResDevice(absl::string_view l) {
  std::vector<absl::string_view> w = Words(l);
  for (size_t k = 0; k + 3 < w.size(); ++k) {
    absl::string_view index = w[k].substr(w[k].rfind(']') == absl::string_view::npos ? 0 : w[k].rfind(']') + 1);
    if (absl::EndsWith(index, ":") && Int(absl::StripSuffix(index, ":")) && absl::EndsWith(w[k + 1], ":") &&
        w[k + 2] == "pd" && Int(w[k + 3]))
      return absl::StripSuffix(w[k + 1], ":");
  }
  return {};
}
bool RdmaResLine(absl::string_view l) { return !RdmaResDevice(l).empty(); }

void RdmaLinkPort(Builder& b, int ln, absl::string_view dev_port,
                  const std::vector<absl::string_view>& words) {
  size_t slash = dev_port.rfind('/');
  if (slash == absl::string_view::npos) return;
  std::optional<int> n = Int(dev_port.substr(slash + 1));
  if (!n) return;
  DeviceInfo& d = b.Device(dev_port.substr(0, slash));
  PortInfo& p = b.Port(d, *n);
  if (CounterPairs(words, 2)) {  // `rdma stat show link`
    for (size_t i = 2; i + 1 < words.size(); i += 2) {
      absl::SimpleAtoi(words[i + 1], &p.hw_counters[std::string(words[i])]);
      b.Source(PortFact(d, p, absl::StrCat("hw_counter ", words[i])), ln);
    }
    return;
  }
  // `rdma res show qp`: "link ibp0s9/1 lqpn 50 ... state INIT" is the QP's
  // state, not the port's; the line says only that the port exists.
  if (std::find(words.begin(), words.end(), "lqpn") != words.end()) return;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "state") {
      p.state = StateWord(words[i + 1]);
      if (p.state) b.Source(PortFact(d, p, "state"), ln);
    } else if (words[i] == "physical_state") {
      p.phys_state = PhysWord(words[i + 1]);
      if (p.phys_state) b.Source(PortFact(d, p, "phys_state"), ln);
    } else if (words[i] == "netdev") {
      // Kept as a fact of its own; PortNetdev reads GIDs for hardware.
      b.view().provenance.push_back(
          absl::StrCat("rdma link: ", d.name, "/", p.port_num, " netdev ", words[i + 1]));
      b.Source(PortFact(d, p, "netdev"), ln);
    }
  }
}

// `rdma dev`: "0: mlx5_0: node_type ca fw 20.31.1014 node_guid ...
// sys_image_guid ..." (rdma/dev.c; rxe has no fw). The device, its firmware
// and GUIDs. `fields`: the words after the name, as key value pairs.
void RdmaDev(Builder& b, int ln, absl::string_view name, const std::vector<std::pair<std::string, std::string>>& fields) {
  DeviceInfo& d = b.Device(name);
  for (const auto& [k, v] : fields) {
    std::optional<std::string>* slot = k == "fw" ? &d.fw_ver : k == "node_guid" ? &d.node_guid
                                     : k == "sys_image_guid" ? &d.sys_image_guid : nullptr;
    if (slot == nullptr || v.empty() || slot->has_value()) continue;
    *slot = v;
    b.Source(absl::StrCat(d.name, " ", k == "fw" ? "fw_ver" : k), ln);
  }
}

// What a link-state line says of its port: its state, physical state and
// netdev words ("ACTIVE LINK_UP ens7"); `-d`'s extra words are not.
std::string LinkStateSays(const std::vector<absl::string_view>& w) {
  std::string says;
  for (size_t k = 0; k + 1 < w.size(); ++k)
    if (w[k] == "state" || w[k] == "physical_state" || w[k] == "netdev") absl::StrAppend(&says, w[k + 1], " ");
  return says;
}

void ParseRdmaLink(const std::vector<std::string>& lines, Builder& b) {
  std::map<std::string, std::pair<int, std::string>> said;  // by DEV/PORT: its first link-state line
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<absl::string_view> w = absl::StrSplit(lines[i], absl::ByAnyChar(" \t"), absl::SkipEmpty());
    // `rdma link` run again (before and after a change, in another
    // namespace): its first run is read. Not counters' or QPs' lines.
    const bool link_state = w.size() >= 4 && (w[0] == "link" || absl::EndsWith(w[0], ":")) &&
                            std::find(w.begin() + 2, w.end(), "state") != w.end() &&
                            std::find(w.begin(), w.end(), "lqpn") == w.end();
    if (link_state &&
        SaidOtherwise(said, std::string(absl::StripSuffix(w[1], ":")), LinkStateSays(w), static_cast<int>(i) + 1, b))
      continue;
    if (w.size() >= 4 && absl::EndsWith(w[0], ":") && absl::EndsWith(w[1], ":") && w[2] == "node_type") {
      std::vector<std::pair<std::string, std::string>> fields;
      for (size_t k = 2; k + 1 < w.size(); k += 2) fields.emplace_back(w[k], w[k + 1]);
      RdmaDev(b, static_cast<int>(i) + 1, absl::StripSuffix(w[1], ":"), fields);
    } else if (w.size() >= 2 && w[0] == "link") {
      RdmaLinkPort(b, static_cast<int>(i) + 1, w[1], w);
    } else if (const absl::string_view res = RdmaResDevice(lines[i]); !res.empty()) {
      // `rdma res [show]`: "0: ibp0s9: pd 4 cq 4 qp 4 ...": the device.
      const DeviceInfo& d = b.Device(res);
      b.Source("device " + d.name, static_cast<int>(i) + 1);
    } else if (w.size() >= 2 && absl::EndsWith(w[0], ":") && absl::EndsWith(w[1], ":")) {
      // iproute2 before 4.18: "1/1: mlx5_0/1: state ACTIVE physical_state LINK_UP"
      RdmaLinkPort(b, static_cast<int>(i) + 1, absl::StripSuffix(w[1], ":"), w);
    }
  }
}

absl::Status ParseRdmaLinkJson(absl::string_view text, Builder& b) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(b.file(), ":1: rdma -j link: not a JSON array"));
  }
  for (const auto& e : j) {
    if (e.is_object() && e.contains("ifname") && e["ifname"].is_string() && e.contains("node_type") &&
        !e.contains("port")) {
      // `rdma -j dev`
      std::vector<std::pair<std::string, std::string>> fields;
      for (const char* k : {"fw", "node_guid", "sys_image_guid"})
        if (e.contains(k) && e[k].is_string()) fields.emplace_back(k, e[k].get<std::string>());
      RdmaDev(b, 1, e["ifname"].get<std::string>(), fields);
      continue;
    }
    if (!e.is_object() || !e.contains("ifname") || !e.contains("port")) continue;
    if (!e["ifname"].is_string() || !e["port"].is_number_unsigned()) continue;
    std::vector<absl::string_view> w;
    std::vector<std::string> keep;
    for (const char* k : {"state", "physical_state", "netdev"}) {
      if (e.contains(k) && e[k].is_string()) {
        keep.push_back(k);
        keep.push_back(e[k].get<std::string>());
      }
    }
    for (const std::string& s : keep) w.push_back(s);
    // iproute2's first JSON (2017) named the port in "ifname" ("mlx5_0/1").
    const std::string name = e["ifname"].get<std::string>();
    std::string dp = absl::StrContains(name, '/') ? name : absl::StrCat(name, "/", e["port"].get<int>());
    RdmaLinkPort(b, 1, dp, w);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- ibdev2netdev

// "mlx5_0 port 1 ==> ens4f0 (Down)" (MLNX_OFED's ibdev2netdev), and with -v
// "0000:01:00.0 mlx5_0 (MT4123 - ...) ConnectX-6 ... fw 20.28.1002 port 1
// (ACTIVE) ==> p5p1 (Up)": the PCI address first, the firmware and the port's
// state before the arrow.
void ParseIbdev2netdev(const std::vector<std::string>& lines, Builder& b) {
  std::map<std::string, std::pair<int, std::string>> said;  // by port: its first line and netdev
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<absl::string_view> all = absl::StrSplit(Trim(lines[i]), ' ', absl::SkipEmpty());
    // Each arrow is one entry: "mlx5_0 port 1 ==> ib0 (Up)"; OFED's older
    // script drew "<===>" and printed no state. A manual's text extraction
    // runs several entries (and the command before them) into one line.
    for (size_t a = 3; a + 1 < all.size(); ++a) {
      if (all[a] != "==>" && all[a] != "<===>") continue;
      const bool verbose = a >= 4 && all[a - 3] == "port" && absl::StartsWith(all[a - 1], "(");
      if (!verbose && all[a - 2] != "port") continue;
      std::optional<int> n = Int(all[a - (verbose ? 2 : 1)]);
      if (!n) continue;
      const int ln = static_cast<int>(i) + 1;
      // The verbose form starts with the PCI address: "0000:3b:00.0 mlx5_0 ...".
      const absl::string_view name = all[verbose ? 1 : a - 3];
      // The same port on another netdev (another host's entries, pasted
      // after the first's): the first is read. Again on the same netdev
      // (plain, then -v) it adds what -v says.
      const absl::string_view netdev = all[a + 1];
      if (SaidOtherwise(said, absl::StrCat(name, " port ", *n), std::string(netdev), ln, b)) continue;
      DeviceInfo& d = b.Device(name);
      PortInfo& p = b.Port(d, *n);
      if (verbose) {
        for (size_t k = 2; k + 1 < a; ++k) {
          if (all[k] == "fw" && !d.fw_ver) {
            d.fw_ver = std::string(all[k + 1]);
            b.Source(d.name + " fw_ver", ln);
          }
        }
        p.state = StateWord(absl::StripSuffix(absl::StripPrefix(all[a - 1], "("), ")"));
        if (p.state) b.Source(PortFact(d, p, "state"), ln);
      }
      b.view().provenance.push_back(absl::StrCat("ibdev2netdev: ", d.name, "/", p.port_num, " netdev ", netdev));
      b.Source(PortFact(d, p, "netdev"), ln);
      if (a + 2 < all.size() && absl::StartsWith(all[a + 2], "(")) {
        NetdevInfo& nd = b.Netdev(netdev);
        absl::string_view st = absl::StripSuffix(absl::StripPrefix(all[a + 2], "("), ")");
        nd.operstate = absl::AsciiStrToLower(st);
        b.Source(absl::StrCat("netdev ", nd.name, " operstate"), ln);
      }
    }
  }
}

// ---------------------------------------------------------------- ibv_devices

// rdma-core's ibv_devices (libibverbs/examples/device_list.c): a header
// "    device          \t   node GUID", a rule of dashes, then a line a
// device, its name and its node GUID as 16 hex digits (a VF without one
// prints zeros).
bool IbvDevicesHeader(absl::string_view l) {
  std::vector<absl::string_view> w = absl::StrSplit(l, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  return w.size() == 3 && w[0] == "device" && w[1] == "node" && w[2] == "GUID";
}

bool HexDigits(absl::string_view s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isxdigit(c); });
}

// libibverbs' warnings (stderr, pasted among the lines): provenance, and a
// device it left out is said (a missing provider is counted, as for
// ibv_devinfo; "Driver rxe does not support the kernel ABI of 1 ... for
// device /sys/class/infiniband/rxe0" leaves rxe0 out of the list).
void LibibverbsLine(absl::string_view l, int ln, uint64_t* no_provider, Builder& b) {
  b.view().provenance.emplace_back(l);
  if (NoProviderWarning(l)) {
    ++*no_provider;
  } else if (constexpr absl::string_view kClass = "/sys/class/infiniband/"; absl::StrContains(l, kClass)) {
    b.Warn(ln, absl::StrCat("libibverbs left out device ", l.substr(l.find(kClass) + kClass.size()), ": `", l, "`"));
  }
}

// `libibverbs`: whether its warnings are read here (not when ibv_devinfo's
// reader, beside it, reads them).
void ParseIbvDevices(const std::vector<std::string>& lines, Builder& b, bool libibverbs) {
  std::map<std::string, int> first;
  int header = 0;        // the line of the table's header, while in it
  bool entries = false;  // the table has an entry
  uint64_t no_provider = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    absl::string_view l = Trim(lines[i]);
    if (absl::StartsWith(l, "libibverbs: ")) {
      if (libibverbs) LibibverbsLine(l, ln, &no_provider, b);
      continue;
    }
    if (IbvDevicesHeader(l)) {
      header = ln;
      entries = false;
      b.Read(ln);
      continue;
    }
    if (header == 0 || l.empty()) continue;
    if (l.find_first_not_of("- \t") == absl::string_view::npos) {
      b.Read(ln);  // the rule under the header
      continue;
    }
    std::vector<absl::string_view> w = absl::StrSplit(l, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (w.size() != 2 || !HexDigits(w[1], 16)) {
      // The prompt, or prose, after the list. After the header alone, the
      // list was whole and empty (device_list.c prints no line for "none").
      if (!entries) {
        b.Source("devices", header);
        b.Warn(header, "ibv_devices listed no device (its header, then other text)");
      }
      header = 0;
      continue;
    }
    entries = true;
    if (SeenBefore(first, w[0], ln, b)) continue;
    DeviceInfo& d = b.Device(w[0]);
    if (!d.driver) d.driver = DriverFromName(d.name);
    d.node_guid = GuidText(w[1]);
    b.Source(d.name + " node_guid", ln);
  }
  if (no_provider > 0) b.view().host.devices_without_provider = no_provider;
}

// ---------------------------------------------------------------- cat of sysfs files

// "$ cat /sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/1" and the
// value on the next line with text: what one attribute file of a port says
// (or of the device: port 0, "fw_ver", "node_guid", "sys_image_guid",
// "parent").
struct SysfsCat {
  absl::string_view device, what;  // what: "gids/0", "gid_attrs/types/1", "state", ...
  int port = 0;
};
bool DeviceAttribute(absl::string_view what) {
  return what == "fw_ver" || what == "node_guid" || what == "sys_image_guid" || what == "parent";
}
std::optional<SysfsCat> SysfsCatLine(absl::string_view l) {
  static constexpr absl::string_view kClass = "/sys/class/infiniband/";
  const size_t cat = l.find("cat ");
  const size_t at = l.find(kClass);
  if (cat == absl::string_view::npos || at == absl::string_view::npos || at < cat) return std::nullopt;
  absl::string_view path = l.substr(at + kClass.size());
  path = path.substr(0, path.find_first_of(" \t"));
  std::vector<absl::string_view> parts = absl::StrSplit(path, '/');
  if (parts.size() == 2 && !parts[0].empty() && DeviceAttribute(parts[1])) return SysfsCat{parts[0], parts[1], 0};
  if (parts.size() < 4 || parts[1] != "ports" || parts[0].empty()) return std::nullopt;
  std::optional<int> port = Int(parts[2]);
  if (!port || *port < 1) return std::nullopt;
  SysfsCat c;
  c.device = parts[0];
  c.port = *port;
  c.what = path.substr(parts[0].size() + parts[1].size() + parts[2].size() + 3);
  return c;
}
bool AnySysfsCat(const std::vector<std::string>& lines) {
  for (const std::string& l : lines)
    if (SysfsCatLine(Trim(l))) return true;
  return false;
}

void ParseSysfsCat(const std::vector<std::string>& lines, Builder& b) {
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<SysfsCat> c = SysfsCatLine(Trim(lines[i]));
    if (!c) continue;
    size_t v = i + 1;
    while (v < lines.size() && Trim(lines[v]).empty()) ++v;
    // A value, not the next command or the output of a glob.
    if (v >= lines.size() || SysfsCatLine(Trim(lines[v])) || absl::StrContains(c->what, "*")) continue;
    absl::string_view value = Trim(lines[v]);
    const int ln = static_cast<int>(v) + 1;
    DeviceInfo& d = b.Device(c->device);
    if (c->port == 0) {
      // A value printed without its newline runs into the next prompt
      // ("enp0s29u1u7u3c2[root@test ~]#").
      if (const size_t prompt = value.find('['); prompt != absl::string_view::npos &&
                                                 absl::StrContains(value.substr(prompt), '@'))
        value = Trim(value.substr(0, prompt));
      std::optional<std::string>* slot = c->what == "fw_ver"      ? &d.fw_ver
                                         : c->what == "node_guid" ? &d.node_guid
                                         : c->what == "sys_image_guid" ? &d.sys_image_guid
                                                                       : nullptr;
      const std::string fact = absl::StrCat(d.name, " ", c->what);
      if (value.empty() || (slot == nullptr ? b.view().fact_sources.count(fact) > 0 : slot->has_value())) {
        if (!value.empty())
          b.Warn(ln, absl::StrCat(fact, " again (`", value, "`): the value read first is kept"));
        continue;
      }
      if (slot != nullptr) {
        *slot = std::string(value);
      } else {  // parent: the netdev a soft device (rxe, siw) is on
        b.view().provenance.push_back(absl::StrCat("sysfs: ", d.name, " parent ", value));
      }
      b.Source(fact, ln);
      continue;
    }
    PortInfo& p = b.Port(d, c->port);
    std::vector<absl::string_view> w = absl::StrSplit(c->what, '/');
    auto entry = [&](absl::string_view index) -> GidEntry* {
      std::optional<int> n = Int(index);
      if (!n) return nullptr;
      GidEntry* g = FindBy(p.gids, &GidEntry::index, *n);
      if (g == nullptr) {
        p.gids.emplace_back();
        g = &p.gids.back();
        g->index = *n;
      }
      return g;
    };
    if (w.size() == 2 && w[0] == "gids") {
      std::optional<std::string> gid = GidText(value);
      GidEntry* g = gid ? entry(w[1]) : nullptr;
      if (g == nullptr) continue;
      g->gid = *gid;
      b.Source(PortFact(d, p, absl::StrCat("gid ", g->index)), ln);
    } else if (w.size() == 3 && w[0] == "gid_attrs" && (w[1] == "types" || w[1] == "ndevs")) {
      GidEntry* g = entry(w[2]);
      if (g == nullptr) continue;
      if (w[1] == "types") {
        g->type = ParseGidType(value).value_or(GidType::kUnknown);
      } else {
        g->netdev = std::string(value);
        // Kept as a fact of its own too, as rdma link's netdev is.
        b.view().provenance.push_back(absl::StrCat("sysfs: ", d.name, "/", p.port_num, " netdev ", value));
        b.Source(PortFact(d, p, "netdev"), ln);
      }
    } else if (c->what == "state") {
      const size_t colon = value.find(':');  // "4: ACTIVE"
      p.state = StateWord(colon == absl::string_view::npos ? value : value.substr(colon + 1));
      if (p.state) b.Source(PortFact(d, p, "state"), ln);
    } else if (c->what == "phys_state") {
      p.phys_state = PhysWord(value);
      if (p.phys_state) b.Source(PortFact(d, p, "phys_state"), ln);
    } else if (c->what == "link_layer" && (value == "Ethernet" || value == "InfiniBand")) {
      p.link_layer = std::string(value);
      b.Source(PortFact(d, p, "link_layer"), ln);
    }
  }
  // An attribute read without its GID ("types/1" alone) is no GID.
  for (DeviceInfo& d : b.view().devices)
    for (PortInfo& p : d.ports)
      p.gids.erase(std::remove_if(p.gids.begin(), p.gids.end(), [](const GidEntry& g) { return g.gid.empty(); }),
                   p.gids.end());
}

// ----------------------------------------------------- ls -l /sys/class/infiniband

// One symlink a device: "lrwxrwxrwx 1 root root 0 Nov  1 15:37 mlx5_0 ->
// ../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0";
// the PCI address is the last one before /infiniband/ (a soft device's path
// is under devices/virtual and has none). The words around the arrow; with
// `cut`, also a link whose target the paste cut short ("irdma0 ->
// ../../devices"), which `whole` says.
struct ClassLinkWords {
  absl::string_view name, target;
  bool whole = true;
};
std::optional<ClassLinkWords> ClassLink(absl::string_view l, bool cut = false) {
  std::vector<absl::string_view> w = Words(l);
  const auto arrow = std::find(w.begin(), w.end(), "->");
  if (arrow == w.begin() || arrow == w.end() || arrow + 1 == w.end()) return std::nullopt;
  ClassLinkWords link{*(arrow - 1), *(arrow + 1)};
  link.whole = absl::EndsWith(link.target, absl::StrCat("/infiniband/", link.name));
  if (!link.whole &&
      !(cut && absl::StartsWith(link.target, "../../devices") && !absl::StrContains(link.target, "/net/")))
    return std::nullopt;
  return link;
}
// `ls -l /sys/class/infiniband` typed above its listing.
bool ClassListingCommand(absl::string_view l) {
  static constexpr absl::string_view kDir = "/sys/class/infiniband";
  const size_t at = l.find(kDir);
  if (!absl::StrContains(l, "ls ") || at == absl::string_view::npos) return false;
  absl::string_view rest = l.substr(at + kDir.size());
  absl::ConsumePrefix(&rest, "/");
  return rest.empty() || rest[0] == ' ' || rest[0] == '\t';  // not a device's own directory
}
// The names a plain `ls /sys/class/infiniband` printed on the line after
// it ("erdma_0  erdma_1"), or none: every word a device name.
std::vector<absl::string_view> ClassNames(absl::string_view l) {
  std::vector<absl::string_view> w = Words(l);
  for (absl::string_view x : w) {
    if (!std::all_of(x.begin(), x.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.'; }))
      return {};
  }
  return w;
}
// `ls` without -l (whose "total 0" and links come next instead).
bool PlainClassCommand(absl::string_view l) {
  if (!ClassListingCommand(l)) return false;
  const std::vector<absl::string_view> w = Words(l.substr(l.find("ls ")));
  return std::none_of(w.begin(), w.end(), [](absl::string_view x) {
    return absl::StartsWith(x, "-") && !absl::StartsWith(x, "--") && absl::StrContains(x, 'l');
  });
}
bool PlainClassListing(const std::vector<std::string>& lines) {
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (PlainClassCommand(Trim(lines[i])) && !ClassNames(lines[i + 1]).empty()) return true;
  return false;
}
bool CutClassListing(const std::vector<std::string>& lines) {
  bool command = false;
  for (const std::string& l : lines) {
    if (ClassListingCommand(Trim(l))) command = true;
    else if (command && ClassLink(Trim(l), true)) return true;
  }
  return false;
}

bool PciAddress(absl::string_view s) {
  // "0000:3b:00.0": domain, bus, device.function
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.' && HexDigits(s.substr(0, 4), 4) &&
         HexDigits(s.substr(5, 2), 2) && HexDigits(s.substr(8, 2), 2) && absl::ascii_isxdigit(s[11]);
}

void ParseClassLinks(const std::vector<std::string>& lines, Builder& b) {
  std::map<std::string, int> first;
  bool command = false;  // below `ls -l /sys/class/infiniband`
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    if (ClassListingCommand(Trim(lines[i]))) {
      command = true;
      // A plain `ls`: the names on the next line, no links.
      const bool plain = PlainClassCommand(Trim(lines[i])) && i + 1 < lines.size();
      for (absl::string_view name : plain ? ClassNames(lines[i + 1]) : std::vector<absl::string_view>{}) {
        DeviceInfo& d = b.Device(name);
        if (!d.driver) d.driver = DriverFromName(d.name);
        b.Source("device " + d.name, ln + 1);
      }
    }
    std::optional<ClassLinkWords> link = ClassLink(Trim(lines[i]), command);
    if (!link || SeenBefore(first, link->name, ln, b)) continue;
    if (!link->whole)
      b.Warn(ln, absl::StrCat("the link of ", link->name, " is cut (`", link->target,
                              "`): the device is read, its PCI address is missing"));
    DeviceInfo& d = b.Device(link->name);
    if (!d.driver) d.driver = DriverFromName(d.name);
    for (absl::string_view part : absl::StrSplit(link->target, '/'))
      if (PciAddress(part)) d.pci_address = std::string(part);
    if (d.pci_address) b.Source(d.name + " pci_address", ln);
  }
}

// ---------------------------------------------------------------- ip addr

// Where an `ip addr` record starts in `w` ("2: ens1f0: <BROADCAST,...>"):
// its index and name. A paste whose newlines were lost runs the records
// together, one after another's addresses; one glued to a prompt
// ("sh-5.1#1: lo: <...>") keeps its index.
// `ip -o addr`'s line, one per address: "1: lo    inet 127.0.0.1/8 ...",
// no colon after the name.
bool IpOneLineAddr(const std::vector<absl::string_view>& w) {
  return w.size() > 2 && (w[2] == "inet" || w[2] == "inet6");
}
bool IpRecordStart(const std::vector<absl::string_view>& w, size_t k, int* index, absl::string_view* name) {
  // "ib4: <BROADCAST,MULTICAST> mtu 4092 ...": the index cut off.
  if (k == 0 && w.size() > 3 && absl::EndsWith(w[0], ":") && !Int(absl::StripSuffix(w[0], ":")) &&
      absl::StartsWith(w[1], "<") && std::find(w.begin(), w.end(), "mtu") != w.end()) {
    *index = 0;
    *name = absl::StripSuffix(w[0], ":");
    *name = name->substr(0, name->find('@'));
    return true;
  }
  const bool one_line = k == 0 && IpOneLineAddr(w);
  if (k + 1 >= w.size() || !absl::EndsWith(w[k], ":") || (!absl::EndsWith(w[k + 1], ":") && !one_line)) return false;
  if (k > 0 && (k + 2 >= w.size() || !absl::StartsWith(w[k + 2], "<"))) return false;
  absl::string_view idx = absl::StripSuffix(w[k], ":");
  size_t digits = idx.size();
  while (digits > 0 && absl::ascii_isdigit(idx[digits - 1])) --digits;
  if (digits == idx.size() || (digits > 0 && (k == 0 || !absl::StrContains("#$>", idx[digits - 1])))) return false;
  std::optional<int> n = Int(idx.substr(digits));
  if (!n) return false;
  *index = *n;
  *name = absl::StripSuffix(w[k + 1], ":");
  *name = name->substr(0, name->find('@'));  // "eth0.100@eth0"
  return true;
}

void ParseIpAddr(const std::vector<std::string>& lines, Builder& b) {
  NetdevInfo* cur = nullptr;
  bool header = false;  // still in the record's first line (mtu, state)
  std::map<std::string, int> first;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    std::vector<absl::string_view> w = absl::StrSplit(Trim(lines[i]), ' ', absl::SkipEmpty());
    // A header a mail wrapped ("... mtu 4092" then "qdisc mq state UP ..."):
    // its state is still the record's.
    header = header && !w.empty() && (w[0] == "qdisc" || w[0] == "state" || w[0] == "group");
    // A record's own lines, facts or not (and those a mail wrapped), are
    // ip's: not left out (ParsePaste counts what no reader took).
    static constexpr absl::string_view kRecordWords[] = {"inet", "inet6", "valid_lft", "altname", "state",
                                                         "temporary", "dynamic", "mngtmpaddr", "noprefixroute",
                                                         "scope", "group", "qlen", "brd"};
    if (cur != nullptr && !w.empty() &&
        (absl::StartsWith(w[0], "link/") ||
         std::find(std::begin(kRecordWords), std::end(kRecordWords), w[0]) != std::end(kRecordWords)))
      b.Read(ln);
    for (size_t k = 0; k < w.size(); ++k) {
      int index = 0;
      absl::string_view name;
      if (IpRecordStart(w, k, &index, &name)) {
        b.Read(ln);
        ++k;
        // `ip -o addr`: the same netdev on every one of its lines, not
        // another run.
        if (k == 1 && IpOneLineAddr(w) && first.count(std::string(name))) {
          cur = &b.Netdev(name);
          continue;
        }
        // "2: ens1f0: <BROADCAST,...> mtu 9000 qdisc mq state UP ..."
        if (index == 0) --k;  // no index: the name was w[0]
        cur = SeenBefore(first, name, ln, b, "netdev") ? nullptr : &b.Netdev(name);
        header = cur != nullptr;
        if (cur == nullptr) continue;
        if (index > 0) cur->ifindex = index;
        cur->addrs_known = true;
        continue;
      }
      if (cur == nullptr || k + 1 >= w.size()) continue;
      if (header && w[k] == "mtu") {
        cur->mtu = Int(w[k + 1]);
        if (cur->mtu) b.Source(absl::StrCat("netdev ", cur->name, " mtu"), ln);
      } else if (header && w[k] == "state") {
        cur->operstate = absl::AsciiStrToLower(w[k + 1]);
        b.Source(absl::StrCat("netdev ", cur->name, " operstate"), ln);
      } else if (w[k] == "inet" || w[k] == "inet6") {
        header = false;
        cur->addrs.emplace_back(w[k + 1]);
        b.Source(absl::StrCat("netdev ", cur->name, " addr ", w[k + 1]), ln);
      } else if (absl::StartsWith(w[k], "link/")) {
        header = false;
      }
    }
  }
}

absl::Status ParseIpAddrJson(absl::string_view text, Builder& b) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(b.file(), ":1: ip -j addr: not a JSON array"));
  }
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("ifname") || !e["ifname"].is_string()) continue;
    NetdevInfo& n = b.Netdev(e["ifname"].get<std::string>());
    if (e.contains("ifindex") && e["ifindex"].is_number_integer()) n.ifindex = e["ifindex"].get<int>();
    if (e.contains("mtu") && e["mtu"].is_number_integer()) {
      n.mtu = e["mtu"].get<int>();
      b.Source(absl::StrCat("netdev ", n.name, " mtu"), 1);
    }
    if (e.contains("operstate") && e["operstate"].is_string()) {
      n.operstate = absl::AsciiStrToLower(e["operstate"].get<std::string>());
    }
    if (e.contains("addr_info") && e["addr_info"].is_array()) {
      n.addrs_known = true;
      for (const auto& a : e["addr_info"]) {
        if (a.contains("local") && a["local"].is_string() && a.contains("prefixlen") &&
            a["prefixlen"].is_number_integer()) {
          n.addrs.push_back(absl::StrCat(a["local"].get<std::string>(), "/", a["prefixlen"].get<int>()));
        }
      }
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- ulimit

std::optional<uint64_t> MemlockBytes(absl::string_view v) {
  v = Trim(v);
  if (v == "unlimited") return HostInfo::kUnlimited;
  uint64_t kb = 0;
  if (!ParseUnsigned(v, &kb) || kb > UINT64_MAX / 1024) return std::nullopt;
  return kb * 1024;  // bash prints -l in kbytes
}

// The options of a `ulimit` command line ("root@host:/# ulimit -Hl" ->
// "-Hl"), after any prompt; none for other lines.
std::optional<absl::string_view> UlimitOptions(absl::string_view l) {
  size_t u = l.find("ulimit ");
  if (u == absl::string_view::npos) return std::nullopt;
  return l.substr(u + 7);
}
// Options that print the locked-memory limit alone, as a bare number.
bool BareMemlockOptions(absl::string_view opts) { return opts == "-l" || opts == "-Hl" || opts == "-Sl"; }

void ParseUlimit(const std::vector<std::string>& lines, Builder& b) {
  bool hard = false, bare_l = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    absl::string_view l = Trim(lines[i]);
    if (std::optional<absl::string_view> opts = UlimitOptions(l)) {
      // A command line: which limit the next lines show.
      hard = absl::StrContains(*opts, "H");
      bare_l = BareMemlockOptions(*opts);
      continue;
    }
    // A saved web page puts an empty line between the command and its value.
    if (l.empty()) continue;
    std::optional<uint64_t> bytes;
    if (absl::StartsWith(l, "max locked memory")) {
      size_t close = l.rfind(')');
      if (close != absl::string_view::npos) bytes = MemlockBytes(l.substr(close + 1));
    } else if (bare_l) {
      bytes = MemlockBytes(l);
      bare_l = false;
    }
    if (!bytes) continue;
    (hard ? b.view().host.memlock_hard : b.view().host.memlock_soft) = bytes;
    b.Source(hard ? "host memlock_hard" : "host memlock_soft", ln);
  }
}

// ---------------------------------------------------------------- sniffing

// A JSON array cut short (`ip -j -p link` pasted until the post's end): its
// complete top-level elements as an array, and the line the paste ends on;
// none when not one element is whole.
struct CutJson {
  std::string whole;  // "[ {...}, {...} ]"
  int cut_line = 1;
};
std::optional<CutJson> CompleteElements(absl::string_view text) {
  const JsonCut c = WholeElements(text, 1);
  if (!c.open || c.elements == 0) return std::nullopt;
  CutJson out;
  out.whole = absl::StrCat(text.substr(0, c.end), "]");
  const absl::string_view used = absl::StripTrailingAsciiWhitespace(text);
  out.cut_line = 1 + static_cast<int>(std::count(used.begin(), used.end(), '\n'));
  return out;
}

// "$ rdma -j link", "user@host:~$ ip -4 -j address": the command typed above
// the JSON it printed. Where the JSON starts (its offset in `text`) and how
// many lines come before it; none when the text does not start that way.
struct JsonBody {
  size_t offset = 0;
  int lines_before = 0;
};
std::optional<JsonBody> JsonAfterCommand(absl::string_view text) {
  JsonBody body;
  bool command = false;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    const absl::string_view t = Trim(l);
    if (command && !t.empty()) {
      // The command line, then the JSON.
      if (t.front() == '[' || t.front() == '{') return body;
      return std::nullopt;
    }
    if (!t.empty()) {
      // Text before it (a commit message's "The example output ...") is
      // passed over until the command line.
      std::vector<absl::string_view> w = absl::StrSplit(t, ' ', absl::SkipEmpty());
      const bool tool = std::any_of(w.begin(), w.end(), [](absl::string_view x) {
        return x == "ip" || x == "rdma" || absl::EndsWith(x, "/ip") || absl::EndsWith(x, "/rdma");
      });
      const bool json = std::any_of(w.begin(), w.end(), [](absl::string_view x) {
        return x == "--json" || x == "-json" || (x.size() >= 2 && x[0] == '-' && x[1] != '-' && absl::StrContains(x, 'j'));
      });
      command = tool && json;
    }
    body.offset += l.size() + 1;
    ++body.lines_before;
  }
  return std::nullopt;
}

// The JSON of a paste that is an array of objects, whole or cut short.
nlohmann::json ArrayOfObjects(absl::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    if (std::optional<CutJson> cut = CompleteElements(text)) j = nlohmann::json::parse(cut->whole, nullptr, false);
  }
  if (j.is_discarded() || !j.is_array() || j.empty() || !j[0].is_object()) return nlohmann::json();
  return j;
}

bool AnyLine(const std::vector<std::string>& lines, bool (*pred)(absl::string_view)) {
  for (const std::string& l : lines)
    if (pred(Trim(l))) return true;
  return false;
}
// Any listing of /sys/class/infiniband: links, cut or whole, or names.
bool AnyClassListing(const std::vector<std::string>& lines) {
  return AnyLine(lines, [](absl::string_view x) { return ClassLink(x).has_value(); }) || CutClassListing(lines) ||
         PlainClassListing(lines);
}

bool IbstatLine(absl::string_view l) {
  return absl::StartsWith(l, "CA '") && l.find('\'', 4) != absl::string_view::npos;
}
bool IbstatusLine(absl::string_view l) {
  return absl::StartsWith(l, "Infiniband device '") || IbstatusNoDevicesLine(l);
}
bool ShowGidsLine(absl::string_view l) {
  return absl::StartsWith(l, "DEV") && absl::StrContains(l, "PORT") && absl::StrContains(l, "INDEX") &&
         absl::StrContains(l, "GID");
}
// A character device of `ls -l /dev/infiniband` ("crw-rw-rw- 1 root root
// 231, 192 May 15 11:49 uverbs0"), cut or not.
bool DevInfinibandEntry(absl::string_view l) {
  if (!absl::StartsWith(l, "crw")) return false;
  const std::vector<absl::string_view> w = Words(l);
  for (absl::string_view prefix : {"uverbs", "umad", "issm", "rdma_cm"})
    if (absl::StartsWith(w.back(), prefix)) return true;
  return absl::StrContains(l, " 231,");  // infiniband's character major, its name cut
}

bool RdmaLinkLine(absl::string_view l) {
  return (absl::StartsWith(l, "link ") && absl::StrContains(l, " state ")) || RdmaStatLine(l) ||
         absl::StrContains(l, ": node_type ") ||  // `rdma dev`
         RdmaResLine(l) ||
         (absl::StrContains(l, "/") && absl::StrContains(l, ": state ") &&
          absl::StrContains(l, "physical_state"));
}
bool IpAddrLine(absl::string_view l) {
  std::vector<absl::string_view> w = Words(l);
  int index = 0;
  absl::string_view name;
  return (w.size() >= 4 && absl::EndsWith(w[0], ":") && Int(absl::StripSuffix(w[0], ":")) &&
          ((absl::EndsWith(w[1], ":") && absl::StartsWith(w[2], "<")) ||
           (IpOneLineAddr(w) && absl::StrContains(w[3], "/")))) ||
         (IpRecordStart(w, 0, &index, &name) && index == 0);
}
bool UlimitLine(absl::string_view l) { return absl::StartsWith(l, "max locked memory"); }
// "root@host:/# ulimit -l" (after any prompt) and its value on the next line.
bool UlimitLThenValue(const std::vector<std::string>& lines) {
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    std::optional<absl::string_view> opts = UlimitOptions(Trim(lines[i]));
    if (!opts || !BareMemlockOptions(*opts)) continue;
    size_t next = i + 1;
    while (next + 1 < lines.size() && Trim(lines[next]).empty()) ++next;
    if (MemlockBytes(lines[next])) return true;
  }
  return false;
}
bool Ibdev2netdevLine(absl::string_view l) {
  return absl::StrContains(l, " port ") && (absl::StrContains(l, " ==> ") || absl::StrContains(l, " <===> "));
}

constexpr absl::string_view kFormatsTried =
    "rdmacheck profile, ibv_devinfo [-v|-l], ibv_devices, ibstat, ibstatus, show_gids, rdma link, rdma dev, "
    "rdma -j link, rdma -j dev, ibdev2netdev, ls -l /sys/class/infiniband, cat /sys/class/infiniband/DEV/ports/N/..., "
    "ip addr, ip -j addr, ulimit -a";

}  // namespace

absl::StatusOr<std::string> SniffPaste(absl::string_view text, absl::string_view file) {
  int first_no = 1;
  std::string first = FirstLine(text, &first_no);
  if (IsProfileText(text)) return std::string("profile");
  std::vector<std::string> lines = Lines(text);
  if (LooksLikeIbvDevinfo(text)) return std::string("ibv_devinfo");
  const std::optional<JsonBody> body = JsonAfterCommand(text);
  if (absl::StartsWith(first, "[") || absl::StartsWith(first, "{") || body) {
    nlohmann::json j = ArrayOfObjects(body ? text.substr(body->offset) : text);
    if (j.is_array()) {
      if (j[0].contains("ifname") && (j[0].contains("port") || j[0].contains("node_type")))
        return std::string("rdma_link_json");  // `rdma -j link` or `rdma -j dev`
      if (j[0].contains("ifname") && (j[0].contains("addr_info") || j[0].contains("mtu")))
        return std::string("ip_addr_json");
    }
  }
  if (AnyLine(lines, IbvDevicesHeader)) return std::string("ibv_devices");
  if (AnyLine(lines, IbstatLine)) return std::string("ibstat");
  if (AnyLine(lines, IbstatusLine)) return std::string("ibstatus");
  if (AnyLine(lines, ShowGidsLine)) return std::string("show_gids");
  if (AnyLine(lines, RdmaLinkLine)) return std::string("rdma_link");
  if (AnyLine(lines, Ibdev2netdevLine)) return std::string("ibdev2netdev");
  if (AnyClassListing(lines)) return std::string("sysfs_class");
  if (AnySysfsCat(lines)) return std::string("sysfs_cat");
  if (AnyLine(lines, IpAddrLine)) return std::string("ip_addr");
  if (AnyLine(lines, UlimitLine) || UlimitLThenValue(lines)) return std::string("ulimit");
  // Last: a paste of other output that also holds an ibstat failure is read
  // as that output.
  if (AnyLine(lines, IbpanicLine) || HeadlessIbstat(lines)) return std::string("ibstat");
  // JSON, not a prompt ("[root@node ~]#") or a log line's stamp.
  const bool json_start = first == "[" || first == "{" || absl::StartsWith(first, "[{") ||
                          absl::StartsWith(first, "{\"") || absl::StartsWith(first, "[\"");
  if (json_start || body) {
    // JSON that does not parse (hand-edited in a commit message, a quote
    // lost): where it breaks, rather than "no format".
    const absl::string_view json = body ? text.substr(body->offset) : text;
    try {
      (void)nlohmann::json::parse(json.begin(), json.end());
    } catch (const nlohmann::json::parse_error& e) {
      const absl::string_view before = json.substr(0, std::min<size_t>(e.byte, json.size()));
      const int line = (body ? body->lines_before : 0) + 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
      // nlohmann counts lines from the JSON's start; the column is ours too.
      absl::string_view what = e.what();
      if (size_t c = what.find("column "); c != absl::string_view::npos) what.remove_prefix(c);
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", line, ": JSON that does not parse (", what,
          "); the JSON rdmacheck reads is `rdma -j link`, `rdma -j dev` and `ip -j addr` output, whole or cut short"));
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      file, ":", first_no, ": not a format rdmacheck reads (tried: ", kFormatsTried,
      "); its first line fits none: `", first, "`",
      AnyLine(lines, DevInfinibandEntry)
          ? "; `ls /dev/infiniband` lists the character devices (uverbs, umad, issm), not the RDMA devices: "
            "paste `ibv_devices` or `ls -l /sys/class/infiniband` for those"
          : ""));
}

namespace {

// The line formats a paste can hold beside its main one (a guide's or a
// ticket's commands one after the other: ibv_devinfo then `ulimit -l`,
// ibdev2netdev then ibstat), each read as if pasted on its own.
struct BesideFormat {
  absl::string_view name;
  bool (*present)(const std::vector<std::string>&);
  void (*parse)(const std::vector<std::string>&, Builder&);
};
const BesideFormat kBeside[] = {
    {"rdma_link", [](const std::vector<std::string>& l) { return AnyLine(l, RdmaLinkLine); }, ParseRdmaLink},
    {"ibdev2netdev", [](const std::vector<std::string>& l) { return AnyLine(l, Ibdev2netdevLine); },
     ParseIbdev2netdev},
    {"show_gids", [](const std::vector<std::string>& l) { return AnyLine(l, ShowGidsLine); }, ParseShowGids},
    {"ip_addr", [](const std::vector<std::string>& l) { return AnyLine(l, IpAddrLine); }, ParseIpAddr},
    {"ulimit", [](const std::vector<std::string>& l) { return AnyLine(l, UlimitLine) || UlimitLThenValue(l); },
     ParseUlimit},
    {"sysfs_cat", AnySysfsCat, ParseSysfsCat},
    {"sysfs_class", AnyClassListing, ParseClassLinks},
    {"ibv_devices", [](const std::vector<std::string>& l) { return AnyLine(l, IbvDevicesHeader); },
     [](const std::vector<std::string>& l, Builder& b) { ParseIbvDevices(l, b, /*libibverbs=*/false); }},
};

// What the formats beside the main one read: a view per format found, and
// the lines they took facts from, each with the lines Lines() joined onto
// it (empty there, not in the paste).
struct Beside {
  std::vector<DeviceView> views;
  std::set<int> lines;
};
Beside ReadBeside(absl::string_view text, const std::vector<std::string>& lines, absl::string_view file,
                  absl::string_view format) {
  Beside out;
  for (const BesideFormat& f : kBeside) {
    if (f.name == format || !f.present(lines)) continue;
    Builder b(file, f.name);
    f.parse(lines, b);
    out.lines.insert(b.lines().begin(), b.lines().end());
    out.views.push_back(std::move(b.view()));
  }
  if (out.lines.empty()) return out;
  int n = 0;
  bool after_read = false;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++n;
    if (out.lines.count(n)) {
      after_read = true;
    } else if (after_read && n <= static_cast<int>(lines.size()) && lines[n - 1].empty() &&
               !absl::StripAsciiWhitespace(raw).empty()) {
      out.lines.insert(n);
    } else {
      after_read = false;
    }
  }
  return out;
}

// The paste read as its main format; `lines` are Lines(text).
absl::StatusOr<DeviceView> ParseMainFormat(absl::string_view text, const std::vector<std::string>& lines,
                                           absl::string_view file, const std::string& format,
                                           const std::set<int>& read_beside) {
  if (format == "ibv_devinfo") return ParseIbvDevinfo(text, file, read_beside);
  Builder b(file, format);
  if (format == "ibstat") ParseIbstat(lines, b);
  if (format == "ibstatus") ParseIbstatus(lines, b);
  if (format == "show_gids") ParseShowGids(lines, b);
  if (format == "rdma_link") ParseRdmaLink(lines, b);
  if (format == "ip_addr") ParseIpAddr(lines, b);
  if (format == "ibdev2netdev") ParseIbdev2netdev(lines, b);
  if (format == "ibv_devices") ParseIbvDevices(lines, b, /*libibverbs=*/true);
  if (format == "sysfs_class") ParseClassLinks(lines, b);
  if (format == "sysfs_cat") ParseSysfsCat(lines, b);
  if (format == "ulimit") ParseUlimit(lines, b);
  if (format == "rdma_link_json" || format == "ip_addr_json") {
    // Cut short: its whole elements, and where it stops (a whole array is
    // no cut).
    // After the command that printed it, if it was pasted with it.
    const std::optional<JsonBody> body = JsonAfterCommand(text);
    const absl::string_view array = body ? text.substr(body->offset) : text;
    const std::optional<CutJson> cut = CompleteElements(array);
    const absl::string_view json = cut ? absl::string_view(cut->whole) : array;
    absl::Status st = format == "rdma_link_json" ? ParseRdmaLinkJson(json, b) : ParseIpAddrJson(json, b);
    if (!st.ok()) return st;
    if (cut)
      b.Warn(cut->cut_line + (body ? body->lines_before : 0), "the JSON ends inside an element (truncated paste?): the whole elements before it "
                            "are read, the rest is missing");
  }
  // These tools say nothing of the RDMA devices: no device in the view is
  // not "no device on the node".
  if (format == "ulimit" || format == "ip_addr" || format == "ip_addr_json") b.view().host.devices_listed = false;
  if (!b.view().devices.empty()) b.view().host.devices_listed.reset();  // listed after all
  if (b.view().fact_sources.empty() && b.view().devices.empty() && b.view().netdevs.empty() &&
      b.view().warnings.empty()) {
    // Still input (show_gids in a pod with no GID prints its header alone):
    // nothing to add, said.
    int n = 1;
    FirstLine(text, &n);
    b.Warn(n, absl::StrCat("looks like ", format, " output but gives no fact (no entry, or cut "
                           "before its first)"));
  }
  return std::move(b.view());
}

// Merges one view into another, fact by fact: a fact `into` lacks is taken
// with its source; one it has is kept with its own source, and a different
// value in `from` is a warning naming both places.
class Merger {
 public:
  Merger(const DeviceView& from, DeviceView& into) : from_(from), into_(into) {}

  template <typename T>
  void Take(const std::optional<T>& from, std::optional<T>& into, const std::string& fact) {
    if (!from) return;
    if (!into) {
      into = from;
      return;
    }
    kept_.insert(fact);
    if (*into != *from) Disagree(fact, absl::StrCat(*from), absl::StrCat(*into));
  }

  void Disagree(const std::string& fact, absl::string_view from_value,
                absl::string_view into_value) {
    into_.warnings.push_back(absl::StrCat(Where(from_, fact), ": ", fact, " ", from_value,
                                          " disagrees with ", Where(into_, fact), ": ",
                                          into_value, " (the earlier one is kept)"));
  }

  // The sources of the facts taken from `from` (not of those `into` kept).
  void TakeSources() {
    for (const auto& [fact, where] : from_.fact_sources) {
      if (!kept_.count(fact)) into_.fact_sources.emplace(fact, where);
    }
  }

 private:
  static std::string Where(const DeviceView& v, const std::string& fact) {
    auto it = v.fact_sources.find(fact);
    return it != v.fact_sources.end() ? it->second : v.source;
  }

  const DeviceView& from_;
  DeviceView& into_;
  std::set<std::string> kept_;
};

}  // namespace

// A web page's code block saved on one line, its lines separated by <br>
// (a blog's highlighted <figure>): those become line breaks. Empty when the
// text has no such line.
std::string BrAsNewlines(absl::string_view text) {
  bool any = false;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(l, "<br>") && l.find("<br>") != l.rfind("<br>")) {
      any = true;
      break;
    }
  }
  if (!any) return "";
  return absl::StrReplaceAll(text, {{"<br>", "<br>\n"}});
}

absl::StatusOr<DeviceView> ParsePaste(absl::string_view text, absl::string_view file) {
  const std::string split = BrAsNewlines(text);
  if (!split.empty()) {
    absl::StatusOr<DeviceView> v = ParsePaste(split, file);
    if (v.ok())
      v->warnings.push_back(absl::StrCat(file, ": a web page's lines joined by <br> were read as lines: the line "
                                         "numbers in the other warnings and facts count them"));
    return v;
  }
  absl::StatusOr<std::string> format = SniffPaste(text, file);
  if (!format.ok()) return format.status();
  if (*format == "profile") return ParseProfile(text, file);
  const std::vector<std::string> lines = Lines(text);
  const bool json = *format == "rdma_link_json" || *format == "ip_addr_json";
  const Beside beside = json ? Beside{} : ReadBeside(text, lines, file, *format);
  absl::StatusOr<DeviceView> v = ParseMainFormat(text, lines, file, *format, beside.lines);
  if (!v.ok()) return v;
  for (const DeviceView& b : beside.views) MergeView(b, *v);
  return v;
}

void MergeView(const DeviceView& from, DeviceView& into) {
  for (const std::string& p : from.provenance) into.provenance.push_back(p);
  for (const std::string& w : from.warnings) into.warnings.push_back(w);
  Merger m(from, into);
  const HostInfo& fh = from.host;
  HostInfo& ih = into.host;
  m.Take(fh.memlock_soft, ih.memlock_soft, "host memlock_soft");
  m.Take(fh.memlock_hard, ih.memlock_hard, "host memlock_hard");
  m.Take(fh.devices_not_opened, ih.devices_not_opened, "host devices_not_opened");
  m.Take(fh.devices_without_provider, ih.devices_without_provider, "host devices_without_provider");
  m.Take(fh.hostname, ih.hostname, "host hostname");
  m.Take(fh.kernel, ih.kernel, "host kernel");
  for (const DeviceInfo& fd : from.devices) {
    DeviceInfo* d = FindBy(into.devices, &DeviceInfo::name, fd.name);
    if (d == nullptr) {
      into.devices.push_back(fd);
      continue;
    }
    m.Take(fd.driver, d->driver, d->name + " driver");
    m.Take(fd.transport, d->transport, d->name + " transport");
    m.Take(fd.fw_ver, d->fw_ver, d->name + " fw_ver");
    m.Take(fd.hw_ver, d->hw_ver, d->name + " hw_ver");
    m.Take(fd.node_guid, d->node_guid, d->name + " node_guid");
    m.Take(fd.sys_image_guid, d->sys_image_guid, d->name + " sys_image_guid");
    m.Take(fd.board_id, d->board_id, d->name + " board_id");
    m.Take(fd.vendor_id, d->vendor_id, d->name + " vendor_id");
    m.Take(fd.vendor_part_id, d->vendor_part_id, d->name + " vendor_part_id");
    m.Take(fd.netdev, d->netdev, d->name + " netdev");
    for (const auto& [k, v] : fd.attrs) d->attrs.emplace(k, v);
    for (const PortInfo& fp : fd.ports) {
      PortInfo* p = FindBy(d->ports, &PortInfo::port_num, fp.port_num);
      if (p == nullptr) {
        d->ports.push_back(fp);
        continue;
      }
      const std::string pre = absl::StrCat(d->name, " port ", p->port_num, " ");
      m.Take(fp.state, p->state, pre + "state");
      m.Take(fp.phys_state, p->phys_state, pre + "phys_state");
      m.Take(fp.link_layer, p->link_layer, pre + "link_layer");
      m.Take(fp.active_mtu, p->active_mtu, pre + "active_mtu");
      m.Take(fp.max_mtu, p->max_mtu, pre + "max_mtu");
      m.Take(fp.rate, p->rate, pre + "rate");
      m.Take(fp.lid, p->lid, pre + "lid");
      m.Take(fp.sm_lid, p->sm_lid, pre + "sm_lid");
      m.Take(fp.gid_tbl_len, p->gid_tbl_len, pre + "gid_tbl_len");
      for (const auto& [k, v] : fp.hw_counters) p->hw_counters.emplace(k, v);
      for (const GidEntry& g : fp.gids) {
        GidEntry* have = FindBy(p->gids, &GidEntry::index, g.index);
        if (have == nullptr) {
          p->gids.push_back(g);
          continue;
        }
        // show_gids knows the netdev ibv_devinfo does not print.
        if (have->netdev.empty()) have->netdev = g.netdev;
        std::optional<std::string> gid = have->gid;
        m.Take(std::optional<std::string>(g.gid), gid, pre + absl::StrCat("gid ", g.index));
      }
      std::sort(p->gids.begin(), p->gids.end(),
                [](const GidEntry& x, const GidEntry& y) { return x.index < y.index; });
      p->gids_known = p->gids_known || fp.gids_known;
    }
  }
  for (const NetdevInfo& fn : from.netdevs) {
    NetdevInfo* n = FindBy(into.netdevs, &NetdevInfo::name, fn.name);
    if (n == nullptr) {
      into.netdevs.push_back(fn);
      continue;
    }
    m.Take(fn.mtu, n->mtu, "netdev " + n->name + " mtu");
    m.Take(fn.operstate, n->operstate, "netdev " + n->name + " operstate");
    m.Take(fn.ifindex, n->ifindex, "netdev " + n->name + " ifindex");
    if (!n->addrs_known && fn.addrs_known) {
      n->addrs = fn.addrs;
      n->addrs_known = true;
    }
  }
  m.TakeSources();
}

absl::StatusOr<DeviceView> ReadProfileFile(const std::string& path) {
  // Profiles and pastes are tens of kB; a -vv paste of many HCAs a few MB.
  constexpr uint64_t kMaxBytes = uint64_t{64} << 20;
  absl::StatusOr<std::string> text = ReadInputFile("ReadProfileFile", path, "a profile", kMaxBytes);
  if (!text.ok()) return text.status();
  return ParsePaste(*text, path);
}

absl::StatusOr<DeviceView> ReadPastes(const std::vector<std::string>& paths) {
  DeviceView out;
  std::vector<std::string> sources;
  bool listed = false;  // some paste is of a tool that lists the devices
  for (const std::string& path : paths) {
    absl::StatusOr<DeviceView> v = ReadProfileFile(path);
    if (!v.ok()) return v.status();
    // A kept fact without a line of its own (ibv_devinfo's) is named by
    // the pastes it can have come from.
    out.source = absl::StrJoin(sources, " ");
    sources.push_back(v->source);
    listed = listed || v->host.devices_listed != false;
    MergeView(*v, out);
  }
  if (!listed) out.host.devices_listed = false;
  out.source = absl::StrCat("pastes:", absl::StrJoin(paths, ","));
  out.provenance.insert(out.provenance.begin(),
                        absl::StrCat("merged from ", absl::StrJoin(sources, " ")));
  return out;
}

}  // namespace rdmacheck

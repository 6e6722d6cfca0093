#include "facts/devinfo_import.h"

#include <arpa/inet.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/status_macros.h"
#include "util/numbers.h"

namespace rdmacheck {
namespace {

// struct ibv_device_attr fields ibv_devinfo -v prints as plain numbers, plus
// the few ibv_device_attr_ex ones kept in DeviceView.attrs. Names are the
// libibverbs field names, which devinfo.c prints unchanged.
const std::set<std::string>& DeviceAttrNames() {
  static const auto* names = new std::set<std::string>{
      "phys_port_cnt",     "max_mr_size",         "page_size_cap",
      "max_qp",            "max_qp_wr",           "device_cap_flags",
      "max_sge",           "max_sge_rd",          "max_cq",
      "max_cqe",           "max_mr",              "max_pd",
      "max_qp_rd_atom",    "max_ee_rd_atom",      "max_res_rd_atom",
      "max_qp_init_rd_atom", "max_ee_init_rd_atom", "max_ee",
      "max_rdd",           "max_mw",              "max_raw_ipv6_qp",
      "max_raw_ethy_qp",   "max_mcast_grp",       "max_mcast_qp_attach",
      "max_total_mcast_qp_attach", "max_ah",      "max_fmr",
      "max_map_per_fmr",   "max_srq",             "max_srq_wr",
      "max_srq_sge",       "max_pkeys",           "local_ca_ack_delay",
      "device_cap_flags_ex", "max_wq_type_rq",    "num_comp_vectors",
  };
  return *names;
}

// Tag-matching caps print "max_sge:" again after "max_rndv_hdr_size:"
// (devinfo.c print_tm_caps); these belong to that block, not the device.
bool TmKey(absl::string_view key) {
  return key == "max_num_tags" || key == "max_ops" || key == "max_sge" || key == "flags";
}

// Providers whose device names start with their own name ("mlx5_0",
// "rxe0"). Longer names first so "bnxt_re" is not read as something shorter.
constexpr absl::string_view kProviders[] = {
    "vmw_pvrdma", "bnxt_re", "ocrdma", "irdma", "i40iw", "cxgb4", "erdma",
    "ionic",      "mana",    "mthca", "hfi1",  "qedr",  "mlx5",  "mlx4",
    "hns",        "efa",     "qib",   "rxe",   "siw",
};

}  // namespace

std::optional<std::string> DriverFromName(absl::string_view name) {
  for (absl::string_view p : kProviders) {
    if (!absl::StartsWith(name, p)) continue;
    absl::string_view tail = name.substr(p.size());
    if (tail.empty() || tail[0] == '_' || absl::ascii_isdigit(tail[0])) return std::string(p);
  }
  return std::nullopt;
}

bool NoProviderWarning(absl::string_view line) {
  return absl::StrContains(line, "no userspace device-specific driver found");
}

namespace {

template <size_t N>
bool StartsWithAny(absl::string_view l, const absl::string_view (&prefixes)[N]) {
  for (absl::string_view p : prefixes) {
    if (absl::StartsWith(l, p)) return true;
  }
  return false;
}

// "$ ibv_devinfo -v", "[root@n1 ~]# ibv_devinfo", "ibv_devinfo -d mlx5_0":
// the command, typed, not a line of its output.
bool IsCommandLine(absl::string_view l) {
  const size_t at = l.find("ibv_devinfo");
  if (at == absl::string_view::npos) return false;
  absl::string_view before = absl::StripTrailingAsciiWhitespace(l.substr(0, at));
  return before.empty() || absl::EndsWith(before, "$") || absl::EndsWith(before, "#") ||
         absl::EndsWith(before, ">") || absl::EndsWith(before, "%");
}

// A shell prompt and a command after it ("$ rdma link", "user@host:~$
// ifconfig", "[root@node ~]# lspci"), of a tool other than ibv_devinfo. A
// `# ` line is a comment the poster wrote, not a prompt.
bool IsOtherCommandLine(absl::string_view l) {
  if (IsCommandLine(l)) return false;
  const size_t sp = l.find(' ');
  if (sp == absl::string_view::npos || sp + 1 >= l.size()) return false;
  absl::string_view prompt = l.substr(0, sp);
  if (absl::StartsWith(prompt, "[")) {  // "[root@node ~]# cmd": the prompt has a space
    const size_t close = l.find(']');
    return close != absl::string_view::npos && close + 3 < l.size() && (l[close + 1] == '#' || l[close + 1] == '$') &&
           l[close + 2] == ' ' && absl::StrContains(l.substr(0, close), '@');
  }
  if (prompt == "$") return true;
  return prompt.size() >= 2 && (prompt.back() == '$' || prompt.back() == '#') &&
         (absl::StrContains(prompt, '@') || absl::StrContains(prompt, ':') || absl::StrContains(prompt, '~'));
}

// What devinfo.c prints when ibv_get_device_list gives nothing, or fails
// ("Function not implemented": no uverbs support in this kernel).
bool NoDevicesLine(absl::string_view l) {
  static constexpr absl::string_view kLines[] = {"No IB devices found",
                                                 "Failed to get IB devices list"};
  return StartsWithAny(l, kLines);
}

// "2 HCAs found:" (ibv_devinfo -l).
bool HcasFound(absl::string_view l) {
  size_t sp = l.find(' ');
  uint64_t n = 0;
  return sp != absl::string_view::npos && ParseUnsigned(l.substr(0, sp), &n) &&
         (l.substr(sp) == " HCAs found:" || l.substr(sp) == " HCA found:");
}

// A first line that can only be inside a device block: a paste that starts
// after its hca_id line.
bool StartsHeadless(absl::string_view l) {
  static constexpr absl::string_view kKeys[] = {
      "transport:", "fw_ver:", "node_guid:", "sys_image_guid:", "vendor_id:", "vendor_part_id:",
      "hw_ver:", "board_id:", "phys_port_cnt:", "max_mr_size:", "port:",
      // -v's limits, which people paste alone when the thread is about one
      "max_qp:", "max_qp_wr:", "max_sge:", "max_cq:", "max_cqe:", "max_mr:", "max_pd:", "max_qp_rd_atom:",
      "max_srq:", "max_srq_wr:"};
  return StartsWithAny(l, kKeys);
}

// A GID's text on a line of its own: hex groups and colons, maybe a type.
bool LooksLikeGidValue(absl::string_view l) {
  absl::string_view addr = l.substr(0, l.find(','));
  in6_addr a;
  std::string s(absl::StripAsciiWhitespace(addr));
  return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

// Lines of a port block (devinfo.c print_hca_cap), for telling a fragment.
bool IsPortKeyLine(absl::string_view l) {
  // Only keys no other tool prints this way (ibstatus has "state:" and
  // "link_layer:" too).
  static constexpr absl::string_view kKeys[] = {
      "max_mtu:", "active_mtu:", "port_lid:", "port_lmc:", "max_msg_sz:", "gid_tbl_len:",
      "active_width:", "active_speed:", "phys_state:", "GID["};
  return StartsWithAny(l, kKeys);
}

// The keys of plain ibv_devinfo (devinfo.c print_hca_cap without -v), the
// ones a mail client or a web page can run together on one line.
constexpr absl::string_view kPlainKeys[] = {
    "hca_id",     "transport",     "fw_ver", "node_guid", "sys_image_guid", "vendor_id",
    "vendor_part_id", "hw_ver",    "board_id", "phys_port_cnt", "port",  "state",
    "max_mtu",    "active_mtu",    "sm_lid", "port_lid",  "port_lmc",       "link_layer"};

bool PlainKey(absl::string_view k) {
  return std::find(std::begin(kPlainKeys), std::end(kPlainKeys), k) != std::end(kPlainKeys);
}

// The key a line starts with ("board_id" of "board_id: MT_..."), or "".
absl::string_view KeyOf(absl::string_view l) {
  const size_t colon = l.find(':');
  return colon == absl::string_view::npos ? absl::string_view() : absl::StripAsciiWhitespace(l.substr(0, colon));
}

// "hca_id: mlx4_0 transport: InfiniBand (0) fw_ver: 2.10.600" (a paste whose
// line breaks a web archive dropped): one line per key again. Only lines
// that start with a plain key are split, and only before another plain key
// after a blank, so values (GIDs, "InfiniBand (0)") stay whole.
std::vector<std::string> SplitRunTogether(const std::string& l) {
  if (!PlainKey(KeyOf(l))) return {l};
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = l.find(':') + 1; i < l.size(); ++i) {
    if (l[i] != ' ' && l[i] != '\t') continue;
    const size_t k = l.find_first_not_of(" \t", i);
    if (k == std::string::npos) break;
    const size_t colon = l.find(':', k);
    if (colon == std::string::npos) break;
    if (!PlainKey(absl::string_view(l).substr(k, colon - k))) continue;
    out.emplace_back(absl::StripAsciiWhitespace(absl::string_view(l).substr(start, i - start)));
    start = k;
    i = colon;
  }
  out.emplace_back(absl::StripAsciiWhitespace(absl::string_view(l).substr(start)));
  return out;
}

// Keys whose value ibv_devinfo always prints: empty, the value went onto the
// next line ("board_id:" then "SM_1061000001000", a mail client's wrap).
// An "hca_id:" takes the next line only when it is a device's name: one
// lower-case word ("mlx4_0", "rocep76s0"), not a flag ("SUPPORT_SEND").
bool AlwaysValued(absl::string_view k, absl::string_view next) {
  if (k == "hca_id") {
    return !next.empty() && absl::ascii_islower(next.front()) &&
           std::all_of(next.begin(), next.end(), [](char c) {
             return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_' || c == '-' || c == '.';
           });
  }
  return PlainKey(k) && k != "port";
}

// "(4)" alone: the code of the line before ("state: PORT_ACTIVE"), wrapped.
bool IsWrappedCode(absl::string_view l) {
  return l.size() >= 3 && l.front() == '(' && l.back() == ')' &&
         std::all_of(l.begin() + 1, l.end() - 1, [](char c) { return absl::ascii_isdigit(c); });
}

// "PORT_ACTIVE (4)" -> 4, "4096 (5)" -> 5, "4X (2)" -> 2.
std::optional<uint64_t> CodeInParens(absl::string_view v) {
  if (!absl::ConsumeSuffix(&v, ")")) return std::nullopt;
  size_t open = v.rfind('(');
  if (open == absl::string_view::npos) return std::nullopt;
  uint64_t n = 0;
  if (!ParseUnsigned(v.substr(open + 1), &n)) return std::nullopt;
  return n;
}

// The word before " (N)": "InfiniBand (0)" -> "InfiniBand".
absl::string_view WordBeforeParens(absl::string_view v) {
  size_t open = v.rfind(" (");
  return absl::StripAsciiWhitespace(open == absl::string_view::npos ? v : v.substr(0, open));
}

class Importer {
 public:
  Importer(absl::string_view filename, const std::set<int>& read_elsewhere)
      : file_(filename), read_elsewhere_(read_elsewhere) {}

  absl::StatusOr<DeviceView> Run(absl::string_view text) {
    view_.source = absl::StrCat("ibv_devinfo:", file_);
    // The pasted lines, each with the input line it came from: lines run
    // together are split, values wrapped onto the next line joined back.
    std::vector<std::string> lines;
    std::vector<int> from;
    int n = 0;
    for (absl::string_view raw : absl::StrSplit(text, '\n')) {
      ++n;
      std::string l = PastedLine(raw);
      if (!lines.empty() && !lines.back().empty() && !l.empty()) {
        const std::string& prev = lines.back();
        const absl::string_view key = KeyOf(prev);
        const bool empty_value =
            !key.empty() && absl::StripAsciiWhitespace(absl::string_view(prev).substr(prev.find(':') + 1)).empty();
        const bool lacks_code = !key.empty() && !empty_value && !absl::EndsWith(prev, ")");
        if ((empty_value && AlwaysValued(key, l) && !PlainKey(KeyOf(l))) || (lacks_code && IsWrappedCode(l))) {
          const std::string joined = absl::StrCat(prev, " ", l);
          const int at = from.back();
          lines.pop_back();
          from.pop_back();
          for (std::string& part : SplitRunTogether(joined)) {
            lines.push_back(std::move(part));
            from.push_back(at);
          }
          continue;
        }
      }
      for (std::string& part : SplitRunTogether(l)) {
        lines.push_back(std::move(part));
        from.push_back(n);
      }
    }
    // The last line with text: a paste cut there may end mid-line.
    size_t last = lines.size();
    for (size_t i = lines.size(); i-- > 0;) {
      if (!lines[i].empty()) {
        last = i;
        break;
      }
    }
    uint64_t not_opened = 0, no_provider = 0;
    bool no_devices = false;
    bool listing = false;          // inside `ibv_devinfo -l` names
    int skipped_first = 0, skipped = 0;  // lines outside any block
    bool skipped_after_block = false;
    int blocks = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = from[i];
      absl::string_view l = lines[i];
      if (l.empty()) {
        listing = false;
        continue;
      }
      // stderr lines that ibv_devinfo interleaves with its output.
      if (l == "Failed to open device") {
        ++not_opened;
        continue;
      }
      if (absl::StartsWith(l, "libibverbs: ")) {
        // libibverbs/init.c: a device in sysfs whose provider library is
        // missing, which it then leaves out. Kept, and counted.
        if (NoProviderWarning(l)) ++no_provider;
        view_.provenance.emplace_back(l);
        continue;
      }
      if (HcasFound(l)) {  // `ibv_devinfo -l`: "2 HCAs found:" and the names
        // Pasted after a block (`ibv_devinfo; ibv_devinfo -l`): that block
        // ends here, and what follows the names is not its lines.
        EndDevice();
        in_block_ = false;
        listing = true;
        if (absl::StartsWith(l, "0 ")) no_devices = true;
        continue;
      }
      if (listing && l.find_first_of(" :\t") == absl::string_view::npos) {
        if (view_.Device(l) == nullptr) {
          DeviceInfo d;
          d.name = std::string(l);
          d.driver = DriverFromName(l);
          view_.devices.push_back(std::move(d));
          listed_only_.insert(std::string(l));
        }
        continue;
      }
      listing = false;
      // A command line ("$ ibv_devinfo", a prompt) starts another run of the
      // tool, in a block or not: a device seen in an earlier run may come
      // again.
      if (IsCommandLine(l)) {
        ++runs_;
        skipping_repeat_ = false;
        if (in_block_) {
          CommandLine(l);
          continue;
        }
      }
      // Another tool's command line ("user@host:~$ ifconfig") ends the
      // block: what follows is that tool's output, not this device's.
      if (in_block_ && IsOtherCommandLine(l)) {
        EndDevice();
        in_block_ = false;
      }
      if (skipping_repeat_) {
        if (!absl::StartsWith(l, "hca_id:")) continue;
        skipping_repeat_ = false;
      }
      if (!in_block_) {
        if (l.front() == '#' && view_.devices.empty() && skipped == 0) {
          l.remove_prefix(1);
          view_.provenance.emplace_back(absl::StripAsciiWhitespace(l));
          continue;
        }
        if (NoDevicesLine(l)) {
          no_devices = true;
          if (absl::StrContains(l, "list:")) view_.provenance.emplace_back(l);
          continue;
        }
        if (!absl::StartsWith(l, "hca_id:") && !StartsHeadless(l) && !IsPortKeyLine(l)) {
          // Another tool's output pasted before it: kept out, and said once
          // (below). The command line itself ("$ ibv_devinfo -v") is not,
          // and names the device and port a fragment after it is of.
          if (absl::StrContains(l, "ibv_devinfo")) {
            CommandLine(l);
          } else if (!read_elsewhere_.count(line_)) {
            if (skipped == 0) skipped_first = line_;
            skipped_after_block = skipped_after_block || blocks > 0;
            ++skipped;
          }
          continue;
        }
        if (!absl::StartsWith(l, "hca_id:")) {
          // The paste starts inside a device block: keep its facts.
          DeviceInfo d;
          d.name = cmd_device_.empty() ? "unknown" : cmd_device_;
          d.driver = DriverFromName(d.name);
          const std::string name = d.name;
          view_.devices.push_back(std::move(d));
          dev_line_ = line_;
          device_open_ = true;
          in_port_ = false;  // a port of an earlier block is over
          in_tm_ = false;
          const std::string named = cmd_device_.empty() ? "" : " (named by the ibv_devinfo -d command line)";
          if (!IsPortKeyLine(l)) {
            Cut(absl::StrCat("the input starts inside a device block, before its hca_id line: its facts are "
                             "kept as device `", name, "`", named));
          } else {
            // Inside a port block, before its "port:" line too.
            PortInfo p;
            p.port_num = cmd_port_ > 0 ? cmd_port_ : 1;
            Dev().ports.push_back(std::move(p));
            in_port_ = true;
            port_line_ = line_;
            port_verbose_ = false;
            Cut(absl::StrCat("the input starts inside a port block, before its hca_id and port lines: its facts "
                             "are kept as device `", name, "`", named, " port ", Port().port_num,
                             cmd_port_ > 0 ? " (from the command line's -i)" : " (assumed: no port number in it)"));
          }
        }
        in_block_ = true;
        ++blocks;
      }
      size_t colon = l.find(':');
      // Flag lists ("RESIZE_MAX_WR", "SUPPORT_SEND") and "... not supported"
      // notes carry no key.
      if (colon == absl::string_view::npos) continue;
      absl::string_view key = absl::StripAsciiWhitespace(l.substr(0, colon));
      absl::string_view value = absl::StripAsciiWhitespace(l.substr(colon + 1));
      if (value.empty() && absl::StartsWith(key, "GID[") && i + 1 < lines.size() &&
          LooksLikeGidValue(lines[i + 1])) {
        // A mail client wrapped the line: the GID sits alone on the next.
        value = lines[++i];
      }
      absl::Status st = Line(key, value);
      if (!st.ok()) {
        // A bad value on the paste's last line is where it was cut: keep
        // what came before, say where it stops.
        if (i != last) return st;
        Cut(absl::StrCat("the input ends inside this line (`", l,
                         "`): its value is left out"));
      }
    }
    line_ = last == lines.size() ? n : from[last];
    if (not_opened > 0) view_.host.devices_not_opened = not_opened;
    if (no_provider > 0) view_.host.devices_without_provider = no_provider;
    if (skipped > 0) {
      warnings_.insert(warnings_.begin(),
                       absl::StrCat(file_, ":", skipped_first, ": ", skipped, " line",
                                    skipped == 1 ? "" : "s",
                                    skipped_after_block ? " outside the hca_id blocks"
                                    : blocks > 0        ? " before the first hca_id block"
                                                        : "",
                                    skipped == 1 ? " is not ibv_devinfo output and was left out"
                                                 : " are not ibv_devinfo output and were left out"));
    }
    EndDevice();
    view_.warnings = std::move(warnings_);
    if (view_.devices.empty() && !(not_opened > 0 || no_provider > 0 || no_devices)) {
      return Err("hca_id", skipped > 0 ? "no `hca_id:` block (not ibv_devinfo output?)"
                                       : "no `hca_id:` block (empty input, or not ibv_devinfo output)");
    }
    // "No IB devices found", "0 HCAs found" or only open failures: a view
    // with no device is itself the fact (device-present explains it).
    return std::move(view_);
  }

 private:
  absl::Status Err(absl::string_view field, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_, ":", line_, ": ", field, ": ", what));
  }

  // "$ ibv_devinfo -d mlx5_bond_0 -v": the device (and port) asked for, which
  // a fragment without its hca_id line is of. Markdown around it is dropped.
  void CommandLine(absl::string_view l) {
    std::vector<std::string> w;
    for (absl::string_view t : absl::StrSplit(l, absl::ByAnyChar(" \t="), absl::SkipEmpty()))
      w.emplace_back(absl::StripSuffix(absl::StripPrefix(t, "_"), "_"));
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i] == "-d" || w[i] == "--ib-dev") cmd_device_ = w[i + 1];
      uint64_t n = 0;
      if ((w[i] == "-i" || w[i] == "--ib-port") && ParseUnsigned(w[i + 1], &n) && n > 0 && n < 256)
        cmd_port_ = static_cast<int>(n);
    }
  }

  DeviceInfo& Dev() { return view_.devices.back(); }
  PortInfo& Port() { return Dev().ports.back(); }

  absl::Status Need(absl::string_view key, absl::string_view value) {
    if (value.empty()) return Err(key, "no value (truncated line?)");
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Number(absl::string_view key, absl::string_view value,
                                  uint64_t max = UINT64_MAX) {
    RDMACHECK_RETURN_IF_ERROR(Need(key, value));
    uint64_t n = 0;
    if (!ParseUnsigned(value, &n))
      return Err(key, absl::StrCat("expected a number, got `", value, "`"));
    if (n > max)
      return Err(key, absl::StrCat("value ", value, " out of range (max ", max, ")"));
    return n;
  }

  absl::StatusOr<uint64_t> Code(absl::string_view key, absl::string_view value) {
    RDMACHECK_RETURN_IF_ERROR(Need(key, value));
    std::optional<uint64_t> c = CodeInParens(value);
    if (!c) return Err(key, absl::StrCat("expected `TEXT (NUMBER)`, got `", value, "`"));
    return *c;
  }

  absl::Status Line(absl::string_view key, absl::string_view value) {
    if (key == "hca_id") {
      EndDevice();
      RDMACHECK_RETURN_IF_ERROR(Need(key, value));
      if (listed_only_.erase(std::string(value)) > 0) {
        // Named by `-l` before: this block fills it in.
        view_.devices.erase(std::remove_if(view_.devices.begin(), view_.devices.end(),
                                           [&](const DeviceInfo& d) { return d.name == value; }),
                            view_.devices.end());
      } else if (view_.Device(value) != nullptr) {
        // The same tool's output pasted twice (a command line between), or
        // two hosts' outputs in one post: the first block is read, this one
        // left out and said.
        auto seen = seen_.find(std::string(value));
        const bool other_run = seen != seen_.end() && seen->second.run < runs_;
        warnings_.push_back(absl::StrCat(
            file_, ":", line_, ": device ", value,
            other_run ? " again, in another run of the command" : " again (another host's output, or the same pasted twice?)",
            ": the block at line ", seen != seen_.end() ? seen->second.line : dev_line_, " is read, this one left out"));
        skipping_repeat_ = true;
        device_open_ = false;
        return absl::OkStatus();
      }
      seen_[std::string(value)] = {runs_, line_};
      DeviceInfo d;
      d.name = std::string(value);
      d.driver = DriverFromName(value);
      view_.devices.push_back(std::move(d));
      dev_line_ = line_;
      device_open_ = true;
      in_port_ = false;
      in_tm_ = false;
      return absl::OkStatus();
    }
    if (key == "port") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t n, Number(key, value, 255));
      if (n == 0) return Err(key, "port number 0");
      if (in_port_) EndPort();
      if (Dev().Port(static_cast<int>(n)) != nullptr)
        return Err(key, absl::StrCat("port ", n, " of ", Dev().name, " appears twice"));
      PortInfo p;
      p.port_num = static_cast<int>(n);
      Dev().ports.push_back(std::move(p));
      in_port_ = true;
      port_line_ = line_;
      port_verbose_ = false;
      return absl::OkStatus();
    }
    return in_port_ ? PortLine(key, value) : DeviceLine(key, value);
  }

  absl::Status DeviceLine(absl::string_view key, absl::string_view value) {
    DeviceInfo& d = Dev();
    if (IsPortKeyLine(absl::StrCat(key, ":"))) {
      // A port's line before any `port:` line of its device (the paste
      // elided them, "...."): no port to hold it. Said once per device.
      if (portless_warned_ != dev_line_) {
        portless_warned_ = dev_line_;
        LeftOut(key, absl::StrCat("a port's line in device ", d.name,
                                  " before any `port:` line (cut or elided above it); its port lines up to the next `port:`"));
      }
      return absl::OkStatus();
    }
    if (key == "transport") {
      RDMACHECK_RETURN_IF_ERROR(Need(key, value));
      d.transport = std::string(WordBeforeParens(value));
      return absl::OkStatus();
    }
    auto str = [&](std::optional<std::string>* out) -> absl::Status {
      RDMACHECK_RETURN_IF_ERROR(Need(key, value));
      *out = std::string(value);
      return absl::OkStatus();
    };
    if (key == "fw_ver") return str(&d.fw_ver);
    if (key == "node_guid") return str(&d.node_guid);
    if (key == "sys_image_guid") return str(&d.sys_image_guid);
    if (key == "hw_ver") return str(&d.hw_ver);
    if (key == "board_id") return str(&d.board_id);
    if (key == "vendor_id") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, Number(key, value, UINT32_MAX));
      d.vendor_id = static_cast<uint32_t>(v);
      return absl::OkStatus();
    }
    if (key == "vendor_part_id") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, Number(key, value, UINT32_MAX));
      d.vendor_part_id = static_cast<uint32_t>(v);
      return absl::OkStatus();
    }
    if (key == "max_rndv_hdr_size") {
      in_tm_ = true;
      return absl::OkStatus();
    }
    if (in_tm_ && TmKey(key)) return absl::OkStatus();
    if (key == "atomic_cap") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t c, Code(key, value));
      d.attrs["atomic_cap"] = c;
      return absl::OkStatus();
    }
    std::string k(key);
    if (DeviceAttrNames().count(k) == 0) return absl::OkStatus();  // newer or nested keys
    in_tm_ = false;
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, Number(key, value));
    if (!d.attrs.emplace(k, v).second)
      return Err(key, absl::StrCat("appears twice for ", d.name,
                                   " (two outputs pasted together?)"));
    return absl::OkStatus();
  }

  absl::Status PortLine(absl::string_view key, absl::string_view value) {
    PortInfo& p = Port();
    if (key == "state") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t c, Code(key, value));
      p.state = PortStateName(c);
      if (!p.state) LeftOut(key, absl::StrCat("unknown port state code ", c));
      return absl::OkStatus();
    }
    if (key == "phys_state") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t c, Code(key, value));
      p.phys_state = PhysStateName(c);
      // iWARP ports (cxgb3, nes) report 0, which devinfo.c prints as
      // "invalid physical state (0)": no physical state, not a bad paste.
      if (!p.phys_state && c != 0) LeftOut(key, absl::StrCat("unknown physical state code ", c));
      return absl::OkStatus();
    }
    if (key == "max_mtu" || key == "active_mtu") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t c, Code(key, value));
      // "invalid MTU (0)": leave the fact absent rather than invent one.
      std::optional<int> bytes = c <= 5 ? IbMtuBytes(static_cast<int>(c)) : std::nullopt;
      (key == "max_mtu" ? p.max_mtu : p.active_mtu) = bytes;
      return absl::OkStatus();
    }
    if (key == "link_layer") {
      RDMACHECK_RETURN_IF_ERROR(Need(key, value));
      if (value == "Ethernet" || value == "InfiniBand") {
        p.link_layer = std::string(value);
      } else if (value == "IB") {
        // libibverbs 1.1's devinfo.c printed InfiniBand (and unspecified) so.
        p.link_layer = "InfiniBand";
      } else if (value != "Unknown") {
        // Providers outside rdma-core print their own (Intel MPSS's scif0:
        // "SCIF").
        LeftOut(key, absl::StrCat("`", value, "` is neither Ethernet, InfiniBand nor Unknown"));
      }
      return absl::OkStatus();
    }
    auto integer = [&](std::optional<int>* out) -> absl::Status {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t v, Number(key, value, INT_MAX));
      *out = static_cast<int>(v);
      return absl::OkStatus();
    };
    if (key == "sm_lid") return integer(&p.sm_lid);
    if (key == "port_lid") return integer(&p.lid);
    if (key == "pkey_tbl_len") return integer(&p.pkey_tbl_len);
    if (key == "max_msg_sz") {
      port_verbose_ = true;
      // A uint32 (struct ibv_port_attr); qedr reports 0x80000000.
      RDMACHECK_ASSIGN_OR_RETURN(p.max_msg_sz, Number(key, value, UINT32_MAX));
      return absl::OkStatus();
    }
    if (key == "gid_tbl_len") {
      // Only -v prints the table length and the GIDs after it.
      p.gids_known = true;
      return integer(&p.gid_tbl_len);
    }
    if (key == "active_width" || key == "active_speed") {
      RDMACHECK_ASSIGN_OR_RETURN(uint64_t c, Code(key, value));
      if (c > INT_MAX) return Err(key, "code out of range");
      (key == "active_width" ? p.active_width : p.active_speed) = static_cast<int>(c);
      return absl::OkStatus();
    }
    if (absl::StartsWith(key, "GID[")) return Gid(key, value);
    return absl::OkStatus();
  }

  absl::Status Gid(absl::string_view key, absl::string_view value) {
    PortInfo& p = Port();
    absl::string_view idx = key;
    idx.remove_prefix(4);
    if (!absl::ConsumeSuffix(&idx, "]")) return Err(key, "expected `GID[N]:`");
    uint64_t index = 0;
    if (!ParseUnsigned(absl::StripAsciiWhitespace(idx), &index) || index > INT_MAX)
      return Err(key, "GID index is not a number");
    RDMACHECK_RETURN_IF_ERROR(Need(key, value));
    absl::string_view addr = value, type_text;
    size_t comma = value.find(',');
    if (comma != absl::string_view::npos) {
      addr = absl::StripAsciiWhitespace(value.substr(0, comma));
      type_text = absl::StripAsciiWhitespace(value.substr(comma + 1));
    }
    in6_addr a;
    std::string addr_s(addr);
    if (inet_pton(AF_INET6, addr_s.c_str(), &a) != 1)
      return Err(key, absl::StrCat("`", addr, "` is not a GID (IPv6 form)"));
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a, buf, sizeof buf);
    bool ib = p.link_layer.value_or("") == "InfiniBand";
    GidType type;
    if (type_text.empty()) {
      // Before rdma-core v28 no type was printed; on IB ports there is one.
      type = ib ? GidType::kIb : GidType::kUnknown;
    } else if (type_text == "RoCE v2") {
      type = GidType::kRoceV2;
    } else if (type_text == "RoCE v1") {
      type = GidType::kRoceV1;
    } else if (type_text == "IB/RoCE v1") {
      type = ib ? GidType::kIb : GidType::kRoceV1;
    } else if (type_text == "IB") {
      type = GidType::kIb;
    } else if (type_text == "Invalid gid type") {
      type = GidType::kUnknown;
    } else {
      return Err(key, absl::StrCat("unknown GID type `", type_text,
                                   "`; expected RoCE v2, RoCE v1, IB/RoCE v1 or IB"));
    }
    for (const GidEntry& g : p.gids)
      if (g.index == static_cast<int>(index)) return Err(key, "GID index appears twice");
    GidEntry g;
    g.index = static_cast<int>(index);
    g.gid = buf;
    g.type = type;
    p.gids.push_back(std::move(g));
    p.gids_known = true;
    return absl::OkStatus();
  }

  // A value no rdmacheck fact can hold (a code devinfo.c prints as
  // "invalid ...", a provider's own link layer): the rest of the paste is
  // still read, and the warning says what was left out.
  int portless_warned_ = -1;  // dev_line_ of the device last warned for port lines without a port

  void LeftOut(absl::string_view field, absl::string_view what) {
    warnings_.push_back(absl::StrCat(file_, ":", line_, ": ", field, ": ", what, ": left out"));
  }

  // A paste cut short (or with lines lost) leaves a block without lines
  // devinfo.c always prints. What was read is kept; the warning names the
  // block's first line, and checks that need the missing facts SKIP.
  void Cut(absl::string_view what) {
    warnings_.push_back(absl::StrCat(file_, ":", line_, ": ", what,
                                     "; facts after it are missing (truncated paste?)"));
  }

  void EndPort() {
    const PortInfo& p = Port();
    std::string what = absl::StrCat("port ", p.port_num, " of ", Dev().name, " (line ",
                                    port_line_, ")");
    in_port_ = false;
    if (!p.state) return Cut(absl::StrCat(what, " has no state line"));
    if (!p.link_layer && !p.active_mtu && !p.max_mtu)
      return Cut(absl::StrCat(what, " ends before its link_layer line"));
    if (port_verbose_ && !p.active_speed)
      return Cut(absl::StrCat(what, " ends before its active_speed line"));
  }

  // Closes the block of the device last opened, once. A lone "hca_id:" cut
  // after its colon opened none.
  void EndDevice() {
    if (!device_open_) return;
    device_open_ = false;
    if (in_port_) EndPort();
    const DeviceInfo& d = Dev();
    std::string what = absl::StrCat("device ", d.name, " (line ", dev_line_, ")");
    // Early ibv_devinfo (before iWARP devices, 2007 posts) printed no
    // transport line: a block that goes on to its ports is whole, and only
    // the transport is unknown.
    if (!d.transport && d.ports.empty()) return Cut(absl::StrCat(what, " has no transport line"));
    if (!d.transport)
      warnings_.push_back(absl::StrCat(file_, ":", dev_line_, ": ", what,
                                       " has no transport line, as early ibv_devinfo printed none: its transport "
                                       "is unknown"));
    if (d.attrs.count("max_mr_size") && !d.attrs.count("local_ca_ack_delay"))
      return Cut(absl::StrCat(what, " ends inside its -v attribute list"));
    std::optional<uint64_t> n = d.Attr("phys_port_cnt");
    if (n && *n > d.ports.size())
      return Cut(absl::StrCat(what, " has phys_port_cnt ", *n, " but ",
                              d.ports.empty() ? std::string("no port block")
                                              : absl::StrCat(d.ports.size(), " port block",
                                                             d.ports.size() == 1 ? "" : "s")));
  }

  std::vector<std::string> warnings_;
  std::set<std::string> listed_only_;  // devices named by `-l` only
  bool in_block_ = false;              // an hca_id block has started
  int runs_ = 0;                       // command lines seen ("$ ibv_devinfo")
  bool skipping_repeat_ = false;       // inside a device block of a later run
  struct Seen {
    int run;   // the command run its block came in
    int line;  // its hca_id line
  };
  std::map<std::string, Seen> seen_;  // each device's block
  bool device_open_ = false;           // its device is Dev(), not yet ended
  std::string cmd_device_;             // -d of an ibv_devinfo command line
  int cmd_port_ = 0;                   // -i of it
  std::string file_;
  const std::set<int>& read_elsewhere_;
  int line_ = 0;
  int dev_line_ = 0;
  int port_line_ = 0;
  bool in_port_ = false;
  bool in_tm_ = false;
  bool port_verbose_ = false;
  DeviceView view_;
};

}  // namespace

namespace {

// `&#160;`, `&#x27;`, `&#252;`: the character (a no-break space as a space,
// as a mail's indentation is meant), in UTF-8; anything else kept as it is.
std::string WithNumericEntities(absl::string_view l) {
  std::string out;
  out.reserve(l.size());
  for (size_t i = 0; i < l.size();) {
    const size_t semi = absl::StartsWith(l.substr(i), "&#") ? l.find(';', i) : absl::string_view::npos;
    uint32_t c = 0;
    if (semi != absl::string_view::npos && semi - i <= 10) {
      absl::string_view num = l.substr(i + 2, semi - i - 2);
      const bool hex = absl::ConsumePrefix(&num, "x") || absl::ConsumePrefix(&num, "X");
      if (absl::SimpleHexAtoi(hex ? num : absl::string_view(), &c) || (!hex && absl::SimpleAtoi(num, &c))) {
        if (c == 0xa0) c = ' ';
        if (c < 0x20 && c != '\t') {
          c = 0;  // a control character: kept as typed
        } else if (c < 0x80) {
          out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
          out.push_back(static_cast<char>(0xc0 | (c >> 6)));
          out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
        } else if (c < 0x10000) {
          out.push_back(static_cast<char>(0xe0 | (c >> 12)));
          out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
          out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
        } else {
          c = 0;  // beyond the BMP: not seen in a tool's output, kept as typed
        }
        if (c != 0) {
          i = semi + 1;
          continue;
        }
      }
    }
    out.push_back(l[i++]);
  }
  return out;
}

// A line of a web page's HTML source (a mail archive saved with curl):
// its markup tags dropped and its entities decoded. Only the tags such
// pages put around text: ip's flags (<BROADCAST,UP>) are no tags.
std::string WithoutHtml(absl::string_view l) {
  static constexpr absl::string_view kTags[] = {"p", "br", "pre", "code", "tt", "b", "i", "em", "strong", "span",
                                                "div", "a", "font", "li", "ul", "ol", "td", "tr"};
  std::string out;
  out.reserve(l.size());
  for (size_t i = 0; i < l.size();) {
    if (l[i] == '<') {
      const size_t close = l.find('>', i);
      absl::string_view tag = close == absl::string_view::npos ? "" : l.substr(i + 1, close - i - 1);
      absl::ConsumePrefix(&tag, "/");
      absl::ConsumeSuffix(&tag, "/");
      const absl::string_view name = tag.substr(0, tag.find(' '));
      if (std::find(std::begin(kTags), std::end(kTags), name) != std::end(kTags)) {
        i = close + 1;
        continue;
      }
    }
    out.push_back(l[i++]);
  }
  if (out.find('&') == std::string::npos) return out;
  // `&amp;` last, so that "&amp;#160;" stays the text "&#160;".
  out = absl::StrReplaceAll(out, {{"&nbsp;", " "}, {"&gt;", ">"}, {"&lt;", "<"}, {"&quot;", "\""}});
  if (out.find("&#") != std::string::npos) out = WithNumericEntities(out);
  return absl::StrReplaceAll(out, {{"&amp;", "&"}});
}

}  // namespace

std::string PastedLine(absl::string_view raw) {
  absl::ConsumeSuffix(&raw, "\r");
  // A mail stored quoted-printable: its indentation "=A0=A0 ..." (no-break
  // spaces, "=C2=A0" in UTF-8), "=20" before the line's end, "=3D" for '='.
  // Only these: "=41" elsewhere may be a value's own text.
  std::string qp;
  if (raw.find('=') != absl::string_view::npos &&
      (absl::StartsWith(raw, "=A0") || absl::StartsWith(raw, "=C2=A0") || absl::StartsWith(raw, "=20") ||
       absl::EndsWith(raw, "=20") || absl::StrContains(raw, "=3D"))) {
    absl::string_view lead = raw;
    while (absl::ConsumePrefix(&lead, "=A0") || absl::ConsumePrefix(&lead, "=C2=A0") ||
           absl::ConsumePrefix(&lead, "=20") || absl::ConsumePrefix(&lead, "=09")) {
    }
    while (absl::ConsumeSuffix(&lead, "=20")) {
    }
    qp = absl::StrReplaceAll(lead, {{"=3D", "="}});
    raw = qp;
  }
  // A mail client's no-break spaces (UTF-8 C2 A0) for indentation.
  std::string plain;
  if (raw.find("\xc2\xa0") != absl::string_view::npos) {
    plain = absl::StrReplaceAll(raw, {{"\xc2\xa0", " "}});
    raw = plain;
  }
  std::string html;
  if (raw.find('<') != absl::string_view::npos || raw.find('&') != absl::string_view::npos) {
    html = WithoutHtml(raw);
    raw = html;
  }
  absl::string_view l = absl::StripLeadingAsciiWhitespace(raw);
  while (absl::ConsumePrefix(&l, ">")) l = absl::StripLeadingAsciiWhitespace(l);
  if (l.size() > 1 && l[0] == '+' && (l[1] == '\t' || l[1] == ' ')) l.remove_prefix(1);
  // A list's item marker ("- hca_id: qib0" in a pastebin's list).
  if (absl::ConsumePrefix(&l, "- ")) l = absl::StripLeadingAsciiWhitespace(l);
  // A table's empty cells around it ("Rate: 56 | |" in a gist's table).
  l = absl::StripAsciiWhitespace(l);
  // Markdown's inline code around a line, or a wrapped line's half
  // ("`0: rocep68s0: node_type ca ..." and "... 0002:c903:0042:dff3`").
  if (absl::StartsWith(l, "`") && !absl::StartsWith(l, "``")) l.remove_prefix(1);
  if (absl::EndsWith(l, "`") && !absl::EndsWith(l, "``")) l.remove_suffix(1);
  while (absl::ConsumeSuffix(&l, "|")) l = absl::StripTrailingAsciiWhitespace(l);
  while (absl::ConsumePrefix(&l, "|")) l = absl::StripLeadingAsciiWhitespace(l);
  std::string out(absl::StripAsciiWhitespace(l));
  if (out.find("**") != std::string::npos) out = absl::StrReplaceAll(out, {{"**", ""}});
  return out;
}

absl::StatusOr<DeviceView> ParseIbvDevinfo(absl::string_view text, absl::string_view filename) {
  return ParseIbvDevinfo(text, filename, {});
}

absl::StatusOr<DeviceView> ParseIbvDevinfo(absl::string_view text, absl::string_view filename,
                                           const std::set<int>& read_elsewhere) {
  return Importer(filename, read_elsewhere).Run(text);
}

bool LooksLikeIbvDevinfo(absl::string_view text) {
  bool first = true;
  int block_keys = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    std::string l = PastedLine(raw);
    if (l.empty()) continue;
    // A profile says so on its first line; nothing in it is then read as a paste.
    if (first && absl::StartsWith(l, "rdmacheck-profile")) return false;
    first = false;
    if (absl::StartsWith(l, "hca_id:") || HcasFound(l) || NoDevicesLine(l)) return true;
    // Only what ibv_devinfo prints on stderr when it has nothing to show.
    if (l == "Failed to open device" ||
        absl::StartsWith(l, "libibverbs: Warning: no userspace device-specific driver found")) {
      return true;
    }
    // A paste that starts inside a block: several of devinfo.c's keys.
    if ((StartsHeadless(l) || IsPortKeyLine(l)) && ++block_keys >= 3) return true;
  }
  return false;
}

}  // namespace rdmacheck

// What decides whether RoCE v2 (UDP 4791) gets in: the host's firewall
// rulesets, as nft and iptables-save print them (parsed by facts/firewall/),
// and whether a socket already has the port.
#include <optional>
#include <set>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "facts/firewall/nft_json.h"
#include "facts/gather_internal.h"
#include "facts/sysfs.h"
#include "util/subprocess.h"

namespace rdmacheck::gather_internal {

namespace {

struct Tool {
  const char* source;
  std::vector<std::string> argv;
  const char* legacy_names = nullptr;  // the /proc file listing its tables
  // Run when argv fails saying so: nft built without JSON support answers
  // -j with "JSON support not compiled-in" (nftables src/main.c).
  std::vector<std::string> without_json;
  // Run once nft has printed, and only when it lists a table of this
  // family that the tool would print (XtablesFamiliesListed).
  const char* nft_family = nullptr;
};

const std::vector<Tool>& Tools() {
  static const std::vector<Tool>* tools = new std::vector<Tool>{
      // The JSON interface (libnftables-json(5)) over the text: its schema
      // is documented and kept stable, the text is for people.
      {"nft", {"nft", "-j", "list", "ruleset"}, nullptr, {"nft", "list", "ruleset"}, nullptr},
      {"iptables-nft", {"iptables-nft-save"}, nullptr, {}, "ip"},
      {"iptables-legacy", {"iptables-legacy-save"}, "net/ip_tables_names", {}, nullptr},
      {"ip6tables-nft", {"ip6tables-nft-save"}, nullptr, {}, "ip6"},
      {"ip6tables-legacy", {"ip6tables-legacy-save"}, "net/ip6_tables_names", {}, nullptr},
  };
  return *tools;
}

}  // namespace

bool LegacyTablesListed(const std::optional<std::string>& names_file) {
  return names_file && !absl::StripAsciiWhitespace(*names_file).empty();
}

std::optional<std::set<std::string>> XtablesFamiliesListed(const std::string& nft_listing) {
  absl::StatusOr<firewall::Ruleset> rs = firewall::ParseNftListing(nft_listing, "nft");
  if (!rs.ok() || !rs->incomplete.empty()) return std::nullopt;
  std::set<std::string> families;
  for (const firewall::Table& t : rs->tables)
    if (t.name == "filter" || t.name == "mangle" || t.name == "raw" || t.name == "security" || t.name == "nat")
      families.insert(t.family);
  return families;
}

// All at once, and beside the rest of the gather: each is a fork+exec that
// mostly waits (hundreds of ms under emulation), so the gather pays for the
// slowest, and only for what the sysfs reads do not cover. A listing that
// can print nothing is not run at all: a legacy one with no legacy table, an
// iptables-nft one whose tables nft does not list (on a host without
// iptables-nft rules, two fork+execs fewer; they cost the gather 30-60 ms
// of two emulated vCPUs, docs/performance.md).
RulesetReader::RulesetReader(const std::string& proc_root)
    : results_(Tools().size()), empty_why_(Tools().size()) {
  SysfsReader proc(proc_root);
  for (size_t i = 0; i < Tools().size(); ++i) {
    if (Tools()[i].nft_family) continue;  // started by nft's thread
    if (const char* names = Tools()[i].legacy_names) {
      std::optional<std::string> listed = proc.ReadFile(names);
      if (!LegacyTablesListed(listed)) {
        empty_why_[i] = absl::StrCat("gather: ruleset ", Tools()[i].source, " empty: ", proc_root, "/", names,
                                     listed ? " lists no table" : " absent (ip_tables not loaded)",
                                     ", so ", Tools()[i].argv[0], " was not run");
        continue;
      }
    }
    threads_.emplace_back([this, i] {
      const Tool& tool = Tools()[i];
      results_[i] = RunSubprocess(tool.argv, 3.0);
      if (!tool.without_json.empty() && results_[i]->ok() && (*results_[i])->signal == 0 &&
          (*results_[i])->exit_code != 0 && absl::StrContains((*results_[i])->err, "JSON"))
        results_[i] = RunSubprocess(tool.without_json, 3.0);
      if (i == 0) RunAfterNft();  // Tools()[0] is nft
    });
  }
}

// On nft's thread, once it has printed: the iptables-nft listings, side by
// side, those that nft shows can print nothing left out.
void RulesetReader::RunAfterNft() {
  const absl::StatusOr<SubprocessResult>& nft = *results_[0];
  // One reading of nft's listing serves both families.
  const std::optional<std::set<std::string>> listed =
      nft.ok() && nft->Succeeded() ? XtablesFamiliesListed(nft->out) : std::nullopt;
  std::vector<std::thread> after;
  for (size_t i = 0; i < Tools().size(); ++i) {
    const char* family = Tools()[i].nft_family;
    if (!family) continue;
    if (listed && listed->count(family) == 0) {
      empty_why_[i] = absl::StrCat("gather: ruleset ", Tools()[i].source, " empty: nft lists no ", family,
                                   " table filter, mangle, raw, security or nat, so ", Tools()[i].argv[0],
                                   " was not run");
      continue;
    }
    after.emplace_back([this, i] { results_[i] = RunSubprocess(Tools()[i].argv, 3.0); });
  }
  for (std::thread& t : after) t.join();
}

RulesetReader::~RulesetReader() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void RulesetReader::Finish(HostInfo* h, std::vector<std::string>* provenance) {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  for (size_t i = 0; i < Tools().size(); ++i) {
    const char* source = Tools()[i].source;
    if (!empty_why_[i].empty()) {
      h->rulesets[source] = "";
      provenance->push_back(empty_why_[i]);
      continue;
    }
    absl::StatusOr<SubprocessResult>& r = *results_[i];
    std::string why;
    if (!r.ok()) {
      why = std::string(r.status().message());
      // A tool that is not installed is a backend not in use; one that timed
      // out or could not be run leaves the firewall partly unknown.
      if (!absl::IsNotFound(r.status())) h->rulesets_not_read[source] = why;
    } else if (!r->Succeeded()) {
      // Without root, nft and iptables-save fail on the netlink socket.
      why = absl::StrCat("'", r->command, "' ", r->HowItEnded(), r->signal == 0 ? " (needs root?)" : "");
      h->rulesets_not_read[source] = why;
    } else {
      h->rulesets[source] = std::move(r->out);
      continue;
    }
    provenance->push_back(absl::StrCat("gather: ruleset ", source, " not read: ", why));
  }
}

// Local address "0100007F:12B7": the port is the hex after the last colon
// (net/ipv4/udp.c, udp4_format_sock).
std::optional<bool> Udp4791Socket(const SysfsReader& proc) {
  bool read_any = false;
  for (const char* f : {"net/udp", "net/udp6"}) {
    std::optional<std::string> text = proc.ReadFile(f);
    if (!text) continue;
    read_any = true;
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      std::vector<absl::string_view> cols = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (cols.size() < 2) continue;
      absl::string_view local = cols[1];
      size_t colon = local.rfind(':');
      if (colon != absl::string_view::npos && absl::EqualsIgnoreCase(local.substr(colon + 1), "12B7"))
        return true;
    }
  }
  if (!read_any) return std::nullopt;
  return false;
}

}  // namespace rdmacheck::gather_internal

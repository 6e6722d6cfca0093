#include "cli/serve_flags.h"

#include "absl/strings/str_cat.h"

namespace rdmacheck {

CommandLine ServeCommandLine(ServeOptions* o) {
  CommandLine cl(
      "rdmacheck serve", "[-d DEV] [--port P] [--bind ADDR] [--once] [--wait SECS] [--client-deadline SECS] [--max-clients N]",
      "The far end of `rdmacheck --peer HOST[:P]` (docs/peer-mode.md). Without --once or\n"
      "--wait it serves up to --max-clients clients at once until Ctrl-C.",
      "Exit status: 0 every client served, 1 one failed, 2 bad usage or input,\n"
      "3 no client came within --wait (with --once).");
  cl.Text("-d,--ib-dev", &o->device, "DEV", "the device to serve (default: the first with an ACTIVE port)")
      .Int("--port", &o->port, 1, 65535, "P", absl::StrCat("the TCP port to listen on (default ", kDefaultPeerPort, ")"))
      .Text("--bind", &o->bind, "ADDR", "listen on this address only (default: all)")
      .Switch("--once", &o->once, "serve one client and exit")
      .Seconds("--wait", &o->wait_s, {0, true, 86400},
               "wait at most SECS for a client (default with --once: 300)")
      .Seconds("--client-deadline", &o->client_deadline_s, {0, true, 86400},
               "each client gets SECS in all (default 120)")
      .Int("--max-clients", &o->limits.max_sessions, 1, 256, "N",
           "clients served at once; one more is refused as busy (default 8)")
      .Int("--max-connections", &o->limits.max_connections, 1, 4096, "N",
           "connections held at once, served or before their hello; past it the oldest\n"
           "without a hello is closed (default 256)")
      .Text("--profile", &o->profile, "FILE", "serve this profile's facts instead of this host's\n"
                                              "(peer-match only: the probes need the device)");
  return cl;
}

int RunServeCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const std::function<absl::StatusOr<DeviceView>(const std::optional<std::string>& profile)>& gather,
                const std::string& tool_version) {
  ServeOptions o;
  if (std::optional<int> code = ServeCommandLine(&o).ParseOrExit(args, out, err)) return *code;
  return RunServeCommand(o, out, err, gather, tool_version);
}

}  // namespace rdmacheck

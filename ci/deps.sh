#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the main job need.
# Idempotent: installs only what is missing. Debian 12 (bookworm), as root.
set -euo pipefail

pkgs=(
  bazel-bootstrap          # Bazel 4.2.3, offline
  g++ pkg-config
  libibverbs-dev librdmacm-dev ibverbs-providers rdma-core ibverbs-utils
  iproute2                 # tc -j qdisc show: the netdevs' qdiscs (bandwidth, latency)
  libabsl-dev libre2-dev
  libgtest-dev libgmock-dev
  nlohmann-json3-dev       # JSON output (header-only)
  libcli11-dev             # CLI11, the flag parser under cli/command_line (header-only)
  libtinyxml2-dev          # tests parse JUnit XML
  python3                  # coverage stand-ins, benchmarks
  python3-yaml             # ci/container's examples_test parses the YAML examples
  shellcheck               # ... and lints the shell embedded in them
  chromium                 # tools/fleet's HTML test renders the page headless (--dump-dom)
  prometheus               # promtool: cli:promtool_test checks --format=prometheus
  clang libclang-rt-14-dev # ci/fuzz.sh: libFuzzer, ASan and UBSan (clang 14)
)
# Guest stage (real Soft-RoCE under qemu): only with --guest.
if [[ "${1:-}" == "--guest" ]]; then
  # mmdebstrap: the container image of ci/container/Dockerfile, offline
  # (ci/container/offline-image.sh).
  pkgs+=(qemu-system-x86 cpio mmdebstrap)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "ci/deps.sh: need root to install: ${missing[*]}" >&2
    echo "  run: sudo bash ci/deps.sh ${1:-}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "ci/deps.sh: installed ${missing[*]}"
  # The tests want promtool, not a Prometheus server: on a host with systemd
  # the package starts one; stop it when this script was what installed it.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null &&
     systemctl is-enabled --quiet prometheus 2>/dev/null; then
    if systemctl disable --now prometheus >/dev/null 2>&1; then
      echo "ci/deps.sh: prometheus.service disabled (only promtool is needed)"
    else
      echo "ci/deps.sh: could not disable prometheus.service: systemctl disable --now prometheus" >&2
    fi
  fi
fi

# engines.bash: Docker and Podman inside the Soft-RoCE guest, for the
# container-engine scenarios (scenarios/7?-engine-*.sh). Sourced by
# guest-main.sh (not a scenario). The guest has no network, no systemd and an
# initramfs for its root, which shapes how each engine is started:
#   - no bridge, no iptables management, no userland proxy: containers get
#     --network host or --network none, nothing else exists;
#   - DOCKER_RAMDISK / no_pivot_root: pivot_root(2) is refused on the
#     initramfs root, so the runtimes chroot (what runc and crun do on a
#     ramdisk host);
#   - the cgroupfs cgroup driver on a cgroup2 mount (no systemd to ask);
#   - storage (overlay) on its own tmpfs.
# The image is the Dockerfile's runtime stage made offline on the host
# (ci/container/offline-image.sh): $SHARE/container/rdmacheck.tar, a
# `docker save` archive of two layers (root filesystem, binary) that both
# engines load.
#
# Loading the root filesystem layer is most of an engine's start under TCG
# (30-50 s for 90 MB, Go unpacking file by file), and that layer only
# changes with the Dockerfile's packages. So each engine's store is kept
# between runs: when run.sh finds one for this guest image and this layer
# ($SHARE/container/stores/ENGINE.tar) it is unpacked before the engine
# starts, and `load` then adds only the binary's layer; without one the
# store is written to $OUT/engine-stores/ENGINE.tar after the engine stops,
# for run.sh to keep.
#
#   engine_start docker && engine_load docker   # records FAIL + the engine's log
#   docker run ... rdmacheck -d rxe0
#   engine_stop docker

ENGINE_LOGS=$OUT/engines
ENGINE_IMAGE_DIR=$SHARE/container
ENGINE_START_DEADLINE=${ENGINE_START_DEADLINE:-90}   # seconds until the engine answers
declare -A ENGINE_SAVE_STORE=()

engine_store_dir() { case "$1" in docker) echo /var/lib/docker ;; podman) echo /var/lib/containers ;; esac; }

engines_prepare() {
  if ! grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts; then
    mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
  fi
  modprobe overlay || return 1
  local d
  for d in /var/lib/docker /var/lib/containers; do
    mkdir -p "$d"
    grep -q " $d tmpfs " /proc/mounts || mount -t tmpfs -o mode=0711 tmpfs "$d" || return 1
  done
  mkdir -p /etc/containers /etc/docker /var/run
  cat >/etc/containers/containers.conf <<'EOF'
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "crun"
no_pivot_root = true
EOF
  cat >/etc/containers/storage.conf <<'EOF'
[storage]
driver = "overlay"
graphroot = "/var/lib/containers/storage"
runroot = "/run/containers/storage"
EOF
  # Only the local image is ever used: no registry can be reached.
  [[ -s /etc/containers/policy.json ]] ||
    echo '{"default":[{"type":"insecureAcceptAnything"}]}' >/etc/containers/policy.json
}

# engine_fail ENGINE WHAT: one FAIL with the tail of the engine's own log.
engine_fail() {
  record FAIL "$1: $2" "$(tail -n 15 "$ENGINE_LOGS/$1.log" 2>/dev/null | tr '\n' ' ' | head -c 900)"
}

# before_deadline T0: less than ENGINE_START_DEADLINE s since T0 (an uptime_s).
before_deadline() {
  awk -v a="$1" -v b="$(uptime_s)" -v d="$ENGINE_START_DEADLINE" 'BEGIN { exit !(b - a < d) }'
}

# engine_start ENGINE: the engine answers within ENGINE_START_DEADLINE s.
engine_start() {
  local e=$1 t0
  t0=$(uptime_s)
  mkdir -p "$ENGINE_LOGS"
  engines_prepare >>"$ENGINE_LOGS/$e.log" 2>&1 || { engine_fail "$e" "engine prerequisites (cgroup2, overlay, tmpfs)"; return 1; }
  local kept=$ENGINE_IMAGE_DIR/stores/$e.tar
  ENGINE_SAVE_STORE[$e]=1
  if [[ -s "$kept" ]]; then
    if tar -xf "$kept" --xattrs --xattrs-include='*' -C "$(engine_store_dir "$e")" >>"$ENGINE_LOGS/$e.log" 2>&1; then
      ENGINE_SAVE_STORE[$e]=0
      echo "$e: store of an earlier run unpacked in $(seconds_since "$t0") s"
    else
      record FAIL "$e: the kept store unpacks" "$(tail -n 3 "$ENGINE_LOGS/$e.log" | tr '\n' ' ')"
      find "$(engine_store_dir "$e")" -mindepth 1 -delete
    fi
  fi
  case "$e" in
    docker)
      DOCKER_RAMDISK=true setsid dockerd --data-root /var/lib/docker --exec-root /run/docker \
        --pidfile /run/docker.pid --bridge=none --iptables=false \
        --ip6tables=false --ip-forward=false --ip-masq=false --userland-proxy=false \
        --storage-driver=overlay2 --exec-opt native.cgroupdriver=cgroupfs --log-level=warn \
        >>"$ENGINE_LOGS/docker.log" 2>&1 </dev/null &
      while before_deadline "$t0"; do
        timeout 10 docker version >/dev/null 2>&1 && break
        sleep 0.5
      done
      ;;
    podman)
      # Daemonless: "started" is its storage and runtime answering.
      while before_deadline "$t0"; do
        timeout "$((ENGINE_START_DEADLINE / 2))" podman info >>"$ENGINE_LOGS/podman.log" 2>&1 && break
      done
      ;;
    *) record FAIL "engine $e" "unknown engine"; return 1 ;;
  esac
  if ! timeout 10 "$e" version >/dev/null 2>&1; then
    engine_fail "$e" "the engine answers within ${ENGINE_START_DEADLINE} s"
    ENGINE_SAVE_STORE[$e]=0  # nothing worth keeping from an engine that never answered
    engine_stop "$e"
    return 1
  fi
  record PASS "$e: the engine answers" "in $(seconds_since "$t0") s; $("$e" version --format '{{.Server.Version}}' 2>/dev/null || "$e" version --format '{{.Version}}' 2>/dev/null)"
}

# engine_load ENGINE: the offline image as rdmacheck:latest (podman names it
# localhost/rdmacheck, which the short name finds), with the Dockerfile's
# ENTRYPOINT.
engine_load() {
  local e=$1 t0 ep
  t0=$(uptime_s)
  if ! timeout 300 "$e" load -i "$ENGINE_IMAGE_DIR/rdmacheck.tar" >>"$ENGINE_LOGS/$e.log" 2>&1; then
    engine_fail "$e" "load of the offline image"
    ENGINE_SAVE_STORE[$e]=0  # a store without the image is not worth keeping
    return 1
  fi
  ep=$(timeout 30 "$e" image inspect rdmacheck --format '{{json .Config.Entrypoint}}' 2>&1)
  if [[ "$ep" != '["/usr/local/bin/rdmacheck"]' ]]; then
    record FAIL "$e: the loaded image runs rdmacheck" "ENTRYPOINT $ep"
    ENGINE_SAVE_STORE[$e]=0
    return 1
  fi
  record PASS "$e: the offline image loads as rdmacheck" \
    "in $(seconds_since "$t0") s$( ((ENGINE_SAVE_STORE[$e])) || echo ', root filesystem layer kept from an earlier run')"
}

# engine_same_image ENGINE BIN: the image holds BIN (the binary this run
# built) and every package the Dockerfile installs (one container run).
engine_same_image() {
  local e=$1 bin=$2 out want got missing pkgs=()
  want=$(sha256sum "$bin" | cut -d' ' -f1)
  mapfile -t pkgs <"$ENGINE_IMAGE_DIR/packages"
  # shellcheck disable=SC2016  # expanded inside the container; ${Package} is dpkg-query's
  out=$(timeout 60 "$e" run --rm --network none --entrypoint /bin/sh rdmacheck -c \
    'sha256sum /usr/local/bin/rdmacheck; dpkg-query -W -f "\${Package} \${db:Status-Status}\n" "$@" 2>&1' \
    sh "${pkgs[@]}" 2>&1)
  got=$(head -n 1 <<<"$out" | cut -d' ' -f1)
  if [[ "$got" == "$want" ]]; then record PASS "$e: the image's /usr/local/bin/rdmacheck is this run's binary" "sha256 ${want:0:16}"
  else record FAIL "$e: the image's /usr/local/bin/rdmacheck is this run's binary" "image: ${out:0:120}; built ${want:0:16}"; fi
  missing=$(tail -n +2 <<<"$out" | awk '$2 != "installed"' | head -c 300)
  if [[ -z "$missing" && $(tail -n +2 <<<"$out" | wc -l) -eq $(wc -l <"$ENGINE_IMAGE_DIR/packages") ]]; then
    record PASS "$e: the image has every package the Dockerfile installs" "$(tr '\n' ' ' <"$ENGINE_IMAGE_DIR/packages")"
  else
    record FAIL "$e: the image has every package the Dockerfile installs" "${missing:-$out}"
  fi
}

# engine_stop ENGINE: its containers removed, the daemon ended.
engine_stop() {
  local e=$1 i
  timeout 60 "$e" rm -f -a >/dev/null 2>&1 || timeout 60 "$e" ps -aq 2>/dev/null | xargs -r timeout 60 "$e" rm -f >/dev/null 2>&1
  if [[ "$e" == docker && -s /run/docker.pid ]]; then
    kill "$(cat /run/docker.pid)" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
      [[ -e /run/docker.pid ]] || break
      sleep 0.2
    done
    pkill -x containerd 2>/dev/null
  fi
  if ((${ENGINE_SAVE_STORE[$e]:-0})); then
    local t0 d
    t0=$(uptime_s) d=$(engine_store_dir "$e")
    mkdir -p "$OUT/engine-stores"
    # Written once per guest image and root filesystem layer (a run that
    # unpacked a kept store writes none), so it never grows with runs.
    if tar -cf "$OUT/engine-stores/$e.tar" --xattrs --xattrs-include='*' -C "$d" . 2>>"$ENGINE_LOGS/$e.log"; then
      echo "$e: store written for the next run in $(seconds_since "$t0") s ($(du -h "$OUT/engine-stores/$e.tar" | cut -f1))"
    else
      rm -f "$OUT/engine-stores/$e.tar"
    fi
  fi
  return 0
}

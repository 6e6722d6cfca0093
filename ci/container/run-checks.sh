#!/usr/bin/env bash
# run-checks.sh: rdmacheck in its container, run with the very command line
# the README's "Containers" section gives for the engine, so that what users
# copy is what CI runs. Used by the hosted-CI workflow (github-actions.yml)
# and by the guest stage's engine scenarios (ci/guest/scenarios/7?-engine-*).
#
#   run-checks.sh --engine docker                        # the README's line, run
#   run-checks.sh --engine podman --print                # ... printed, not run
#   run-checks.sh --engine docker --device rxe1 \
#       --with "-v $PWD/out:/out" -- --format=junit -o /out/rdmacheck.xml
#
# Options:
#   --engine docker|podman   whose README line (default docker)
#   --readme FILE            default: README.md at the repository root
#   --device DEV             run on DEV: its uverbs node (from
#                            /sys/class/infiniband_verbs/*/ibdev) replaces
#                            uverbs0 and `-d rxe0` becomes `-d DEV`
#   --image NAME             another image name than the README's
#   --without "WORDS"        drop these engine words (e.g. "--network host",
#                            "--device=*" for every --device flag)
#   --with "WORDS"           add these engine words before the image
#   --no-args                drop the README's rdmacheck arguments (`-d rxe0`)
#   --print                  print the command instead of running it
#   -- ARGS...               more rdmacheck arguments, after the README's
# Exit status: rdmacheck's (through the engine), or 2 when the README has no
# such line (the message names the README and what was looked for).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
README=$HERE/../../README.md
ENGINE=docker DEVICE="" IMAGE="" PRINT=0 NO_ARGS=0 WITHOUT=() WITH=() EXTRA=()
while (($#)); do
  case "$1" in
    --engine) ENGINE=$2; shift 2 ;;
    --readme) README=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --image) IMAGE=$2; shift 2 ;;
    --without) WITHOUT+=("$2"); shift 2 ;;
    --with) WITH+=("$2"); shift 2 ;;
    --no-args) NO_ARGS=1; shift ;;
    --print) PRINT=1; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "run-checks.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "run-checks.sh: $*" >&2; exit 2; }
[[ "$ENGINE" =~ ^(docker|podman)$ ]] || die "--engine: '$ENGINE' is neither docker nor podman"
[[ -r "$README" ]] || die "cannot read $README"

# The README's indented `ENGINE run ...` line in its "## Containers" section,
# continuation lines joined.
line=$(awk -v e="$ENGINE" '
  /^## / { in_sec = ($0 == "## Containers") }
  in_sec && !cont && $0 ~ "^    " e " run " { cont = 1; buf = "" }
  cont { l = $0; more = sub(/\\$/, "", l); buf = buf " " l; if (!more) { print buf; exit } }
' "$README")
[[ -n "$line" ]] || die "$README: no indented '$ENGINE run ...' line in its '## Containers' section"
read -r -a words <<<"$line"
[[ "${words[0]}" == "$ENGINE" && "${words[1]}" == run ]] || die "$README: '$line' does not start with '$ENGINE run'"

# Engine words up to the image (the first word that is neither an option nor
# the value of an option that takes one), then rdmacheck's arguments.
opts=() image="" args=() i=0
takes_value='^(--ulimit|--network|--net|-v|--volume|-e|--env|--name|--cap-add|--cap-drop|--device|--mount|-w|--workdir|--user|-u)$'
for ((i = 2; i < ${#words[@]}; i++)); do
  w=${words[i]}
  if [[ -z "$image" ]]; then
    if [[ "$w" =~ $takes_value ]]; then opts+=("$w" "${words[i + 1]}"); i=$((i + 1)); continue; fi
    if [[ "$w" == -* ]]; then opts+=("$w"); continue; fi
    image=$w
  else
    args+=("$w")
  fi
done
[[ -n "$image" ]] || die "$README: '$line' names no image"

if [[ -n "$DEVICE" ]]; then
  node=""
  for f in /sys/class/infiniband_verbs/uverbs*/ibdev; do
    [[ -r "$f" && "$(cat "$f")" == "$DEVICE" ]] && { node=$(basename "$(dirname "$f")"); break; }
  done
  [[ -n "$node" ]] || die "--device $DEVICE: no /sys/class/infiniband_verbs/uverbs*/ibdev names it"
  opts=("${opts[@]//uverbs0/$node}")
  for ((i = 0; i + 1 < ${#args[@]}; i++)); do
    [[ "${args[i]}" == -d ]] && args[i + 1]=$DEVICE
  done
fi
[[ -n "$IMAGE" ]] && image=$IMAGE
((NO_ARGS)) && args=()

# --without: a run of words (each may be a glob) removed wherever it occurs.
for spec in "${WITHOUT[@]}"; do
  read -r -a pat <<<"$spec"
  kept=() n=${#pat[@]}
  for ((i = 0; i < ${#opts[@]}; i++)); do
    match=1
    for ((j = 0; j < n; j++)); do
      # shellcheck disable=SC2053  # the pattern is a glob on purpose
      [[ "${opts[i + j]:-}" == ${pat[j]} ]] || { match=0; break; }
    done
    if ((match)); then i=$((i + n - 1)); else kept+=("${opts[i]}"); fi
  done
  opts=("${kept[@]}")
done
for spec in "${WITH[@]}"; do
  read -r -a add <<<"$spec"
  opts+=("${add[@]}")
done

cmd=("$ENGINE" run "${opts[@]}" "$image" "${args[@]}" "${EXTRA[@]}")
if ((PRINT)); then
  echo "${cmd[*]}"
  exit 0
fi
exec "${cmd[@]}"

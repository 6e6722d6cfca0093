#!/usr/bin/env bash
# prune.sh DIR MAX_MB KEEP_MB: when the Bazel disk cache DIR holds more than
# MAX_MB, deletes its least recently read files until it holds at most
# KEEP_MB. Bazel 4.2 never evicts from a disk cache, and emptying it makes
# the next CI run cold (about 50 min instead of 25).
#
# "Recently read" is the file's atime. On a relatime mount (Debian's
# default) a read updates it when it is older than the file's mtime or a
# day old, so a file written once and read by every run since keeps a
# recent atime; the order is exact to the day. A file that the next build
# wants and no longer finds is only a cache miss: Bazel runs the action.
set -euo pipefail
dir=$1 max_mb=$2 keep_mb=$3
[[ -d $dir ]] || exit 0
used_kb=$(du -sk "$dir" | cut -f1)
((used_kb > max_mb * 1024)) || exit 0
excess_kb=$((used_kb - keep_mb * 1024))
# Oldest atime first; each file's size in KiB as du counts it (blocks).
find "$dir" -type f -printf '%A@\t%k\t%p\n' | sort -n -t$'\t' -k1,1 |
  awk -F'\t' -v excess="$excess_kb" 'freed < excess { print $3; freed += $2 }' |
  tr '\n' '\0' | xargs -0 -r rm -f --
echo "prune.sh: $dir held $((used_kb / 1024)) MB (over $max_mb MB): least recently read files deleted, $(du -sm "$dir" | cut -f1) MB left"

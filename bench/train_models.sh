#!/bin/sh
# The shipped models of `learned` (strategies/models/), each trained by `dominosim train` from
# its seed; run from the repository root: sh bench/train_models.sh [GENERATIONS]
set -e
G=${1:-40}
out=strategies/models
for game in "fives 2" "block 2" "classic 2" "fives 4 partnership=on" "block 4 partnership=on" "classic 4 partnership=on"; do
  set -- $game
  name="$1-$2p"; sets=""
  if [ -n "$3" ]; then name="$name-teams"; sets="--set $3"; fi
  start=$(date +%s)
  dominosim train --variant "$1" --players "$2" $sets --seed 47 --generations "$G" \
    --population 24 --deals 1000 --out "$out/$name.json" 2>/dev/null
  echo "$name: $(( $(date +%s) - start )) s"
done

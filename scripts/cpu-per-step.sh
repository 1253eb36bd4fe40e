#!/bin/bash
# cpu-per-step.sh BIN SCENE STEPS [BIN2 ...]
#
# CPU time per step of a scene, single-threaded: for each runscene binary,
# (t(-steps STEPS) − t(-steps 0)) / STEPS with t the user + system time of
# `BIN -quiet` under GOMAXPROCS=1 (loading and setup cancel out). CPU time
# rather than wall time: on a shared machine the wall time of a run grows
# with the others' load, its CPU time much less. Several binaries are run
# one after the other, so a comparison sees the same machine.
#
# Example (the cantilever figures of README "Linear solvers"):
#   scripts/cpu-per-step.sh /tmp/after scenes/cantilever.toml 3000
set -u
if [ $# -lt 3 ]; then
	echo "usage: $0 BIN SCENE STEPS [BIN2 ...]" >&2
	exit 2
fi
scene=$2; n=$3
bins=("$1" "${@:4}")
cpu() { /usr/bin/time -f "%U %S" env GOMAXPROCS=1 "$1" -quiet -steps "$2" "$scene" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
for b in "${bins[@]}"; do
	a=$(cpu "$b" 0)
	z=$(cpu "$b" "$n")
	echo "$b $(echo "$z $a $n" | awk '{printf "%.3f", ($1 - $2) / $3 * 1e3}') ms/step"
done

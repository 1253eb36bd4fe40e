#!/bin/bash
# time-scenes.sh OLD_BIN OLD_SCENES NEW_BIN [NEW_SCENES] [REPEATS]
#
# Runs every shipped scene present in both scene folders with its default
# steps (runscene -quiet), the old scene file with the old binary and the new
# scene file with the new binary, alternating old/new per scene so both see
# the same machine load, and keeps the best of REPEATS (default 3) wall times
# of each. Prints one line per scene (old s, new s, ratio, exit statuses) and
# the totals. Exit status 3 (a solve did not converge) is timed like 0 and
# shown; any other failure is shown and the scene left out of the totals.
# SCENES="a.toml b.toml" times only those.
#
# Example (the issue-13 figure in README "Linear solvers"):
#   git worktree add /tmp/base 80ebe8c && (cd /tmp/base && go build -o /tmp/before ./cmd/runscene)
#   go build -o /tmp/after ./cmd/runscene
#   scripts/time-scenes.sh /tmp/before /tmp/base/scenes /tmp/after scenes
set -u
if [ $# -lt 3 ]; then
	echo "usage: $0 OLD_BIN OLD_SCENES NEW_BIN [NEW_SCENES] [REPEATS]" >&2
	exit 2
fi
oldbin=$(realpath "$1"); olddir=$(realpath "$2"); newbin=$(realpath "$3")
newdir=$(realpath "${4:-scenes}"); reps=${5:-3}

# run BIN DIR FILE: prints "seconds exit-status" of one quiet run in DIR.
run() {
	local t0 t1 rc
	t0=$EPOCHREALTIME
	(cd "$2" && "$1" -quiet "$3" >/dev/null 2>&1)
	rc=$?
	t1=$EPOCHREALTIME
	echo "$(echo "$t1 - $t0" | bc -l) $rc"
}

printf '%-32s %10s %10s %8s %s\n' scene old_s new_s ratio exit_old/new
totold=0; totnew=0
for f in "$newdir"/*.toml; do
	s=$(basename "$f")
	if [ -n "${SCENES:-}" ] && [[ " $SCENES " != *" $s "* ]]; then continue; fi
	[ -f "$olddir/$s" ] || { printf '%-32s (new scene, not timed)\n' "$s"; continue; }
	bo=; bn=; ro=; rn=
	for ((i = 0; i < reps; i++)); do
		read -r t rc < <(run "$oldbin" "$olddir" "$s"); ro=$rc
		[ -z "$bo" ] || [ "$(echo "$t < $bo" | bc -l)" = 1 ] && bo=$t
		read -r t rc < <(run "$newbin" "$newdir" "$s"); rn=$rc
		[ -z "$bn" ] || [ "$(echo "$t < $bn" | bc -l)" = 1 ] && bn=$t
	done
	printf '%-32s %10.3f %10.3f %8.2f %s/%s\n' "$s" "$bo" "$bn" "$(echo "$bo / $bn" | bc -l)" "$ro" "$rn"
	if { [ "$ro" = 0 ] || [ "$ro" = 3 ]; } && { [ "$rn" = 0 ] || [ "$rn" = 3 ]; }; then
		totold=$(echo "$totold + $bo" | bc -l); totnew=$(echo "$totnew + $bn" | bc -l)
	fi
done
printf '%-32s %10.3f %10.3f %8.2f\n' TOTAL "$totold" "$totnew" "$(echo "$totold / $totnew" | bc -l)"

#!/bin/sh
# Runs every unit test executable of a build tree, each fuzz target's
# seed corpus and the transcript test's scripts under valgrind; fails on
# any error or definite leak.
# Property tests run with fewer games.
set -eu
dir=${1:-build}
status=0
for t in "$dir"/tests/unit_*; do
    [ -x "$t" ] || continue
    rc=0
    HEARTS_SIM="$dir/hearts-sim" HEARTSBOT="$dir/heartsbot" \
    HEARTS_PROPERTY_GAMES=${HEARTS_PROPERTY_GAMES_VALGRIND:-20} \
    HEARTS_RANDOM_RULES=${HEARTS_RANDOM_RULES_VALGRIND:-30} \
        valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite --trace-children=yes \
        "$t" >"$t.valgrind.log" 2>&1 || rc=$?
    if [ $rc -ne 0 ]; then
        echo "valgrind: $t failed with $rc (see $t.valgrind.log)"
        status=1
    fi
done
# the fuzz targets' seed corpora (tests/fuzz/corpus/NAME), where the build
# has the replay mains (no libFuzzer)
corpus=$(dirname "$0")/../tests/fuzz/corpus
for t in "$dir"/tests/fuzz_replay_*; do
    [ -x "$t" ] || continue
    name=${t##*/fuzz_replay_}
    rc=0
    valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite \
        "$t" "$corpus/$name" >"$t.valgrind.log" 2>&1 || rc=$?
    if [ $rc -ne 0 ]; then
        echo "valgrind: $t failed with $rc (see $t.valgrind.log)"
        status=1
    fi
done
# the transcript test's scripts (tests/transcript/): the same output
transcripts=$(dirname "$0")/../tests/transcript
if [ -x "$dir/tests/transcript" ]; then
    for script in "$transcripts"/*.script; do
        name=$(basename "$script" .script)
        rc=0
        valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite \
            "$dir/tests/transcript" "$script" "$transcripts/$name.out" \
            >"$dir/tests/transcript.$name.valgrind.log" 2>&1 || rc=$?
        if [ $rc -ne 0 ]; then
            echo "valgrind: transcript $name failed with $rc" \
                 "(see $dir/tests/transcript.$name.valgrind.log)"
            status=1
        fi
    done
fi
[ $status -eq 0 ] && echo "valgrind: clean"
exit $status

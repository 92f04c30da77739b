#!/bin/sh
# The test command of the README: installs what is missing, builds with
# warnings as errors, runs every test, then runs them again under
# AddressSanitizer and UBSan, and the unit tests under valgrind; then
# builds the Debian package, installs it, plays a game through it and
# purges it (scripts/package-test.sh).
# Build trees: build/ (normal), build-asan/ (sanitizers).
set -eu
cd "$(dirname "$0")/.."

./scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
# The integration tests mostly wait (on servers' flood control, timers,
# the bot's pacing): a run of all of them at -j6 on 2 cores used half a
# core. They run three per core, after the others, which use the CPU.
ijobs=$((jobs * 3))

echo "== build (warnings as errors)"
cmake -S . -B build -DHEARTS_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
echo "== tests"
ctest --test-dir build --output-on-failure -j"$jobs" -LE integration
ctest --test-dir build --output-on-failure -j"$ijobs" -L integration

echo "== build with AddressSanitizer and UBSan"
cmake -S . -B build-asan -DHEARTS_WERROR=ON -DHEARTS_SANITIZE=ON \
      -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan and UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
HEARTS_PROPERTY_GAMES=${HEARTS_PROPERTY_GAMES_ASAN:-200} \
HEARTS_RANDOM_RULES=${HEARTS_RANDOM_RULES_ASAN:-150} \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE integration
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$ijobs" -L integration

echo "== unit tests under valgrind"
./scripts/valgrind.sh build

./scripts/package-test.sh
count=$(ctest --test-dir build -N | sed -n 's/^Total Tests: //p')
echo "== all tests passed: every test ran twice (plain, ASan+UBSan), unit tests under valgrind, the Debian package"
echo "tests: $((count * 2)) passed, 0 failed"

#!/bin/sh
# Every example config passes `heartsbot --check` as copied (ctest
# examples/check): config.example.toml and docs/examples/*.toml, each in
# a temporary directory with its data_dir (and an application service's
# registration, written first by --appservice-registration, and a TLS CA
# file, a PEM block the operator would bring) pointed there; and a broken
# copy is refused with file:line:column.
# Usage: check_examples.sh HEARTSBOT REPO
set -eu
bot=$1
repo=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for src in "$repo/config.example.toml" "$repo"/docs/examples/*.toml; do
    name=$(basename "$src")
    dir="$tmp/${name%.toml}"
    mkdir "$dir"
    sed -e "s|^data_dir = \".*\"\$|data_dir = \"$dir/data\"|" \
        -e "s|^registration = \".*\"\$|registration = \"$dir/registration.yaml\"|" \
        -e "s|^tls_ca_file = \"..*\"\$|tls_ca_file = \"$dir/ca.pem\"|" \
        "$src" >"$dir/$name"
    printf -- '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' >"$dir/ca.pem"
    if grep -q '^mode = "appservice"' "$dir/$name" &&
       ! "$bot" --appservice-registration "$dir/$name" >"$dir/out" 2>&1; then
        echo "FAIL: $name: --appservice-registration:"; cat "$dir/out"
        fail=1
        continue
    fi
    if "$bot" --check "$dir/$name" >"$dir/out" 2>&1 &&
       grep -q "^OK: " "$dir/out"; then
        echo "ok: $name"
    else
        echo "FAIL: $name does not pass heartsbot --check:"; cat "$dir/out"
        fail=1
    fi
    n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "FAIL: only $n examples found"; fail=1; }

# A broken copy: a bad value on line 3, column 13, and an unknown key.
printf '# broken\n[bot]\nlog_level = "loud"\ncolours = true\n' >"$tmp/broken.toml"
if "$bot" --check "$tmp/broken.toml" >"$tmp/out" 2>&1; then
    echo "FAIL: a broken config passes --check"; fail=1
elif ! grep -q "^$tmp/broken.toml:3:13: 'log_level' must be" "$tmp/out" ||
     ! grep -q "^$tmp/broken.toml:4:1: unknown key 'colours'" "$tmp/out"; then
    echo "FAIL: the broken config's problems are not named:"; cat "$tmp/out"
    fail=1
else
    echo "ok: a broken copy is refused with file:line:column"
fi
exit $fail

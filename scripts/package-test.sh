#!/bin/sh
# The Debian package (debian/; docs/hosting.md, "Installing the Debian
# package"): builds it with dpkg-buildpackage from a copy of the tracked
# files (no build directories), installs it, runs
# tests/integration/test_package.py on the installed bot (started as its
# systemd unit starts it, as the heartsbot user, against a private
# ngIRCd: a whole game), then checks that a reinstall and an upgrade (to
# the same files as a later version) keep the edited config and the data, `apt-get remove` keeps them and the
# user, and `apt-get purge` deletes the data, /etc/heartsbot and the user.
#
# It installs only on a machine without heartsbot (no package, user,
# /var/lib/heartsbot or /etc/heartsbot: a purge would delete them); there
# it builds the package and says why it stops. Root, or sudo.
set -eu
cd "$(dirname "$0")/.."

if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
CONF=/etc/heartsbot/heartsbot.toml
DATA=/var/lib/heartsbot

fail() {
    echo "package: FAILED: $*" >&2
    exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/heartsbot-pkg.XXXXXX")
installed=""
cleanup() {
    if [ -n "$installed" ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive \
            apt-get purge -y -qq heartsbot >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# apt reads the .deb as its sandbox user
chmod 755 "$tmp"
started=$(date +%s)

version=$(sed -n 's/^project(heartsbot VERSION \([^ )]*\).*/\1/p' CMakeLists.txt)
deb_version=$(dpkg-parsechangelog -S Version)
[ "$deb_version" = "$version" ] ||
    fail "debian/changelog's version is $deb_version, CMakeLists.txt's $version: add an entry to debian/changelog"

echo "== Debian package: build (dpkg-buildpackage -us -uc -b)"
mkdir "$tmp/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | tar --null --no-recursion -T - -cf - | tar -xf - -C "$tmp/src"
else
    tar --exclude=./.git --exclude='./build*' --exclude='./obj-*' -cf - . |
        tar -xf - -C "$tmp/src"
fi
jobs=$(nproc 2>/dev/null || echo 2)
t0=$(date +%s)
if ! (cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=$jobs noautodbgsym" \
        dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
    tail -40 "$tmp/build.log" >&2
    fail "dpkg-buildpackage (log above)"
fi
t1=$(date +%s)
deb="$tmp/heartsbot_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "no $deb"
echo "package: built $(basename "$deb") in $((t1 - t0)) s: $(stat -c %s "$deb") bytes, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB"

if dpkg-query -W -f='${Status}' heartsbot 2>/dev/null | grep -q "installed\|config-files" ||
   getent passwd heartsbot >/dev/null || [ -e "$DATA" ] || [ -e /etc/heartsbot ]; then
    echo "package: NOT installed and tested: this machine has a heartsbot (package, user, $DATA or /etc/heartsbot) that the test's purge would delete"
    exit 0
fi

apt() {
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get -y -qq \
        --no-install-recommends "$@" >"$tmp/apt.log" 2>&1 ||
        { cat "$tmp/apt.log" >&2; fail "apt-get $*"; }
}

echo "== Debian package: install, a game through the installed bot"
installed=1
apt install "$deb"
$sudo env HEARTS_PACKAGE_TEST=1 /usr/bin/python3 -B \
    tests/integration/test_package.py -v ||
    fail "tests/integration/test_package.py on the installed package"

# what an upgrade and a removal must keep: the config the test edited,
# the games it wrote
state() {
    $sudo sh -c "stat -c '%n %U %G %a' $CONF $DATA && sha256sum $CONF && cd $DATA && find . -type f | sort | xargs sha256sum"
}
$sudo grep -q "^port = 6667" "$CONF" && fail "the test did not edit $CONF"
$sudo find "$DATA" -name archive.jsonl | grep -q . || fail "no archive in $DATA"
before=$(state)

echo "== Debian package: reinstall, upgrade to a later version, remove, purge"
apt install --reinstall "$deb"
[ "$(state)" = "$before" ] || fail "the reinstall changed $CONF or $DATA"
# an upgrade as dpkg runs one (prerm upgrade, preinst upgrade, postinst
# configure OLD-VERSION): the same files as a later version
$sudo dpkg-deb -R "$deb" "$tmp/later"
$sudo sed -i "s/^Version: .*/Version: ${deb_version}+upgradetest/" "$tmp/later/DEBIAN/control"
later="$tmp/heartsbot_${deb_version}+upgradetest.deb"
$sudo dpkg-deb -b "$tmp/later" "$later" >/dev/null
$sudo chmod 644 "$later"
apt install "$later"
[ "$(dpkg-query -W -f='${Version}' heartsbot)" = "${deb_version}+upgradetest" ] ||
    fail "the upgrade to ${deb_version}+upgradetest did not install"
[ "$(state)" = "$before" ] || fail "the upgrade changed $CONF or $DATA"
apt remove heartsbot
[ ! -e /usr/bin/heartsbot ] || fail "apt-get remove left /usr/bin/heartsbot"
[ "$(state)" = "$before" ] || fail "apt-get remove changed $CONF or $DATA"
getent passwd heartsbot >/dev/null || fail "apt-get remove deleted the heartsbot user"
apt purge heartsbot
installed=""
[ ! -e "$DATA" ] || fail "the purge left $DATA"
[ ! -e /etc/heartsbot ] || fail "the purge left /etc/heartsbot"
! getent passwd heartsbot >/dev/null || fail "the purge left the heartsbot user"
! getent group heartsbot >/dev/null || fail "the purge left the heartsbot group"
! dpkg-statoverride --list "$CONF" >/dev/null || fail "the purge left the statoverride of $CONF"
echo "package: installed, played, upgraded, removed and purged: all as expected ($(($(date +%s) - started)) s in all)"

#!/bin/bash
# The README's run command: installs what is missing (scripts/deps.sh),
# builds the bot (build/heartsbot, nothing else: scripts/test.sh builds
# and runs the tests), starts a private ngIRCd on 127.0.0.1 (port 6667 if
# it is free, else the next free one; PORT=N picks one) with a throw-away
# config in a temporary directory, starts the bot there in #hearts (its
# config is config.example.toml with that port and data_dir), and says how
# to connect. Ctrl-C (or SIGTERM, or the terminal closing) stops the bot
# (it tells a table in play that the game goes on when it is back; SIGKILL
# after 10 s), then ngIRCd, and removes the temporary directory, also when
# the output goes into a pipe whose reader is gone (`run.sh | tee log`:
# tee dies of the same Ctrl-C).
#
# The bot's data (journals of games in progress, records, leaderboards)
# are kept across runs in ${XDG_STATE_HOME:-~/.local/state}/heartsbot-demo,
# so a game stopped by Ctrl-C goes on at the next run; remove that
# directory to start afresh. HEARTSBOT_DATA=DIR uses DIR instead.
# HEARTSBOT_BIN=FILE runs that binary: no install, no build (the
# integration test of this script uses it).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

# A reader of our output that went away (a pipe into tee or head, and
# Ctrl-C killed it) must not kill this script before it has cleaned up:
# a write then fails (EPIPE) instead, and say() ignores that failure.
trap '' PIPE

# say TEXT...: a line on standard output, never a reason to stop.
say() {
    printf '%s\n' "$*" 2>/dev/null || true
}

if [ -n "${HEARTSBOT_BIN:-}" ]; then
    bot_bin=$HEARTSBOT_BIN
    case $bot_bin in /*) ;; *) bot_bin="$root/$bot_bin" ;; esac
    [ -x "$bot_bin" ] || {
        echo "run: HEARTSBOT_BIN=$HEARTSBOT_BIN is not an executable" >&2
        exit 1
    }
else
    ./scripts/deps.sh
    say "== build (the bot only; scripts/test.sh builds and runs the tests)"
    cmake -S . -B build >/dev/null
    cmake --build build --target heartsbot -j"$(nproc 2>/dev/null || echo 2)"
    bot_bin="$root/build/heartsbot"
    [ -x "$bot_bin" ] || {
        echo "run: no $bot_bin after the build" >&2
        exit 1
    }
fi

ngircd_bin=$(command -v ngircd || echo /usr/sbin/ngircd)
[ -x "$ngircd_bin" ] || {
    echo "run: ngircd is not installed (scripts/deps.sh installs it)" >&2
    exit 1
}

# The game data: kept across runs, in the per-user state directory (XDG
# base directories: state that outlives a run but is no document of the
# user's), not in the working directory or the checkout.
if [ -n "${HEARTSBOT_DATA:-}" ]; then
    mkdir -p "$HEARTSBOT_DATA"
    data=$(cd "$HEARTSBOT_DATA" && pwd)
    data_note="HEARTSBOT_DATA; kept across runs"
else
    state=${XDG_STATE_HOME:-}
    case $state in /*) ;; *) state="${HOME:?run: HOME is not set}/.local/state" ;; esac
    data="$state/heartsbot-demo"
    (umask 077 && mkdir -p "$data")
    data_note="kept across runs; remove the directory to start afresh"
fi
case $data in
    *[\"\\\|\&]*) echo "run: unusable data path: $data" >&2; exit 1 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/heartsbot-run.XXXXXX")
bot_pid=""
ngircd_pid=""

# stop PID: SIGTERM, wait up to 10 s, then SIGKILL.
stop() {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317  # run by the traps below
cleanup() {
    # Once only, to the end: a second Ctrl-C or a closed output must not
    # cut it short, nor a failing step stop the next (no set -e here).
    trap '' INT TERM HUP
    trap - EXIT
    set +e
    if [ -n "$bot_pid" ] && kill -0 "$bot_pid" 2>/dev/null; then
        say "run: stopping the bot (a game in progress goes on at the next run)."
    fi
    stop "$bot_pid"
    stop "$ngircd_pid"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# True if something accepts connections on 127.0.0.1:$1.
port_busy() {
    timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

write_ngircd_conf() {
    mkdir -p "$tmp/conf.d"
    cat >"$tmp/ngircd.conf" <<EOF
# Throw-away ngIRCd for scripts/run.sh: loopback only, no PAM, ident or
# DNS, the system's /etc/ngircd not read. Flood throttling as by default.
[Global]
	Name = irc.local
	Info = heartsbot local server
	AdminInfo1 = heartsbot scripts/run.sh
	AdminInfo2 = loopback
	AdminEMail = nobody@irc.local
	Listen = 127.0.0.1
	Ports = $1
	MotdPhrase = "Hearts: /join #hearts then type !hearts"
[Limits]
	MaxConnectionsIP = 100
	MaxJoins = 0
	MaxNickLength = 30
[Options]
	DNS = no
	Ident = no
	PAM = no
	RequireAuthPing = no
	IncludeDir = $tmp/conf.d
EOF
}

# Starts ngIRCd on port $1; true once the port accepts connections.
start_ngircd() {
    write_ngircd_conf "$1"
    # in a session of its own: the terminal's Ctrl-C reaches the bot
    # only, which says goodbye through this server before cleanup stops it
    setsid "$ngircd_bin" -n -f "$tmp/ngircd.conf" >>"$tmp/ngircd.log" 2>&1 &
    ngircd_pid=$!
    for _ in $(seq 100); do
        kill -0 "$ngircd_pid" 2>/dev/null || break
        port_busy "$1" && return 0
        sleep 0.1
    done
    stop "$ngircd_pid"
    ngircd_pid=""
    return 1
}

if [ -n "${PORT:-}" ]; then
    candidates=$PORT
else
    candidates="6667 $(seq 6668 6699) $(shuf -i 20000-60000 -n 10)"
fi
port=""
for p in $candidates; do
    port_busy "$p" && continue
    if start_ngircd "$p"; then
        port=$p
        break
    fi
done
if [ -z "$port" ]; then
    echo "run: could not start ngircd (tried: $candidates); its log:" >&2
    cat "$tmp/ngircd.log" >&2 2>/dev/null || true
    exit 1
fi

# The bot's config: the example (a local IRC server only), pointed at
# this server and data dir, and checked as the bot would read it.
sed -e "s|^port = 6667\$|port = $port|" \
    -e "s|^data_dir = \"data\"\$|data_dir = \"$data\"|" \
    config.example.toml >"$tmp/heartsbot.toml"
if ! grep -q "^port = $port\$" "$tmp/heartsbot.toml" ||
   ! grep -q "^data_dir = \"$data\"\$" "$tmp/heartsbot.toml" ||
   grep -q "^homeserver = " "$tmp/heartsbot.toml"; then
    echo "run: config.example.toml no longer has the port and data_dir" \
         "lines this script rewrites, or has a [[matrix]] table" >&2
    exit 1
fi
if ! "$bot_bin" --check "$tmp/heartsbot.toml" >/dev/null; then
    echo "run: the config above does not pass heartsbot --check" >&2
    exit 1
fi

"$bot_bin" --config "$tmp/heartsbot.toml" &
bot_pid=$!

sleep 1
if kill -0 "$bot_pid" 2>/dev/null; then
    say ""
    say "heartsbot is on a private IRC server at 127.0.0.1:$port, channel #hearts."
    say "Connect with any IRC client, for example (apt-get install irssi):"
    say ""
    say "    irssi -c 127.0.0.1 -p $port"
    say ""
    say "then type  /join #hearts  and  !hearts  (!join, !bot, !start; !help)."
    say "Bot config: $tmp/heartsbot.toml"
    say "Game data:  $data ($data_note)"
    say "Ctrl-C stops the bot and the server; a game in progress goes on at the next run."
    say ""
fi

status=0
wait "$bot_pid" || status=$?
bot_pid=""
echo "run: the bot exited with status $status" >&2
exit "$status"

#!/usr/bin/python3
"""Benchmark: the bot on Matrix in 100 rooms: memory, joining, idle load.

  env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/matrix_rooms.py
  # about 1.5 minutes; docs/benchmarks.md has the results and the date

Starts the test homeserver (tests/matrix/homeserver.py, in this process,
rate limits off) on 127.0.0.1, registers the bot, an owner and --tables
players; the owner makes --rooms public rooms (#r000:hearts.test, ...),
all of them in the bot's [[matrix]] rooms (config.example.toml's values
otherwise, sync_timeout_ms 30000 included). Then it starts the real bot and
measures:

- the time from the bot's start to its membership in every room (polled
  on the server every 50 ms), and its requests on the way;
- VmRSS and VmHWM (/proc/PID/status) once every room is joined and the bot
  has been idle --settle s;
- the bot's requests per second (the server's counters) while idle, over
  --idle s;
- then one player in each of the first --tables rooms says `!hearts`,
  then `!start` when the table opens (three computers join), and joins the
  direct room the bot invites them to; once every player has their deal
  there, VmRSS and VmHWM again.

Prints a markdown table. Nothing is asserted. HEARTS_KEEP_TMP=1 keeps the
temp dir (the bot's config and log, the server's log).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scripted  # noqa: E402
from scripted import harness  # noqa: E402
sys.path.insert(0, os.path.join(scripted.REPO, "tests", "matrix"))
import homeserver  # noqa: E402

SERVER = "hearts.test"
BOT = "@heartsbot:" + SERVER


class Person:
    """A plain client-server API client (keep-alive not needed here)."""

    def __init__(self, hs, localpart, password):
        self.hs = hs
        self.user_id = hs.register(localpart, password)
        self.token = self.call("POST", "/login", {
            "type": "m.login.password", "password": password,
            "identifier": {"type": "m.id.user", "user": localpart}},
            auth=False)["access_token"]
        self.since = None
        self.room = None        # the room the person plays in
        self.dm = None          # the direct room the bot invited them to
        self.state = "idle"     # opening, starting, waiting, dealt

    def call(self, method, path, body=None, auth=True):
        url = self.hs.url + "/_matrix/client/v3" + path
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.load(resp)

    def say(self, room_id, text):
        txn = "t%d" % time.monotonic_ns()
        self.call("PUT", "/rooms/%s/send/m.room.message/%s" % (
            urllib.parse.quote(room_id), txn),
            {"msgtype": "m.text", "body": text})

    def sync(self, timeout_ms=0):
        """New messages from the bot as (room_id, body); joins invites."""
        q = {"timeout": str(timeout_ms)}
        if self.since:
            q["since"] = self.since
        s = self.call("GET", "/sync?" + urllib.parse.urlencode(q))
        self.since = s["next_batch"]
        rooms = s.get("rooms", {})
        for room_id in rooms.get("invite", {}):
            self.call("POST", "/join/" + urllib.parse.quote(room_id), {})
            self.dm = room_id
        got = []
        for room_id, room in rooms.get("join", {}).items():
            for e in room.get("timeline", {}).get("events", []):
                if (e.get("sender") == BOT
                        and e.get("type") == "m.room.message"):
                    got.append((room_id, e["content"].get("body", "")))
        return got


def kib(n):
    return "%.1f MiB" % (n / 1024.0)


def run(args, tmp):
    hs = homeserver.Homeserver(tmp, ratelimit=False)
    hs.start()
    bot = None
    try:
        hs.register("heartsbot", "pw-bot")
        owner = Person(hs, "owner", "pw-o")
        rooms = []
        for i in range(args.rooms):
            r = owner.call("POST", "/createRoom", {
                "preset": "public_chat", "room_alias_name": "r%03d" % i,
                "name": "r%03d" % i})
            rooms.append(r["room_id"])
        players = []
        for i in range(args.tables):
            p = Person(hs, "p%02d" % i, "pw")
            p.call("POST", "/join/" + urllib.parse.quote(rooms[i]), {})
            p.room = rooms[i]
            p.sync()
            players.append(p)

        cfg = harness.example_config()
        del cfg["irc"]
        cfg["bot"]["data_dir"] = os.path.join(tmp, "data")
        cfg["bot"]["log_level"] = args.log_level
        net = dict(cfg["matrix"][0])
        net.update(name="mx", homeserver=hs.url, user_id=BOT,
                   password="pw-bot",
                   rooms=["#r%03d:%s" % (i, SERVER)
                          for i in range(args.rooms)])
        cfg["matrix"] = [net]

        hs.reset_counters()
        t0 = time.monotonic()
        bot = harness.Bot(tmp, cfg)
        pending = set(rooms)
        deadline = t0 + args.join_timeout
        while pending and time.monotonic() < deadline and bot.alive():
            pending = {r for r in pending
                       if hs.membership(r, BOT) != "join"}
            time.sleep(0.05)
        t_joined = time.monotonic() - t0
        join_reqs = hs.counters(BOT) or {}
        if pending:
            print("not joined after %.0f s: %d rooms" % (
                args.join_timeout, len(pending)))

        time.sleep(args.settle)
        mem_idle = scripted.proc_mem(bot.pid)
        hs.reset_counters()
        cpu0 = scripted.proc_cpu(bot.pid)
        time.sleep(args.idle)
        idle = hs.counters(BOT) or {}
        cpu_idle = scripted.proc_cpu(bot.pid) - cpu0

        t1 = time.monotonic()
        for p in players:
            p.say(p.room, "!hearts")
            p.state = "opening"
        deadline = t1 + args.table_timeout
        while (any(p.state != "dealt" for p in players)
               and time.monotonic() < deadline):
            for p in players:
                for room_id, body in p.sync(timeout_ms=0):
                    if (room_id == p.room and p.state == "opening"
                            and "opens a Hearts table" in body):
                        p.say(p.room, "!start")
                        p.state = "starting"
                    elif (room_id == p.room and p.state == "starting"
                          and body.startswith("The game begins")):
                        p.state = "waiting"
                    elif room_id == p.dm and p.state == "waiting":
                        p.state = "dealt"
            time.sleep(0.1)
        t_tables = time.monotonic() - t1
        dealt = sum(p.state == "dealt" for p in players)
        time.sleep(args.settle)
        mem_tables = scripted.proc_mem(bot.pid)
        alive = bot.alive()
    finally:
        rc = bot.stop() if bot else None
        hs.stop()

    n = args.rooms
    secs = float(args.idle)
    print("\n| figure | value |")
    print("|---|---|")
    print("| rooms joined | %d of %d |" % (n - len(pending), n))
    print("| start to every room joined | %.2f s |" % t_joined)
    print("| requests until then | %d (%s) |" % (
        join_reqs.get("requests", 0), ", ".join(
            "%s %d" % (k, v) for k, v in sorted(join_reqs.items())
            if k not in ("requests", "sends", "logins", "syncs"))))
    print("| VmRSS / VmHWM, idle in %d rooms | %s / %s |" % (
        n, kib(mem_idle[0]), kib(mem_idle[1])))
    print("| requests per second, idle (%d s) | %.3f (%d: %s) |" % (
        args.idle, idle.get("requests", 0) / secs, idle.get("requests", 0),
        ", ".join("%s %d" % (k, v) for k, v in sorted(idle.items())
                  if k not in ("requests", "sends", "syncs", "logins"))))
    print("| bot CPU, idle | %.2f s in %d s |" % (cpu_idle, args.idle))
    print("| tables opened and dealt (a direct room each) | %d of %d in "
          "%.1f s |" % (dealt, args.tables, t_tables))
    print("| VmRSS / VmHWM after the tables | %s / %s |" % (
        kib(mem_tables[0]), kib(mem_tables[1])))
    print("| bot alive at the end / exit code | %s / %s |" % (alive, rc))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--idle", type=int, default=30,
                    help="seconds of idle request counting")
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--join-timeout", type=float, default=60.0)
    ap.add_argument("--table-timeout", type=float, default=60.0)
    ap.add_argument("--log-level", default="info")
    args = ap.parse_args()
    args.tables = min(args.tables, args.rooms)
    print("machine: " + scripted.describe_machine())
    print("bot: %s" % harness.bot_binary())
    tmp = tempfile.mkdtemp(prefix="heartsbot-mxrooms-")
    try:
        return run(args, tmp)
    finally:
        if os.environ.get("HEARTS_KEEP_TMP") == "1":
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Benchmark: the bot with many tables at once on one IRC network.

--tables N (default 100) channels #t000..., each with one scripted person
(p000...) and three computer players. The person says "!hearts standard",
then "!start" when the table opens, passes three random cards when dealt,
plays a random marked card at every prompt, and opens a new game when one
ends; every answer goes out the moment the bot's line arrives. Throttling
is off for the bot: ngIRCd with MaxPenaltyTime 0 (Ngircd strict=False),
the bot at flood_burst 100, flood_interval_ms 100 (the config's limits).
Everything else is config.example.toml's ([game] turn_timeout 90, ...),
with log_level info.

The measurement window opens once every table has dealt its first hand
(or after --start-timeout s) and lasts --window s. Figures over it:

- commands handled per second: person commands whose reply arrived in the
  window. Replies: a play of tricks 1-12 -> the next "Your turn" prompt to
  that person (the three computer players act in between); the play of
  trick 13 (and "moon add") -> the next hand's "Hand N at" message or its
  first prompt (next_hand_delay, 3 s, included); a pass -> "You received"
  or the first prompt, whichever comes first; "!hearts" -> the channel's
  "opens a Hearts table"; "!start" -> "The game begins".
- latency p50 / p99 by command kind, measured from the write of the
  command to the read that brought the reply (both on this machine's
  monotonic clock).
- lines the bot sent in the window (channel and private, as received).
- CPU of the bot, of ngIRCd and of this client process (utime + stime
  from /proc, as % of one core over the window), the bot's VmRSS sampled
  every 10 s and VmRSS / VmHWM at the end.
- trouble: reminders (and those sent to people whose cards had not yet
  arrived), "Time is up" lines (the bot acted for the person), other
  private lines (refusals), disconnects, the bot's log warnings (a full
  out-queue drops lines), its exit code on SIGTERM.

Run: /usr/bin/python3 bench/irc_load.py [--tables N] [--window S]
with HEARTSBOT=build-bench/heartsbot (default build/heartsbot).
"""

import argparse
import os
import random
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/ or the harness
import scripted  # noqa: E402
from scripted import harness

BOT = "heartsbot"


class Load:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.people = []
        self.chan_cmds = []        # (kind, sent, answered)
        self.started = set()       # people whose first deal came
        self.lines = []            # (time, "channel"|"private")
        self.blind_reminders = 0   # reminders before the person's deal

    # -- the script in each channel

    def on_channel(self, p, msg):
        text = msg.text
        pend = getattr(p, "chan_pending", None)
        if "opens a Hearts table" in text:
            if pend and pend[0] == "open":
                self.chan_cmds.append(("open", pend[1], msg.time))
            p.chan_pending = ("start", p.say("!start"))
        elif text.startswith("The game begins"):
            if pend and pend[0] == "start":
                self.chan_cmds.append(("start", pend[1], msg.time))
            p.chan_pending = None
        elif text.startswith("Game over"):
            p.games_done = getattr(p, "games_done", 0) + 1
            p.chan_pending = ("open", p.say("!hearts standard"))

    def on_line(self, p, kind, msg, ev=None):
        self.lines.append((msg.time, "channel" if kind == "channel"
                           else "private"))
        if kind == "deal":
            self.started.add(p)
        elif kind == "reminder" and p not in self.started:
            self.blind_reminders += 1

    # -- the run

    def go(self, tmp):
        a = self.args
        server = harness.Ngircd(tmp, strict=False)
        chans = ["#t%03d" % i for i in range(a.tables)]
        cfg = harness.bot_config(
            server.port, os.path.join(tmp, "data"), channels=chans,
            nick=BOT, bot={"log_level": a.log_level},
            game={"turn_timeout": a.turn_timeout},
            irc={"flood_burst": a.flood_burst,
                 "flood_interval_ms": a.flood_interval})
        bot = harness.Bot(tmp, cfg)
        loop = scripted.Loop()
        self.server, self.bot = server, bot
        try:
            self._run(loop, chans)
        finally:
            loop.close()
            self.bot_alive_at_end = bot.alive()
            self.bot_log = bot.log()
            self.bot_rc = bot.stop()
            server.stop()

    def _run(self, loop, chans):
        a = self.args
        by_conn = {}

        def dispatch(conn, msg):
            p = by_conn.get(conn)
            if p is not None:
                p.handle(msg)

        t_begin = time.monotonic()
        nicks = ["p%03d" % i for i in range(a.tables)]
        conns = scripted.connect_all(loop, self.server.port, nicks, dispatch)
        for c, chan in zip(conns, chans):
            p = scripted.Person(c, BOT, chan,
                                random.Random(self.rng.random()))
            p.on_channel = self.on_channel
            p.on_line = self.on_line
            p.chan_pending = None
            by_conn[c] = p
            self.people.append(p)
            c.send("JOIN " + chan)
        self.t_connected = time.monotonic() - t_begin
        if not loop.run(lambda: all(p.bot_here for p in self.people), 60):
            missing = [p.channel for p in self.people if not p.bot_here]
            raise RuntimeError("the bot is not in %d channels (%s ...)"
                               % (len(missing), ", ".join(missing[:5])))
        t_open = time.monotonic()
        for p in self.people:
            p.chan_pending = ("open", p.say("!hearts standard"))
        loop.run(lambda: len(self.started) == len(self.people)
                 or not self.bot.alive(), a.start_timeout)
        self.t_start = time.monotonic() - t_open
        self.started_at_window = len(self.started)

        # the window
        pid, spid = self.bot.pid, self.server.proc.pid
        rss = []
        t0 = time.monotonic()
        cpu0 = (scripted.proc_cpu(pid), scripted.proc_cpu(spid),
                scripted.self_cpu())
        rss.append((0.0,) + scripted.proc_mem(pid))
        next_sample = [t0 + 10]

        def tick():
            now = time.monotonic()
            if now >= next_sample[0] and self.bot.alive():
                rss.append((now - t0,) + scripted.proc_mem(pid))
                next_sample[0] += 10

        loop.run(lambda: not self.bot.alive(), a.window, tick)
        t1 = time.monotonic()
        alive = self.bot.alive()
        if alive:
            cpu1 = (scripted.proc_cpu(pid), scripted.proc_cpu(spid),
                    scripted.self_cpu())
            self.mem_end = scripted.proc_mem(pid)
        else:
            cpu1 = cpu0
            self.mem_end = None
        self.t0, self.t1 = t0, t1
        self.closed = [(c.nick, c.close_reason) for c in conns if c.closed]
        # where each table stands at the end of the window
        states = {}
        for p in self.people:
            if p.pending:
                st = "waiting for the reply to a " + p.pending[0]
            elif p.chan_pending:
                st = {"open": "waiting for the table to open",
                      "start": "waiting for the game to begin"}[
                          p.chan_pending[0]]
            elif p in self.started:
                st = "waiting for a prompt"
            else:
                st = "waiting for the first deal"
            states[st] = states.get(st, 0) + 1
        self.states = states
        self.cpu = [b - a_ for a_, b in zip(cpu0, cpu1)]
        self.rss = rss

    # -- the figures

    def report(self):
        a = self.args
        t0, t1 = self.t0, self.t1
        w = t1 - t0
        print("\ntables %d, window %.1f s; %d clients registered in %.1f s; "
              "%d of %d tables dealt within %.2f s of the first !hearts"
              % (a.tables, w, len(self.people), self.t_connected,
                 self.started_at_window, a.tables, self.t_start))
        replies = [r for p in self.people for r in p.replies]
        replies += self.chan_cmds
        inwin = [r for r in replies if t0 <= r[2] < t1]
        print("commands handled in the window: %d = %.2f per second"
              % (len(inwin), len(inwin) / w if w > 0 else 0))
        print("%-7s %7s %9s %9s %9s %9s" % ("command", "count", "p50 s",
                                            "p99 s", "max s", "mean s"))
        for kind in ("play", "last", "pass", "open", "start", "moon",
                     "back"):
            lat = [r[2] - r[1] for r in inwin if r[0] == kind]
            if not lat:
                continue
            print("%-7s %7d %9.3f %9.3f %9.3f %9.3f" % (
                kind, len(lat), scripted.percentile(lat, 50),
                scripted.percentile(lat, 99), max(lat),
                sum(lat) / len(lat)))
        sent = [t for p in self.people for (k, t) in p.sent if t0 <= t < t1]
        print("commands sent in the window: %d; people at its end: %s"
              % (len(sent), ", ".join("%s %d" % kv for kv in
                                      sorted(self.states.items()))))
        chan = sum(1 for t, k in self.lines if t0 <= t < t1
                   and k == "channel")
        priv = sum(1 for t, k in self.lines if t0 <= t < t1
                   and k == "private")
        print("bot lines received in the window: %d channel + %d private = "
              "%.1f lines/s" % (chan, priv, (chan + priv) / w))
        # ten-second slices: is it steady? (commands, channel+private
        # lines, p50 of plays)
        print("per 10 s: %s" % "; ".join(
            "%d-%ds %d cmds %d+%d lines p50 %s" % (
                s, s + 10, len(sl),
                sum(1 for t, k in self.lines
                    if t0 + s <= t < t0 + s + 10 and k == "channel"),
                sum(1 for t, k in self.lines
                    if t0 + s <= t < t0 + s + 10 and k == "private"),
                "%.2f s" % scripted.percentile(
                    [r[2] - r[1] for r in sl if r[0] == "play"], 50)
                if any(r[0] == "play" for r in sl) else "-")
            for s in range(0, int(w), 10)
            for sl in [[r for r in inwin
                        if t0 + s <= r[2] < t0 + s + 10]]))
        print("CPU over the window (%% of one core): bot %.1f%%, ngircd "
              "%.1f%%, this client process %.1f%%"
              % tuple(100.0 * c / w for c in self.cpu))
        if self.mem_end:
            print("bot memory at the end: VmRSS %d KiB, VmHWM %d KiB"
                  % self.mem_end)
        print("bot VmRSS during the window (s: KiB): " + ", ".join(
            "%d: %d" % (t, r) for t, r, _ in self.rss))
        rem = sum(p.reminders for p in self.people)
        tos = sum(p.timeouts for p in self.people)
        other = [t for p in self.people for t in p.other]
        games = sum(getattr(p, "games_done", 0) for p in self.people)
        print("over the whole run: reminders %d, timeouts %d, other private "
              "lines %d, games finished %d" % (rem, tos, len(other), games))
        for t in sorted(set(other))[:8]:
            print("   other: %s" % t[:150])
        if self.blind_reminders:
            print("!! reminders to people whose cards had not yet arrived: %d"
                  % self.blind_reminders)
        if self.closed:
            print("!! %d clients disconnected, e.g. %s (%s)"
                  % ((len(self.closed),) + self.closed[0]))
        warns = [l for l in self.bot_log.splitlines()
                 if " warn " in l or " error " in l]
        if warns:
            print("!! bot log: %d warnings/errors; first: %s; last: %s"
                  % (len(warns), warns[0], warns[-1]))
        if not self.bot_alive_at_end:
            print("!! the bot died; end of its log:\n"
                  + "\n".join(self.bot_log.splitlines()[-20:]))
        elif self.bot_rc != 0:
            print("!! the bot's exit code on SIGTERM: %s" % self.bot_rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--window", type=float, default=60.0,
                    help="seconds measured (default 60)")
    ap.add_argument("--start-timeout", type=float, default=120.0,
                    help="seconds to wait for every table's first deal "
                    "before the window opens anyway (default 120)")
    ap.add_argument("--flood-burst", type=int, default=100)
    ap.add_argument("--flood-interval", type=int, default=100,
                    help="flood_interval_ms (default 100, the minimum)")
    ap.add_argument("--turn-timeout", type=int, default=90)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-level", default="info",
                    help="the bot's log level (debug logs every line sent)")
    args = ap.parse_args()
    if harness.bot_binary() is None:
        sys.exit("no bot binary: set HEARTSBOT or build build/heartsbot")
    if not harness.Ngircd.available():
        sys.exit("ngircd is not installed")
    print("irc_load: %s; bot %s" % (time.strftime("%Y-%m-%d %H:%M %Z"),
                                    harness.bot_binary()))
    print("machine: " + scripted.describe_machine())
    print("ngircd MaxPenaltyTime 0; bot flood_burst %d, flood_interval_ms "
          "%d, turn_timeout %d" % (args.flood_burst, args.flood_interval,
                                   args.turn_timeout))
    load = Load(args)
    tmp = tempfile.mkdtemp(prefix="heartsbot-load-")
    try:
        load.go(tmp)
        load.report()
    finally:
        if os.environ.get("HEARTS_KEEP_TMP") == "1":
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, True)
    print("\nload average after: " + scripted.load_average())
    return 0


if __name__ == "__main__":
    sys.exit(main())

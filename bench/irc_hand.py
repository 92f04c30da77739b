#!/usr/bin/python3
"""Benchmark: what one 4-player hand costs on IRC, in lines and in time.

One command per configuration (docs/benchmarks.md has
the results and the date):

  B="env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/irc_hand.py"
  $B --server ngircd   --pace instant   --flooders 3   # ~6 min: no flood,
                                                       # then 3 flooders
  $B --server inspircd --pace instant                  # ~3 min
  $B --server ngircd   --pace realistic                # ~8 min
  $B --server inspircd --pace realistic                # ~8 min

Four scripted people (alice, bob, carol, dave) sit at one table in
#hearts, all seats human. --pace instant: they answer every prompt the
moment it arrives; --pace realistic: each waits a random 2-6 s (seeded,
--think LO,HI) before each pass and play. For each mode the program
starts its own IRC server (--server) and bot on 127.0.0.1, plays --hands
hands (a new game if one ends), and prints:

- lines the bot sent per hand, counted as they arrive: channel lines (seen
  by alice) and private lines to each player, by kind;
- the hand's duration: from the channel's "Hand N: pass ..." line to its
  "Hand N scores" line (the next deal follows after [game]
  next_hand_delay, 3 s, not counted), and the gaps between the bot's
  lines;
- prompt wait behind pacing: for each prompt, the time from the command
  that made it that person's turn (the play before it on the trick, the
  play that ended the trick before, or the last pass of the hand) to the
  prompt's arrival. The command is timed when it is written, after its
  sender's think time, so no one's thinking is in it: it is the time the
  prompt spent in the bot and its out-queue (and the server). Trick-1
  prompts of a hand without passing have no such command (the deal
  follows a timer) and are left out;
- a trick's channel line behind the play: its arrival against the write
  of the play that ended the trick (trick 13, which the bot plays itself,
  against the play that ended trick 12), and, as measured before
  2026-11-24, against the first prompt of the next trick.

- the channel's lag behind the prompts: for each trick, how
  long after the first prompt of the next trick (which names who took
  it) the trick's channel line arrived (0 when it came first), and at
  each prompt for trick N how many tricks the channel had not shown yet
  (N - 1 minus the last trick line arrived by then): median and largest,
  in seconds and in tricks.

--people 1 seats alice alone with three computer players ("!start" at an
open table fills it); the default, 4, seats four people.

Servers (--server):
  ngircd    ngIRCd 26 (harness.Ngircd); throttled: its default throttling
            (strict=True); not throttled: MaxPenaltyTime 0.
  inspircd  InspIRCd 3 (harness.Inspircd); throttled: the connect class of
            Debian's /etc/inspircd/inspircd.conf (threshold 10, recvq
            8192, softsendq 8192, hardsendq 262144; commandrate and
            fakelag left at InspIRCd's defaults, 1000 = one command a
            second and "yes": a flood is delayed, not killed), except
            localmax/globalmax (3 there; the harness allows 1000, as
            every client here comes from 127.0.0.1); not throttled: the
            same class with threshold 100000 and commandrate 1000000.

Modes (--modes, comma-separated; default `defaults`):
  defaults   the server throttled, the bot with every flood_* key left out
             of its config: the bot's own built-in pacing, whatever it is
             at the commit measured.
  throttled  the server throttled, the bot at flood_burst 4,
             flood_interval_ms 1100 (the other flood_* keys as in
             config.example.toml).
  fast       the server not throttled, the bot at 100/100.
  ircd       the server throttled, the bot at 100/100.
  queue      the server not throttled, the bot at 4/1100.

Each line is attributed to a hand by its content, not by when it came:
channel lines follow the last "Hand N:" line, a player's private lines
the last "Hand N at" deal that player got (each destination has its own
queue in the bot, never reordered). Lines of the game as a whole (the
table opening, seats taken, "The game begins", "Game over") are counted
apart.

--flooders N adds N more people (flood1, ...) who send the bot a private
message (--flood-text, numbered unless --flood-same) every --flood-every
seconds from the first deal on. The same mode is run first without them
(unless --no-baseline), and the trick lines' delay is compared.

Run with HEARTSBOT=build-bench/heartsbot (default build/heartsbot);
HEARTS_KEEP_TMP=1 keeps the servers' and the bot's logs.
"""

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/ or the harness
import scripted  # noqa: E402
from scripted import harness

PLAYERS = ("alice", "bob", "carol", "dave")
CHANNEL = "#hearts"
BOT = "heartsbot"

# flood: (flood_burst, flood_interval_ms), or None for the bot's own
MODES = {
    "defaults": dict(throttled=True, flood=None),
    "throttled": dict(throttled=True, flood=(4, 1100)),
    "fast": dict(throttled=False, flood=(100, 100)),
    "ircd": dict(throttled=True, flood=(100, 100)),
    "queue": dict(throttled=False, flood=(4, 1100)),
}

# The <connect> class of Debian 12's /etc/inspircd/inspircd.conf; what it
# leaves out (commandrate, fakelag) takes InspIRCd's defaults: 1000, yes.
INSPIRCD_DEBIAN = harness.Inspircd.DEBIAN_CLASS
INSPIRCD_OPEN = dict(strict=False, threshold=100000, commandrate=1000000)

PACES = {"instant": None, "realistic": (2.0, 6.0)}

_HEADER_RE = re.compile(r"^Hand (\d+): ")
_SCORES_RE = re.compile(r"^Hand (\d+) scores:")
_GAME_LINES = ("The game begins", "Game over", "Another game?")


def start_server(kind, tmp, throttled):
    if kind == "ngircd":
        return harness.Ngircd(tmp, strict=throttled)
    return harness.Inspircd(tmp, **(INSPIRCD_DEBIAN if throttled
                                    else INSPIRCD_OPEN))


def describe_server(kind, throttled):
    if kind == "ngircd":
        return "ngIRCd, " + ("default throttling" if throttled
                             else "MaxPenaltyTime 0")
    return "InspIRCd, " + ("Debian's connect class (threshold 10, "
                           "commandrate 1000, fakelag)" if throttled
                           else "no flood limits")


def stats(values):
    """'p50 x, p90 y, max z s' of a list."""
    if not values:
        return "none"
    return "p50 %.2f s, p90 %.2f s, max %.2f s" % (
        scripted.percentile(values, 50), scripted.percentile(values, 90),
        max(values))


class Run:
    """One mode: a server, a bot, four people, the counts."""

    def __init__(self, name, server, throttled, flood, hands, seed, timeout,
                 pace=None, log_level="info", flooders=0, flood_every=0.3,
                 flood_text="help", flood_same=False, people=4):
        self.name = name
        self.npeople = people
        self.server_kind = server
        self.throttled = throttled
        self.flood = flood
        self.pace = pace
        self.flooders = flooders
        self.flood_every = flood_every
        self.flood_text = flood_text
        self.flood_same = flood_same
        self.flood_sent = 0
        self.flood_answers = 0
        self.log_level = log_level
        self.want = hands
        self.timeout = timeout
        self.rng = random.Random(seed)
        self.hand_seq = 0          # channel "Hand N:" lines seen
        self.hands = {}            # seq -> dict of counts and times
        self.game_lines = 0
        self.bot_times = []        # arrival of every line from the bot
        self.games = 0
        self.done = False
        self.error = None
        self.last_move = None      # (sent, kind) of the last pass or play
        self.prompt_waits = []     # seconds, see the module's doc
        # (wait, hand, trick, cards on the trick, trigger's kind, nick)
        self.prompt_where = []
        self.thinks = []           # think times before passes and plays
        self.other_channel = []    # texts of unexpected channel lines

    # -- counting

    def _hand(self, seq):
        return self.hands.setdefault(seq, {
            "channel": {}, "private": {}, "per_player": {},
            "trick_at": {}, "prompt_at": {}, "ended_at": {}, "prompts": [],
            "start": None, "end": None})

    def on_move(self, person, kind, sent, think, ev):
        self.last_move = (sent, kind)
        self.thinks.append(think)
        if kind != "pass" and isinstance(ev, harness.Prompt) and len(ev.trick) == 3:
            # this play ends the trick
            h = self._hand(person.hand_seq)
            h["ended_at"][ev.trick_no] = sent
            if ev.trick_no == 12:   # the bot plays trick 13 at once
                h["ended_at"][13] = sent

    def on_line(self, person, kind, msg, ev):
        if kind == "channel" and person is not self.people[0]:
            return              # every player sees it: count alice's
        self.bot_times.append(msg.time)
        if kind == "channel":
            text = msg.text
            trick = harness.parse_trick_line(text)
            if _SCORES_RE.match(text):
                h = self._hand(self.hand_seq)
                h["end"] = msg.time
                sub = "scores"
            elif _HEADER_RE.match(text):
                self.hand_seq += 1
                h = self._hand(self.hand_seq)
                h["start"] = msg.time
                sub = "header"
            elif trick:
                h = self._hand(self.hand_seq)
                sub = "trick"
                h["trick_at"].setdefault(trick[0], msg.time)
            elif (self.hand_seq == 0 or text.startswith(_GAME_LINES)
                  or "a Hearts table" in text or "sit down" in text
                  or "sits down" in text or "table is full" in text):
                self.game_lines += 1
                return
            else:
                h = self._hand(self.hand_seq)
                sub = "other"
                self.other_channel.append(text)
            h["channel"][sub] = h["channel"].get(sub, 0) + 1
            return
        h = self._hand(person.hand_seq)
        if kind == "prompt" and isinstance(ev, harness.Prompt):
            h["prompt_at"].setdefault(ev.trick_no, msg.time)
            h["prompts"].append((msg.time, ev.trick_no))
            # a hand's first lead follows the last pass, or (no passing)
            # a timer: that one has no command to time it from
            if self.last_move is not None and (
                    ev.trick_no > 1 or ev.trick
                    or self.last_move[1] == "pass"):
                self.prompt_waits.append(msg.time - self.last_move[0])
                self.prompt_where.append((
                    msg.time - self.last_move[0], person.hand_seq,
                    ev.trick_no, len(ev.trick), self.last_move[1],
                    person.conn.nick))
        h["private"][kind] = h["private"].get(kind, 0) + 1
        pp = h["per_player"]
        pp[person.conn.nick] = pp.get(person.conn.nick, 0) + 1

    # -- the script at the table

    def on_channel(self, person, msg):
        text = msg.text
        if person is not self.people[0]:
            return
        if "opens a Hearts table" in text:
            if len(self.people) == 1:
                person.say("!start")   # three computers fill the table
            for p in self.people[1:]:
                p.say("!join")
        elif "The table is full" in text:
            person.say("!start")
        elif text.startswith("The game begins"):
            self.games += 1
        elif _SCORES_RE.match(text):
            if len([h for h in self.hands.values() if h["end"]]) >= self.want:
                self.done = True
        elif text.startswith("Game over") and not self.done:
            person.say("!hearts standard")

    # -- the run

    def go(self, tmp):
        server = start_server(self.server_kind, tmp, self.throttled)
        irc = {}
        if self.flood is not None:
            irc = {"flood_burst": self.flood[0],
                   "flood_interval_ms": self.flood[1]}
        cfg = harness.bot_config(
            server.port, os.path.join(tmp, "data"), channels=(CHANNEL,),
            nick=BOT, bot={"log_level": self.log_level}, irc=irc)
        if self.flood is None:
            net = cfg["irc"][0]
            for k in [k for k in net if k.startswith("flood_")]:
                del net[k]
        self.irc_config = {k: v for k, v in cfg["irc"][0].items()
                           if k.startswith("flood_")}
        bot = harness.Bot(tmp, cfg)
        loop = scripted.Loop()
        try:
            return self._play(server, bot, loop)
        finally:
            loop.close()
            self.bot_rc = bot.stop()
            self.server_log_tail = server.log_tail(5)
            server.stop()

    def _play(self, server, bot, loop):
        by_conn = {}
        flood_nicks = ["flood%d" % (i + 1) for i in range(self.flooders)]

        def dispatch(conn, msg):
            p = by_conn.get(conn)
            if p is not None:
                p.handle(msg)
            elif (msg.command in ("PRIVMSG", "NOTICE")
                  and msg.nick == BOT):
                self.flood_answers += 1

        players = PLAYERS[:self.npeople]
        conns = scripted.connect_all(loop, server.port,
                                     players + tuple(flood_nicks), dispatch)
        floods = conns[len(players):]
        conns = conns[:len(players)]
        next_flood = [0.0]

        def flood():
            now = time.monotonic()
            if not floods or self.hand_seq == 0 or now < next_flood[0]:
                return
            next_flood[0] = now + self.flood_every
            for f in floods:
                self.flood_sent += 1
                text = self.flood_text if self.flood_same else \
                    "%s%d" % (self.flood_text, self.flood_sent)
                f.send("PRIVMSG %s :%s" % (BOT, text))
        self.people = []
        for c in conns:
            p = scripted.Person(c, BOT, CHANNEL,
                                random.Random(self.rng.random()),
                                pace=self.pace)
            p.on_line = self.on_line
            p.on_move = self.on_move
            p.on_channel = self.on_channel
            by_conn[c] = p
            self.people.append(p)
            c.send("JOIN " + CHANNEL)
        if not loop.run(lambda: all(p.bot_here for p in self.people), 30):
            raise RuntimeError("the bot did not join %s; log:\n%s"
                               % (CHANNEL, bot.log()[-2000:]))
        cpu0 = scripted.proc_cpu(bot.pid)
        self.people[0].say("!hearts standard")
        ok = loop.run(lambda: self.done or not bot.alive()
                      or any(c.closed for c in conns + floods),
                      self.timeout, tick=flood)
        self.bot_cpu = scripted.proc_cpu(bot.pid) - cpu0 if bot.alive() \
            else None
        self.bot_mem = scripted.proc_mem(bot.pid) if bot.alive() else None
        self.disconnects = ["%s (%s)" % (c.nick, c.close_reason)
                            for c in conns + floods if c.closed]
        if not bot.alive():
            self.error = "the bot died: %s" % bot.log()[-2000:]
        elif self.disconnects:
            self.error = "disconnected: " + ", ".join(self.disconnects)
        elif not ok:
            self.error = "timeout after %d s with %d hands" % (
                self.timeout, len([h for h in self.hands.values()
                                   if h["end"]]))
        log = bot.log().splitlines()
        self.warnings = [l for l in log
                         if " warn" in l.lower() or "error" in l.lower()]
        self.bot_quit = [l for l in log if "disconnect" in l.lower()
                         or "excess flood" in l.lower()]
        return ok

    # -- the figures

    def describe(self):
        flood = ("the bot's own flood defaults (no flood_* key in its "
                 "config)" if self.flood is None else
                 "bot flood_burst %d, flood_interval_ms %d" % self.flood)
        pace = ("instant" if not self.pace else
                "realistic (%g-%g s before each pass and play)" % self.pace)
        table = ("4 people" if self.npeople == 4 else
                 "1 person + 3 computers")
        return "%s: %s; %s; %s, pace %s" % (
            self.name, describe_server(self.server_kind, self.throttled),
            flood, table, pace)

    def report(self):
        print("\n== " + self.describe())
        if self.flooders:
            print("flooders: %d, a private %r every %.2f s each: sent %d, "
                  "answered with %d lines" % (
                      self.flooders, self.flood_text, self.flood_every,
                      self.flood_sent, self.flood_answers))
        if self.error:
            print("!! " + self.error)
        full = sorted(s for s, h in self.hands.items()
                      if s > 0 and h["start"] and h["end"])
        if not full:
            print("no complete hand")
            return None
        print("complete hands: %d (in %d game%s)" % (
            len(full), self.games, "" if self.games == 1 else "s"))
        print("%-6s %8s %8s %8s %12s %10s" % ("hand", "channel", "private",
                                              "total", "duration s",
                                              "lines/s"))
        tot_c = tot_p = 0
        durs = []
        kinds_c, kinds_p, per_player = {}, {}, {}
        for s in full:
            h = self.hands[s]
            c = sum(h["channel"].values())
            p = sum(h["private"].values())
            d = h["end"] - h["start"]
            tot_c += c
            tot_p += p
            durs.append(d)
            for k, v in h["channel"].items():
                kinds_c[k] = kinds_c.get(k, 0) + v
            for k, v in h["private"].items():
                kinds_p[k] = kinds_p.get(k, 0) + v
            for k, v in h["per_player"].items():
                per_player[k] = per_player.get(k, 0) + v
            print("%-6d %8d %8d %8d %12.2f %10.2f" % (
                s, c, p, c + p, d, (c + p) / d if d > 0 else 0))
        n = len(full)
        print("%-6s %8.1f %8.1f %8.1f %12.2f" % (
            "mean", tot_c / n, tot_p / n, (tot_c + tot_p) / n,
            sum(durs) / n))
        print("channel lines per hand by kind: " + ", ".join(
            "%s %.1f" % (k, v / n) for k, v in sorted(kinds_c.items())))
        print("private lines per hand by kind: " + ", ".join(
            "%s %.1f" % (k, v / n) for k, v in sorted(kinds_p.items())))
        print("private lines per hand per player: " + ", ".join(
            "%s %.1f" % (k, per_player.get(k, 0) / n)
            for k in PLAYERS[:self.npeople]))
        print("lines of the game as a whole (open, seats, begin, end): %d"
              % self.game_lines)
        for t in self.other_channel[:5]:
            print("   other channel line: " + t)
        if self.thinks and self.pace:
            print("think time before a pass or play: mean %.2f s (%d)"
                  % (sum(self.thinks) / len(self.thinks), len(self.thinks)))
        waits = self.prompt_waits
        print("prompt wait behind pacing (the command that made it the "
              "person's turn to the prompt's arrival): %s; over 2 s: %d of "
              "%d" % (stats(waits), sum(w > 2.0 for w in waits), len(waits)))
        # every wait over 2 s (at most 10), else the longest three
        slow = [x for x in self.prompt_where if x[0] > 2.0]
        if not slow:
            slow = sorted(self.prompt_where, reverse=True)[:3]
            if slow:
                print("   the longest:")
        elif len(slow) > 10:
            print("   the 10 longest:")
            slow = sorted(slow, reverse=True)[:10]
        for w, hand, trick, on, trigger, nick in slow:
            if w > 0.5:
                print("   %.2f s: hand %d trick %d, %s's prompt %s, after "
                      "a %s" % (w, hand, trick, nick,
                                "to lead" if not on else
                                "after %d card%s" % (on, "s"[:on > 1]),
                                "pass (the last of the hand)"
                                if trigger == "pass" else "play"))
        hs = [self.hands[s] for s in full]
        behind = [h["trick_at"][k] - h["ended_at"][k] for h in hs
                  for k in h["trick_at"] if k in h["ended_at"]]
        if behind:
            print("channel trick lines behind the play that ended the trick: "
                  "mean %.2f s, %s (%d tricks)"
                  % (sum(behind) / len(behind), stats(behind), len(behind)))
        # as measured before 2026-11-24: against the next trick's first
        # prompt (the trick was over then)
        lags = [h["trick_at"][k] - h["prompt_at"][k + 1]
                for h in hs for k in range(1, 13)
                if k in h["trick_at"] and k + 1 in h["prompt_at"]]
        if lags:
            print("channel trick lines behind the next trick's first prompt: "
                  "mean %.2f s, max %.2f s" % (sum(lags) / len(lags),
                                               max(lags)))
        lag_s, lag_t = channel_lag(hs)
        print("channel behind the prompts: median %s s, max %s "
              "s (%d tricks); in tricks: median %s, max %s (%d prompts)" % (
                  fmt(scripted.percentile(lag_s, 50)),
                  fmt(max(lag_s) if lag_s else None), len(lag_s),
                  fmt(scripted.percentile(lag_t, 50), "%d"),
                  fmt(max(lag_t) if lag_t else None, "%d"), len(lag_t)))
        gaps = [b - a for a, b in zip(self.bot_times, self.bot_times[1:])]
        if gaps:
            gaps.sort()
            print("gap between the bot's lines: median %.3f s, p90 %.3f s, "
                  "max %.2f s; gaps over 1.5 s: %d of %d" % (
                      scripted.percentile(gaps, 50),
                      scripted.percentile(gaps, 90), gaps[-1],
                      sum(g > 1.5 for g in gaps), len(gaps)))
        if self.bot_cpu is not None:
            print("bot CPU over the run: %.2f s; RSS %d KiB (peak %d KiB)"
                  % (self.bot_cpu, self.bot_mem[0], self.bot_mem[1]))
        odd = [t for p in self.people for t in p.other]
        tos = sum(p.timeouts for p in self.people)
        rem = sum(p.reminders for p in self.people)
        if odd or tos or rem:
            print("!! unexpected private lines %d, reminders %d, timeouts %d"
                  % (len(odd), rem, tos))
            for t in odd[:5]:
                print("   " + t)
        if self.warnings:
            print("!! bot log warnings/errors: %d, e.g.:" % len(self.warnings))
            for w in self.warnings[:5]:
                print("   " + w)
        if self.bot_quit:
            print("!! bot log disconnects: %d, e.g. %s"
                  % (len(self.bot_quit), self.bot_quit[0]))
        if self.bot_rc not in (0, None):
            print("!! the bot exited with %s" % self.bot_rc)
        return dict(
            name=self.name, server=self.server_kind, people=self.npeople,
            lag50=scripted.percentile(lag_s, 50),
            lagmax=max(lag_s) if lag_s else None,
            lagt50=scripted.percentile(lag_t, 50),
            lagtmax=max(lag_t) if lag_t else None,
            pace="realistic" if self.pace else "instant",
            flooders=self.flooders, hands=n, channel=tot_c / n,
            private=tot_p / n, duration=sum(durs) / n,
            behind_mean=sum(behind) / len(behind) if behind else None,
            behind_max=max(behind) if behind else None,
            wait50=scripted.percentile(waits, 50),
            wait90=scripted.percentile(waits, 90),
            waitmax=max(waits) if waits else None,
            over2=sum(w > 2.0 for w in waits), waits=len(waits),
            trouble=len(odd) + tos + rem + len(self.warnings)
            + len(self.disconnects))


def channel_lag(hands):
    """The channel's lag behind the prompts over complete hands: (for
    each trick 1-12 with a next trick prompted, the seconds its channel
    line came after that trick's first prompt, 0 if before; for each
    prompt of trick N >= 2, the tricks up to N - 1 whose lines had not
    arrived by then)."""
    secs, tricks = [], []
    for h in hands:
        for k in range(1, 13):
            if k in h["trick_at"] and k + 1 in h["prompt_at"]:
                secs.append(max(0.0,
                                h["trick_at"][k] - h["prompt_at"][k + 1]))
        for at, n in h["prompts"]:
            if n < 2:
                continue
            shown = max([k for k, t in h["trick_at"].items() if t <= at],
                        default=0)
            tricks.append(max(0, n - 1 - shown))
    return secs, tricks


def fmt(v, f="%.2f"):
    return "-" if v is None else f % v


def summary(results):
    """The figures as markdown rows, for docs/benchmarks.md."""
    print("\n| server | pace | people | mode | flooders | hands | lines per "
          "hand (channel + private) | s per hand | prompt wait p50 / p90 / "
          "max (over 2 s) | trick line behind the play, mean / max | "
          "channel behind the prompts, median / max s | in tricks, median "
          "/ max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print("| %s | %s | %s | %s | %d | %d | %.1f + %.1f = %.1f | %.1f | "
              "%s / %s / %s (%d of %d) | %s / %s | %s / %s | %s / %s |" % (
                  r["server"], r["pace"],
                  "4" if r["people"] == 4 else "1 + 3 computers", r["name"],
                  r["flooders"], r["hands"], r["channel"], r["private"],
                  r["channel"] + r["private"], r["duration"],
                  fmt(r["wait50"]), fmt(r["wait90"]), fmt(r["waitmax"]),
                  r["over2"], r["waits"], fmt(r["behind_mean"]),
                  fmt(r["behind_max"]), fmt(r["lag50"]), fmt(r["lagmax"]),
                  fmt(r["lagt50"], "%d"), fmt(r["lagtmax"], "%d")))
    base = [r for r in results if not r["flooders"]]
    for r in results:
        if not r["flooders"]:
            continue
        b = [x for x in base if x["name"] == r["name"]
             and x["server"] == r["server"] and x["pace"] == r["pace"]]
        if b and b[0]["behind_mean"] is not None \
                and r["behind_mean"] is not None:
            b = b[0]
            print("\ntrick line behind the play with %d flooders: mean "
                  "%+.2f s, max %+.2f s against the run without them "
                  "(goal: under +2 s)" % (
                      r["flooders"], r["behind_mean"] - b["behind_mean"],
                      r["behind_max"] - b["behind_max"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", choices=("ngircd", "inspircd"),
                    default="ngircd")
    ap.add_argument("--pace", choices=tuple(PACES), default="instant",
                    help="instant: answer at once; realistic: wait a random "
                    "2-6 s before each pass and play")
    ap.add_argument("--think", default=None,
                    help="LO,HI seconds of a realistic think time "
                    "(default 2,6)")
    ap.add_argument("--modes", default="defaults",
                    help="comma-separated: %s (default defaults)"
                    % ", ".join(MODES))
    ap.add_argument("--hands", type=int, default=None,
                    help="hands per mode (default: 2; 8 for fast at "
                    "instant pace)")
    ap.add_argument("--people", type=int, choices=(1, 4), default=4,
                    help="people at the table; 1: with three computers")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-level", default="info",
                    help="the bot's log level (debug logs every line sent)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per mode before giving up")
    ap.add_argument("--flooders", type=int, default=0,
                    help="people flooding the bot privately meanwhile")
    ap.add_argument("--flood-every", type=float, default=0.3,
                    help="seconds between a flooder's messages")
    ap.add_argument("--flood-text", default="help")
    ap.add_argument("--flood-same", action="store_true",
                    help="the same text every time (else numbered)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="with --flooders: skip the run without them")
    args = ap.parse_args()
    if harness.bot_binary() is None:
        sys.exit("no bot binary: set HEARTSBOT or build build/heartsbot")
    server_cls = harness.Ngircd if args.server == "ngircd" \
        else harness.Inspircd
    if not server_cls.available():
        sys.exit("%s is not installed" % args.server)
    pace = PACES[args.pace]
    if args.think:
        if pace is None:
            sys.exit("--think goes with --pace realistic")
        lo, hi = (float(x) for x in args.think.split(","))
        pace = (lo, hi)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            sys.exit("unknown mode %r" % m)
    print("irc_hand: %s; bot %s" % (time.strftime("%Y-%m-%d %H:%M %Z"),
                                    harness.bot_binary()))
    print("command: " + " ".join(sys.argv))
    print("machine: " + scripted.describe_machine())
    floods = [args.flooders] if args.no_baseline or not args.flooders \
        else [0, args.flooders]
    rc = 0
    results = []
    for m in modes:
        mode = MODES[m]
        slow = pace or mode["throttled"] or mode["flood"] is None \
            or mode["flood"][1] > 100
        hands = args.hands or (2 if slow else 8)
        per_hand = 400 if pace else 200
        timeout = args.timeout or (hands * per_hand + 60 if slow else 120)
        for nflood in floods:
            run = Run(m, args.server, mode["throttled"], mode["flood"],
                      hands=hands, seed=args.seed, timeout=timeout,
                      pace=pace, log_level=args.log_level, flooders=nflood,
                      flood_every=args.flood_every,
                      flood_text=args.flood_text,
                      flood_same=args.flood_same, people=args.people)
            tmp = tempfile.mkdtemp(prefix="heartsbot-bench-")
            try:
                run.go(tmp)
            finally:
                if os.environ.get("HEARTS_KEEP_TMP") == "1":
                    print("kept " + tmp)
                else:
                    shutil.rmtree(tmp, True)
            r = run.report()
            if r is None or run.error:
                rc = 1
            if r is not None:
                results.append(r)
            sys.stdout.flush()
    if results:
        summary(results)
    print("\nload average after: " + scripted.load_average())
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Benchmark: what one 4-player hand costs on IRC, in lines and in time.

Four scripted people (alice, bob, carol, dave) sit at one table in
#hearts, all seats human, and answer every prompt of the bot at once.
For each mode below the program starts its own ngIRCd and bot on
127.0.0.1, plays --hands hands (a new game if one ends), and prints:

- lines the bot sent per hand, counted as they arrive: channel lines (seen
  by alice) and private lines to each player, by kind, per hand;
- the hand's duration: from the channel's "Hand N: pass ..." line to its
  "Hand N scores" line (the next deal follows after [game]
  next_hand_delay, 3 s, not counted), and the gaps between the bot's
  lines.

Modes (--modes, comma-separated):
  throttled  ngIRCd's default throttling (Ngircd strict=True) and the
             bot's default out-queue (flood_burst 4, flood_interval_ms
             1100): the conditions of a real network.
  fast       throttling off: ngIRCd MaxPenaltyTime 0 (strict=False), the
             bot at flood_burst 100, flood_interval_ms 100 (the config's
             limits).
  ircd       ngIRCd's default throttling, the bot at 100/100: what ngIRCd
             alone costs.
  queue      no ngIRCd throttling, the bot's default 4/1100: what the
             bot's out-queue alone costs.

Each line is attributed to a hand by its content, not by when it came
(prompts go out at a higher priority than channel lines and can overtake
them): channel lines follow the last "Hand N:" line; a player's deal and
"You received" lines the last "Hand N at" message; prompts their trick
number (every player gets one prompt per trick, one "trick 1" per hand).
Lines of the game as a whole (the table opening, seats taken, "The game
begins", "Game over") are counted apart.

--flooders N adds N more people (flood1, ...) who send the bot a private
message (--flood-text, numbered unless --flood-same) every --flood-every
seconds from the first deal on: how much later the table's lines come
while others flood the bot, and how many answers the flooders get.

Run: /usr/bin/python3 bench/irc_hand.py [--hands N] [--modes ...]
with HEARTSBOT=build-bench/heartsbot (default build/heartsbot).
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

MODES = {
    "throttled": dict(strict=True, burst=4, interval=1100),
    "fast": dict(strict=False, burst=100, interval=100),
    "ircd": dict(strict=True, burst=100, interval=100),
    "queue": dict(strict=False, burst=4, interval=1100),
}

_HEADER_RE = re.compile(r"^Hand (\d+): ")
_SCORES_RE = re.compile(r"^Hand (\d+) scores:")
_TRICK_LINE_RE = re.compile(r"^Trick (\d+):")
_GAME_LINES = ("The game begins", "Game over", "A table is open")


class Run:
    """One mode: a server, a bot, four people, the counts."""

    def __init__(self, name, strict, burst, interval, hands, seed, timeout,
                 log_level="info", flooders=0, flood_every=0.3,
                 flood_text="help", flood_same=False):
        self.flooders = flooders
        self.flood_every = flood_every
        self.flood_text = flood_text
        self.flood_same = flood_same
        self.flood_sent = 0
        self.flood_answers = 0
        self.name = name
        self.log_level = log_level
        self.strict = strict
        self.burst = burst
        self.interval = interval
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

    # -- counting

    def _hand(self, seq):
        return self.hands.setdefault(seq, {
            "channel": {}, "private": {}, "per_player": {},
            "trick_at": {}, "prompt_at": {},
            "start": None, "end": None, "first": None, "last": None})

    def on_line(self, person, kind, msg):
        if kind == "channel" and person is not self.people[0]:
            return              # every player sees it: count alice's
        self.bot_times.append(msg.time)
        if kind == "channel":
            text = msg.text
            m = _HEADER_RE.match(text)
            if m and not _SCORES_RE.match(text):
                self.hand_seq += 1
                h = self._hand(self.hand_seq)
                h["start"] = msg.time
                sub = "header"
            elif _SCORES_RE.match(text):
                h = self._hand(self.hand_seq)
                h["end"] = msg.time
                sub = "scores"
            elif text.startswith("Trick"):
                h = self._hand(self.hand_seq)
                sub = "trick"
                t = _TRICK_LINE_RE.match(text)
                if t:
                    h["trick_at"].setdefault(int(t.group(1)), msg.time)
            elif (self.hand_seq == 0 or text.startswith(_GAME_LINES)
                  or "opens a Hearts table" in text or "sits down" in text
                  or "computer player" in text):
                self.game_lines += 1
                return
            else:
                h = self._hand(self.hand_seq)
                sub = "other"
            h["channel"][sub] = h["channel"].get(sub, 0) + 1
        else:
            if kind == "prompt":
                seq = person.prompt_seq
                t = scripted.TRICK_RE.search(msg.text)
                if t:
                    self._hand(seq)["prompt_at"].setdefault(int(t.group(1)),
                                                            msg.time)
            elif kind in ("deal", "received"):
                seq = person.hand_seq
            else:
                seq = max(person.hand_seq, person.prompt_seq)
            h = self._hand(seq)
            h["private"][kind] = h["private"].get(kind, 0) + 1
            pp = h["per_player"]
            pp[person.conn.nick] = pp.get(person.conn.nick, 0) + 1
        if h["first"] is None:
            h["first"] = msg.time
        h["last"] = msg.time

    # -- the script at the table

    def on_channel(self, person, msg):
        text = msg.text
        if person is not self.people[0]:
            return
        if "opens a Hearts table" in text:
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
        server = harness.Ngircd(tmp, strict=self.strict)
        cfg = harness.bot_config(
            server.port, os.path.join(tmp, "data"), channels=(CHANNEL,),
            nick=BOT, bot={"log_level": self.log_level},
            irc={"flood_burst": self.burst,
                 "flood_interval_ms": self.interval})
        bot = harness.Bot(tmp, cfg)
        loop = scripted.Loop()
        try:
            return self._play(server, bot, loop)
        finally:
            loop.close()
            self.bot_rc = bot.stop()
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

        conns = scripted.connect_all(loop, server.port,
                                     PLAYERS + tuple(flood_nicks), dispatch)
        floods = conns[len(PLAYERS):]
        conns = conns[:len(PLAYERS)]
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
                                random.Random(self.rng.random()))
            p.on_line = self.on_line
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
                      or any(c.closed for c in conns), self.timeout,
                      tick=flood)
        self.bot_cpu = scripted.proc_cpu(bot.pid) - cpu0 if bot.alive() \
            else None
        self.bot_mem = scripted.proc_mem(bot.pid) if bot.alive() else None
        if not bot.alive():
            self.error = "the bot died: %s" % bot.log()[-2000:]
        elif any(c.closed for c in conns):
            self.error = "disconnected: " + ", ".join(
                "%s (%s)" % (c.nick, c.close_reason) for c in conns
                if c.closed)
        elif not ok:
            self.error = "timeout after %d s with %d hands" % (
                self.timeout, len([h for h in self.hands.values()
                                   if h["end"]]))
        self.warnings = [l for l in bot.log().splitlines()
                         if " warn" in l.lower() or "error" in l.lower()]
        return ok

    # -- the figures

    def report(self):
        print("\n== %s: ngircd %s, bot flood_burst %d, flood_interval_ms %d"
              % (self.name, "default throttling (strict)" if self.strict
                 else "MaxPenaltyTime 0", self.burst, self.interval))
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
            "%s %.1f" % (k, per_player.get(k, 0) / n) for k in PLAYERS))
        print("lines of the game as a whole (open, seats, begin, end): %d"
              % self.game_lines)
        # how late the channel learns of a trick: its "Trick k" line
        # against the first prompt of trick k+1 (the trick was over then)
        lags = [h["trick_at"][k] - h["prompt_at"][k + 1]
                for h in (self.hands[s] for s in full) for k in range(1, 13)
                if k in h["trick_at"] and k + 1 in h["prompt_at"]]
        if lags:
            print("channel trick lines behind the play: mean %.1f s, max "
                  "%.1f s (a trick's line against the first prompt of the "
                  "next trick)" % (sum(lags) / len(lags), max(lags)))
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
            print("!! bot log warnings/errors: %d, e.g. %s"
                  % (len(self.warnings), self.warnings[0]))
        if self.bot_rc not in (0, None):
            print("!! the bot exited with %s" % self.bot_rc)
        return dict(channel=tot_c / n, private=tot_p / n,
                    duration=sum(durs) / n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", default="throttled,fast",
                    help="comma-separated: %s (default throttled,fast)"
                    % ", ".join(MODES))
    ap.add_argument("--hands", type=int, default=None,
                    help="hands per mode (default: 2 throttled, 8 fast)")
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
    args = ap.parse_args()
    if harness.bot_binary() is None:
        sys.exit("no bot binary: set HEARTSBOT or build build/heartsbot")
    if not harness.Ngircd.available():
        sys.exit("ngircd is not installed")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            sys.exit("unknown mode %r" % m)
    print("irc_hand: %s; bot %s" % (time.strftime("%Y-%m-%d %H:%M %Z"),
                                    harness.bot_binary()))
    print("machine: " + scripted.describe_machine())
    rc = 0
    for m in modes:
        slow = MODES[m]["interval"] > 100 or MODES[m]["strict"]
        hands = args.hands or (2 if slow else 8)
        timeout = args.timeout or (hands * 200 + 60 if slow else 120)
        run = Run(m, hands=hands, seed=args.seed, timeout=timeout,
                  log_level=args.log_level, flooders=args.flooders,
                  flood_every=args.flood_every, flood_text=args.flood_text,
                  flood_same=args.flood_same, **MODES[m])
        tmp = tempfile.mkdtemp(prefix="heartsbot-bench-")
        try:
            run.go(tmp)
        finally:
            if os.environ.get("HEARTS_KEEP_TMP") == "1":
                print("kept " + tmp)
            else:
                shutil.rmtree(tmp, True)
        if run.report() is None or run.error:
            rc = 1
    print("\nload average after: " + scripted.load_average())
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""Scripted Hearts players for the bot benchmarks: many IRC connections on
one selectors loop (with timers), and a person who answers every prompt of
the bot, at once or after a think time.

Why not harness.Client: it runs a reader thread per connection and keeps
every line; the load benchmark wants 100 connections whose reaction time
and CPU are small and measurable, so here one thread serves them all and
keeps counts instead of lines. Everything else (servers, the bot, its
config, the IRC line parser) comes from tests/integration/harness.py.

A person reads the bot's private messages (plain text or IRC formatting)
with the integration tests' parser (harness.parse_private):
- "Hand N at #chan. Your cards: ... | Pass 3 cards to X: ..." -> "pass A B C"
- "Your turn at #chan, trick 4: ... Play one of: ♣ 2 8. Others: ..." (or
  "Only legal: 2♣.", "Any card: ...") -> "play 8C" (a random legal card)
- "You shot the moon! ..." -> "moon add"
- "You timed out again ..." -> "back"
and keeps, for each command it sent, when the bot's reply to it came.
"""

import heapq
import os
import resource
import selectors
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

import harness  # noqa: E402  (after the path is set)

# ----------------------------------------------------------------------
# Connections on one loop.


class Loop:
    """A selectors loop over Conn objects."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.conns = []
        self.timers = []           # heap of (when, seq, callable)
        self._seq = 0

    def call_at(self, when, fn):
        """Runs fn() at monotonic time `when` (from run())."""
        self._seq += 1
        heapq.heappush(self.timers, (when, self._seq, fn))

    def _run_timers(self):
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            heapq.heappop(self.timers)[2]()

    def add(self, conn):
        self.conns.append(conn)
        self.sel.register(conn.sock, selectors.EVENT_READ, conn)

    def want_write(self, conn, on):
        ev = selectors.EVENT_READ | (selectors.EVENT_WRITE if on else 0)
        try:
            self.sel.modify(conn.sock, ev, conn)
        except (KeyError, ValueError, OSError):
            pass

    def remove(self, conn):
        try:
            self.sel.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    def run(self, until=None, timeout=None, tick=None):
        """Serves the connections until until() is true or `timeout`
        seconds pass; tick() (if given) runs after every select. Returns
        whether until() became true."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if until is not None and until():
                return True
            self._run_timers()
            left = 0.05
            if self.timers:
                left = max(0.0, min(left, self.timers[0][0]
                                    - time.monotonic()))
            if deadline is not None:
                if deadline <= time.monotonic():
                    return False
                left = min(left, deadline - time.monotonic())
            for key, mask in self.sel.select(left):
                conn = key.data
                if mask & selectors.EVENT_READ:
                    conn.on_readable()
                if mask & selectors.EVENT_WRITE and not conn.closed:
                    conn.flush()
            if tick is not None:
                tick()

    def close(self):
        for c in self.conns:
            c.close()
        self.sel.close()


class Conn:
    """One registered IRC connection on a Loop. on_message(conn, msg) gets
    every line but PING (answered here); msg.time is when the read that
    brought the line returned."""

    def __init__(self, loop, port, nick, on_message=None):
        self.loop = loop
        self.nick = nick
        self.on_message = on_message
        self.registered = False
        self.closed = False
        self.close_reason = None
        self.inbuf = b""
        self.outbuf = bytearray()
        self.lines_in = 0
        self.sock = socket.create_connection((harness.HOST, port), timeout=10)
        self.sock.setblocking(False)
        loop.add(self)
        self.send("NICK " + nick)
        self.send("USER %s 0 * :bench %s" % (nick[:10], nick))

    def send(self, line):
        """Queues one line and writes what the socket takes now. Returns
        the monotonic time of the write."""
        if self.closed:
            return time.monotonic()
        self.outbuf += line.encode("utf-8") + b"\r\n"
        now = time.monotonic()
        self.flush()
        return now

    def flush(self):
        try:
            n = self.sock.send(self.outbuf)
            del self.outbuf[:n]
        except BlockingIOError:
            pass
        except OSError as e:
            self._closed("send: %s" % e)
            return
        self.loop.want_write(self, bool(self.outbuf))

    def on_readable(self):
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            self._closed("recv: %s" % e)
            return
        now = time.monotonic()
        if not data:
            self._closed("closed by the server")
            return
        self.inbuf += data
        *lines, self.inbuf = self.inbuf.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not line:
                continue
            self.lines_in += 1
            msg = harness.parse_line(line, when=now)
            if msg.command == "PING":
                self.send("PONG :" + (msg.params[-1] if msg.params else ""))
                continue
            if msg.command in ("376", "422"):
                self.registered = True
            elif msg.command == "ERROR":
                self.close_reason = msg.raw
            elif msg.command in ("432", "433"):
                self._closed("nick refused: " + msg.raw)
                return
            if self.on_message is not None:
                self.on_message(self, msg)

    def _closed(self, why):
        if not self.closed:
            self.closed = True
            self.close_reason = self.close_reason or why
            self.loop.remove(self)
            try:
                self.sock.close()
            except OSError:
                pass

    def close(self):
        if not self.closed:
            try:
                self.sock.setblocking(True)
                self.sock.settimeout(1)
                self.sock.sendall(b"QUIT :bench done\r\n")
            except OSError:
                pass
            self._closed("closed by us")


def connect_all(loop, port, nicks, on_message, timeout=60):
    """Conns for every nick, registered (end of MOTD seen)."""
    conns = []
    for nick in nicks:
        conns.append(Conn(loop, port, nick, on_message))
        # a few at a time, so the server's accept queue never overflows
        if len(conns) % 20 == 0:
            loop.run(lambda: all(c.registered or c.closed for c in conns),
                     timeout)
    ok = loop.run(lambda: all(c.registered or c.closed for c in conns),
                  timeout)
    bad = [c for c in conns if not c.registered]
    if not ok or bad:
        raise RuntimeError("could not register: %s"
                           % ", ".join("%s (%s)" % (c.nick, c.close_reason)
                                       for c in bad))
    return conns


# ----------------------------------------------------------------------
# A person at a table.

def think_time(rng, pace):
    """Seconds a person waits before a pass or a play: 0 for pace None or
    "instant", uniform in [lo, hi] for a pair (lo, hi)."""
    if not pace or pace == "instant":
        return 0.0
    lo, hi = pace
    return rng.uniform(lo, hi)


class Person:
    """Answers the bot's private prompts (at once, or after a think time:
    `pace`) and times the replies.

    The bot's private lines are read with harness.parse_private (the
    parser the integration tests use, so the two follow the bot's wording
    together): a Deal with cards to pass gets "pass A B C" (random
    cards), a Prompt "play C" (a random one of its marked cards), a
    MoonChoice "moon add", "You timed out again" gets "back".

    Commands and their replies (what `replies` records, as
    (kind, sent, answered)):
      play  a play with cards left after it: the next prompt to this
            person;
      last  the person's last play of a hand (the bot plays the last card
            itself, autoplay): the next hand's deal or first prompt,
            whichever comes first (or "Game over" in the channel);
      moon  ("moon add" after shooting the moon): the same;
      pass  the confirmation ("Passing ..."), or "You received ..." (the
            last to pass), or the first prompt if that comes first.
    A private line from the bot that answers none of these (a refusal, a
    reminder) is counted in `other`.

    on_line(person, kind, msg, event) sees every line from the bot (kind
    "channel" for the person's channel); on_move(person, kind, sent, think,
    event) every pass or play, when it is written, with the think time
    that came before it and the Deal or Prompt it answers."""

    def __init__(self, conn, bot_nick, channel, rng, pace=None):
        self.conn = conn
        self.bot = bot_nick
        self.channel = channel
        self.rng = rng
        self.pace = pace
        self.pending = None        # (kind, sent time)
        self.replies = []          # (kind, sent, answered)
        self.sent = []             # (kind, time)
        self.private = 0           # private lines from the bot
        self.channel_lines = 0     # channel lines from the bot
        self.kinds = {}            # private line kind -> count
        self.other = []            # texts of unexpected private lines
        self.timeouts = 0          # "Time is up" / "timed out again"
        self.reminders = 0
        self.hand_seq = 0          # deals seen (for per-hand attribution)
        self.prompt_seq = 0        # trick-1 prompts seen
        self.bot_here = False      # the bot is in our channel
        self.on_channel = None     # callable(person, msg) for the script
        self.on_line = None        # callable(person, kind, msg, ev)
        self.on_move = None        # callable(person, kind, sent, think, ev)

    def _command(self, kind, text, ev=None):
        """Sends a command to the bot, after the person's think time for
        a pass or a play."""
        think = think_time(self.rng, self.pace) \
            if kind in ("pass", "play", "last") else 0.0

        def send():
            t = self.conn.send("PRIVMSG %s :%s" % (self.bot, text))
            self.sent.append((kind, t))
            self.pending = (kind, t)
            if self.on_move is not None and kind in ("pass", "play", "last"):
                self.on_move(self, kind, t, think, ev)
        if think > 0:
            self.conn.loop.call_at(time.monotonic() + think, send)
        else:
            send()

    def _answered(self, kinds, when):
        if self.pending and self.pending[0] in kinds:
            self.replies.append((self.pending[0], self.pending[1], when))
            self.pending = None

    def say(self, text):
        """A line in the person's channel."""
        return self.conn.send("PRIVMSG %s :%s" % (self.channel, text))

    def handle(self, msg):
        if msg.command == "353" and len(msg.params) >= 3 \
                and harness.irc_eq(msg.params[-2], self.channel):
            if any(harness.irc_eq(n.lstrip("~&@%+"), self.bot)
                   for n in msg.params[-1].split()):
                self.bot_here = True
            return
        if msg.command == "JOIN" and harness.irc_eq(msg.nick, self.bot) \
                and msg.params and harness.irc_eq(msg.params[0], self.channel):
            self.bot_here = True
            return
        if msg.command not in ("PRIVMSG", "NOTICE") \
                or not harness.irc_eq(msg.nick, self.bot):
            return
        if harness.irc_eq(msg.target, self.channel):
            self.channel_lines += 1
            if self.on_line:
                self.on_line(self, "channel", msg, None)
            if self.pending and self.pending[0] in ("last", "moon") \
                    and msg.text.startswith("Game over"):
                self._answered(("last", "moon"), msg.time)
            if self.on_channel:
                self.on_channel(self, msg)
            return
        if not harness.irc_eq(msg.target, self.conn.nick):
            return
        self.private += 1
        ev = harness.parse_private(harness.marked_text(msg.raw_text), msg)
        kind, answer = self._private(msg, ev)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.on_line:    # before the answer: it sees the line first
            self.on_line(self, kind, msg, ev)
        if answer is not None:
            answer()

    def _private(self, msg, ev):
        """(kind of the line, the answer to send or None)."""
        if isinstance(ev, harness.Deal):
            self.hand_seq += 1
            self._answered(("last", "moon"), msg.time)
            if not ev.pass_count:
                return "deal", None
            pick = self.rng.sample(ev.cards, ev.pass_count)
            return "deal", lambda: self._command(
                "pass", "pass " + " ".join(pick), ev)
        if isinstance(ev, harness.Passing):
            self._answered(("pass",), msg.time)
            return "passing", None
        if isinstance(ev, harness.HandShown):
            self._answered(("pass",), msg.time)
            return ("received" if ev.received else "hand"), None
        if isinstance(ev, harness.Prompt):
            self._answered(("play", "pass", "last", "moon"), msg.time)
            if ev.trick_no == 1:
                self.prompt_seq += 1
            if not ev.marked:
                self.other.append(msg.text)
                return "prompt", None
            last = len(ev.cards) <= 2   # the bot plays the last one
            card = self.rng.choice(sorted(ev.marked))
            return "prompt", lambda: self._command(
                "last" if last else "play", "play " + card, ev)
        if isinstance(ev, harness.MoonChoice):
            return "moon", lambda: self._command("moon", "moon add")
        text = msg.text
        if text.startswith("Autoplay"):
            return "autoplay", None
        if text.startswith("Reminder"):
            self.reminders += 1
            return "reminder", None
        if text.startswith("Time is up"):
            self.timeouts += 1
            return "timeout", None
        if "timed out again" in text:
            self.timeouts += 1
            return "timeout", lambda: self._command("back", "back")
        self.other.append(text)
        if self.pending and self.pending[0] == "back":
            self.pending = None
        return "other", None


# ----------------------------------------------------------------------
# Measuring processes.

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    """utime + stime of a process, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_mem(pid):
    """(VmRSS, VmHWM) of a process in KiB."""
    rss = hwm = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def self_cpu():
    """CPU seconds of this process (every thread)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def percentile(values, p):
    """The p-th percentile (nearest rank) of a list; None if empty."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def describe_machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%d cores, %s, load average %s" % (os.cpu_count(), cpu,
                                              load_average())

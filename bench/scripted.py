"""Scripted Hearts players for the bot benchmarks: many IRC connections on
one selectors loop, and a person who answers every prompt of the bot at
once.

Why not harness.Client: it runs a reader thread per connection and keeps
every line; the load benchmark wants 100 connections whose reaction time
and CPU are small and measurable, so here one thread serves them all and
keeps counts instead of lines. Everything else (servers, the bot, its
config, the IRC line parser) comes from tests/integration/harness.py.

A person reads the bot's private messages (plain text or IRC formatting):
- "Hand N at #chan. Your cards: ... | Pass 3 cards to X: ..." -> "pass A B C"
- "Your turn at #chan. ... You may play the marked cards: ♣ 2 [5] ..." ->
  "play 5C" (a random marked card; bold on IRC is a mark too)
- "You shot the moon! ..." -> "moon add"
- "You timed out again ..." -> "back"
and keeps, for each command it sent, when the bot's reply to it came.
"""

import os
import re
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
            left = 0.05
            if deadline is not None:
                left = min(left, deadline - time.monotonic())
                if left <= 0:
                    return False
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
# Cards in the bot's text.

_COLOUR_RE = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|\x0f")
_SUIT_LETTER = {"\u2663": "C", "\u2666": "D", "\u2660": "S", "\u2665": "H"}
_PROMPT_RE = re.compile(r"You may play the marked cards: (.*)$")
_DEAL_RE = re.compile(r"^Hand (\d+) at \S+\. Your cards: (.*?)"
                      r"(?: \| Pass (\d+) cards.*)?$")
TRICK_RE = re.compile(r"(?:You lead trick|Trick) (\d+)")


def parse_hand(text):
    """[(card, marked)] from a rendered hand, plain ("♣ 2 [5]") or IRC
    (colours, bold marks); card is what a person types: "5C", "10H"."""
    text = _COLOUR_RE.sub("", text)
    suit = None
    cards = []
    for tok in text.split():
        marked = False
        if tok.startswith("[") and tok.endswith("]"):
            tok, marked = tok[1:-1], True
        elif tok.startswith("\x02") and tok.endswith("\x02") and len(tok) > 2:
            tok, marked = tok[1:-1], True
        tok = tok.replace("\x02", "")
        if tok in _SUIT_LETTER:
            suit = _SUIT_LETTER[tok]
        elif tok.lower() == "joker":
            cards.append(("joker", marked))
        elif suit is not None and tok:
            cards.append((tok + suit, marked))
    return cards


# ----------------------------------------------------------------------
# A person at a table.

class Person:
    """Answers the bot's private prompts at once and times the replies.

    Commands and their replies (what `replies` records, as
    (kind, sent, answered)):
      play  (tricks 1-12): the next "Your turn" prompt to this person;
      last  (the play of trick 13): the next hand's "Hand N at" message or
            its first prompt, whichever comes first (or "Game over" in the
            channel);
      moon  ("moon add" after shooting the moon): the same;
      pass: the "You received ..." message, or the first prompt if that
            comes first (a prompt goes out at a higher priority).
    A private line from the bot that answers none of these (a refusal, a
    reminder) is counted in `other`."""

    def __init__(self, conn, bot_nick, channel, rng):
        self.conn = conn
        self.bot = bot_nick
        self.channel = channel
        self.rng = rng
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
        self.on_line = None        # callable(person, kind, msg) for counts

    def _command(self, kind, text):
        t = self.conn.send("PRIVMSG %s :%s" % (self.bot, text))
        self.sent.append((kind, t))
        self.pending = (kind, t)

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
                self.on_line(self, "channel", msg)
            if self.pending and self.pending[0] in ("last", "moon") \
                    and msg.text.startswith("Game over"):
                self._answered(("last", "moon"), msg.time)
            if self.on_channel:
                self.on_channel(self, msg)
            return
        if not harness.irc_eq(msg.target, self.conn.nick):
            return
        self.private += 1
        kind = self._private(msg)
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.on_line:
            self.on_line(self, kind, msg)

    def _private(self, msg):
        text = msg.text
        raw = msg.raw_text
        m = _DEAL_RE.match(text)
        if m:
            self.hand_seq += 1
            self._answered(("last", "moon"), msg.time)
            if m.group(3):
                cards = [c for c, _ in parse_hand(m.group(2))]
                pick = self.rng.sample(cards, int(m.group(3)))
                self._command("pass", "pass " + " ".join(pick))
            return "deal"
        if text.startswith("You received") or text.startswith("Your hand:"):
            self._answered(("pass",), msg.time)
            return "received"
        m = _PROMPT_RE.search(raw)
        if m and text.startswith("Your turn"):
            self._answered(("play", "pass", "last", "moon"), msg.time)
            t = TRICK_RE.search(text)
            trick = int(t.group(1)) if t else 0
            if trick == 1:
                self.prompt_seq += 1
            marked = [c for c, mk in parse_hand(m.group(1)) if mk]
            if not marked:
                self.other.append(text)
                return "prompt"
            self._command("last" if trick == 13 else "play",
                          "play " + self.rng.choice(marked))
            return "prompt"
        if text.startswith("You shot the"):
            self._command("moon", "moon add")
            return "moon"
        if text.startswith("Reminder"):
            self.reminders += 1
            return "reminder"
        if text.startswith("Time is up"):
            self.timeouts += 1
            return "timeout"
        if "timed out again" in text:
            self.timeouts += 1
            self._command("back", "back")
            return "timeout"
        self.other.append(text)
        if self.pending and self.pending[0] == "back":
            self.pending = None
        return "other"


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

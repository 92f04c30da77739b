#!/usr/bin/python3
"""Benchmark: whole Hearts hands on Matrix, the bot paced to the homeserver's
rate limit: messages, requests, 429s and seconds per hand.

  B="env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/matrix_hand.py"
  $B --server test --all                 # test homeserver, the 4 runs
  $B --server synapse --all              # real Synapse 1.67 on loopback
  $B --server test --people 4 --limits default --hands 2
  $B --server test --mode appservice --all          # the bot an appservice
  HEARTS_SYNAPSE_AS_REGISTRATION=/tmp/as/reg.yaml \
    $B --server synapse --mode appservice --all     # (below: Synapse's setup)
  # options: --server test|synapse  --people 1|4  --limits default|exempt
  #   --mode sync|appservice (the bot's [[matrix]] mode; sync by default)
  #   --hands N (2)  --exempt-hands N (as --hands; the exempt runs of --all)
  #   --seed S  --log-level info|debug  --timeout SECONDS
  #   --sync-timeout-ms MS (the bot's long-poll, 30000)
  #   --stall SECONDS (nothing from the bot that long ends the run: 120
  #     under the limits, 60 exempt)
  #   --restart-synapse (reset a Synapse this program did not start)

How long: under the limits (0.2 messages a second after a burst of 10)
a hand with one person is about 15 messages, 1 minute; with four about
70 messages, 5 to 6 minutes; exempt, a hand takes under a second on the
test homeserver and 2 to 7 s on Synapse. Synapse adds about 30 s a run
(reset, start, registrations, logins spaced for its login limit).
`--all --hands 2 --exempt-hands 5`: about 17 minutes on the test
homeserver and 16 on Synapse (2026-11-27, commit c4d09db), most of it
the four-person run under the limits (10 to 11 minutes).
Synapse: `HEARTS_SYNAPSE_SH` (the recipe's synapse.sh, default
/work/shared/realservers/synapse.sh) and `HEARTS_SYNAPSE_LOG` (its
homeserver.log, default /tmp/realservers/synapse/homeserver.log).

Each run, on a fresh server state (a new in-process test homeserver,
tests/matrix/homeserver.py, with Synapse 1.67's default limits; or
`synapse.sh reset` + `start`, Synapse's own defaults, never RELAXED):

1. registers the bot (@heartsbot) and the people (alice, bob, carol,
   dave: plain keep-alive HTTP clients, each in a thread of its own that
   long-polls /sync), exempts the people from the limit (the test
   homeserver's set_exempt; Synapse's admin API override_ratelimit), and
   with --limits exempt the bot too; alice makes the public room
   #hearts, the others join it; the real bot starts with that room in its
   [[matrix]] rooms (config.example.toml otherwise, no [irc],
   next_hand_delay 0);
2. alice says `!hearts standard`, the others `!join`, then `!start` when
   the table is full (one person: `!start` at once, three computers sit
   down);
3. each person answers every private line the moment their sync brings
   it, as tests/integration/harness.py's `answer` does (deal:
   pass the highest cards; prompt: play the lowest legal card; moon: add;
   with --seed S a random legal card and random passes instead, seeded
   per seat) and joins every invite;
4. after --hands hands ("Hand N scores" in the table room), or when the
   bot has sent nothing for --stall seconds (printed loudly, with the end
   of its log), the people stop answering, alice says `!stop` (so that
   the game is archived and its record can be replayed), and the bot is
   stopped (SIGTERM).

`--all` runs 1 person exempt, 1 person under the limits, 4 people
exempt, 4 people under the limits, in that order.

`--mode appservice`: the bot is the homeserver's application service
(docs/hosting.md, "Matrix as an application service"): it neither
registers nor logs in, the homeserver pushes the rooms' events to its
listener, and it is never rate-limited, so --limits does not apply
(`--all`: 1 person, then 4; --exempt-hands hands each). The people are
exempt as in sync mode.
- test homeserver: the registration is the bot's own
  (`heartsbot --appservice-registration`, a free port), given to the
  server with Synapse 1.67's paths (`legacy_paths`); the transactions
  pushed and their events are the server's own record (its log lines
  and `as_counters`).
- Synapse reads a registration only at its start, from
  homeserver.generated.yaml, which `synapse.sh` renders into
  homeserver.yaml at every start (keeping keys it does not set itself):
  set HEARTS_SYNAPSE_AS_REGISTRATION to a registration file listed there
  in `app_service_config_files`, whose url is http://127.0.0.1:PORT (the
  bot listens on that port, as the registration's sender_localpart).
  This program does not edit the recipe's files. README.md (the
  optional Synapse test) shows how to write and list one; here with
  another sender than the sync mode's bot, e.g. user_id
  "@heartsbench:localhost" and listen "127.0.0.1:29019" in the config
  given to `heartsbot --appservice-registration`.

  Each run still resets Synapse (its database, so the transaction
  numbers start again at 1; the bot's data directory is new too). The
  transactions pushed are Synapse's log lines "Received response to PUT
  URL/transactions/N": how many, and how many answered 200; how many
  events each held Synapse does not log at its default level.
  Another localpart than the sync mode's heartsbot: a registration
  whose namespace holds @heartsbot:localhost reserves that user, and the
  sync-mode runs could not register their bot.
Per hand it prints the same figures (no /sync, no login, no 429
expected) with the transactions pushed in the last column, the bot's
requests other than message sends by kind, and the issue's goal per
hand: under 30 s, no 429, requests at most messages + 5.

What it counts, per hand:
- seconds: from the hand's first deal (the earliest deal event of that
  hand in any person's direct room) to the table room's event with "Hand
  N scores", both by the server's origin_server_ts; and hand to hand (that
  scores event since the previous hand's);
- messages: the bot's m.room.message events, on the server (test
  homeserver: every room's events; Synapse: each room's whole history
  read back with /messages as its people: the table room and each
  person's direct rooms; any other room of the server is named). A
  hand's are the table room's after the previous hand's scores event (for
  hand 1: from its first deal) up to its own, and in each direct room
  those from the event with the hand's deal up to the next hand's; other
  events the bot made (state, membership) in the hand's time window are
  shown apart;
- the bot's requests, /sync among them, and the 429 answers, in the time
  window (hand 1: its first deal to its scores; then from the previous
  scores to these): on the test homeserver from the server itself (each
  request with its user and status), on Synapse from its access log
  (/tmp/realservers/synapse/homeserver.log: requester in braces, status,
  request line); the bot's own log's "rate-limited on" lines too;
- seconds ÷ (messages ÷ 0.2): the goal is at most 1.1 under the limits.
Per run: seconds from `!start` until every person has their first deal
(as their syncs brought it; the goal: 30 s for four people), what was
sent and requested meanwhile, and checks that nothing was lost or
doubled: every trick line once per hand in the table room, one scores
line per hand, each person's deal once per hand, no bot event body twice
in a row in one room, every person's sync saw exactly the server's
events of their rooms (by event ID: Synapse 1.67 gives the newest event
of a room just joined twice in that sync, which a client keeps once and
this program notes), and the game's record (archive.jsonl) replays with
hearts-sim (the one next to $HEARTSBOT unless HEARTS_SIM is set) and has
the deals the people were sent.

Prints a markdown table per run and, with --all, a summary, with the
date, the server, the bot's commit and the machine. Nothing is asserted;
a broken check or a missed goal is printed loudly. HEARTS_KEEP_TMP=1
keeps the temp dir (the bot's config, log and data; the test
homeserver's log). Only 127.0.0.1. Python 3 standard library and the
repository's modules; run it with Debian's /usr/bin/python3.
"""

import argparse
import calendar
import collections
import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scripted  # noqa: E402
from scripted import harness  # noqa: E402
import realsynapse  # noqa: E402  (tests/integration, as harness)
sys.path.insert(0, os.path.join(scripted.REPO, "tests", "matrix"))
import homeserver  # noqa: E402

PEOPLE = ("alice", "bob", "carol", "dave")
BOT_LOCAL = "heartsbot"
BOT_PW = "pw-bot"
RATE = 0.2                 # Synapse's default rc_message per_second
GOAL_RATIO = 1.1
GOAL_START = 30.0
# the real-server recipe (docs/testing.md, "Real servers"); a clone
# points these at its own copy
SYNAPSE_SH = os.environ.get("HEARTS_SYNAPSE_SH",
                            "/work/shared/realservers/synapse.sh")
SYNAPSE_LOG = os.environ.get("HEARTS_SYNAPSE_LOG", realsynapse.DEFAULT_LOG)
# --mode appservice on Synapse: a registration Synapse is started with
SYNAPSE_AS_REGISTRATION = os.environ.get("HEARTS_SYNAPSE_AS_REGISTRATION", "")
# the goal for a hand in appservice mode: requests at most the
# messages sent plus this many
GOAL_FEW = 5
GOAL_AS_SECS = 30.0
# a query parameter on this program's own requests as the bot (Synapse
# ignores it; its log keeps it)
BENCH_MARK = "heartsbench=1"
API = "/_matrix/client/v3"
# the people's sync filter: enough timeline that nothing is cut off
FILTER = json.dumps({"room": {"timeline": {"limit": 500}}},
                    separators=(",", ":"))


def now():
    return time.time()


def say_loud(text):
    print("!!! " + text, flush=True)


# ----------------------------------------------------------------------
# HTTP: a keep-alive JSON client on loopback.

class MatrixError(Exception):
    def __init__(self, status, body, what):
        super().__init__("%s: HTTP %s %s" % (what, status, body))
        self.status = status
        self.body = body


class Http:
    """One keep-alive connection; a request that finds it closed is sent
    again on a new one (every request here is idempotent: sends are PUTs
    with a transaction ID)."""

    def __init__(self, url, timeout=90.0):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.timeout = timeout
        self.conn = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method, path, body=None, token=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                if resp.getheader("Connection", "").lower() == "close":
                    self.close()
                try:
                    obj = json.loads(raw) if raw else {}
                except ValueError:
                    obj = {"raw": raw[:200].decode("utf-8", "replace")}
                return resp.status, obj
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt == 2:
                    raise
                time.sleep(0.2)


def call(http_, method, path, body=None, token=None, what=None, tries=30):
    """A client-server API call; a 429 is waited out (retry_after_ms) and
    tried again. Returns the JSON answer; raises MatrixError otherwise."""
    for _ in range(tries):
        status, obj = http_.request(method, path, body, token)
        if status == 200:
            return obj
        if status == 429:
            time.sleep(obj.get("retry_after_ms", 1000) / 1000.0 + 0.05)
            continue
        raise MatrixError(status, obj, what or "%s %s" % (method, path))
    raise MatrixError(429, {}, what or path)


def q(s):
    return urllib.parse.quote(s, safe="")


# ----------------------------------------------------------------------
# The answers a person gives (tests/integration/harness.answer).

answer = harness.answer


def random_answer(rng):
    def pick(ev):
        if isinstance(ev, harness.Deal) and ev.pass_count:
            return "pass " + " ".join(rng.sample(ev.cards, ev.pass_count))
        if isinstance(ev, harness.Prompt) and ev.marked:
            return "play " + rng.choice(sorted(ev.marked))
        return answer(ev)
    return pick


# ----------------------------------------------------------------------
# A person: a thread that long-polls /sync and answers at once.

class Person:
    def __init__(self, server, localpart, password, answer_fn):
        self.server = server
        self.local = localpart
        self.password = password
        self.user_id = "@%s:%s" % (localpart, server.server_name)
        self.url = server.url
        self._conns = threading.local()     # one connection a thread
        self._all = []
        self.token = None
        self.answer = answer_fn
        self.table = None
        self.since = None
        self.lock = threading.Lock()
        self.events = []        # (room_id, event, wall time received)
        self.table_lines = []   # (wall time, line) of the bot in the table
        self.deals = []         # (hand_no, Deal, wall time, event_id)
        self.dm_rooms = []      # rooms the bot wrote privately in, in order
        self.invites = []       # (room_id, is_direct, wall time)
        self.acted = []         # (wall time, room, text)
        self.trouble = []       # reminders, timeouts, autoplays, refusals
        self.limited = []       # rooms whose timeline came cut off
        self.seen_ids = set()
        self.dups = []          # events a sync gave again (same event ID)
        self.errors = []
        self.answering = True
        self.act_lock = threading.Lock()    # an answer goes whole, or not
        self.last_bot = now()    # when a sync last brought a bot event
        self.stopping = threading.Event()
        self.thread = None
        self.txn = 0

    # -- requests --------------------------------------------------------

    @property
    def http(self):
        h = getattr(self._conns, "http", None)
        if h is None:
            h = self._conns.http = Http(self.url)
            self._all.append(h)
        return h

    def close(self):
        for h in self._all:
            h.close()

    def call(self, method, path, body=None, auth=True):
        return call(self.http, method, API + path, body,
                    self.token if auth else None,
                    what="%s %s %s" % (self.local, method, path.split("?")[0]))

    def login(self):
        got = self.call("POST", "/login", {
            "type": "m.login.password", "password": self.password,
            "identifier": {"type": "m.id.user", "user": self.local}},
            auth=False)
        self.token = got["access_token"]
        return got

    def say(self, room_id, text):
        self.txn += 1
        return self.call("PUT", "/rooms/%s/send/m.room.message/b%d-%d" % (
            q(room_id), self.txn, time.monotonic_ns()),
            {"msgtype": "m.text", "body": text})

    def sync(self, timeout_ms):
        qs = {"timeout": str(timeout_ms), "filter": FILTER}
        if self.since:
            qs["since"] = self.since
        s = self.call("GET", "/sync?" + urllib.parse.urlencode(qs))
        first = self.since is None
        self.since = s["next_batch"]
        return s, first

    # -- the loop ----------------------------------------------------------

    def start(self):
        self.thread = threading.Thread(target=self._loop, daemon=True,
                                       name="person-" + self.local)
        self.thread.start()

    def stop(self):
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(120)
            self.thread = None

    def _loop(self):
        while not self.stopping.is_set():
            try:
                self.step(2000)
            except Exception as e:          # keep going: report it
                self.errors.append("%s: %s" % (type(e).__name__, e))
                time.sleep(0.5)

    def step(self, timeout_ms):
        s, first = self.sync(timeout_ms)
        t = now()
        rooms = s.get("rooms", {})
        for room_id, room in rooms.get("invite", {}).items():
            direct = any(e.get("type") == "m.room.member"
                         and e.get("state_key") == self.user_id
                         and e.get("content", {}).get("is_direct") is True
                         for e in room.get("invite_state", {})
                         .get("events", []))
            with self.lock:
                self.invites.append((room_id, direct, t))
            self.call("POST", "/join/" + q(room_id), {})
        for room_id, room in rooms.get("join", {}).items():
            tl = room.get("timeline", {})
            known = any(r == room_id for r, _, _ in self.events[-2000:])
            if tl.get("limited") and not first and known:
                self.limited.append(room_id)
            for e in tl.get("events", []):
                # Synapse 1.67 gives the newest event of a room just joined
                # twice in that sync: a client keeps an event once
                eid = e.get("event_id")
                if eid in self.seen_ids:
                    self.dups.append((t, room_id, e))
                    continue
                self.seen_ids.add(eid)
                with self.lock:
                    self.events.append((room_id, e, t))
                if e.get("sender") == self.server.bot_id:
                    self.last_bot = t
                if first or e.get("sender") != self.server.bot_id \
                        or e.get("type") != "m.room.message":
                    continue
                self._bot_message(room_id, e, t)

    def _bot_message(self, room_id, e, t):
        body = e.get("content", {}).get("body", "")
        if room_id == self.table:
            with self.lock:
                self.table_lines.extend((t, x) for x in body.split("\n"))
            return
        with self.lock:
            if room_id not in self.dm_rooms:
                self.dm_rooms.append(room_id)
        for line in body.split("\n"):
            ev = harness.parse_private(line)
            if isinstance(ev, harness.Deal):
                with self.lock:
                    self.deals.append((ev.hand_no, ev, t, e.get("event_id")))
            elif isinstance(ev, harness.Said) and line.strip():
                # none in a smooth game: reminders, timeouts, autoplay,
                # refusals
                self.trouble.append((t, line))
            act = self.answer(ev)
            if act is None:
                continue
            with self.act_lock:
                if not self.answering:
                    continue
                self.say(room_id, act)
                self.acted.append((now(), room_id, act))

    def stop_answering(self):
        """No answer after this returns (one being sent is sent first)."""
        with self.act_lock:
            self.answering = False

    # -- views for the orchestrator ----------------------------------------

    def table_has(self, pattern):
        rx = re.compile(pattern)
        with self.lock:
            return any(rx.search(x) for _, x in self.table_lines)

    def first_deal_time(self, hand_no=1):
        with self.lock:
            got = [t for n, _, t, _ in self.deals if n == hand_no]
        return min(got) if got else None

    def bot_joined(self, room_id):
        with self.lock:
            return any(r == room_id and e.get("type") == "m.room.member"
                       and e.get("state_key") == self.server.bot_id
                       and e.get("content", {}).get("membership") == "join"
                       for r, e, _ in self.events)

    def seen_bot_events(self, room_id):
        with self.lock:
            return [e.get("event_id") for r, e, _ in self.events
                    if r == room_id and e.get("sender") == self.server.bot_id]

    def seen_detail(self, event_id):
        """When each sync brought an event, and its body's start."""
        with self.lock:
            got = [(t, e) for _, e, t in self.events
                   if e.get("event_id") == event_id]
        return "%r at %s" % (
            got[0][1].get("content", {}).get("body", "")[:70] if got else "",
            ", ".join(time.strftime("%H:%M:%S", time.localtime(t))
                      + ".%03d" % (t % 1 * 1000) for t, _ in got))


# ----------------------------------------------------------------------
# The servers.

class TestHomeserver(homeserver.Homeserver):
    """The test homeserver, also keeping each request as (wall time, user,
    method, path, status): its log has no user, its counters no time. The
    handler thread counts the request (_count, with the user) before it
    logs the line (log, with the status)."""

    _PUSH = re.compile(r"^AS \S+ PUT \S+ txn (\d+) \((\d+) events, "
                       r"(\w+)\) (\S+)")

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._who = threading.local()
        self.requests = []
        self.pushes = []     # (wall time, txn ID, events, why, status)

    def _count(self, user_id, name):
        super()._count(user_id, name)
        if name == "requests":
            self._who.user = user_id

    def log(self, line):
        super().log(line)
        m = self._PUSH.match(line)
        if m:
            self.pushes.append((now(), m.group(1), int(m.group(2)),
                                m.group(3), m.group(4)))
            return
        user = getattr(self._who, "user", None)
        self._who.user = None
        parts = line.split(" ")
        if len(parts) >= 3 and parts[0] in ("GET", "PUT", "POST", "DELETE",
                                            "HEAD", "OPTIONS", "PATCH"):
            status = parts[-1]
            self.requests.append((now(), user, parts[0], parts[1],
                                  int(status) if status.isdigit() else status))


class TestServer:
    kind = "test"
    title = "test homeserver (tests/matrix/homeserver.py, in-process)"
    server_name = homeserver.SERVER_NAME

    def __init__(self, tmp, args):
        self.tmp = tmp
        self.hs = None
        self.bot_id = "@%s:%s" % (BOT_LOCAL, self.server_name)
        self.appservice = args.mode == "appservice"
        self.registration = None
        self.as_port = None
        self.as_id = None

    @property
    def url(self):
        return self.hs.url

    def start(self):
        # Synapse 1.67's defaults, and its paths to an application service
        self.hs = TestHomeserver(self.tmp, legacy_paths=True)
        # logins are not what is measured: the people and the bot log in
        # at once
        self.hs.set_ratelimit(logins=False)
        self.hs.start()
        if self.appservice:
            # the registration as the bot writes it, for its own user
            import test_matrix_bot
            assert test_matrix_bot.BOT == self.bot_id
            self.as_port = harness.free_port()
            self.registration = test_matrix_bot.appservice_registration(
                self.tmp, self.hs.url, self.as_port)
            self.as_id = self.hs.add_appservice(self.registration)

    def stop(self):
        if self.hs is not None:
            self.hs.stop()

    def register(self, localpart, password, admin=False):
        self.hs.register(localpart, password)

    def exempt(self, user_id):
        self.hs.set_exempt(user_id, True)

    def logins_done(self):
        pass

    def requests(self, user_id):
        """[(wall time, method, path, status)] of one user."""
        return [(t, m, p, s) for t, u, m, p, s in list(self.hs.requests)
                if u == user_id]

    def pushes(self):
        """[(wall time, events or None, status)] of the transactions the
        server PUT to the bot (sent again or twice: each a line)."""
        return [(t, n, int(st) if st.isdigit() else st)
                for t, _, n, _, st in list(self.hs.pushes)]

    def bot_events(self, people, table):
        """{room_id: [event]} of the bot's events, every room."""
        out = {}
        for r in self.hs.rooms():
            evs = [e for e in self.hs.room_events(r)
                   if e["sender"] == self.bot_id]
            if evs:
                out[r] = evs
        return out, []

    def extra(self):
        c = self.hs.counters(self.bot_id)
        half = self.hs.half_made_rooms(self.bot_id)
        out = {"counters": c, "half_made": half}
        if self.appservice:
            out["as_counters"] = self.hs.as_counters(self.as_id)
        return out


def synapse_sh(*argv, check=True):
    """synapse.sh ARGV, never RELAXED; its output (an error if it fails
    and check)."""
    env = dict(os.environ)
    env.pop("RELAXED", None)            # Synapse's own limits, always
    done = subprocess.run(["bash", SYNAPSE_SH] + list(argv), env=env,
                          capture_output=True, text=True, timeout=400)
    if check and done.returncode != 0:
        raise RuntimeError("synapse.sh %s: exit %d\n%s%s" % (
            " ".join(argv), done.returncode, done.stdout, done.stderr))
    return done


class SynapseServer:
    kind = "synapse"
    title = "Synapse 1.67 on 127.0.0.1 (synapse.sh, its default limits)"
    server_name = "localhost"

    def __init__(self, tmp, args):
        self.tmp = tmp
        self.args = args
        self.url = None
        self.started = False
        self.log = None
        self.admin_http = None
        self.admin_token = None
        self.last_login = 0.0
        self.bot_id = "@%s:%s" % (BOT_LOCAL, self.server_name)
        self.appservice = args.mode == "appservice"
        if self.appservice:
            # main() checked it
            self.registration = os.path.abspath(SYNAPSE_AS_REGISTRATION)
            reg = realsynapse.read_registration(self.registration)
            self.as_url = reg["url"]
            self.as_port = urllib.parse.urlsplit(reg["url"]).port
            self.as_token = reg["as_token"]
            self.bot_id = "@%s:%s" % (reg["sender_localpart"],
                                      self.server_name)

    @staticmethod
    def running():
        return synapse_sh("status", check=False).returncode == 0

    def start(self):
        # checked before every run: someone may have started it since
        if self.running() and not self.args.restart_synapse:
            raise RuntimeError(
                "Synapse is running and this program did not start it: "
                "stop it (synapse.sh stop) or pass --restart-synapse")
        synapse_sh("reset")
        synapse_sh("start")
        self.started = True
        self.url = synapse_sh("url").stdout.strip()
        self.log = realsynapse.Log(SYNAPSE_LOG)
        if self.appservice:
            # Synapse was started with the registration: its as_token is
            # the bot's user (a request in the bot's name: marked, so
            # that requests() leaves it out)
            h = Http(self.url)
            try:
                who = call(h, "GET", API + "/account/whoami?" + BENCH_MARK,
                           token=self.as_token, what="whoami")["user_id"]
            except MatrixError as e:
                raise RuntimeError(
                    "Synapse does not know the application service of %s "
                    "(%s): list it in app_service_config_files (see the top "
                    "of this program)" % (self.registration, e))
            finally:
                h.close()
            if who != self.bot_id:
                raise RuntimeError("%s acts as %s, not %s" % (
                    self.registration, who, self.bot_id))
        self.register("benchadmin", "pw-admin", admin=True)
        self.admin_http = Http(self.url)
        got = call(self.admin_http, "POST", API + "/login", {
            "type": "m.login.password", "password": "pw-admin",
            "identifier": {"type": "m.id.user", "user": "benchadmin"}},
            what="admin login")
        self.last_login = time.monotonic()
        self.admin_token = got["access_token"]

    def stop(self):
        if self.admin_http is not None:
            self.admin_http.close()
        if self.started:
            synapse_sh("stop", check=False)
            self.started = False

    def register(self, localpart, password, admin=False):
        done = synapse_sh("register", localpart, password,
                          *(["--admin"] if admin else []), check=False)
        if done.returncode != 0:
            raise RuntimeError("synapse.sh register %s: exit %d\n%s%s%s" % (
                localpart, done.returncode, done.stdout, done.stderr,
                "(an application service registration Synapse reads holds "
                "@%s:%s in its namespace: take it out of "
                "app_service_config_files for a sync-mode run)" % (
                    localpart, self.server_name)
                if "reserved by an application service" in done.stdout
                else ""))

    def exempt(self, user_id):
        call(self.admin_http, "POST",
             "/_synapse/admin/v1/users/%s/override_ratelimit" % q(user_id),
             {"messages_per_second": 0, "burst_count": 0},
             token=self.admin_token, what="override_ratelimit " + user_id)

    def note_login(self):
        self.last_login = time.monotonic()

    def logins_done(self):
        # rc_login.address: 0.17/s, burst 3. One slot is free again 5.9 s
        # after our last login: the bot's own login then passes.
        wait = 6.0 - (time.monotonic() - self.last_login)
        if wait > 0:
            time.sleep(wait)

    def requests(self, user_id):
        """The access log's lines of one user (Synapse writes them when
        the request ends; local time, milliseconds)."""
        try:
            return [r for r in self.log.requests(user_id)
                    if not r[2].endswith("?" + BENCH_MARK)]
        except OSError as e:
            say_loud("cannot read %s: %s" % (SYNAPSE_LOG, e))
            return []

    def pushes(self):
        """The transactions Synapse PUT to the bot, from its log (the
        number of events in each is not in it)."""
        if not self.appservice:
            return []
        try:
            return [(t, None, st)
                    for t, _, st in self.log.transactions(self.as_url)]
        except OSError as e:
            say_loud("cannot read %s: %s" % (SYNAPSE_LOG, e))
            return []

    def _history(self, person, room_id):
        """Every event of a room a person may read, oldest first."""
        evs = []
        token = person.since
        for _ in range(200):
            qs = {"dir": "b", "limit": "1000"}
            if token:
                qs["from"] = token
            got = person.call("GET", "/rooms/%s/messages?%s" % (
                q(room_id), urllib.parse.urlencode(qs)))
            chunk = got.get("chunk", [])
            evs.extend(chunk)
            if not chunk or not got.get("end") or got.get("end") == token:
                break
            token = got["end"]
        evs.reverse()
        return evs

    def bot_events(self, people, table):
        out = {}
        covered = {}
        for p in people:
            rooms = ([table] if p is people[0] else []) + \
                [r for r in p.dm_rooms] + \
                [r for r, _, _ in p.invites if r not in p.dm_rooms]
            for r in rooms:
                if r in covered:
                    continue
                covered[r] = p
                evs = [e for e in self._history(p, r)
                       if e.get("sender") == self.bot_id]
                if evs:
                    out[r] = evs
        # rooms no person can read: named, not counted
        others = []
        try:
            got = call(self.admin_http, "GET",
                       "/_synapse/admin/v1/rooms?limit=1000",
                       token=self.admin_token, what="admin rooms")
            for r in got.get("rooms", []):
                if r["room_id"] not in covered:
                    others.append("%s (%s members, creator %s)" % (
                        r["room_id"], r.get("joined_members"),
                        r.get("creator")))
        except MatrixError as e:
            others.append("admin room list refused: %s" % e)
        return out, others

    def extra(self):
        return {}


# ----------------------------------------------------------------------
# One run.

def bot_log_times(text, pattern):
    """Wall times of the bot's log lines matching a regex."""
    out = []
    rx = re.compile(pattern)
    for line in text.splitlines():
        if not rx.search(line):
            continue
        m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})Z ", line)
        if m:
            t = calendar.timegm(time.strptime(m.group(1),
                                              "%Y-%m-%dT%H:%M:%S"))
            out.append((t + int(m.group(2)) / 1000.0, line))
    return out


def wait_until(pred, timeout, bot=None, what=""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        if bot is not None and not bot.alive():
            say_loud("the bot died while waiting for %s" % what)
            return False
        time.sleep(0.05)
    return pred()


class Run:
    """One run: a fresh server, the people, the bot, --hands hands, then
    the figures (analyse) and their tables (print)."""

    def __init__(self, args, people_n, limits, hands):
        self.args = args
        self.people_n = people_n
        self.limits = limits
        self.hands = hands
        self.notes = []          # surprises, for the report
        self.broken = []         # invariants that did not hold
        self.hands_done = 0
        self.game_over = False
        self.stalled = None
        self.t_start = None
        self.dealt = {}
        self.rows = []
        self.cut_row = None
        self.t_end_play = None
        self.record_ok = False
        self.analysed = False

    @property
    def appservice(self):
        return self.args.mode == "appservice"

    @property
    def label(self):
        return "%d %s, %s" % (self.people_n,
                              "person + 3 computers" if self.people_n == 1
                              else "people",
                              "the bot an application service (not limited)"
                              if self.appservice
                              else "Synapse's default limits"
                              if self.limits == "default"
                              else "bot exempt")

    @property
    def limits_text(self):
        return "appservice" if self.appservice else self.limits

    def note(self, text):
        self.notes.append(text)
        print("  note: " + text, flush=True)

    def go(self):
        args = self.args
        tmp = tempfile.mkdtemp(prefix="heartsbot-mxhand-")
        cls = TestServer if args.server == "test" else SynapseServer
        srv = cls(tmp, args)
        self.srv = srv
        bot = None
        people = []
        t_wall0 = time.monotonic()
        print("\n== %s: %s, %d hand(s) ==" % (srv.title, self.label,
                                              self.hands), flush=True)
        try:
            srv.start()
            if not self.appservice:     # the homeserver registers it
                srv.register(BOT_LOCAL, BOT_PW)
            for i, name in enumerate(PEOPLE[:self.people_n]):
                srv.register(name, "pw-" + name)
                fn = answer if args.seed is None else random_answer(
                    random.Random(args.seed * 10 + i))
                people.append(Person(srv, name, "pw-" + name, fn))
            for p in people:
                p.login()
                if isinstance(srv, SynapseServer):
                    srv.note_login()
                srv.exempt(p.user_id)
            if self.limits == "exempt" and not self.appservice:
                srv.exempt(srv.bot_id)
            alice = people[0]
            room = alice.call("POST", "/createRoom", {
                "preset": "public_chat", "room_alias_name": "hearts",
                "name": "hearts"})["room_id"]
            self.room = room
            for p in people[1:]:
                p.call("POST", "/join/" + q(room), {})
            for p in people:
                p.table = room
                p.step(0)           # the first sync: the since token
            srv.logins_done()
            for p in people:
                p.start()

            cfg = harness.example_config()
            del cfg["irc"]
            data = os.path.join(tmp, "data")
            self.data = data
            cfg["bot"]["data_dir"] = data
            cfg["bot"]["log_level"] = args.log_level
            cfg["game"]["next_hand_delay"] = 0
            net = dict(cfg["matrix"][0])
            net.update(name="mx", homeserver=srv.url, user_id=srv.bot_id,
                       password=BOT_PW, rooms=[room],
                       sync_timeout_ms=args.sync_timeout_ms)
            if self.appservice:
                for key in ("password", "access_token", "device_id",
                            "sync_timeout_ms"):
                    net.pop(key, None)
                net.update(mode="appservice", registration=srv.registration,
                           listen="127.0.0.1:%d" % srv.as_port)
            cfg["matrix"] = [net]
            self.t_bot = now()
            bot = harness.Bot(tmp, cfg)
            self.bot = bot
            if not wait_until(lambda: alice.bot_joined(room), 120, bot,
                              "the bot's join"):
                raise RuntimeError("the bot did not join the room in 120 s")
            self.t_joined = now()
            self.play(people, room, bot)
        finally:
            rc = None
            t_stop = time.monotonic()
            if bot is not None:
                rc = bot.stop(timeout=120)
            self.stop_secs = time.monotonic() - t_stop
            self.rc = rc
            for p in people:
                p.stopping.set()
            for p in people:
                p.stop()
            try:
                if bot is not None and people:
                    self.collect(srv, people, bot)
            finally:
                for p in people:
                    p.close()
                srv.stop()
                self.wall = time.monotonic() - t_wall0
                if os.environ.get("HEARTS_KEEP_TMP") == "1":
                    print("kept " + tmp)
                else:
                    shutil.rmtree(tmp, True)
        return self

    def play(self, people, room, bot):
        args = self.args
        alice = people[0]
        self.t_start = None
        self.dealt = {}
        timeout = args.timeout or (300 + self.hands * (
            900 if self.limits == "default" else 120))
        alice.say(room, "!hearts standard")
        if not wait_until(lambda: alice.table_has(r"opens a Hearts table"),
                          120, bot, "the table"):
            raise RuntimeError("no table opened in 120 s")
        if len(people) > 1:
            for p in people[1:]:
                p.say(room, "!join")
            if not wait_until(lambda: alice.table_has(r"The table is full"),
                              180, bot, "a full table"):
                raise RuntimeError("the table never filled")
        self.t_start = now()
        alice.say(room, "!start")
        print("  !start said; %s" % time.strftime("%H:%M:%S"), flush=True)
        deadline = time.monotonic() + timeout
        wait_until(lambda: all(p.first_deal_time(1) for p in people),
                   max(1.0, deadline - time.monotonic()), bot, "the deals")
        self.dealt = {p.local: (p.first_deal_time(1) - self.t_start
                                if p.first_deal_time(1) else None)
                      for p in people}
        if all(v is not None for v in self.dealt.values()):
            print("  every person dealt %.1f s after !start" % max(
                self.dealt.values()), flush=True)
        else:
            say_loud("not every person got a deal: %s" % self.dealt)
        done = 0
        self.game_over = False
        self.stalled = None
        stall = args.stall or (120 if self.limits == "default" else 60)
        while done < self.hands and time.monotonic() < deadline:
            n = done + 1
            if alice.table_has(r"^Hand %d scores:" % n):
                done = n
                print("  hand %d scored, %.1f s after !start" % (
                    n, now() - self.t_start), flush=True)
                continue
            if alice.table_has(r"^Game over!"):
                self.game_over = True
                break
            if not bot.alive():
                say_loud("the bot exited (rc %s)" % bot.proc.poll())
                break
            quiet = now() - max(p.last_bot for p in people)
            if quiet > stall:
                self.stalled = quiet
                say_loud("STALL: nothing from the bot for %.0f s (hand %d "
                         "under way); the end of its log:" % (quiet, n))
                for line in bot.log().splitlines()[-8:]:
                    print("    " + line[:300])
                break
            time.sleep(0.1)
        self.hands_done = done
        self.t_end_play = now()
        if done < self.hands and not self.game_over:
            say_loud("only %d of %d hands played (%s)" % (
                done, self.hands, "stalled" if self.stalled
                else "timeout %.0f s" % timeout))
        for p in people:
            p.stop_answering()
        self.game_over = self.game_over or alice.table_has(r"^Game over!")
        if bot.alive() and not self.game_over:
            alice.say(room, "!stop")
        self.record_logged = wait_until(
            lambda: "game record written" in bot.log(), 180, bot,
            "the game record")
        if not self.record_logged:
            say_loud("no 'game record written' in the bot's log")
        time.sleep(2.0)          # what the bot still says, the people see

    # -- after the run -------------------------------------------------

    def collect(self, srv, people, bot):
        for p in people:        # the last of it, in every view
            try:
                p.step(0)
            except Exception as e:
                p.errors.append("final sync: %s" % e)
        if isinstance(srv, SynapseServer):
            time.sleep(6.0)     # Synapse flushes its log every 5 s
        self.people = people
        self.events, self.other_rooms = srv.bot_events(people, self.room)
        self.requests = srv.requests(srv.bot_id)
        self.pushes = srv.pushes()
        self.extra = srv.extra()
        self.bot_log = bot.log()
        self.analyse(people)

    def analyse(self, people):
        room = self.room
        msgs = {}       # room -> [(ts, body, event_id)] of m.room.message
        others = []     # (ts, room, type) of the bot's other events
        for r, evs in self.events.items():
            for e in evs:
                ts = e.get("origin_server_ts", 0) / 1000.0
                if e.get("type") == "m.room.message":
                    msgs.setdefault(r, []).append(
                        (ts, e.get("content", {}).get("body", ""),
                         e.get("event_id")))
                else:
                    others.append((ts, r, e.get("type")))
        self.msgs = msgs
        owner = {}
        for p in people:
            for r in p.dm_rooms:
                owner.setdefault(r, p.local)
        self.owner = owner
        table = msgs.get(room, [])

        # Each message's hand. A direct room's: from the event with the
        # hand's deal (first line, or the room's first deal) up to the
        # next; 0 before the first deal.
        hand_of = {}                    # event_id -> hand
        t_deal = {}                     # hand -> its earliest deal event
        deals = collections.Counter()   # (person, hand) -> deal lines
        for r, lst in msgs.items():
            if r == room:
                continue
            hand = 0
            for ts, body, eid in lst:
                for j, line in enumerate(body.split("\n")):
                    ev = harness.parse_private(line)
                    if isinstance(ev, harness.Deal):
                        deals[(owner.get(r, r), ev.hand_no)] += 1
                        t_deal[ev.hand_no] = min(t_deal.get(ev.hand_no, ts),
                                                 ts)
                        if j == 0 or hand == 0:
                            hand = ev.hand_no
                hand_of[eid] = hand
        # The table room's: from the first deal (by time), then each up to
        # and with its "Hand N scores" event.
        t_scores = {}
        scores_count = collections.Counter()
        hand = 0
        for ts, body, eid in table:
            if hand == 0 and 1 in t_deal and ts >= t_deal[1]:
                hand = 1
            hand_of[eid] = hand
            for line in body.split("\n"):
                m = re.match(r"^Hand (\d+) scores:", line)
                if m:
                    k = int(m.group(1))
                    scores_count[k] += 1
                    t_scores.setdefault(k, ts)
                    if hand == k:
                        hand += 1
        self.hand_of = hand_of
        self.t_deal, self.t_scores = t_deal, t_scores
        hands = []
        for k in range(1, self.hands_done + 1):
            if k in t_scores and k in t_deal:
                hands.append(k)
            else:
                break
        last = hands[-1] if hands else 0

        big = 1e12

        def reqs_in(lo, hi, hi_incl=True):
            return [x for x in self.requests
                    if lo <= x[0] and (x[0] <= hi if hi_incl else x[0] < hi)]

        def row_for(k, hi, cut=False):
            lo = t_deal[1] if k == 1 else t_scores[k - 1]
            n_table = sum(1 for _, _, e in table if hand_of[e] == k)
            n_all = sum(1 for lst in msgs.values() for _, _, e in lst
                        if hand_of[e] == k)
            reqs = reqs_in(lo, hi)
            pushed = [x for x in self.pushes if lo <= x[0] <= hi]
            row = {
                "hand": k, "cut": cut,
                "secs": hi - t_deal[k],
                "cycle": hi - t_scores[k - 1] if k > 1 else None,
                "msgs": n_all, "table": n_table, "dm": n_all - n_table,
                "other": sum(1 for ts, _, _ in others if lo <= ts <= hi),
                "reqs": len(reqs),
                "syncs": sum(1 for x in reqs if is_sync(x[2])),
                "sends": sum(1 for x in reqs if is_send(x[1], x[2])),
                "r429": sum(1 for x in reqs if x[3] == 429),
                "txns": sum(1 for x in pushed if x[2] == 200),
                "txn_tries": len(pushed),
                "txn_events": sum(x[1] for x in pushed if x[2] == 200)
                if all(x[1] is not None for x in pushed) else None,
                "kinds": collections.Counter(
                    request_kind(x[1], x[2]) for x in reqs),
            }
            row["ratio"] = (row["secs"] / (row["msgs"] / RATE)
                            if row["msgs"] else None)
            return row

        self.rows = [row_for(k, t_scores[k]) for k in hands]
        # a hand cut short (a stall, the timeout): up to the last message
        # the bot sent before the end of play
        self.cut_row = None
        k = last + 1
        if k in t_deal and k <= self.hands and not self.game_over:
            t_end_play = self.t_end_play or big
            sent = [ts for lst in msgs.values() for ts, _, e in lst
                    if hand_of[e] == k and ts <= t_end_play]
            if sent:
                self.cut_row = row_for(k, max(sent), cut=True)

        # Outside the hands: messages by their label, the rest by time.

        def span(lo, hi, which=None):
            reqs = reqs_in(lo, hi, hi_incl=False)
            if which is None:
                n = sum(1 for lst in msgs.values() for ts, _, _ in lst
                        if lo <= ts < hi)
            else:
                n = sum(1 for lst in msgs.values() for _, _, e in lst
                        if which(hand_of[e]))
            return {"msgs": n,
                    "other": sum(1 for ts, _, _ in others if lo <= ts < hi),
                    "reqs": len(reqs),
                    "syncs": sum(1 for x in reqs if is_sync(x[2])),
                    "r429": sum(1 for x in reqs if x[3] == 429),
                    "txns": sum(1 for x in self.pushes
                                if lo <= x[0] < hi and x[2] == 200),
                    "kinds": collections.Counter(
                        "%s %s" % (request_kind(x[1], x[2]), x[3])
                        for x in reqs)}
        self.before_start = span(0, self.t_start or big)
        t_all = (self.t_start + max(self.dealt.values())
                 if self.t_start and self.dealt
                 and all(v is not None for v in self.dealt.values())
                 else None)
        self.start_span = span(self.t_start, t_all) if t_all else None
        self.after = span(t_scores[last] + 1e-6, big,
                          lambda h: h > last) if last else None
        self.total = span(0, big)

        # the checks
        broken = self.broken
        tricks = collections.defaultdict(collections.Counter)
        for ts, body, eid in table:
            for line in body.split("\n"):
                t = harness.parse_trick_line(line)
                if t:
                    tricks[hand_of[eid]][t[0]] += 1
        for k in hands:
            if tricks[k] != {i: 1 for i in range(1, 14)}:
                broken.append("hand %d: trick lines in the table room %s" % (
                    k, dict(sorted(tricks[k].items()))))
            for p in people:
                if deals[(p.local, k)] != 1:
                    broken.append("hand %d: %s got %d deals" % (
                        k, p.local, deals[(p.local, k)]))
        for k, c in tricks.items():
            if k not in hands and any(n > 1 for n in c.values()):
                broken.append("hand %d (not measured): trick lines %s" % (
                    k, dict(sorted(c.items()))))
        for k, n in scores_count.items():
            if n != 1:
                broken.append("hand %d: %d scores lines" % (k, n))
        for (who, k), n in deals.items():
            if n > 1 and k not in hands:
                broken.append("hand %d: %s got %d deals" % (k, who, n))
        for r, lst in msgs.items():
            for (_, a, _), (_, b, _) in zip(lst, lst[1:]):
                if a == b:
                    broken.append("%s: the same body twice in a row: %r" % (
                        "table" if r == room else owner.get(r, r),
                        a[:120]))
        for p in people:
            for r in [room] + p.dm_rooms:
                server = [e for _, _, e in msgs.get(r, [])]
                known = set(server)
                seen = [e for e in p.seen_bot_events(r) if e in known]
                if seen != server:
                    twice = [e for e, n in collections.Counter(seen).items()
                             if n > 1]
                    if twice:
                        self.note("%s saw twice: %s" % (
                            p.local, p.seen_detail(twice[0])))
                    broken.append(
                        "%s's view of %s: %d of the server's %d messages "
                        "not seen, %d seen twice%s" % (
                            p.local, "the table" if r == room
                            else "their direct room",
                            len(known - set(seen)), len(server),
                            len(seen) - len(set(seen)),
                            "" if collections.Counter(seen)
                            != collections.Counter(server)
                            else ", order differs"))
            if len(p.dm_rooms) != 1:
                broken.append("%s: private lines in %d rooms" % (
                    p.local, len(p.dm_rooms)))
            if p.limited:
                broken.append("%s: a sync cut a timeline off (%d times)" % (
                    p.local, len(p.limited)))
            if p.errors:
                self.note("%s's client errors: %s" % (p.local, p.errors[:3]))
            if p.dups:
                self.note("%s's syncs gave %d event(s) again (same event "
                          "ID, kept once; the server's doing): %s" % (
                              p.local, len(p.dups), "; ".join(
                                  "%s %r" % (e.get("type"), e.get(
                                      "content", {}).get("body", e.get(
                                          "content", {}).get("membership",
                                                             ""))[:50])
                                  for _, _, e in p.dups[:3])))
            if p.trouble:
                self.note("%s was told (%d): %s" % (
                    p.local, len(p.trouble),
                    "; ".join(x[:100] for _, x in p.trouble[:5])))
        self.check_record(people)
        if self.other_rooms:
            self.note("rooms no person can read (not counted): %s" %
                      ", ".join(self.other_rooms))
        half = self.extra.get("half_made")
        if half:
            self.note("rooms a refused createRoom left half-made: %d" %
                      len(half))
        # the bot's own log
        self.bot_429 = bot_log_times(self.bot_log, r"rate-limited on ")
        warns = [x for x in self.bot_log.splitlines()
                 if re.match(r"\S+ (warn|error) ", x)]
        self.bot_warns = warns
        for w in warns[:8]:
            self.note("bot log: " + w[:240])
        if self.rc not in (0, None):
            self.note("the bot's exit code: %s (stop took %.1f s)" % (
                self.rc, self.stop_secs))
        self.analysed = True

    def check_record(self, people):
        path = harness.archive_path(self.data, "mx", self.room)
        records = harness.read_records(self.data, network="mx",
                                       room=self.room, finished_only=False)
        if not records:
            found = []
            for d, _, files in os.walk(self.data):
                if "archive.jsonl" in files:
                    found.append(os.path.join(d, "archive.jsonl"))
            if len(found) == 1:
                path = found[0]
                with open(path, encoding="utf-8") as f:
                    records = [json.loads(x) for x in f if x.strip()]
        self.record_ok = False
        if len(records) != 1:
            self.broken.append("the archive has %d records" % len(records))
            return
        record = records[0]
        try:
            rc, out = harness.replay(path)
        except Exception as e:     # no hearts-sim
            self.broken.append("the record could not be replayed: %s" % e)
            return
        if rc != 0 or "game 1: OK" not in out:
            self.broken.append("hearts-sim replay: rc %d: %s" % (
                rc, out.strip()[-300:]))
            return
        for p in people:
            if p.user_id not in record["players"]:
                self.broken.append("%s is not among the record's players %s"
                                   % (p.user_id, record["players"]))
                return
            seat = record["players"].index(p.user_id)
            got = {}
            for n, d, _, _ in p.deals:
                got.setdefault(n, sorted(d.cards))
            for i, h in enumerate(record["hands"]):
                if i + 1 in got and got[i + 1] != sorted(h["deal"][seat]):
                    self.broken.append("%s's deal of hand %d is not the "
                                       "record's" % (p.local, i + 1))
        self.record_ok = True
        self.record_hands = len(record["hands"])

    # -- printing ------------------------------------------------------

    def print(self):
        srv = self.srv
        print("\n### %s: %s\n" % (srv.title, self.label))
        print("%s; bot %s (%s); %s; --log-level %s, %s; "
              "the run took %.0f s" % (
                  time.strftime("%Y-%m-%d %H:%M %Z"), commit(),
                  harness.bot_binary(), scripted.describe_machine(),
                  self.args.log_level, "mode appservice" if self.appservice
                  else "sync_timeout_ms %d" % self.args.sync_timeout_ms,
                  self.wall))
        print()
        # the last column: the pace against the limit, or (appservice)
        # the transactions the homeserver pushed to the bot
        print("| hand | seconds (deal → scores) | hand to hand | messages "
              "(table + direct) | other events | requests | /sync | send "
              "PUTs | other requests | 429 | %s |" % (
                  "transactions pushed (events)" if self.appservice
                  else "s ÷ (msgs ÷ 0.2)"))
        print("|---|---|---|---|---|---|---|---|---|---|---|")

        def last(r, n=1):
            if not self.appservice:
                return "%.2f" % r["ratio"] if r["ratio"] is not None else "–"
            ev = r["txn_events"]
            retried = r["txn_tries"] - r["txns"]
            return "%s%s%s" % (
                "%.1f" % (r["txns"] / n) if n > 1 else r["txns"],
                " (%s)" % ("%.1f" % (ev / n) if n > 1 else ev)
                if ev is not None else "",
                ", %s not answered 200" % retried if retried else "")
        for r in self.rows + ([self.cut_row] if self.cut_row else []):
            print("| %s | %.1f | %s | %d (%d + %d) | %d | %d | %d | %d | %d "
                  "| %d | %s |" % (
                      "%d, cut short at its last message" % r["hand"]
                      if r["cut"] else r["hand"], r["secs"],
                      "%.1f" % r["cycle"] if r["cycle"] is not None else "–",
                      r["msgs"], r["table"], r["dm"], r["other"], r["reqs"],
                      r["syncs"], r["sends"],
                      r["reqs"] - r["syncs"] - r["sends"], r["r429"],
                      last(r)))
        if self.rows:
            n = len(self.rows)
            s = {k: sum(r[k] for r in self.rows) for k in
                 ("secs", "msgs", "table", "dm", "other", "reqs", "syncs",
                  "sends", "r429", "txns", "txn_tries")}
            ev = [r["txn_events"] for r in self.rows]
            s["txn_events"] = None if None in ev else sum(ev)
            s["ratio"] = s["secs"] / (s["msgs"] / RATE) if s["msgs"] else 0
            print("| mean | %.1f | | %.1f (%.1f + %.1f) | %.1f | %.1f | %.1f "
                  "| %.1f | %.1f | %.1f | %s |" % (
                      s["secs"] / n, s["msgs"] / n, s["table"] / n,
                      s["dm"] / n, s["other"] / n, s["reqs"] / n,
                      s["syncs"] / n, s["sends"] / n,
                      (s["reqs"] - s["syncs"] - s["sends"]) / n,
                      s["r429"] / n, last(s, n)))
        print()
        if self.rows:
            # what the requests are, hand by hand (all but the sends of
            # messages, which the table counts)
            print("| hand | the bot's requests other than its m.room.message "
                  "sends |")
            print("|---|---|")
            for r in self.rows:
                other = [(k, v) for k, v in sorted(r["kinds"].items())
                         if k != "PUT /rooms/{room}/send/m.room.message/{key}"]
                print("| %d | %s |" % (r["hand"], ", ".join(
                    "%s ×%d" % kv for kv in other) or "none"))
            print()
        print("| figure | value |")
        print("|---|---|")
        dealt = ", ".join("%s %s" % (k, "%.1f s" % v if v is not None
                                     else "never")
                          for k, v in self.dealt.items())
        got = [v for v in self.dealt.values() if v is not None]
        print("| `!start` → every person has their first deal | %s (%s) |" % (
            "%.1f s" % max(got) if got and len(got) == len(self.dealt)
            else "NOT ALL", dealt))

        def fmt(sp):
            if not sp:
                return "–"
            return ("%d messages, %d other events, %d requests (%d /sync), "
                    "%d 429%s" % (sp["msgs"], sp["other"], sp["reqs"],
                                  sp["syncs"], sp["r429"],
                                  ", %d transactions pushed" % sp["txns"]
                                  if self.appservice else ""))
        print("| meanwhile (`!start` → the last first deal) | %s |" %
              fmt(self.start_span))
        print("| before `!start` (joining, lobby, direct rooms) | %s |" %
              fmt(self.before_start))
        print("| before `!start`: the bot's requests by kind and status "
              "| %s |" % ", ".join("%s ×%d" % kv for kv in sorted(
                  self.before_start["kinds"].items())))
        print("| after the last hand measured (until the bot stopped) | %s |"
              % fmt(self.after))
        print("| the whole run | %s |" % fmt(self.total))
        c = self.extra.get("counters")
        if c:
            print("| the bot's requests, the server's counters | %s |" % (
                ", ".join("%s %d" % kv for kv in sorted(c.items()))))
        c = self.extra.get("as_counters")
        if c:
            print("| transactions pushed to the bot, the server's counters "
                  "| %s |" % ", ".join("%s %s" % kv for kv in sorted(
                      c.items())))
        elif self.appservice:
            tries = len(self.pushes)
            ok = sum(1 for x in self.pushes if x[2] == 200)
            print("| transactions pushed to the bot (Synapse's log; events "
                  "per transaction are not in it) | %d, %d of them answered "
                  "200 |" % (tries, ok))
        print("| 429s the bot logged (\"rate-limited on\") | %d |" %
              len(self.bot_429))
        print("| the bot's warnings and errors in its log | %d |" %
              len(self.bot_warns))
        print("| hands played / asked | %d / %d%s |" % (
            len(self.rows), self.hands,
            " (game over)" if self.game_over else ""))
        if self.stalled:
            print("| STALLED | nothing from the bot for %.0f s during hand "
                  "%d: the run was cut short |" % (
                      self.stalled, len(self.rows) + 1))
        print("| the bot's exit | code %s after %.1f s |" % (
            self.rc, self.stop_secs))
        print("| record replays (hearts-sim) | %s |" % (
            "yes, %d hands" % self.record_hands if self.record_ok else "NO"))
        print("| nothing lost or doubled | %s |" % (
            "yes" if not self.broken else "NO: " + "; ".join(self.broken)))
        for g in self.goals():
            print("| goal: %s | %s |" % g)
        print(flush=True)
        for b in self.broken:
            say_loud("BROKEN: " + b)
        for text, verdict in self.goals():
            if verdict.startswith("MISSED"):
                say_loud("goal missed: %s: %s" % (text, verdict))

    def start_text(self):
        got = [v for v in self.dealt.values() if v is not None]
        return ("%.1f s" % max(got) if got and len(got) == self.people_n
                else "NOT ALL")

    def goals(self):
        out = []
        if self.appservice:
            # the goal, hand by hand
            for r in self.rows:
                bad = []
                if r["secs"] >= GOAL_AS_SECS:
                    bad.append("%.1f s" % r["secs"])
                if r["r429"]:
                    bad.append("%d 429" % r["r429"])
                if r["reqs"] > r["msgs"] + GOAL_FEW:
                    bad.append("%d requests for %d messages" % (
                        r["reqs"], r["msgs"]))
                out.append((
                    "hand %d < 30 s, no 429, requests ≤ messages + %d" % (
                        r["hand"], GOAL_FEW),
                    "MISSED (%s)" % ", ".join(bad) if bad else
                    "met (%.1f s, %d requests for %d messages)" % (
                        r["secs"], r["reqs"], r["msgs"])))
        if self.limits == "default" and self.rows:
            worst = max((r["ratio"] or 0) for r in self.rows)
            out.append(("a hand ≤ 1.1 × (messages ÷ 0.2) s",
                        ("met" if worst <= GOAL_RATIO else "MISSED")
                        + " (worst %.2f)" % worst))
        if self.people_n == 4:
            got = [v for v in self.dealt.values() if v is not None]
            ok = len(got) == 4 and max(got) <= GOAL_START
            out.append(("four people dealt ≤ 30 s after `!start`",
                        ("met" if ok else "MISSED") + (
                            " (%.1f s)" % max(got) if len(got) == 4
                            else " (not every deal came)")))
        return out

    def summary_row(self):
        if not self.rows:
            return ("| %d | %s | 0 | – | – | – | – | – | – | %s | %s "
                    "| %.0f s |") % (
                self.people_n, self.limits_text, self.start_text(),
                ("STALLED " if self.stalled else "") + (
                    "OK" if not self.broken and self.record_ok
                    else "BROKEN"), self.wall)
        n = len(self.rows)
        s = {k: sum(r[k] for r in self.rows) for k in
             ("secs", "msgs", "reqs", "syncs", "r429")}
        worst = max([(r["ratio"] or 0) for r in self.rows] or [0])
        return "| %d | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s " \
               "| %s | %.0f s |" % (
                   self.people_n, self.limits_text, len(self.rows),
                   s["secs"] / n, s["msgs"] / n, s["reqs"] / n,
                   s["syncs"] / n, s["r429"] / n,
                   "%.2f" % worst if self.limits == "default" else "–",
                   self.start_text(),
                   ("STALLED " if self.stalled else "") + (
                       "OK" if not self.broken and self.record_ok
                       else "BROKEN"),
                   self.wall)


def request_kind(method, path):
    """A request's kind: its method and path without the query, with a
    room, user, event type, state key or transaction ID made a
    placeholder (PUT .../rooms/{room}/send/{type}/{txn})."""
    p = path.split("?")[0]
    p = re.sub(r"^/_matrix/client/(?:v3|r0|unstable)", "", p)
    p = re.sub(r"/rooms/[^/]+", "/rooms/{room}", p)
    p = re.sub(r"/(join|user|profile|directory/room)/[^/]+",
               r"/\1/{id}", p)
    p = re.sub(r"/(send|state)/([^/]+)/[^/]*$", r"/\1/\2/{key}", p)
    p = re.sub(r"/(sendToDevice/[^/]+)/[^/]+$", r"/\1/{txn}", p)
    return "%s %s" % (method, p)


def is_sync(path):
    return path.split("?")[0].endswith("/sync")


def is_send(method, path):
    return method == "PUT" and "/send/" in path


_commit = None


def commit():
    global _commit
    if _commit is None:
        try:
            _commit = subprocess.run(
                ["git", "-C", scripted.REPO, "rev-parse", "--short", "HEAD"],
                capture_output=True, text=True, timeout=10).stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", scripted.REPO, "status", "--porcelain",
                 "--untracked-files=no"],
                capture_output=True, text=True, timeout=10).stdout.strip()
            if dirty:
                _commit += " (work tree modified)"
        except (OSError, subprocess.SubprocessError):
            _commit = "?"
    return _commit


def check_synapse_registration():
    """--mode appservice --server synapse: HEARTS_SYNAPSE_AS_REGISTRATION
    names a registration whose url is http://127.0.0.1:PORT, or exit."""
    path = SYNAPSE_AS_REGISTRATION
    if not path:
        sys.exit("--mode appservice --server synapse: set "
                 "HEARTS_SYNAPSE_AS_REGISTRATION to a registration file "
                 "that Synapse's homeserver.generated.yaml lists in "
                 "app_service_config_files (see the top of this program)")
    try:
        reg = realsynapse.read_registration(path)
    except OSError as e:
        sys.exit("HEARTS_SYNAPSE_AS_REGISTRATION: %s" % e)
    missing = [k for k in ("url", "as_token", "hs_token", "sender_localpart")
               if k not in reg]
    if missing:
        sys.exit("%s: no %s" % (path, ", ".join(missing)))
    u = urllib.parse.urlsplit(reg["url"])
    if u.scheme != "http" or u.hostname != "127.0.0.1" or not u.port:
        sys.exit("%s: its url must be http://127.0.0.1:PORT, not %r" % (
            path, reg["url"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", choices=("test", "synapse"), default="test")
    ap.add_argument("--people", type=int, choices=(1, 4), default=4)
    ap.add_argument("--limits", choices=("default", "exempt"),
                    default="default")
    ap.add_argument("--mode", choices=("sync", "appservice"), default="sync",
                    help="the bot's [[matrix]] mode (appservice: never "
                         "limited, --limits does not apply)")
    ap.add_argument("--all", action="store_true",
                    help="the 4 runs of people x limits on --server")
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--exempt-hands", type=int, default=None,
                    help="hands of an exempt run (default: --hands)")
    ap.add_argument("--seed", type=int, default=None,
                    help="people pick random legal cards (seeded) instead "
                         "of test_matrix_bot.answer's")
    ap.add_argument("--log-level", default="info",
                    choices=("error", "warn", "info", "debug"))
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds a run may play (default: 300 + 900 a "
                         "hand under the limits, 120 exempt)")
    ap.add_argument("--sync-timeout-ms", type=int, default=30000)
    ap.add_argument("--stall", type=float, default=None,
                    help="seconds without a bot event that end a run as "
                         "stalled (default 120 under the limits, 60 "
                         "exempt)")
    ap.add_argument("--restart-synapse", action="store_true",
                    help="reset a running Synapse this program did not "
                         "start")
    args = ap.parse_args()
    if args.exempt_hands is None:
        args.exempt_hands = args.hands
    if args.mode == "appservice" and args.server == "synapse":
        check_synapse_registration()
    bot = harness.bot_binary()
    if bot is None:
        sys.exit("no bot binary: set HEARTSBOT")
    if not os.environ.get("HEARTS_SIM"):
        sim = os.path.join(os.path.dirname(bot), "hearts-sim")
        if os.access(sim, os.X_OK):
            os.environ["HEARTS_SIM"] = sim
    if args.server == "synapse" and SynapseServer.running() \
            and not args.restart_synapse:
        sys.exit("Synapse is running and this program did not start it: "
                 "stop it (synapse.sh stop) or pass --restart-synapse "
                 "(every run resets its database)")
    print("machine: " + scripted.describe_machine())
    print("bot: %s, commit %s, mode %s" % (bot, commit(), args.mode))
    print("hearts-sim: %s" % harness.sim_binary())
    if args.mode == "appservice":
        # the bot is not limited: one run per number of people
        combos = [(1, "exempt"), (4, "exempt")] if args.all \
            else [(args.people, "exempt")]
    elif args.all:
        combos = [(1, "exempt"), (1, "default"), (4, "exempt"),
                  (4, "default")]
    else:
        combos = [(args.people, args.limits)]
    runs = []
    for people_n, limits in combos:
        hands = args.hands if limits == "default" else args.exempt_hands
        run = Run(args, people_n, limits, hands)
        try:
            run.go()
        except Exception as e:
            say_loud("the run failed: %s: %s" % (type(e).__name__, e))
            run.failed = e
            if not run.analysed:    # failed before the figures
                continue
        run.print()
        runs.append(run)
    if len(combos) > 1:
        title = runs[0].srv.title if runs else args.server
        print("\n### Summary: %s%s, %s\n" % (
            title, ", the bot an application service"
            if args.mode == "appservice" else "", time.strftime("%Y-%m-%d")))
        print("bot commit %s; %s\n" % (commit(),
                                       scripted.describe_machine()))
        print("| people | limits | hands | s / hand (deal → scores) | "
              "messages / hand | requests / hand | /sync / hand | 429 / hand "
              "| worst s ÷ (msgs ÷ 0.2) | `!start` → all dealt | checks "
              "| run |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in runs:
            print(r.summary_row())
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

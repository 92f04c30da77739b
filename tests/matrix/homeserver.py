"""A small, strict Matrix homeserver for heartsbot's tests.

Python 3.11 standard library only (run it with Debian's /usr/bin/python3).
It implements the part of the Matrix client-server API (v1.x, served under
both /_matrix/client/v3 and /_matrix/client/r0) that the bot and the
matrix-nio test clients use, and refuses what a real homeserver refuses.
README.md next to this file lists the endpoints, the errors and the faults.

In-process use:

    hs = Homeserver(tmpdir)          # listens on 127.0.0.1:<free port>
    hs.start()
    alice = hs.register("alice", "secret")      # "@alice:hearts.test"
    hs.fault("/_matrix/client/v3/sync", "500", count=1)
    ...
    hs.stop()

As a process:

    /usr/bin/python3 tests/matrix/homeserver.py --port-file PATH --log PATH \
        [--port N] [--user alice:secret ...] [--no-ratelimit] \
        [--no-join-ratelimit] [--no-invite-ratelimit] [--no-login-ratelimit] \
        [--appservice REGISTRATION.yaml ...] [--appservice-legacy]

The test side then uses the /_test/ endpoints (register, fault, revoke,
ratelimit, counters, as_*); they are not part of the Matrix API.

It is also an application-service homeserver, as Synapse 1.67 is
(appservice.py: registrations, pushers): Homeserver(...,
appservices=[PATH]) or hs.add_appservice(PATH); the service's token acts
as its sender or ?user_id=, /register takes its users, and the events of
its rooms are pushed to it in transactions, retried until answered.
"""

import argparse
import bisect
import http.server
import json
import os
import random
import re
import socket
import string
import sys
import threading
import time
import traceback
import urllib.parse

import appservice

SERVER_NAME = "hearts.test"
MAX_BODY = 65536            # bytes of a request body (413 M_TOO_LARGE)
MAX_EVENT = 65536           # bytes of an event's JSON (413 M_TOO_LARGE)
MAX_SYNC_TIMEOUT_MS = 60000
DEFAULT_TIMELINE_LIMIT = 10
PREFIXES = ("/_matrix/client/v3", "/_matrix/client/r0")


class MatrixError(Exception):
    """An error answer: HTTP status, errcode, message, extra JSON fields."""

    def __init__(self, status, errcode, error, **extra):
        super().__init__(error)
        self.status = status
        self.errcode = errcode
        self.error = error
        self.extra = extra

    def body(self):
        b = {"errcode": self.errcode, "error": self.error}
        b.update(self.extra)
        return b


def _bad_json(what):
    return MatrixError(400, "M_BAD_JSON", what)


def _forbidden(what):
    return MatrixError(403, "M_FORBIDDEN", what)


def _not_found(what):
    return MatrixError(404, "M_NOT_FOUND", what)


def _random_id(n=18):
    alphabet = string.ascii_letters + string.digits
    return "".join(random.choice(alphabet) for _ in range(n))


def _need(body, key, kind, optional=False):
    """body[key] checked against a type; M_BAD_JSON when wrong."""
    if key not in body:
        if optional:
            return None
        raise MatrixError(400, "M_MISSING_PARAM", "missing field '%s'" % key)
    value = body[key]
    if kind is str and not isinstance(value, str):
        raise _bad_json("'%s' must be a string" % key)
    if kind is bool and not isinstance(value, bool):
        raise _bad_json("'%s' must be a boolean" % key)
    if kind is dict and not isinstance(value, dict):
        raise _bad_json("'%s' must be an object" % key)
    if kind is list and not isinstance(value, list):
        raise _bad_json("'%s' must be an array" % key)
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise _bad_json("'%s' must be an integer" % key)
    return value


class RateLimiter:
    """Synapse 1.67's limiter (synapse/api/ratelimiting.py, a "leaky bucket
    as a meter"), one bucket per key: `count` actions counted since `start`,
    leaking `rate` a second, so `count - (now - start) * rate` are still in
    it (when that falls below 0 the bucket starts again: count 0, start
    now). n actions fit when at most `burst - n` are in the bucket; a check
    with update=True counts them, one with update=False only looks. A
    refusal counts nothing and tells the wait Synapse gives: the time when
    `count - burst + 1` actions will have leaked, in whole milliseconds
    (truncated, as Synapse does). rate <= 0 and burst <= 0: no limit."""

    def __init__(self, rate, burst):
        self.rate = rate
        self.burst = burst
        self.buckets = {}        # key -> (count, start)

    def reset(self):
        self.buckets = {}

    def check(self, key, now, n=1, update=True):
        """None when n more actions fit (counted if update), else the
        retry_after_ms of the 429."""
        if self.rate <= 0 and self.burst <= 0:
            return None
        count, start = self.buckets.get(key, (0.0, now))
        level = count - (now - start) * self.rate
        if level < 0:
            level, count, start = 0.0, 0.0, now
        fits = not level > self.burst - n
        if fits:
            count += n
        if update:
            self.buckets[key] = (count, start)
        if fits:
            return None
        if self.rate <= 0:
            return 3600 * 1000
        when = max(now, start + (count - self.burst + 1) / self.rate)
        return int(1000 * (when - now))

    def record(self, key, now, n=1):
        """Counts n actions without any check (Synapse's record_action): the
        bucket keeps its start and never starts again, since Synapse stores
        such a bucket with a leak rate of 0 and so never prunes it."""
        count, start = self.buckets.get(key, (0.0, now))
        self.buckets[key] = (count + n, start)


class Fault:
    def __init__(self, path_prefix, kind, count=1, retry_after_ms=1000,
                 method=None, user_id=None, status=200, body=b""):
        if kind not in ("429", "500", "hang", "drop", "drop_after", "raw",
                        "slow"):
            raise ValueError("unknown fault kind %r" % kind)
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.path_prefix = path_prefix
        self.kind = kind
        self.count = count
        self.retry_after_ms = retry_after_ms
        self.method = method
        self.user_id = user_id
        self.status = status
        self.body = body
        self.hits = 0

    def matches(self, method, path, user_id):
        if self.count == 0:
            return False
        if not path.startswith(self.path_prefix):
            return False
        if self.method and self.method != method:
            return False
        if self.user_id and self.user_id != user_id:
            return False
        return True


class Room:
    def __init__(self, room_id):
        self.room_id = room_id
        self.events = []            # every event, in order
        self.positions = []         # their stream positions (ascending)
        self.last_change = 0        # position of the last event/account data
        self.state = {}             # (type, state_key) -> event
        self.membership_log = {}    # user_id -> [(pos, membership)]
        self.account_data = {}      # user_id -> {type: (pos, content)}

    def membership(self, user_id):
        ev = self.state.get(("m.room.member", user_id))
        return ev["content"].get("membership") if ev else None

    def members(self, membership="join"):
        return [k for (t, k), ev in self.state.items()
                if t == "m.room.member"
                and ev["content"].get("membership") == membership]

    def creator(self):
        ev = self.state.get(("m.room.create", ""))
        return ev["content"].get("creator") if ev else None

    def half_made(self):
        """A create event, and the creator never joined: a createRoom whose
        join was refused."""
        creator = self.creator()
        return creator is not None and self.membership(creator) is None


class State:
    """Everything the homeserver knows; guarded by Homeserver.lock."""

    def __init__(self, server_name):
        self.server_name = server_name
        self.pos = 0                      # stream position of the last event
        self.users = {}                   # user_id -> dict
        self.tokens = {}                  # access_token -> (user_id, device)
        self.revoked = {}                 # access_token -> soft_logout
        self.rooms = {}                   # room_id -> Room
        self.aliases = {}                 # alias -> room_id
        self.txns = {}                    # (token, room, type, txn) -> id
        self.filters = {}                 # (user_id, filter_id) -> filter
        self.account_data = {}            # user_id -> {type: (pos, content)}
        self.counters = {}                # user_id -> {name: n}
        self.device_keys = {}             # user_id -> {device_id: keys}
        self.one_time_keys = {}           # (user_id, device) -> {alg: n}


class Homeserver:
    """The server: a thread per connection (HTTP/1.1 keep-alive), one lock
    over the state and a condition that wakes long-polling /sync calls."""

    def __init__(self, tmpdir=None, port=0, server_name=SERVER_NAME,
                 ratelimit=True, message_rate=0.2, message_burst=10,
                 join_rate=0.1, join_burst=10,
                 join_room_rate=1.0, join_room_burst=10,
                 invite_room_rate=0.3, invite_room_burst=10,
                 invite_rate=0.003, invite_burst=5,
                 invite_issuer_rate=0.3, invite_issuer_burst=10,
                 login_rate=0.17, login_burst=3,
                 login_account_rate=0.17, login_account_burst=3,
                 login_failed_rate=0.17, login_failed_burst=3,
                 join_limits=True, invite_limits=True, login_limits=True,
                 clock=None, retry_after_header=False,
                 max_body=MAX_BODY, log_path=None, appservices=(),
                 legacy_paths=False, as_backoff_ms=200,
                 as_backoff_cap_ms=5000, as_timeout_ms=5000,
                 as_client_ping=True):
        self.server_name = server_name
        # POST /_matrix/client/v1/appservice/{id}/ping (Matrix 1.7,
        # Synapse 1.84); False: unknown, as to Synapse 1.67
        self.as_client_ping = as_client_ping
        self.port = port
        self.dir = tmpdir
        if log_path is None and tmpdir is not None:
            log_path = os.path.join(tmpdir, "homeserver.log")
        self.log_path = log_path
        # Synapse 1.67's limiters with its defaults (synapse/config/
        # ratelimiting.py): rc_message; rc_joins.local and rc_joins_per_room;
        # rc_invites.per_room, per_user (keyed by the invitee) and
        # per_issuer; rc_login.address, account and failed_attempts.
        self.ratelimit = ratelimit
        self.join_limits = join_limits
        self.invite_limits = invite_limits
        self.login_limits = login_limits
        self.clock = clock or time.monotonic
        self.messages = RateLimiter(message_rate, message_burst)
        self.joins = RateLimiter(join_rate, join_burst)
        self.joins_room = RateLimiter(join_room_rate, join_room_burst)
        self.invites_room = RateLimiter(invite_room_rate, invite_room_burst)
        self.invites = RateLimiter(invite_rate, invite_burst)
        self.invites_issuer = RateLimiter(invite_issuer_rate,
                                          invite_issuer_burst)
        self.logins_address = RateLimiter(login_rate, login_burst)
        self.logins_account = RateLimiter(login_account_rate,
                                          login_account_burst)
        self.logins_failed = RateLimiter(login_failed_rate, login_failed_burst)
        self.retry_after_header = retry_after_header
        self.max_body = max_body
        self.exempt = set()
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.state = State(server_name)
        self.faults = []
        self.stopping = threading.Event()
        self.httpd = None
        self.thread = None
        self.log_file = None
        self.log_lock = threading.Lock()
        # Application services (appservice.py): a pusher each, in the order
        # added; their transactions' IDs come from one sequence, as in
        # Synapse; as_cond (on the same lock) wakes the pushers and those
        # waiting for them.
        self.legacy_paths = legacy_paths
        self.as_backoff_ms = as_backoff_ms
        self.as_backoff_cap_ms = as_backoff_cap_ms
        self.as_timeout_ms = as_timeout_ms
        self.as_cond = threading.Condition(self.lock)
        self.pushers = []
        self.as_txn_id = 0
        self.request_context = threading.local()   # the AS of a request
        for path in appservices:
            self.add_appservice(path)

    # -- life -----------------------------------------------------------

    def start(self):
        if self.log_path:
            self.log_file = open(self.log_path, "a", buffering=1)
        self.stopping.clear()
        handler = type("Handler", (_Handler,), {"hs": self})
        self.httpd = _HTTPServer(("127.0.0.1", self.port), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.1},
                                       name="homeserver", daemon=True)
        self.thread.start()
        for p in self.pushers:
            if p.service.base is not None:
                p.start()
        return self

    def stop(self):
        if self.httpd is None:
            return
        for p in self.pushers:
            p.stop()
        self.stopping.set()
        with self.cond:
            self.cond.notify_all()
        self.httpd.shutdown()
        self.httpd.close_all()
        self.httpd.server_close()
        self.thread.join(5.0)
        self.httpd = None
        if self.log_file:
            self.log_file.close()
            self.log_file = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def log(self, line):
        if self.log_file:
            with self.log_lock:
                self.log_file.write("%.3f %s\n" % (time.time(), line))

    # -- the test's API -------------------------------------------------

    def register(self, localpart, password, displayname=None):
        """Creates a user; returns the user ID. A user ID an application
        service holds exclusively is refused (MatrixError 400 M_EXCLUSIVE,
        as Synapse's admin registration refuses it)."""
        if not re.fullmatch(r"[a-z0-9._=/+-]+", localpart):
            raise ValueError("bad localpart %r" % localpart)
        user_id = "@%s:%s" % (localpart, self.server_name)
        with self.lock:
            if user_id in self.state.users:
                raise ValueError("user exists: %s" % user_id)
            self._as_check_not_exclusive(user_id)
            self.state.users[user_id] = {
                "password": password, "displayname": displayname or localpart,
                "avatar_url": None, "devices": set()}
        return user_id

    def fault(self, path_prefix, kind, count=1, retry_after_ms=1000,
              method=None, user_id=None, status=200, body=b""):
        """The next `count` requests whose path (without query) starts with
        path_prefix fail: "429" (M_LIMIT_EXCEEDED with retry_after_ms),
        "500", "hang" (no answer until the client gives up or the server
        stops), "drop" (connection closed before handling), "drop_after"
        (handled, then closed without an answer), "raw" (answered with
        `status` and the bytes `body`, unhandled: hostile answers), "slow"
        (handled at once, answered retry_after_ms later).
        count=-1: for ever."""
        f = Fault(path_prefix, kind, count, retry_after_ms, method, user_id,
                  status, body)
        with self.lock:
            self.faults.append(f)
        return f

    def clear_faults(self):
        with self.lock:
            self.faults = []

    def revoke(self, user_id=None, token=None, soft_logout=False):
        """Revokes a token, or every token of a user: 401 M_UNKNOWN_TOKEN."""
        with self.lock:
            for tok, (uid, _dev) in list(self.state.tokens.items()):
                if tok == token or (token is None and uid == user_id):
                    del self.state.tokens[tok]
                    self.state.revoked[tok] = soft_logout

    def set_exempt(self, user_id, exempt=True):
        """Like Synapse 1.67's override_ratelimit with messages_per_second
        0: no message limit for the user, and no limit on what the user
        does with any limiter Synapse hands the requester (joins, invites);
        login limits (keyed by address or account) still apply."""
        with self.lock:
            if exempt:
                self.exempt.add(user_id)
            else:
                self.exempt.discard(user_id)

    def set_ratelimit(self, enabled=None, rate=None, burst=None, joins=None,
                      invites=None, logins=None):
        """Switches every limit (enabled), or only the join, invite or login
        limits; rate and burst are the message limit's. Empties every
        bucket."""
        with self.lock:
            if enabled is not None:
                self.ratelimit = enabled
            if joins is not None:
                self.join_limits = joins
            if invites is not None:
                self.invite_limits = invites
            if logins is not None:
                self.login_limits = logins
            if rate is not None:
                self.messages.rate = rate
            if burst is not None:
                self.messages.burst = burst
            for limiter in self._limiters():
                limiter.reset()

    def _limiters(self):
        return (self.messages, self.joins, self.joins_room, self.invites_room,
                self.invites, self.invites_issuer, self.logins_address,
                self.logins_account, self.logins_failed)

    def counters(self, user_id=None):
        """{user_id: {"requests": n, "sends": n, "syncs": n, ...}}."""
        with self.lock:
            c = {u: dict(v) for u, v in self.state.counters.items()}
        return c.get(user_id, {}) if user_id else c

    def reset_counters(self):
        with self.lock:
            self.state.counters = {}

    def room_events(self, room_id, event_type=None):
        """A copy of a room's events (for assertions)."""
        with self.lock:
            room = self.state.rooms[room_id]
            return [json.loads(json.dumps(e)) for e in room.events
                    if event_type is None or e["type"] == event_type]

    def account_data(self, user_id, event_type, room_id=None):
        """A copy of a user's (global or per-room) account data, or None."""
        with self.lock:
            if room_id is None:
                where = self.state.account_data.get(user_id, {})
            else:
                where = self.state.rooms[room_id].account_data.get(user_id, {})
            got = where.get(event_type)
            return json.loads(json.dumps(got[1])) if got else None

    def membership(self, room_id, user_id):
        """"join", "invite", "leave", "ban" or None."""
        with self.lock:
            return self.state.rooms[room_id].membership(user_id)

    def rooms(self, user_id=None, membership="join"):
        """The IDs of every room (half-made ones too), or of the rooms where
        a user has that membership."""
        with self.lock:
            return [r.room_id for r in self.state.rooms.values()
                    if user_id is None or r.membership(user_id) == membership]

    def half_made_rooms(self, user_id=None):
        """The rooms a createRoom left half-made, as Synapse does when the
        creator's join is rate limited: the m.room.create event and nothing
        else, the creator not joined (of every creator, or of one)."""
        with self.lock:
            return [r.room_id for r in self.state.rooms.values()
                    if r.half_made()
                    and (user_id is None or r.creator() == user_id)]

    def device_keys(self, user_id):
        """A copy of {device_id: device keys} a user uploaded ({} if none)."""
        with self.lock:
            return json.loads(json.dumps(
                self.state.device_keys.get(user_id, {})))

    def add_event(self, room_id, sender, event_type, content, state_key=None):
        """Puts an event into a room as `sender` without any check (for
        tests: e.g. an m.room.encrypted event from a client the tests fake)."""
        with self.cond:
            return self._append(self.state.rooms[room_id], sender,
                                event_type, content, state_key)["event_id"]

    # -- application services (the test's API) ----------------------------

    def add_appservice(self, path, legacy_paths=None):
        """Loads a registration file (appservice.RegistrationError, a
        ValueError, for a file Synapse 1.67 would refuse, or an ID or
        as_token another one has); returns its ID. Its pusher starts now
        if the server runs, else with start(). legacy_paths: Synapse
        1.67's paths and token in the query string (default: the
        constructor's)."""
        svc = appservice.load_registration(path, self.server_name)
        legacy = self.legacy_paths if legacy_paths is None else legacy_paths
        with self.lock:
            for p in self.pushers:
                for what, a, b in (("ID", p.service.id, svc.id),
                                   ("as_token", p.service.as_token,
                                    svc.as_token)):
                    if a == b:
                        raise appservice.RegistrationError(
                            "%s: cannot reuse the %s of %s across application"
                            " services" % (path, what, p.service.path))
            pusher = appservice.Pusher(
                svc, self, self.as_cond, legacy, self.as_backoff_ms,
                self.as_backoff_cap_ms, self.as_timeout_ms)
            self.pushers.append(pusher)
        if self.httpd is not None and svc.base is not None:
            pusher.start()
        return svc.id

    def _pushers(self, as_id):
        chosen = [p for p in self.pushers
                  if as_id is None or p.service.id == as_id]
        if as_id is not None and not chosen:
            raise ValueError("no application service %r" % as_id)
        return chosen

    def as_pause(self, as_id=None):
        """Stops pushing to one application service (or all): events queue
        up. Returns once no request to it is in flight any more."""
        with self.as_cond:
            chosen = self._pushers(as_id)
            for p in chosen:
                p.paused = True
            while any(p.busy for p in chosen):
                self.as_cond.wait()

    def as_resume(self, as_id=None):
        """Pushing again (a transaction that failed still waits out its
        backoff)."""
        with self.as_cond:
            for p in self._pushers(as_id):
                p.paused = False
            self.as_cond.notify_all()

    def as_duplicate(self, as_id=None, count=1):
        """The next `count` transactions, once answered, are each sent
        once more with the same ID and events (a homeserver that did not
        see the answer)."""
        with self.as_cond:
            for p in self._pushers(as_id):
                p.duplicates += count
            self.as_cond.notify_all()

    def as_counters(self, as_id=None):
        """{as_id: {"transactions", "failures", "retries", "duplicates",
        "events", "user_queries", "last_txn_id", "pending", "paused",
        "backoff_ms"}}, or one service's dict (README.md says what each
        counts)."""
        with self.lock:
            c = {p.service.id: p.snapshot() for p in self._pushers(as_id)}
        return c[as_id] if as_id is not None else c

    def as_wait_idle(self, timeout=10.0, as_id=None):
        """Waits until every event queued for the application service(s)
        was delivered (nothing queued, no transaction unacknowledged,
        nothing in flight); True, or False after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.as_cond:
            chosen = self._pushers(as_id)
            while not all(p.idle() for p in chosen):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.as_cond.wait(left)
        return True

    # -- the state (callers hold self.lock) -----------------------------

    def _count(self, user_id, name):
        c = self.state.counters.setdefault(user_id, {})
        c[name] = c.get(name, 0) + 1

    def _append(self, room, sender, event_type, content, state_key=None,
                ts=None):
        st = self.state
        st.pos += 1
        ev = {"type": event_type, "content": content, "sender": sender,
              "event_id": "$" + _random_id(43),
              "origin_server_ts": ts or int(time.time() * 1000),
              "room_id": room.room_id, "_pos": st.pos}
        if state_key is not None:
            ev["state_key"] = state_key
            prev = room.state.get((event_type, state_key))
            if prev is not None:
                ev["unsigned"] = {"replaces_state": prev["event_id"],
                                  "prev_content": prev["content"]}
            room.state[(event_type, state_key)] = ev
            if event_type == "m.room.member":
                room.membership_log.setdefault(state_key, []).append(
                    (st.pos, content.get("membership")))
        room.events.append(ev)
        room.positions.append(st.pos)
        room.last_change = st.pos
        self.cond.notify_all()
        if self.pushers:
            self._as_enqueue(room, ev)
        return ev

    # -- application services (callers hold self.lock) ----------------------

    def _as_interested(self, svc, room, ev):
        """Synapse's is_interested_in_event, on the room as this event left
        it: the sender, or a member event's state_key, is the AS's sender or
        in its user namespace; or the room ID, or one of its aliases, is in
        its namespaces; or a user joined to the room is one of its users."""
        if svc.is_interested_in_user(ev["sender"]):
            return True
        if ev["type"] == "m.room.member" and \
                svc.is_interested_in_user(ev.get("state_key")):
            return True
        if svc.is_room_id_in_namespace(room.room_id):
            return True
        if any(rid == room.room_id and svc.is_room_alias_in_namespace(alias)
               for alias, rid in self.state.aliases.items()):
            return True
        return any(svc.is_interested_in_user(u) for u in room.members("join"))

    def _as_enqueue(self, room, ev):
        """Queues a stored event for every application service interested
        in it, with what Synapse sends along: an invite's stripped room
        state (to a service interested in the invitee), and the users to
        ask the service about first."""
        copy = None
        member = ev["type"] == "m.room.member"
        users = [ev["sender"]] + ([ev["state_key"]] if member else [])
        for p in self.pushers:
            svc = p.service
            if svc.base is None or not self._as_interested(svc, room, ev):
                continue
            if copy is None:
                copy = json.loads(json.dumps(
                    {k: v for k, v in ev.items() if not k.startswith("_")}))
            stripped = None
            if member and ev["content"].get("membership") in \
                    ("invite", "knock") and \
                    svc.is_interested_in_user(ev["state_key"]):
                stripped = appservice.invite_room_state(room.state,
                                                        ev["sender"])
            p.enqueue(copy, stripped, users)

    def _as_next_txn_id(self):
        self.as_txn_id += 1
        return self.as_txn_id

    def _as_unknown_user(self, user_id):
        """Synapse's _is_unknown_user: a user ID of this server that nobody
        registered and no application service sends as."""
        return user_id.endswith(":" + self.server_name) and \
            user_id not in self.state.users and \
            not any(p.service.sender == user_id for p in self.pushers)

    def _as_by_token(self, token):
        for p in self.pushers:
            if p.service.as_token == token:
                return p.service
        return None

    def _as_requester(self, svc, user_ids):
        """The user an application service's request acts as: its sender,
        or the `user_id` parameter (the first, as Synapse reads it) when the
        service may act as that user (Synapse's
        validate_appservice_can_control_user_id: 403 M_FORBIDDEN
        otherwise)."""
        if not user_ids:
            return svc.sender
        user_id = user_ids[0]
        if user_id == svc.sender:
            return user_id
        if not svc.is_interested_in_user(user_id):
            raise _forbidden("Application service cannot masquerade as this "
                             "user (%s)." % user_id)
        if user_id not in self.state.users:
            raise _forbidden("Application service has not registered this "
                             "user (%s)" % user_id)
        return user_id

    def _as_check_not_exclusive(self, user_id, allowed=None):
        """Synapse's check_user_id_not_appservice_exclusive: 400
        M_EXCLUSIVE when a service other than `allowed` holds the user ID
        exclusively (its sender, or an exclusive user namespace)."""
        for p in self.pushers:
            svc = p.service
            if svc is not allowed and svc.is_interested_in_user(user_id) \
                    and svc.is_exclusive_user(user_id):
                raise MatrixError(400, "M_EXCLUSIVE", "This user ID is "
                                  "reserved by an application service.")

    def _user_known(self, user_id):
        """A user an invite may name: a registered one, or (as Synapse
        invites any local user ID) one an application service is
        interested in, which it may register when asked."""
        return user_id in self.state.users or any(
            p.service.is_interested_in_user(user_id) for p in self.pushers)

    def _as_unlimited(self, user_id):
        """The request being handled comes from an application service with
        rate_limited: false and acts as user_id: no limiter that Synapse
        hands the requester limits it (Ratelimiter.can_do_action)."""
        svc = getattr(self.request_context, "app_service", None)
        return svc is not None and not svc.rate_limited and \
            getattr(self.request_context, "user_id", None) == user_id

    def _limit(self, limiter, key, requester=None, update=True, n=1,
               on=True):
        """Synapse's Ratelimiter.ratelimit: 429 M_LIMIT_EXCEEDED with
        retry_after_ms when n actions do not fit. `requester`: the user
        Synapse hands the limiter (an exempt one, or one an application
        service with rate_limited: false acts as, is never limited); `on`:
        this kind of limit is switched on."""
        if not self.ratelimit or not on:
            return
        if requester is not None and (requester in self.exempt
                                      or self._as_unlimited(requester)):
            return
        wait = limiter.check(key, self.clock(), n, update)
        if wait is not None:
            raise MatrixError(429, "M_LIMIT_EXCEEDED", "Too Many Requests",
                              retry_after_ms=wait)

    def _limit_message(self, user_id, update=True):
        """rc_message, per user: Synapse checks it (update=False) before
        making an event and counts it when the event is persisted. An
        application service's sender never has this limit (Synapse's
        RequestRatelimiter, whatever its rate_limited says)."""
        if any(p.service.sender == user_id for p in self.pushers):
            return
        self._limit(self.messages, user_id, user_id, update)

    def _limit_invite(self, room_id, inviter, invitee):
        """Synapse's ratelimit_invite: per room, per invitee, per inviter,
        each counted as it passes (an earlier one stays counted when a
        later one refuses)."""
        on = self.invite_limits
        self._limit(self.invites_room, room_id, inviter, on=on)
        self._limit(self.invites, invitee, inviter, on=on)
        self._limit(self.invites_issuer, inviter, inviter, on=on)

    def _new_join(self, room, user_id, auth=None):
        """A user not joined joins (Synapse's _local_membership_update and
        persist_and_notify_client_event): rc_joins local (counted), the
        room's rc_joins_per_room (checked only), the event's auth (here
        `auth()`, which raises when the join is not allowed), rc_message
        (counted), then the join is recorded against the room (always, even
        for an exempt user) and the event stored."""
        on = self.join_limits
        self._limit(self.joins, user_id, user_id, on=on)
        self._limit(self.joins_room, room.room_id, user_id, update=False,
                    on=on)
        if auth is not None:
            auth()
        self._limit_message(user_id)
        self.joins_room.record(room.room_id, self.clock())
        return self._append(room, user_id, "m.room.member",
                            self._member_content(user_id, "join"), user_id)

    def _room(self, room_id):
        room = self.state.rooms.get(room_id)
        if room is None:
            raise _not_found("Unknown room %s" % room_id)
        return room

    def _joined_room(self, room_id, user_id):
        room = self.state.rooms.get(room_id)
        if room is None or room.membership(user_id) != "join":
            raise _forbidden("User %s not in room %s" % (user_id, room_id))
        return room

    def _member_content(self, user_id, membership, extra=None):
        u = self.state.users.get(user_id, {})
        c = {"membership": membership}
        if membership == "join" or membership == "invite":
            if u.get("displayname"):
                c["displayname"] = u["displayname"]
            if u.get("avatar_url"):
                c["avatar_url"] = u["avatar_url"]
        if extra:
            c.update(extra)
        return c


def _public(ev, room_id=False, token=None):
    """An event as clients see it (without the internal fields); the
    client that sent it (same access token) gets its transaction ID."""
    out = {k: v for k, v in ev.items() if not k.startswith("_")}
    if not room_id:
        out.pop("room_id", None)
    unsigned = dict(out.get("unsigned", {}))
    unsigned["age"] = max(0, int(time.time() * 1000) - ev["origin_server_ts"])
    if token is not None and ev.get("_txn") and ev["_txn"][0] == token:
        unsigned["transaction_id"] = ev["_txn"][1]
    out["unsigned"] = unsigned
    return out


def _stripped(ev):
    return {"type": ev["type"], "state_key": ev["state_key"],
            "content": ev["content"], "sender": ev["sender"]}


# ----------------------------------------------------------------------
# Routing

_ROUTES = []


def route(method, pattern, auth=True):
    regex = re.compile("^" + pattern + "$")

    def deco(fn):
        _ROUTES.append((method, regex, auth, fn))
        return fn
    return deco


class Request:
    def __init__(self, hs, method, path, query, body, user_id, device_id,
                 token, address="127.0.0.1"):
        self.hs = hs
        self.address = address          # the client's IP address
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.user_id = user_id
        self.device_id = device_id
        self.token = token

    def json(self):
        if self.body is None or self.body == b"":
            raise MatrixError(400, "M_NOT_JSON", "Content not JSON.")
        try:
            value = json.loads(self.body.decode("utf-8"),
                               parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError):
            raise MatrixError(400, "M_NOT_JSON", "Content not JSON.")
        if not isinstance(value, dict):
            raise _bad_json("Content must be a JSON object.")
        return value

    def arg(self, name, default=None):
        values = self.query.get(name)
        return values[-1] if values else default


def _no_constant(name):
    raise ValueError("not JSON: %s" % name)


@route("GET", "/_matrix/client/versions", auth=False)
def versions(req):
    return {"versions": ["r0.6.1", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5",
                         "v1.6", "v1.7", "v1.8"],
            "unstable_features": {}}


@route("POST", r"/appservice/(?P<as_id>[^/]+)/ping")
def appservice_ping(req, as_id):
    """Matrix 1.7's ping (Synapse 1.84+): the application service asks the
    homeserver to reach it; the homeserver POSTs its ping endpoint and, if
    that answers, retries at once what waits for it (Synapse's
    force_retry)."""
    hs = req.hs
    if not req.path.startswith("/_matrix/client/v1/"):
        raise MatrixError(404, "M_UNRECOGNIZED", "Unrecognized request")
    svc = getattr(hs.request_context, "app_service", None)
    if svc is None or svc.id != as_id:
        raise _forbidden("the application service's own token is needed")
    txn = req.json().get("transaction_id")
    if txn is not None and not isinstance(txn, str):
        raise _bad_json("transaction_id must be a string")
    pusher = next(p for p in hs.pushers if p.service.id == as_id)
    started = time.monotonic()
    status, why = pusher.ping(txn)
    if status is None:
        raise MatrixError(502, "M_CONNECTION_FAILED", why)
    if not 200 <= status < 300:
        raise MatrixError(502, "M_BAD_STATUS", "the ping got %d" % status,
                          status=status)
    return {"duration_ms": int((time.monotonic() - started) * 1000)}


@route("GET", "/login", auth=False)
def login_flows(req):
    return {"flows": [{"type": "m.login.password"}]}


@route("POST", "/login", auth=False)
def login(req):
    body = req.json()
    hs = req.hs
    kind = _need(body, "type", str)
    # Synapse's LoginRestServlet: every attempt counts against
    # rc_login.address, keyed by the client's address, before the rest of
    # the body is looked at.
    with hs.lock:
        hs._limit(hs.logins_address, req.address, on=hs.login_limits)
    if kind != "m.login.password":
        raise MatrixError(400, "M_UNKNOWN", "Unknown login type %s" % kind)
    ident = _need(body, "identifier", dict, optional=True)
    if ident is not None:
        if _need(ident, "type", str) != "m.id.user":
            raise MatrixError(400, "M_UNKNOWN", "Unknown identifier type")
        user = _need(ident, "user", str)
    else:
        user = _need(body, "user", str)      # the deprecated form
    password = _need(body, "password", str)
    device_id = _need(body, "device_id", str, optional=True)
    display = _need(body, "initial_device_display_name", str, optional=True)
    user_id = user if user.startswith("@") else \
        "@%s:%s" % (user.lower(), hs.server_name)
    account = user_id.lower()
    on = hs.login_limits
    with hs.lock:
        # rc_login.failed_attempts: checked only here, counted on a failure
        # (never refusing then: the 403 is the answer).
        hs._limit(hs.logins_failed, account, update=False, on=on)
        u = hs.state.users.get(user_id)
        if u is None or u["password"] != password:
            if hs.ratelimit and on:
                hs.logins_failed.check(account, hs.clock())
            raise _forbidden("Invalid username or password")
        # rc_login.account: successful logins, per account.
        hs._limit(hs.logins_account, account, on=on)
        if not device_id:
            device_id = _random_id(10).upper()
        u["devices"].add(device_id)
        if display is not None:
            u.setdefault("device_names", {})[device_id] = display
        token = "syt_" + _random_id(32)
        hs.state.tokens[token] = (user_id, device_id)
        hs._count(user_id, "logins")
    return {"user_id": user_id, "access_token": token,
            "device_id": device_id, "home_server": hs.server_name}


@route("POST", "/logout")
def logout(req):
    with req.hs.lock:
        req.hs.state.tokens.pop(req.token, None)
    return {}


@route("POST", "/logout/all")
def logout_all(req):
    req.hs.revoke(user_id=req.user_id)
    return {}


@route("GET", "/account/whoami")
def whoami(req):
    out = {"user_id": req.user_id, "is_guest": False}
    if req.device_id is not None:          # none for an application service
        out["device_id"] = req.device_id
    return out


@route("POST", "/register", auth=False)
def register(req):
    """Synapse 1.67's /register with registration disabled (its default):
    an application service registers users of its namespace with its
    token; anyone else is refused."""
    hs = req.hs
    body = req.json()
    kind = req.arg("kind", "user")
    if kind == "guest":
        raise _forbidden("Guest access is disabled")
    if kind != "user":
        raise MatrixError(400, "M_UNRECOGNIZED",
                          "Do not understand membership kind: %s" % kind)
    if not isinstance(body.get("refresh_token", False), bool):
        raise MatrixError(400, "M_UNKNOWN",
                          "`refresh_token` should be true or false.")
    username = body.get("username")
    if "username" in body and (not isinstance(username, str)
                               or len(username) > 512):
        raise MatrixError(400, "M_UNKNOWN", "Invalid username")
    if body.get("type") != "m.login.application_service":
        if req.token is not None:
            raise MatrixError(400, "M_UNKNOWN", "An access token should not "
                              "be provided on requests to /register (except "
                              "if type is m.login.application_service)")
        raise _forbidden("Registration has been disabled")
    if req.token is None:
        raise MatrixError(400, "M_UNKNOWN", "Appservice token must be "
                          "provided when using a type of "
                          "m.login.application_service")
    # the AS API's "user", else "username"; any localpart, as Synapse
    # gives application services "carte blanche" there
    localpart = body.get("user", username)
    if not isinstance(localpart, str):
        raise MatrixError(400, "M_UNKNOWN",
                          "Desired Username is missing or not a string")
    device_id = _need(body, "device_id", str, optional=True)
    display = _need(body, "initial_device_display_name", str, optional=True)
    user_id = "@%s:%s" % (localpart, hs.server_name)
    with hs.lock:
        svc = hs._as_by_token(req.token)
        if svc is None:
            raise MatrixError(401, "M_UNKNOWN_TOKEN",
                              "Invalid access token passed.",
                              soft_logout=False)
        if not svc.is_interested_in_user(user_id):
            raise MatrixError(400, "M_EXCLUSIVE", "Invalid user localpart "
                              "for this application service.")
        hs._as_check_not_exclusive(user_id, allowed=svc)
        if user_id in hs.state.users:
            raise MatrixError(400, "M_USER_IN_USE", "User ID already taken.")
        hs.state.users[user_id] = {
            "password": None, "displayname": localpart, "avatar_url": None,
            "devices": set(), "appservice": svc.id}
        out = {"user_id": user_id, "home_server": hs.server_name}
        if not body.get("inhibit_login", False):
            device_id = device_id or _random_id(10).upper()
            hs.state.users[user_id]["devices"].add(device_id)
            if display is not None:
                hs.state.users[user_id]["device_names"] = {device_id: display}
            token = "syt_" + _random_id(32)
            hs.state.tokens[token] = (user_id, device_id)
            out.update({"access_token": token, "device_id": device_id})
    return out


# -- end-to-end keys ----------------------------------------------------

def _check_device_keys(dk, user_id, device_id):
    """The device_keys of a keys/upload: the fields the spec requires, of
    the right types, for the caller's own user and device."""
    uid = _need(dk, "user_id", str)
    dev = _need(dk, "device_id", str)
    algorithms = _need(dk, "algorithms", list)
    keys = _need(dk, "keys", dict)
    signatures = _need(dk, "signatures", dict)
    if not all(isinstance(a, str) for a in algorithms):
        raise _bad_json("'algorithms' must be a list of strings")
    if not all(isinstance(k, str) and ":" in k and isinstance(v, str)
               for k, v in keys.items()):
        raise _bad_json("'keys' must map '<algorithm>:<device_id>' to "
                        "strings")
    for who, sigs in signatures.items():
        if not isinstance(sigs, dict) or not all(
                isinstance(v, str) for v in sigs.values()):
            raise _bad_json("'signatures' must map user IDs to objects of "
                            "strings")
    if uid != user_id or dev != device_id:
        raise MatrixError(400, "M_INVALID_PARAM",
                          "device_keys must be for the caller's own device "
                          "(%s, %s)" % (user_id, device_id))


def _user_id_ok(user_id):
    return isinstance(user_id, str) and re.fullmatch(r"@[^:]+:.+", user_id)


@route("POST", "/keys/upload")
def keys_upload(req):
    hs = req.hs
    body = req.json()
    dk = _need(body, "device_keys", dict, optional=True)
    otk = _need(body, "one_time_keys", dict, optional=True)
    _need(body, "fallback_keys", dict, optional=True)
    if dk:
        _check_device_keys(dk, req.user_id, req.device_id)
    for key_id, key in (otk or {}).items():
        if key_id.count(":") != 1 or not isinstance(key, (str, dict)):
            raise _bad_json("one_time_keys must map '<algorithm>:<key_id>' "
                            "to keys")
    with hs.lock:
        if dk:
            hs.state.device_keys.setdefault(req.user_id, {})[req.device_id] = \
                json.loads(json.dumps(dk))
        counts = hs.state.one_time_keys.setdefault(
            (req.user_id, req.device_id), {})
        for key_id in otk or {}:
            algorithm = key_id.split(":")[0]
            counts[algorithm] = counts.get(algorithm, 0) + 1
        out = {"signed_curve25519": 0}
        out.update(counts)
    return {"one_time_key_counts": out}


@route("POST", "/keys/query")
def keys_query(req):
    hs = req.hs
    body = req.json()
    query = body.get("device_keys")
    if not isinstance(query, dict):
        raise _bad_json("'device_keys' must be a JSON object")
    if not all(isinstance(v, list) and all(isinstance(d, str) for d in v)
               for v in query.values()):
        raise _bad_json("'device_keys' values must be a list of strings")
    _need(body, "timeout", int, optional=True)
    _need(body, "token", str, optional=True)
    result, failures = {}, {}
    with hs.lock:
        for user_id, wanted in query.items():
            if not _user_id_ok(user_id):
                raise MatrixError(400, "M_INVALID_PARAM",
                                  "Invalid user ID %s" % user_id)
            domain = user_id.split(":", 1)[1]
            if domain != hs.server_name:     # no federation here
                failures[domain] = {"status": 503,
                                    "message": "Not ready for retry"}
                continue
            mine = hs.state.device_keys.get(user_id, {})
            names = hs.state.users.get(user_id, {}).get("device_names", {})
            result[user_id] = {}
            for dev, keys in mine.items():
                if wanted and dev not in wanted:
                    continue
                k = json.loads(json.dumps(keys))
                k["unsigned"] = {}
                if dev in names:
                    k["unsigned"]["device_display_name"] = names[dev]
                result[user_id][dev] = k
    return {"device_keys": result, "failures": failures, "master_keys": {},
            "self_signing_keys": {}, "user_signing_keys": {}}


# -- filters ------------------------------------------------------------

def _check_filter(f):
    if not isinstance(f, dict):
        raise _bad_json("filter must be an object")
    for key in ("room", "presence", "account_data"):
        if key in f and not isinstance(f[key], dict):
            raise _bad_json("filter.%s must be an object" % key)
    room = f.get("room", {})
    for key in ("timeline", "state", "ephemeral", "account_data"):
        if key in room and not isinstance(room[key], dict):
            raise _bad_json("filter.room.%s must be an object" % key)
    for part in ("state", "timeline"):
        for key in ("lazy_load_members", "include_redundant_members"):
            v = room.get(part, {}).get(key)
            if v is not None and not isinstance(v, bool):
                raise _bad_json("filter.room.%s.%s must be a boolean"
                                % (part, key))
    limit = room.get("timeline", {}).get("limit")
    if limit is not None and (not isinstance(limit, int)
                              or isinstance(limit, bool) or limit < 0):
        raise _bad_json("filter.room.timeline.limit must be an integer")
    for part in [f, room] + [room.get(k, {}) for k in
                             ("timeline", "state", "ephemeral")]:
        for key in ("rooms", "not_rooms", "types", "not_types", "senders",
                    "not_senders"):
            if key in part and (not isinstance(part[key], list) or not all(
                    isinstance(x, str) for x in part[key])):
                raise _bad_json("filter field %s must be a list of strings"
                                % key)
    return f


@route("POST", r"/user/(?P<user>[^/]+)/filter")
def filter_create(req, user):
    if user != req.user_id:
        raise _forbidden("Cannot create filters for other users")
    f = _check_filter(req.json())
    with req.hs.lock:
        fid = str(len(req.hs.state.filters))
        req.hs.state.filters[(user, fid)] = f
    return {"filter_id": fid}


@route("GET", r"/user/(?P<user>[^/]+)/filter/(?P<fid>[^/]+)")
def filter_get(req, user, fid):
    if user != req.user_id:
        raise _forbidden("Cannot get filters for other users")
    with req.hs.lock:
        f = req.hs.state.filters.get((user, fid))
    if f is None:
        raise _not_found("No such filter")
    return f


def _type_ok(part, ev):
    t = ev["type"]
    types = part.get("types")
    if types is not None and not any(_glob(p, t) for p in types):
        return False
    if any(_glob(p, t) for p in part.get("not_types", [])):
        return False
    if ev["sender"] in part.get("not_senders", []):
        return False
    senders = part.get("senders")
    return senders is None or ev["sender"] in senders


def _glob(pattern, t):
    if pattern.endswith("*"):
        return t.startswith(pattern[:-1])
    return pattern == t


def _room_ok(part, room_id):
    rooms = part.get("rooms")
    if rooms is not None and room_id not in rooms:
        return False
    return room_id not in part.get("not_rooms", [])


# -- sync ---------------------------------------------------------------

@route("GET", "/sync")
def sync(req):
    hs = req.hs
    since = req.arg("since")
    since_pos = None
    if since is not None:
        m = re.fullmatch(r"s([0-9]{1,15})", since)
        if not m:
            raise MatrixError(400, "M_INVALID_PARAM", "Invalid since token")
        since_pos = int(m.group(1))
    try:
        timeout = int(req.arg("timeout", "0"))
    except ValueError:
        raise MatrixError(400, "M_INVALID_PARAM", "timeout must be an integer")
    if timeout < 0:
        raise MatrixError(400, "M_INVALID_PARAM", "timeout must be >= 0")
    full_state = req.arg("full_state", "false")
    if full_state not in ("true", "false"):
        raise MatrixError(400, "M_INVALID_PARAM", "full_state: true or false")
    presence = req.arg("set_presence", "online")
    if presence not in ("online", "offline", "unavailable"):
        raise MatrixError(400, "M_INVALID_PARAM", "Invalid set_presence")
    filt = {}
    raw = req.arg("filter")
    if raw is not None:
        if raw.startswith("{"):
            try:
                filt = json.loads(raw)
            except ValueError:
                raise MatrixError(400, "M_NOT_JSON", "filter is not JSON")
            _check_filter(filt)
        else:
            with hs.lock:
                filt = hs.state.filters.get((req.user_id, raw))
            if filt is None:
                raise MatrixError(400, "M_INVALID_PARAM", "No such filter")
    deadline = time.monotonic() + min(timeout, MAX_SYNC_TIMEOUT_MS) / 1000.0
    with hs.cond:
        hs._count(req.user_id, "syncs")
        while True:
            if since_pos is not None and since_pos > hs.state.pos:
                raise MatrixError(400, "M_INVALID_PARAM", "since from future")
            resp, empty = _sync_response(hs, req.user_id, since_pos, filt,
                                         full_state == "true", req.token)
            left = deadline - time.monotonic()
            if not empty or since_pos is None or full_state == "true" \
                    or left <= 0 or hs.stopping.is_set():
                return resp
            hs.cond.wait(left)


def _sync_response(hs, user_id, since, filt, full_state, token=None):
    st = hs.state
    room_f = filt.get("room", {})
    tl_f = room_f.get("timeline", {})
    state_f = room_f.get("state", {})
    limit = tl_f.get("limit", DEFAULT_TIMELINE_LIMIT)
    after = since if since is not None else 0
    join, invite, leave = {}, {}, {}
    empty = True
    for room in st.rooms.values():
        if not _room_ok(room_f, room.room_id):
            continue
        if since is not None and room.last_change <= after and not full_state:
            continue            # nothing new here
        log = room.membership_log.get(user_id)
        if not log:
            continue
        last_pos, membership = log[-1]
        if membership == "join":
            stay = _stay_start(log)
            newly = since is None or stay > after
            start = stay if since is None else max(stay, after + 1)
            if since is not None and stay > after:
                start = _visible_from(room, log, stay)
            evs = room.events[bisect.bisect_left(room.positions, start):]
            evs = [e for e in evs if _type_ok(tl_f, e)]
            limited = len(evs) > limit
            if limited:
                evs = evs[len(evs) - limit:] if limit else []
            ids = {e["event_id"] for e in evs}
            if newly or limited or full_state:
                state = [e for e in room.state.values()
                         if e["event_id"] not in ids and _type_ok(state_f, e)]
            else:
                state = []
            ad = [{"type": t, "content": c}
                  for t, (p, c) in room.account_data.get(user_id, {}).items()
                  if (since is None or p > after)
                  and _type_ok(room_f.get("account_data", {}),
                               {"type": t, "sender": user_id})]
            if evs or state or ad or newly:
                empty = False
            if evs or state or ad or newly or since is None or full_state:
                first = evs[0]["_pos"] if evs else st.pos + 1
                join[room.room_id] = {
                    "timeline": {"events": [_public(e, token=token)
                                            for e in evs],
                                 "limited": limited,
                                 "prev_batch": "t%d" % (first - 1)},
                    "state": {"events": [_public(e) for e in
                                         sorted(state,
                                                key=lambda e: e["_pos"])]},
                    "account_data": {"events": ad},
                    "ephemeral": {"events": []},
                    "summary": {
                        "m.joined_member_count": len(room.members("join")),
                        "m.invited_member_count":
                            len(room.members("invite"))},
                    "unread_notifications": {"highlight_count": 0,
                                             "notification_count": 0},
                }
        elif membership == "invite":
            if since is not None and last_pos <= after:
                continue
            keep = ("m.room.create", "m.room.name", "m.room.join_rules",
                    "m.room.encryption", "m.room.canonical_alias",
                    "m.room.avatar", "m.room.topic")
            events = [_stripped(e) for (t, k), e in room.state.items()
                      if t in keep]
            inviter = room.state[("m.room.member", user_id)]["sender"]
            for uid in (inviter, user_id):
                ev = room.state.get(("m.room.member", uid))
                if ev is not None:
                    events.append(_stripped(ev))
            invite[room.room_id] = {"invite_state": {"events": events}}
            empty = False
        elif membership in ("leave", "ban") and since is not None:
            if last_pos <= after:
                continue
            start = _stay_start(log)
            evs = [_public(e, token=token) for e in room.events
                   if after < e["_pos"] <= last_pos and e["_pos"] >= start]
            leave[room.room_id] = {
                "timeline": {"events": evs[-limit:] if limit else [],
                             "limited": len(evs) > limit,
                             "prev_batch": "t%d" % after},
                "state": {"events": []},
                "account_data": {"events": []}}
            empty = False
    gad = [{"type": t, "content": c}
           for t, (p, c) in st.account_data.get(user_id, {}).items()
           if (since is None or p > after)
           and _type_ok(filt.get("account_data", {}),
                        {"type": t, "sender": user_id})]
    if gad:
        empty = False
    resp = {
        "next_batch": "s%d" % st.pos,
        "rooms": {"join": join, "invite": invite, "leave": leave},
        "account_data": {"events": gad},
        "presence": {"events": []},
        "to_device": {"events": []},
        "device_lists": {"changed": [], "left": []},
        "device_one_time_keys_count": {"signed_curve25519": 0},
    }
    return resp, empty


def _visible_from(room, log, stay):
    """Where a room newly joined at `stay` shows its timeline from, as its
    m.room.history_visibility lets the joiner see (Synapse filters the
    recent events of a newly joined room so): "shared" and
    "world_readable" everything, "invited" from their invite before the
    join, "joined" from the join."""
    ev = room.state.get(("m.room.history_visibility", ""))
    vis = ev["content"].get("history_visibility") if ev else "shared"
    if vis in ("shared", "world_readable"):
        return 0
    if vis == "invited":
        invited = [pos for pos, m in log if m == "invite" and pos < stay]
        return invited[-1] if invited else stay
    return stay


def _stay_start(log):
    """Where a user's last stay in a room (a run of "join" entries: a new
    display name is no new stay) began; the last entry when never joined."""
    i = len(log) - 1
    while i >= 0 and log[i][1] != "join":
        i -= 1
    if i < 0:
        return log[-1][0]
    while i > 0 and log[i - 1][1] == "join":
        i -= 1
    return log[i][0]


# -- rooms ----------------------------------------------------------------

PRESETS = {"private_chat": ("invite", "shared"),
           "trusted_private_chat": ("invite", "shared"),
           "public_chat": ("public", "shared")}


@route("POST", "/createRoom")
def create_room(req):
    hs = req.hs
    body = req.json()
    visibility = _need(body, "visibility", str, optional=True) or "private"
    if visibility not in ("public", "private"):
        raise _bad_json("visibility must be public or private")
    preset = _need(body, "preset", str, optional=True) or \
        ("public_chat" if visibility == "public" else "private_chat")
    if preset not in PRESETS:
        raise _bad_json("Unknown preset %s" % preset)
    name = _need(body, "name", str, optional=True)
    topic = _need(body, "topic", str, optional=True)
    alias_name = _need(body, "room_alias_name", str, optional=True)
    invite = _need(body, "invite", list, optional=True) or []
    if not all(isinstance(u, str) for u in invite):
        raise _bad_json("invite must be a list of user IDs")
    initial = _need(body, "initial_state", list, optional=True) or []
    for ev in initial:
        if not isinstance(ev, dict):
            raise _bad_json("initial_state entries must be objects")
        _need(ev, "type", str)
        _need(ev, "content", dict)
        if _need(ev, "state_key", str, optional=True) is None:
            ev["state_key"] = ""
    is_direct = _need(body, "is_direct", bool, optional=True) or False
    creation = _need(body, "creation_content", dict, optional=True) or {}
    version = _need(body, "room_version", str, optional=True) or "10"
    pl_override = _need(body, "power_level_content_override", dict,
                        optional=True) or {}
    me = req.user_id
    with hs.cond:
        # Synapse's create_room: the request counts against rc_message
        # before anything else is looked at or made.
        hs._limit_message(me)
        if version not in [str(v) for v in range(1, 12)]:
            raise MatrixError(400, "M_UNSUPPORTED_ROOM_VERSION",
                              "Unsupported room version %s" % version)
        alias = None
        if alias_name is not None:
            alias = "#%s:%s" % (alias_name, hs.server_name)
            if alias in hs.state.aliases:
                raise MatrixError(400, "M_ROOM_IN_USE",
                                  "Room alias already taken")
        for uid in invite:
            if not hs._user_known(uid):
                raise _not_found("Unknown user %s" % uid)
        if invite:
            # All the invites at once against rc_invites per_room, checked
            # only, under the creator's user ID (Synapse passes no room).
            try:
                hs._limit(hs.invites_room, me, me, update=False,
                          n=len(invite), on=hs.invite_limits)
            except MatrixError:
                raise MatrixError(400, "M_UNKNOWN",
                                  "Cannot invite so many users at once")
        room_id = "!%s:%s" % (_random_id(18), hs.server_name)
        room = Room(room_id)
        hs.state.rooms[room_id] = room
        if alias:
            hs.state.aliases[alias] = room_id     # before any event
        content = dict(creation)
        content.update({"creator": me, "room_version": version})
        hs._append(room, me, "m.room.create", content, "")
        # The creator's join is limited like any join: refused, the room
        # stays as it is (the create event alone) and the answer is 429.
        hs._new_join(room, me)
        pl = {"users": {me: 100}, "users_default": 0, "events_default": 0,
              "state_default": 50, "ban": 50, "kick": 50, "redact": 50,
              "invite": 0, "events": {}}
        pl.update(pl_override)
        hs._append(room, me, "m.room.power_levels", pl, "")
        if alias:
            hs._append(room, me, "m.room.canonical_alias", {"alias": alias},
                       "")
        join_rule, history = PRESETS[preset]
        hs._append(room, me, "m.room.join_rules", {"join_rule": join_rule},
                   "")
        hs._append(room, me, "m.room.history_visibility",
                   {"history_visibility": history}, "")
        for ev in initial:
            hs._append(room, me, ev["type"], ev["content"], ev["state_key"])
        if name is not None:
            hs._append(room, me, "m.room.name", {"name": name}, "")
        if topic is not None:
            hs._append(room, me, "m.room.topic", {"topic": topic}, "")
        for uid in invite:
            extra = {"is_direct": True} if is_direct else None
            hs._append(room, me, "m.room.member",
                       hs._member_content(uid, "invite", extra), uid)
    return {"room_id": room_id}


def _resolve(hs, room_or_alias):
    if room_or_alias.startswith("#"):
        room_id = hs.state.aliases.get(room_or_alias)
        if room_id is None:
            raise _not_found("Room alias %s not found" % room_or_alias)
        return room_id
    if not room_or_alias.startswith("!"):
        raise MatrixError(400, "M_INVALID_PARAM",
                          "%s is not a room ID or alias" % room_or_alias)
    return room_or_alias


def _join(req, room_or_alias):
    hs = req.hs
    body = req.json() if req.body else {}
    _need(body, "reason", str, optional=True)
    me = req.user_id
    if room_or_alias.startswith("#"):
        _alias_room(hs, room_or_alias)      # asks the services first
    with hs.cond:
        room = hs._room(_resolve(hs, room_or_alias))
        current = room.membership(me)
        if current == "ban":
            raise _forbidden("You are banned from this room")
        if current != "join":       # joined already: nothing new, no limit

            def auth():
                rule = room.state.get(("m.room.join_rules", ""))
                public = rule is not None and \
                    rule["content"].get("join_rule") == "public"
                # the creator may join a half-made room (the auth rules
                # let the creator join right after the create event)
                first = room.half_made() and room.creator() == me
                if current != "invite" and not public and not first:
                    raise _forbidden("You are not invited to this room.")
            hs._new_join(room, me, auth)
    return {"room_id": room.room_id}


@route("POST", r"/join/(?P<room>[^/]+)")
def join_alias(req, room):
    return _join(req, room)


@route("POST", r"/rooms/(?P<room>[^/]+)/join")
def join_room(req, room):
    return _join(req, room)


@route("POST", r"/rooms/(?P<room>[^/]+)/leave")
def leave_room(req, room):
    hs = req.hs
    body = req.json() if req.body else {}
    _need(body, "reason", str, optional=True)
    with hs.cond:
        r = hs._room(room)
        if r.membership(req.user_id) not in ("join", "invite"):
            raise _forbidden("User %s not in room %s" % (req.user_id, room))
        hs._limit_message(req.user_id)
        hs._append(r, req.user_id, "m.room.member",
                   {"membership": "leave"}, req.user_id)
    return {}


def _power(room, user_id):
    """(the room's power_levels content, user_id's level in it). A room
    without one (a half-made room its creator joined later): the creator
    100, everyone else 0, and 0 needed for any event, as the spec says."""
    ev = room.state.get(("m.room.power_levels", ""))
    if ev is None:
        pl = {"users": {room.creator(): 100}, "users_default": 0,
              "events_default": 0, "state_default": 0}
    else:
        pl = ev["content"]
    return pl, pl.get("users", {}).get(user_id, pl.get("users_default", 0))


def _moderate(req, room, action):
    """kick, ban, unban: the sender is joined and has the action's power
    level, and (kick, ban) more power than the target; the target's new
    membership event is appended."""
    hs = req.hs
    body = req.json()
    uid = _need(body, "user_id", str)
    reason = _need(body, "reason", str, optional=True)
    with hs.cond:
        r = hs._joined_room(room, req.user_id)
        if uid not in hs.state.users:
            raise _not_found("Unknown user %s" % uid)
        pl, have = _power(r, req.user_id)
        need = pl.get("ban" if action == "unban" else action, 50)
        if have < need:
            raise _forbidden("You don't have permission to %s" % action)
        target = r.membership(uid)
        if action != "unban" and _power(r, uid)[1] >= have:
            raise _forbidden("You cannot %s user %s." % (action, uid))
        if action == "kick" and target not in ("join", "invite", "knock"):
            raise _forbidden("The target user is not in the room")
        if action == "unban" and target != "ban":
            raise _forbidden("The target user is not banned")
        content = {"membership": "ban" if action == "ban" else "leave"}
        if reason is not None:
            content["reason"] = reason
        hs._limit_message(req.user_id)
        hs._append(r, req.user_id, "m.room.member", content, uid)
    return {}


@route("POST", r"/rooms/(?P<room>[^/]+)/kick")
def kick(req, room):
    return _moderate(req, room, "kick")


@route("POST", r"/rooms/(?P<room>[^/]+)/ban")
def ban(req, room):
    return _moderate(req, room, "ban")


@route("POST", r"/rooms/(?P<room>[^/]+)/unban")
def unban(req, room):
    return _moderate(req, room, "unban")


@route("POST", r"/rooms/(?P<room>[^/]+)/invite")
def invite(req, room):
    hs = req.hs
    body = req.json()
    uid = _need(body, "user_id", str)
    _need(body, "reason", str, optional=True)
    with hs.cond:
        # Synapse limits an invite before looking at the room: a refused
        # one (not joined, already there) has been counted all the same.
        hs._limit_invite(room, req.user_id, uid)
        r = hs._joined_room(room, req.user_id)
        if not hs._user_known(uid):
            raise _not_found("Unknown user %s" % uid)
        if r.membership(uid) == "join":
            raise _forbidden("%s is already in the room." % uid)
        if r.membership(uid) == "ban":
            raise _forbidden("%s is banned from the room" % uid)
        content = hs._member_content(uid, "invite")
        ev = r.state.get(("m.room.member", uid))
        if ev is not None and ev["sender"] == req.user_id and \
                ev["content"] == content:
            return {}       # the same invite again: no new event, no charge
        hs._limit_message(req.user_id)
        hs._append(r, req.user_id, "m.room.member", content, uid)
    return {}


@route("PUT", r"/rooms/(?P<room>[^/]+)/send/(?P<etype>[^/]+)/(?P<txn>[^/]+)")
def send(req, room, etype, txn):
    hs = req.hs
    content = req.json()
    if len(req.body) > MAX_EVENT:
        raise MatrixError(413, "M_TOO_LARGE", "event too large")
    key = (req.token, room, etype, txn)     # the same under r0 and v3
    with hs.cond:
        if key in hs.state.txns:
            return {"event_id": hs.state.txns[key]}
        hs._limit_message(req.user_id, update=False)
        r = hs._joined_room(room, req.user_id)
        hs._limit_message(req.user_id)
        ev = hs._append(r, req.user_id, etype, content)
        ev["_txn"] = (req.token, txn)
        hs.state.txns[key] = ev["event_id"]
        hs._count(req.user_id, "sends")
    return {"event_id": ev["event_id"]}


def _put_state(req, room, etype, key):
    hs = req.hs
    content = req.json()
    if len(req.body) > MAX_EVENT:
        raise MatrixError(413, "M_TOO_LARGE", "event too large")
    if etype == "m.room.member":
        raise _forbidden("use the membership endpoints")
    with hs.cond:
        hs._limit_message(req.user_id, update=False)
        r = hs._joined_room(room, req.user_id)
        pl, have = _power(r, req.user_id)
        need = pl.get("events", {}).get(etype, pl.get("state_default", 50))
        if have < need:
            raise _forbidden("You don't have permission to post that to "
                             "the room.")
        if key.startswith("@") and key != req.user_id and have < 100:
            raise _forbidden("You cannot set another user's state")
        hs._limit_message(req.user_id)
        ev = hs._append(r, req.user_id, etype, content, key)
        hs._count(req.user_id, "sends")
    return {"event_id": ev["event_id"]}


@route("PUT", r"/rooms/(?P<room>[^/]+)/state/(?P<etype>[^/]+)")
def put_state(req, room, etype):
    return _put_state(req, room, etype, "")


@route("PUT", r"/rooms/(?P<room>[^/]+)/state/(?P<etype>[^/]+)/(?P<key>[^/]*)")
def put_state_key(req, room, etype, key):
    return _put_state(req, room, etype, key)


@route("GET", r"/rooms/(?P<room>[^/]+)/state")
def get_state(req, room):
    with req.hs.lock:
        r = req.hs._joined_room(room, req.user_id)
        return [_public(e, room_id=True) for e in r.state.values()]


def _get_state_event(req, room, etype, key):
    with req.hs.lock:
        r = req.hs._joined_room(room, req.user_id)
        ev = r.state.get((etype, key))
        if ev is None:
            raise _not_found("Event not found.")
        return ev["content"]


@route("GET", r"/rooms/(?P<room>[^/]+)/state/(?P<etype>[^/]+)")
def get_state_event(req, room, etype):
    return _get_state_event(req, room, etype, "")


@route("GET", r"/rooms/(?P<room>[^/]+)/state/(?P<etype>[^/]+)/(?P<key>[^/]*)")
def get_state_event_key(req, room, etype, key):
    return _get_state_event(req, room, etype, key)


@route("GET", r"/rooms/(?P<room>[^/]+)/joined_members")
def joined_members(req, room):
    with req.hs.lock:
        r = req.hs._joined_room(room, req.user_id)
        joined = {}
        for uid in r.members("join"):
            c = r.state[("m.room.member", uid)]["content"]
            joined[uid] = {"display_name": c.get("displayname"),
                           "avatar_url": c.get("avatar_url")}
        return {"joined": joined}


@route("GET", r"/rooms/(?P<room>[^/]+)/members")
def members(req, room):
    with req.hs.lock:
        r = req.hs._joined_room(room, req.user_id)
        return {"chunk": [_public(e, room_id=True)
                          for (t, k), e in r.state.items()
                          if t == "m.room.member"]}


@route("GET", r"/rooms/(?P<room>[^/]+)/messages")
def messages(req, room):
    """Pagination from a prev_batch ("t<pos>") or next_batch ("s<pos>")
    token, backwards (dir=b) or forwards (dir=f), for joined members."""
    direction = req.arg("dir", "b")
    if direction not in ("b", "f"):
        raise MatrixError(400, "M_INVALID_PARAM", "dir must be b or f")
    try:
        limit = int(req.arg("limit", "10"))
    except ValueError:
        raise MatrixError(400, "M_INVALID_PARAM", "limit must be an integer")
    limit = max(0, min(limit, 1000))
    with req.hs.lock:
        r = req.hs._joined_room(room, req.user_id)
        default = "s%d" % req.hs.state.pos if direction == "b" else "t0"
        token = req.arg("from", default)
        m = re.fullmatch(r"[st]([0-9]{1,15})", token)
        if not m:
            raise MatrixError(400, "M_INVALID_PARAM", "Invalid from token")
        at = int(m.group(1))
        if direction == "b":
            evs = [e for e in reversed(r.events) if e["_pos"] <= at]
        else:
            evs = [e for e in r.events if e["_pos"] > at]
        more = len(evs) > limit
        evs = evs[:limit]
        out = {"chunk": [_public(e, room_id=True) for e in evs],
               "start": token}
        if more and evs:
            last = evs[-1]["_pos"]
            out["end"] = "t%d" % (last - 1 if direction == "b" else last)
        return out


@route("GET", r"/joined_rooms")
def joined_rooms(req):
    with req.hs.lock:
        return {"joined_rooms": [r.room_id for r in req.hs.state.rooms.values()
                                 if r.membership(req.user_id) == "join"]}


@route("PUT", r"/rooms/(?P<room>[^/]+)/typing/(?P<user>[^/]+)")
def typing(req, room, user):
    body = req.json()
    _need(body, "typing", bool)
    _need(body, "timeout", int, optional=True)
    if user != req.user_id:
        raise _forbidden("Cannot set typing for other users")
    with req.hs.lock:
        req.hs._joined_room(room, req.user_id)
    return {}


@route("POST",
       r"/rooms/(?P<room>[^/]+)/receipt/(?P<rtype>[^/]+)/(?P<ev>[^/]+)")
def receipt(req, room, rtype, ev):
    with req.hs.lock:
        req.hs._joined_room(room, req.user_id)
    return {}


# -- directory ------------------------------------------------------------

def _alias_room(hs, alias):
    """The room an alias points to, or None; an alias unknown here is first
    asked about at the application services whose alias namespace holds it
    (Synapse's get_association), which may create it. Without the lock."""
    with hs.lock:
        room_id = hs.state.aliases.get(alias)
        pushers = list(hs.pushers)
    if room_id is None and appservice.alias_queried(pushers, alias):
        with hs.lock:
            room_id = hs.state.aliases.get(alias)
    return room_id


@route("GET", r"/directory/room/(?P<alias>[^/]+)", auth=False)
def alias_get(req, alias):
    room_id = _alias_room(req.hs, alias)
    if room_id is None:
        raise _not_found("Room alias %s not found." % alias)
    return {"room_id": room_id, "servers": [req.hs.server_name]}


@route("PUT", r"/directory/room/(?P<alias>[^/]+)")
def alias_put(req, alias):
    body = req.json()
    room_id = _need(body, "room_id", str)
    if not re.fullmatch(r"#[^:]+:" + re.escape(req.hs.server_name), alias):
        raise MatrixError(400, "M_INVALID_PARAM", "Invalid alias %s" % alias)
    with req.hs.lock:
        req.hs._room(room_id)
        if alias in req.hs.state.aliases:
            raise MatrixError(409, "M_UNKNOWN", "Room alias already taken")
        req.hs.state.aliases[alias] = room_id
    return {}


@route("DELETE", r"/directory/room/(?P<alias>[^/]+)")
def alias_delete(req, alias):
    with req.hs.lock:
        if req.hs.state.aliases.pop(alias, None) is None:
            raise _not_found("Room alias %s not found." % alias)
    return {}


# -- account data and profile --------------------------------------------

def _own(req, user):
    if user != req.user_id:
        raise _forbidden("Cannot access account data of other users.")


@route("GET", r"/user/(?P<user>[^/]+)/account_data/(?P<atype>[^/]+)")
def account_data_get(req, user, atype):
    _own(req, user)
    with req.hs.lock:
        got = req.hs.state.account_data.get(user, {}).get(atype)
    if got is None:
        raise _not_found("Account data not found")
    return got[1]


@route("PUT", r"/user/(?P<user>[^/]+)/account_data/(?P<atype>[^/]+)")
def account_data_put(req, user, atype):
    _own(req, user)
    content = req.json()
    hs = req.hs
    with hs.cond:
        hs.state.pos += 1
        hs.state.account_data.setdefault(user, {})[atype] = \
            (hs.state.pos, content)
        hs.cond.notify_all()
    return {}


@route("GET", r"/user/(?P<user>[^/]+)/rooms/(?P<room>[^/]+)"
              r"/account_data/(?P<atype>[^/]+)")
def room_account_data_get(req, user, room, atype):
    _own(req, user)
    with req.hs.lock:
        got = req.hs._room(room).account_data.get(user, {}).get(atype)
    if got is None:
        raise _not_found("Room account data not found")
    return got[1]


@route("PUT", r"/user/(?P<user>[^/]+)/rooms/(?P<room>[^/]+)"
              r"/account_data/(?P<atype>[^/]+)")
def room_account_data_put(req, user, room, atype):
    _own(req, user)
    content = req.json()
    hs = req.hs
    with hs.cond:
        r = hs._room(room)
        hs.state.pos += 1
        r.account_data.setdefault(user, {})[atype] = (hs.state.pos, content)
        r.last_change = hs.state.pos
        hs.cond.notify_all()
    return {}


def _profile_user(hs, user):
    u = hs.state.users.get(user)
    if u is None:
        raise _not_found("Profile was not found")
    return u


@route("GET", r"/profile/(?P<user>[^/]+)")
def profile(req, user):
    with req.hs.lock:
        u = _profile_user(req.hs, user)
        out = {}
        if u["displayname"] is not None:
            out["displayname"] = u["displayname"]
        if u["avatar_url"] is not None:
            out["avatar_url"] = u["avatar_url"]
        return out


@route("GET", r"/profile/(?P<user>[^/]+)/(?P<field>displayname|avatar_url)")
def profile_field(req, user, field):
    with req.hs.lock:
        u = _profile_user(req.hs, user)
        if u[field] is None:
            raise _not_found("The %s is not set" % field)
        return {field: u[field]}


@route("PUT", r"/profile/(?P<user>[^/]+)/(?P<field>displayname|avatar_url)")
def profile_put(req, user, field):
    if user != req.user_id:
        raise _forbidden("Cannot set another user's profile")
    body = req.json()
    value = _need(body, field, str)
    if len(value) > 256:
        raise _bad_json("%s too long" % field)
    hs = req.hs
    with hs.cond:
        _profile_user(hs, user)[field] = value
        # Synapse's _update_join_states: one rc_message action for the
        # change (refused: the profile has changed, the rooms not), then a
        # member event in every joined room without any limit.
        hs._limit_message(user)
        for r in hs.state.rooms.values():
            if r.membership(user) == "join":
                c = dict(r.state[("m.room.member", user)]["content"])
                c[field] = value
                hs._append(r, user, "m.room.member", c, user)
    return {}


# ----------------------------------------------------------------------
# The test side: /_test/ (not Matrix)

def _test_register(hs, body):
    return {"user_id": hs.register(body["username"], body["password"],
                                   body.get("displayname"))}


def _test_fault(hs, body):
    hs.fault(body["path_prefix"], str(body["kind"]), body.get("count", 1),
             body.get("retry_after_ms", 1000), body.get("method"),
             body.get("user_id"), body.get("status", 200),
             body.get("body", ""))
    return {}


def _test_revoke(hs, body):
    hs.revoke(body.get("user_id"), body.get("access_token"),
              body.get("soft_logout", False))
    return {}


def _test_ratelimit(hs, body):
    for key in ("exempt", "enabled", "joins", "invites", "logins"):
        if key in body and not isinstance(body[key], bool):
            raise ValueError("%s must be true or false" % key)
    if "user_id" in body:
        hs.set_exempt(body["user_id"], body.get("exempt", True))
    hs.set_ratelimit(body.get("enabled"), body.get("rate"), body.get("burst"),
                     body.get("joins"), body.get("invites"),
                     body.get("logins"))
    return {}


def _test_as_add(hs, body):
    legacy = body.get("legacy_paths")
    if legacy is not None and not isinstance(legacy, bool):
        raise ValueError("legacy_paths must be true or false")
    return {"id": hs.add_appservice(body["path"], legacy)}


def _test_as_wait_idle(hs, body):
    return {"idle": hs.as_wait_idle(float(body.get("timeout", 10.0)),
                                    body.get("id"))}


TEST_ROUTES = {
    ("POST", "/_test/register"): _test_register,
    ("POST", "/_test/fault"): _test_fault,
    ("POST", "/_test/clear_faults"): lambda hs, b: hs.clear_faults() or {},
    ("POST", "/_test/revoke"): _test_revoke,
    ("POST", "/_test/ratelimit"): _test_ratelimit,
    ("GET", "/_test/counters"): lambda hs, b: hs.counters(),
    ("GET", "/_test/half_made_rooms"):
        lambda hs, b: {"rooms": hs.half_made_rooms(b.get("user_id"))},
    ("POST", "/_test/reset_counters"):
        lambda hs, b: hs.reset_counters() or {},
    ("POST", "/_test/as_add"): _test_as_add,
    ("POST", "/_test/as_pause"): lambda hs, b: hs.as_pause(b.get("id")) or {},
    ("POST", "/_test/as_resume"):
        lambda hs, b: hs.as_resume(b.get("id")) or {},
    ("POST", "/_test/as_duplicate"):
        lambda hs, b: hs.as_duplicate(b.get("id"), int(b.get("count", 1)))
        or {},
    ("GET", "/_test/as_counters"): lambda hs, b: hs.as_counters(),
    ("POST", "/_test/as_wait_idle"): _test_as_wait_idle,
}


# ----------------------------------------------------------------------
# HTTP

class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, *a, **kw):
        self.conns = set()
        self.conns_lock = threading.Lock()
        super().__init__(*a, **kw)

    def process_request_thread(self, request, client_address):
        with self.conns_lock:
            self.conns.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.conns_lock:
                self.conns.discard(request)

    def close_all(self):
        with self.conns_lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Dropped(Exception):
    pass


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "heartsbot-test-homeserver"
    sys_version = ""
    hs = None      # set by Homeserver.start

    def log_message(self, fmt, *args):
        pass

    def version_string(self):
        return self.server_version

    def setup(self):
        super().setup()
        # Headers and body go out as two writes: without this, Nagle's
        # algorithm and the client's delayed ACK add 40 ms to each answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_error(self, code, message=None, explain=None):
        # http.server's own errors (bad request line, unknown method, huge
        # headers) as JSON too: every error body has errcode and error.
        self.close_connection = True
        errcode = "M_UNRECOGNIZED" if code in (404, 405, 501) else "M_UNKNOWN"
        try:
            self._send(code, {"errcode": errcode,
                              "error": message or "Bad request"})
        except OSError:
            pass
        self.hs.log("%s %s %d" % (self.command or "-",
                                  (self.path or "-").split("?")[0], code))

    def do_GET(self):
        self._handle()

    do_POST = do_PUT = do_DELETE = do_OPTIONS = do_HEAD = do_PATCH = do_GET

    def _handle(self):
        hs = self.hs
        split = urllib.parse.urlsplit(self.path)
        path = split.path
        query = urllib.parse.parse_qs(split.query, keep_blank_values=True)
        shown = path
        q = [(k, v) for k, vs in query.items() if k != "access_token"
             for v in vs]
        if q:
            shown += "?" + urllib.parse.urlencode(q)
        status = 0
        self.linger = False
        try:
            status = self._serve(path, query)
            if self.linger:
                self._lingering_close()
        except _Dropped:
            status = "dropped"
        except (ConnectionError, socket.timeout, OSError):
            status = "gone"
            self.close_connection = True
        hs.log("%s %s %s" % (self.command, shown, status))

    def handle_expect_100(self):
        # Refuse a body too large before the client sends it.
        try:
            n = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            n = 0
        if n > self.hs.max_body:
            self.close_connection = True
            self._send(413, {"errcode": "M_TOO_LARGE",
                             "error": "Request body too large"})
            self.hs.log("%s %s 413" % (self.command, self.path.split("?")[0]))
            self._lingering_close()
            return False
        return super().handle_expect_100()

    def _lingering_close(self):
        # Closing with unread input would reset the connection and could
        # destroy the answer before the client reads it: stop writing,
        # then read and discard until the client closes (or a second).
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(1.0)
            while self.connection.recv(65536):
                pass
        except OSError:
            pass

    def _read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raise MatrixError(411, "M_UNKNOWN", "chunked bodies not supported")
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            n = int(length)
        except ValueError:
            raise MatrixError(400, "M_UNKNOWN", "bad Content-Length")
        if n < 0:
            raise MatrixError(400, "M_UNKNOWN", "bad Content-Length")
        if n > self.hs.max_body:
            self.close_connection = True    # the body stays unread
            self.linger = True
            raise MatrixError(413, "M_TOO_LARGE",
                              "Request body too large (%d > %d bytes)"
                              % (n, self.hs.max_body))
        return self.rfile.read(n)

    def _serve(self, path, query):
        hs = self.hs
        try:
            body = self._read_body()
        except MatrixError as e:
            return self._send(e.status, e.body())
        if path.startswith("/_test/"):
            fn = TEST_ROUTES.get((self.command, path))
            if fn is None:
                return self._send(404, {"errcode": "M_UNRECOGNIZED",
                                        "error": "Unrecognized request"})
            try:
                arg = json.loads(body) if body else {}
                return self._send(200, fn(hs, arg))
            except MatrixError as e:
                return self._send(e.status, e.body())
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                return self._send(400, {"errcode": "M_BAD_JSON",
                                        "error": str(e)})
        token = self._token(query)
        user_id = device_id = svc = None
        refused = None
        with hs.lock:
            if token in hs.state.tokens:
                user_id, device_id = hs.state.tokens[token]
            elif token:
                # an application service's token: it acts as its sender, or
                # as ?user_id= when it may
                svc = hs._as_by_token(token)
                if svc is not None:
                    try:
                        user_id = hs._as_requester(svc,
                                                   query.get("user_id"))
                    except MatrixError as e:
                        refused = e
            if user_id:
                hs._count(user_id, "requests")
            fault = None
            for f in hs.faults:
                if f.matches(self.command, path, user_id):
                    fault = f
                    f.hits += 1
                    if f.count > 0:
                        f.count -= 1
                    break
        if fault is not None:
            if fault.kind == "429":
                return self._send(429, {"errcode": "M_LIMIT_EXCEEDED",
                                        "error": "Too Many Requests",
                                        "retry_after_ms":
                                            fault.retry_after_ms})
            if fault.kind == "500":
                return self._send(500, {"errcode": "M_UNKNOWN",
                                        "error": "Internal server error"})
            if fault.kind == "raw":
                return self._send_bytes(fault.status, fault.body)
            if fault.kind == "hang":
                self._hang()
            if fault.kind == "drop":
                self._drop()
        result = self._dispatch(path, query, body, token, user_id, device_id,
                                svc, refused)
        if fault is not None and fault.kind == "drop_after":
            self._drop()
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.retry_after_ms / 1000.0)
        return self._send(*result)

    def _dispatch(self, path, query, body, token, user_id, device_id,
                  svc=None, refused=None):
        hs = self.hs
        sub = None
        if path == "/_matrix/client/versions":
            sub = path
        elif path.startswith("/_matrix/client/v1/appservice/") and \
                self.hs.as_client_ping:
            sub = path[len("/_matrix/client/v1"):]
        else:
            for p in PREFIXES:
                if path.startswith(p + "/"):
                    sub = path[len(p):]
                    break
        if sub is None:
            return 404, {"errcode": "M_UNRECOGNIZED",
                         "error": "Unrecognized request"}
        parts = sub.split("/")
        try:
            decoded = "/".join(urllib.parse.unquote(x, errors="strict")
                               .replace("/", "\0") for x in parts)
        except UnicodeDecodeError:
            return 400, {"errcode": "M_UNRECOGNIZED", "error": "bad path"}
        known_path = False
        for method, regex, auth, fn in _ROUTES:
            m = regex.match(decoded)
            if not m:
                continue
            known_path = True
            if method != self.command:
                continue
            args = {k: v.replace("\0", "/") for k, v in m.groupdict().items()}
            try:
                if auth:
                    if refused is not None:
                        raise refused
                    if token is None:
                        raise MatrixError(401, "M_MISSING_TOKEN",
                                          "Missing access token",
                                          soft_logout=False)
                    if user_id is None:
                        with hs.lock:
                            soft = hs.state.revoked.get(token, False)
                        raise MatrixError(401, "M_UNKNOWN_TOKEN",
                                          "Unknown access token",
                                          soft_logout=soft)
                if user_id is not None:
                    with hs.lock:
                        hs._count(user_id, fn.__name__)
                req = Request(hs, self.command, path, query, body, user_id,
                              device_id, token, self.client_address[0])
                hs.request_context.app_service = svc
                hs.request_context.user_id = user_id
                return 200, fn(req, **args)
            except MatrixError as e:
                return e.status, e.body()
            except Exception:      # a bug here: say so, keep serving
                hs.log("handler error:\n" + traceback.format_exc())
                return 500, {"errcode": "M_UNKNOWN",
                             "error": "Internal server error (a bug)"}
            finally:
                hs.request_context.app_service = None
                hs.request_context.user_id = None
        if known_path:
            return 405, {"errcode": "M_UNRECOGNIZED",
                         "error": "Unrecognized request"}
        return 404, {"errcode": "M_UNRECOGNIZED",
                     "error": "Unrecognized request"}

    def _token(self, query):
        auth = self.headers.get("Authorization")
        if auth is not None:
            m = re.fullmatch(r"Bearer (\S+)", auth.strip())
            return m.group(1) if m else ""
        values = query.get("access_token")
        return values[-1] if values else None

    def _hang(self):
        # No answer: wait until the client closes or the server stops.
        self.connection.settimeout(0.1)
        while not self.hs.stopping.is_set():
            try:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    break
            except socket.timeout:
                continue
            except OSError:
                break
            time.sleep(0.1)
        self._drop()

    def _drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise _Dropped()

    def _send(self, status, obj):
        return self._send_bytes(status, json.dumps(obj).encode("utf-8"), obj)

    def _send_bytes(self, status, data, obj=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        if status == 429 and self.hs.retry_after_header and obj and \
                "retry_after_ms" in obj:
            self.send_header("Retry-After",
                             str((obj["retry_after_ms"] + 999) // 1000))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()
        return status


# ----------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--log", help="request log (default: stderr)")
    ap.add_argument("--server-name", default=SERVER_NAME)
    ap.add_argument("--user", action="append", default=[],
                    help="localpart:password (repeatable)")
    ap.add_argument("--no-ratelimit", action="store_true",
                    help="no rate limit at all")
    ap.add_argument("--no-join-ratelimit", action="store_true",
                    help="no rc_joins limits (joins still count as messages)")
    ap.add_argument("--no-invite-ratelimit", action="store_true",
                    help="no rc_invites limits")
    ap.add_argument("--no-login-ratelimit", action="store_true",
                    help="no rc_login limits")
    ap.add_argument("--rate", type=float, default=0.2,
                    help="rc_message per second")
    ap.add_argument("--burst", type=int, default=10,
                    help="rc_message burst")
    ap.add_argument("--retry-after-header", action="store_true")
    ap.add_argument("--appservice", action="append", default=[],
                    metavar="PATH",
                    help="an application service registration (repeatable)")
    ap.add_argument("--appservice-legacy", action="store_true",
                    help="push as Synapse 1.67 does: /transactions/ID "
                    "?access_token=, not /_matrix/app/v1 with a header")
    ap.add_argument("--as-backoff-ms", type=int, default=200,
                    help="first wait before a failed transaction goes again "
                    "(Synapse: 2000)")
    ap.add_argument("--as-backoff-cap-ms", type=int, default=5000,
                    help="longest such wait (Synapse: 512000)")
    ap.add_argument("--as-timeout-ms", type=int, default=5000,
                    help="time for the application service to answer "
                    "(Synapse: 60000)")
    args = ap.parse_args(argv)
    try:
        hs = Homeserver(
            port=args.port, server_name=args.server_name,
            ratelimit=not args.no_ratelimit, message_rate=args.rate,
            message_burst=args.burst, join_limits=not args.no_join_ratelimit,
            invite_limits=not args.no_invite_ratelimit,
            login_limits=not args.no_login_ratelimit,
            retry_after_header=args.retry_after_header,
            log_path=args.log or "/dev/stderr", appservices=args.appservice,
            legacy_paths=args.appservice_legacy,
            as_backoff_ms=args.as_backoff_ms,
            as_backoff_cap_ms=args.as_backoff_cap_ms,
            as_timeout_ms=args.as_timeout_ms)
        for spec in args.user:
            name, _, password = spec.partition(":")
            hs.register(name, password)
    except (ValueError, MatrixError) as e:
        print("homeserver: %s" % e, file=sys.stderr)
        return 2
    hs.start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % hs.port)
        os.replace(tmp, args.port_file)
    print("homeserver listening on %s" % hs.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        hs.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

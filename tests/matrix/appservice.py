"""Application services for the Matrix test homeserver (homeserver.py):
a registration file read and checked as Synapse 1.67 checks it, which
users, rooms and events an application service is interested in, and the
pusher that sends it its transactions, one at a time, retrying a failed
one with the same ID and the same events after a backoff.

Python 3.11 standard library only. Read from Synapse 1.67's
synapse/config/appservice.py, synapse/appservice/{__init__,api,
scheduler}.py and synapse/handlers/appservice.py (not copied: written
again for the test server). README.md next to this file says what
differs.
"""

import collections
import http.client
import json
import re
import socket
import threading
import time
import traceback
import urllib.parse

import yaml_subset

# Synapse 1.67's numbers (synapse/appservice/scheduler.py, synapse/http/
# client.py): the first retry 2 s after a failure, doubling up to 2^9 s;
# 60 s for an answer; at most 100 events in a transaction.
SYNAPSE_BACKOFF_MS = 2000
SYNAPSE_BACKOFF_CAP_MS = 512000
SYNAPSE_TIMEOUT_MS = 60000
MAX_EVENTS_PER_TRANSACTION = 100
MAX_ANSWER = 1 << 20          # bytes of an answer read from the AS
NAMESPACES = ("users", "aliases", "rooms")
# Synapse's default room_prejoin_state: the stripped state an invite
# carries in unsigned.invite_room_state (with the inviter's member event)
PREJOIN_TYPES = ("m.room.join_rules", "m.room.canonical_alias",
                 "m.room.avatar", "m.room.encryption", "m.room.name",
                 "m.room.create", "m.room.topic")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class RegistrationError(ValueError):
    """A registration file the homeserver refuses (str(e) says which file
    and why), as Synapse refuses to start with it."""


class AppService:
    """One registration: its tokens, its sender and its namespaces, and
    the questions Synapse asks of it (ApplicationService)."""

    def __init__(self, info, path, server_name):
        def bad(what):
            return RegistrationError("%s: %s" % (path, what))

        if not isinstance(info, dict):
            raise bad("not a YAML mapping")
        for key in ("id", "as_token", "hs_token", "sender_localpart"):
            if not isinstance(info.get(key), str):
                raise bad("required string field: '%s'" % key)
        # url: a string, or an explicit null (no pushes); not missing
        if "url" not in info or not (info["url"] is None
                                     or isinstance(info["url"], str)):
            raise bad("required string field or explicit null: 'url'")
        localpart = info["sender_localpart"]
        if urllib.parse.quote(localpart) != localpart:
            raise bad("sender_localpart needs characters which are not URL "
                      "encoded")
        namespaces = info.get("namespaces")
        if not isinstance(namespaces, dict):
            raise bad("requires 'namespaces' object")
        self.namespaces = {}
        for ns in NAMESPACES:
            entries = namespaces.get(ns, [])
            if not isinstance(entries, list):
                raise bad("bad namespace value for '%s' (a list)" % ns)
            self.namespaces[ns] = []
            for entry in entries:
                if not isinstance(entry, dict):
                    raise bad("expected namespace entry in %s to be an "
                              "object, got %r" % (ns, entry))
                if not isinstance(entry.get("regex"), str):
                    raise bad("missing/bad type 'regex' key in %r" % entry)
                if not isinstance(entry.get("exclusive"), bool):
                    raise bad("missing/bad type 'exclusive' key in %r"
                              % entry)
                try:
                    regex = re.compile(entry["regex"])
                except re.error as e:
                    raise bad("bad regex %r in %s: %s"
                              % (entry["regex"], ns, e))
                self.namespaces[ns].append((entry["exclusive"], regex))
        protocols = info.get("protocols")
        if protocols and (not isinstance(protocols, list) or not all(
                isinstance(p, str) for p in protocols)):
            raise bad("optional 'protocols' must be a list of strings")
        if "|" in info["id"]:
            raise bad("application service ID cannot contain '|' character")
        url = info["url"]
        self.base = None
        if url is not None:
            url = url.rstrip("/")
            split = urllib.parse.urlsplit(url)
            # The test server pushes over plain HTTP, on this machine only.
            if split.scheme != "http" or split.hostname not in LOOPBACK \
                    or split.query or split.fragment:
                raise bad("url %r: the test homeserver pushes only to "
                          "http://127.0.0.1, localhost or [::1]" % url)
            try:
                port = split.port or 80
            except ValueError:
                raise bad("url %r: bad port" % url)
            self.base = (split.hostname, port, split.path)
        self.path = path
        self.id = info["id"]
        self.url = url
        self.as_token = info["as_token"]
        self.hs_token = info["hs_token"]
        self.sender_localpart = localpart
        self.sender = "@%s:%s" % (localpart, server_name)
        # Synapse: anything but a boolean means the default, true
        rate_limited = info.get("rate_limited")
        self.rate_limited = rate_limited if isinstance(rate_limited, bool) \
            else True

    def _match(self, ns, text):
        # re.match, as Synapse: anchored at the start only
        for exclusive, regex in self.namespaces[ns]:
            if regex.match(text):
                return exclusive
        return None

    def is_user_in_namespace(self, user_id):
        return self._match("users", user_id) is not None

    def is_interested_in_user(self, user_id):
        """The sender, or a user of the users namespace."""
        return isinstance(user_id, str) and (
            user_id == self.sender or self.is_user_in_namespace(user_id))

    def is_exclusive_user(self, user_id):
        return user_id == self.sender or self._match("users", user_id) is True

    def is_room_id_in_namespace(self, room_id):
        return self._match("rooms", room_id) is not None

    def is_room_alias_in_namespace(self, alias):
        return self._match("aliases", alias) is not None


def load_registration(path, server_name):
    """An AppService from a registration file; RegistrationError (a
    ValueError) when the file cannot be read, is outside the YAML this
    server reads (yaml_subset) or fails Synapse 1.67's checks."""
    try:
        info = yaml_subset.load_file(path)
    except yaml_subset.YamlError as e:
        raise RegistrationError(str(e))
    return AppService(info, path, server_name)


def client_event(event, invite_room_state, now_ms):
    """An event as Synapse 1.67 puts it in a transaction: the client format
    with room_id (format_event_for_client_v1: user_id, and age,
    replaces_state, prev_content and invite_room_state copied from unsigned
    to the top), `age` as of now."""
    d = json.loads(json.dumps(event))
    unsigned = d.setdefault("unsigned", {})
    unsigned["age"] = max(0, now_ms - d["origin_server_ts"])
    if invite_room_state is not None:
        unsigned["invite_room_state"] = invite_room_state
    d["user_id"] = d["sender"]
    for key in ("age", "replaces_state", "prev_content", "invite_room_state"):
        if key in unsigned:
            d[key] = unsigned[key]
    return d


class _Queued:
    """An event waiting for its transaction: the event (the client form,
    copied when it was stored), the stripped state an invite carries (or
    None), the users to look up at the AS first (Synapse's
    _check_user_exists: the sender, and a member event's state_key)."""

    __slots__ = ("event", "invite_room_state", "users")

    def __init__(self, event, invite_room_state, users):
        self.event = event
        self.invite_room_state = invite_room_state
        self.users = users


class _Transaction:
    __slots__ = ("id", "items", "attempts")

    def __init__(self, txn_id, items):
        self.id = txn_id
        self.items = items
        self.attempts = 0


class Pusher:
    """The homeserver's side of one application service: the events queued
    for it, the transaction being sent, the counters, and a thread that
    sends (started and stopped with the server). All of it but the thread's
    HTTP requests is guarded by the homeserver's lock; `cond` (a Condition
    on that lock) wakes the thread and those waiting for it."""

    def __init__(self, service, hs, cond, legacy_paths, backoff_ms,
                 backoff_cap_ms, timeout_ms):
        self.service = service
        self.hs = hs
        self.cond = cond
        self.legacy_paths = legacy_paths
        self.backoff_ms = backoff_ms
        self.backoff_cap_ms = backoff_cap_ms
        self.timeout = timeout_ms / 1000.0
        self.queue = collections.deque()
        self.txn = None            # the unacknowledged transaction
        self.paused = False
        self.duplicates = 0        # transactions still to be sent twice
        self.failures_in_row = 0
        self.next_attempt = 0.0    # time.monotonic() of the next attempt
        self.busy = False          # the thread is sending or querying
        self.counters = {"transactions": 0, "failures": 0, "retries": 0,
                         "duplicates": 0, "events": 0, "user_queries": 0,
                         "pings": 0,
                         "last_txn_id": None}
        self.thread = None
        self.stopping = False
        self.keep = None           # the kept-alive connection for PUTs
        self.active = None         # the connection of the request in flight

    # -- under the homeserver's lock ---------------------------------------

    def enqueue(self, event, invite_room_state, users):
        self.queue.append(_Queued(event, invite_room_state, users))
        self.cond.notify_all()

    def idle(self):
        return not self.busy and self.txn is None and not self.queue

    def snapshot(self):
        c = dict(self.counters)
        c["pending"] = len(self.queue) + (len(self.txn.items)
                                          if self.txn else 0)
        c["paused"] = self.paused
        f = self.failures_in_row
        c["backoff_ms"] = self._backoff(f) if f else 0
        return c

    def _backoff(self, failures):
        """The wait after `failures` failures in a row: the base, doubled
        each time, up to the cap (Synapse: 2 s to 512 s)."""
        return min(self.backoff_cap_ms,
                   self.backoff_ms * 2 ** (failures - 1))

    # -- life ----------------------------------------------------------------

    def start(self):
        """Starts the thread. A transaction left unacknowledged (by a
        failure, or by stop() in the middle of it) goes again, with its ID,
        after the first backoff, as Synapse's recoverer sends the oldest
        transaction of its database after a restart."""
        with self.cond:
            self.stopping = False
            if self.txn is not None:
                self.next_attempt = time.monotonic() + self.backoff_ms / 1e3
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="as-pusher-" + self.service.id)
        self.thread.start()

    def stop(self):
        """Stops the thread; a request in flight is cut (its transaction
        stays unacknowledged, for start())."""
        if self.thread is None:
            return
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
            conn = self.active
        _abort(conn)
        self.thread.join(self.timeout + 5.0)
        self.thread = None
        _close(self.keep)
        self.keep = None

    # -- the thread -------------------------------------------------------

    def _run(self):
        while True:
            with self.cond:
                if not self._wait_ready():
                    return
                fresh = self.txn is None
                if fresh:
                    n = min(MAX_EVENTS_PER_TRANSACTION, len(self.queue))
                    items = [self.queue.popleft() for _ in range(n)]
                    self.txn = _Transaction(self.hs._as_next_txn_id(), items)
                txn = self.txn
                self.busy = True
            try:
                if fresh:
                    self._query_unknown_users(txn)
                ok = self._send(txn, "retry" if txn.attempts else "first")
                if ok:
                    with self.cond:
                        again = self.duplicates > 0
                        if again:
                            self.duplicates -= 1
                    if again:
                        self._send(txn, "duplicate")
            except Exception:       # a bug here: say so, wait, go on
                self.hs.log("AS %s pusher error:\n%s"
                            % (self.service.id, traceback.format_exc()))
                with self.cond:
                    self.next_attempt = time.monotonic() + \
                        self.backoff_ms / 1000.0
            finally:
                with self.cond:
                    self.busy = False
                    self.cond.notify_all()

    def _wait_ready(self):
        """Under the lock: waits until there is something to send and
        the time for it has come; False when stopping."""
        while not self.stopping:
            ready = not self.paused and (self.txn is not None or self.queue)
            now = time.monotonic()
            if ready and now >= self.next_attempt:
                return True
            self.cond.wait(self.next_attempt - now if ready else None)
        return False

    def _query_unknown_users(self, txn):
        """Synapse asks the AS about a user of its namespace that nobody
        registered before it pushes an event from or about that user (the
        answer changes nothing here: an AS that knows the user registers
        it)."""
        for item in txn.items:
            for user_id in item.users:
                with self.cond:
                    if self.stopping:
                        return
                    ask = self.service.is_interested_in_user(user_id) and \
                        self.hs._as_unknown_user(user_id)
                    if ask:
                        self.counters["user_queries"] += 1
                if ask:
                    self.query("users", user_id)

    def _send(self, txn, why):
        """One PUT of the transaction; True when the AS answered 2xx with a
        JSON body (Synapse's put_json decodes the answer: anything else
        fails)."""
        now_ms = int(time.time() * 1000)
        body = json.dumps({"events": [
            client_event(i.event, i.invite_room_state, now_ms)
            for i in txn.items]}, separators=(",", ":")).encode("utf-8")
        path, headers = self._where("transactions", str(txn.id))
        headers["Content-Type"] = "application/json"
        with self.cond:
            if self.stopping:
                return False
            txn.attempts += 1
            if why == "retry":
                self.counters["retries"] += 1
            elif why == "duplicate":
                self.counters["duplicates"] += 1
        status, data = self._request("PUT", path, body, headers, keep=True)
        ok = status is not None and 200 <= status < 300 and _json(data)
        with self.cond:
            if why == "duplicate":
                if not ok:
                    self.counters["failures"] += 1
            elif ok:
                self.counters["transactions"] += 1
                self.counters["events"] += len(txn.items)
                self.counters["last_txn_id"] = txn.id
                self.txn = None
                self.failures_in_row = 0
                self.next_attempt = 0.0
            elif not self.stopping:
                self.counters["failures"] += 1
                self.failures_in_row += 1
                self.next_attempt = time.monotonic() + \
                    self._backoff(self.failures_in_row) / 1000.0
        self.hs.log("AS %s PUT %s txn %d (%d events, %s) %s"
                    % (self.service.id, path.split("?")[0], txn.id,
                       len(txn.items), why, status if status else data))
        return ok

    def ping(self, txn_id):
        """POST the AS's /_matrix/app/v1/ping (from a request's thread);
        (status, None) or (None, why). When it answers 2xx, what waits is
        retried at once (Synapse's force_retry after a good ping)."""
        base = self.service.base[2]
        body = {} if txn_id is None else {"transaction_id": txn_id}
        status, data = self._request(
            "POST", base + "/_matrix/app/v1/ping",
            json.dumps(body).encode("utf-8"),
            {"Authorization": "Bearer " + self.service.hs_token,
             "Content-Type": "application/json"}, keep=False, track=False)
        self.hs.log("AS %s ping %s" % (self.service.id,
                                       status if status else data))
        if status is not None and 200 <= status < 300:
            with self.cond:
                self.counters["pings"] += 1
                self.next_attempt = 0.0
                self.cond.notify_all()
            return status, None
        return status, data

    def query(self, kind, what, track=True):
        """A user ("users") or room alias ("rooms") query; True when the AS
        answered 2xx with a JSON body other than null (Synapse's
        query_user and query_alias). track: from the pusher's thread (stop()
        cuts it); False from a request's thread."""
        path, headers = self._where(kind, what)
        status, data = self._request("GET", path, None, headers, keep=False,
                                     track=track)
        self.hs.log("AS %s GET %s %s" % (self.service.id, path.split("?")[0],
                                          status if status else data))
        if status is None or not 200 <= status < 300:
            return False
        try:
            return json.loads(data.decode("utf-8")) is not None
        except ValueError:
            return False

    def _where(self, kind, what):
        """The path and headers of a request to the AS: Synapse 1.67's
        legacy paths with the token in the query string, or the spec's
        /_matrix/app/v1 paths with an Authorization header."""
        what = urllib.parse.quote(what)
        base = self.service.base[2]
        if self.legacy_paths:
            return ("%s/%s/%s?%s" % (base, kind, what, urllib.parse.urlencode(
                {"access_token": self.service.hs_token})), {})
        return ("%s/_matrix/app/v1/%s/%s" % (base, kind, what),
                {"Authorization": "Bearer " + self.service.hs_token})

    def _request(self, method, path, body, headers, keep, track=True):
        """(status, body bytes), or (None, "why") when the request failed
        (refused, reset, timed out, answer too large). keep: on the
        kept-alive connection, tried once more on a new one when the old one
        turns out closed before any answer. track: the pusher's own request,
        which stop() cuts."""
        host, port, _ = self.service.base
        for attempt in (0, 1):
            reused = keep and self.keep is not None and attempt == 0
            conn = self.keep if reused else http.client.HTTPConnection(
                host, port, timeout=self.timeout)
            with self.cond:
                if self.stopping and track:
                    _close(conn)
                    return None, "stopping"
                if track:
                    self.active = conn
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read(MAX_ANSWER + 1)
                if len(data) > MAX_ANSWER:
                    raise http.client.HTTPException("answer too large")
                if keep and not resp.will_close:
                    self.keep = conn
                else:
                    _close(conn)
                    if keep:
                        self.keep = None
                return resp.status, data
            except (OSError, http.client.HTTPException) as e:
                _close(conn)
                if keep:
                    self.keep = None
                stale = isinstance(e, (http.client.RemoteDisconnected,
                                       BrokenPipeError, ConnectionResetError))
                if not (reused and stale):
                    return None, "%s: %s" % (type(e).__name__, e)
            finally:
                if track:
                    with self.cond:
                        self.active = None
        return None, "unreachable"


def _json(data):
    try:
        json.loads(data.decode("utf-8"))
        return True
    except ValueError:
        return False


def _abort(conn):
    sock = getattr(conn, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _close(conn):
    if conn is not None:
        try:
            conn.close()
        except OSError:
            pass


def alias_queried(pushers, alias):
    """Asks each application service whose alias namespace holds the alias
    (in order) whether it exists, until one says yes (Synapse's
    query_room_alias_exists); True then. Called without the lock."""
    for p in pushers:
        if p.service.base is not None and \
                p.service.is_room_alias_in_namespace(alias):
            if p.query("rooms", alias, track=False):
                return True
    return False


def invite_room_state(room_state, inviter):
    """The stripped state Synapse 1.67 stores with an invite: the room's
    prejoin state types and the inviter's member event."""
    out = []
    for (etype, key), ev in room_state.items():
        if etype in PREJOIN_TYPES or (etype == "m.room.member"
                                      and key == inviter):
            out.append({"type": etype, "state_key": key,
                        "content": ev["content"], "sender": ev["sender"]})
    return out

"""heartsbot as a Matrix application service: the real bot, its
registration written by its own --appservice-registration, given to the
strict test homeserver (tests/matrix/homeserver.py), which pushes the
rooms' events to the bot's listener as Synapse does. What only this mode
has: the listener against hostile requests (no token, another token, a
body too large, malformed JSON, slow and half-open connections, unknown
paths), a transaction sent again handled once (also after a SIGKILL), the
bot down for a while and the homeserver restarted losing nothing, and no
rate limit on the bot. The whole-game tests run in this mode too
(test_matrix_game.py, test_matrix_bot.py: their *Appservice classes).
Run: /usr/bin/python3 tests/integration/test_matrix_appservice.py -v
"""

import http.client
import json
import os
import re
import signal
import socket
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from test_matrix_bot import BOT, MatrixCase  # noqa: E402

OPENS = "opens a Hearts table"


def hs_token(path):
    with open(path) as f:
        return re.search(r'^hs_token: "([^"]+)"', f.read(), re.M).group(1)


class AppserviceCase(MatrixCase):
    APPSERVICE = True

    def api(self, method, path, body=None, token=None):
        """A client-server API request as alice (JSON answer)."""
        if token is None:
            token = self.alice_token()
        c = http.client.HTTPConnection("127.0.0.1", self.hs.port, timeout=10)
        try:
            c.request(method, "/_matrix/client/v3" + path,
                      body=None if body is None else json.dumps(body),
                      headers={"Authorization": "Bearer " + token}
                      if token else {})
            r = c.getresponse()
            out = json.loads(r.read() or b"null")
            assert r.status == 200, (method, path, r.status, out)
            return out
        finally:
            c.close()

    def alice_token(self):
        if not getattr(self, "_alice_token", None):
            self._alice_token = self.api("POST", "/login", {
                "type": "m.login.password", "identifier": {
                    "type": "m.id.user", "user": "alice"},
                "password": "pw-a"}, token="")["access_token"]
        return self._alice_token

    def create_room(self):
        """alice's public room #hearts; its ID."""
        return self.api("POST", "/createRoom", {
            "preset": "public_chat", "room_alias_name": "hearts",
            "name": "hearts"})["room_id"]

    def say(self, room, body):
        self.n_said = getattr(self, "n_said", 0) + 1
        self.api("PUT", "/rooms/%s/send/m.room.message/t%d" % (
            urllib.parse.quote(room), self.n_said),
            {"msgtype": "m.text", "body": body})

    def bot_said(self, room, text):
        return [e for e in self.hs.room_events(room)
                if e["sender"] == BOT and e["type"] == "m.room.message"
                and text in e["content"].get("body", "")]

    def ask(self, method, path, body=None, token=None, headers=None,
            query_token=False):
        """One request to the bot's listener; (status, parsed JSON)."""
        token = hs_token(self.registration) if token is None else token
        h = dict(headers or {})
        if token and not query_token:
            h["Authorization"] = "Bearer " + token
        if token and query_token:
            path += ("&" if "?" in path else "?") + \
                "access_token=" + urllib.parse.quote(token)
        c = http.client.HTTPConnection("127.0.0.1", self.as_port, timeout=10)
        try:
            data = body if isinstance(body, (bytes, type(None))) else \
                json.dumps(body).encode()
            c.request(method, path, body=data, headers=h)
            r = c.getresponse()
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
        finally:
            c.close()

    def txn(self, txn_id, events, legacy=False):
        path = ("/transactions/%s" if legacy else
                "/_matrix/app/v1/transactions/%s") % urllib.parse.quote(txn_id)
        return self.ask("PUT", path, {"events": events}, query_token=legacy)

    def opened(self, room):
        """The bot's "opens a Hearts table" lines in room, on the
        server."""
        return self.bot_said(room, OPENS)

    def wait_for(self, pred, timeout=15.0, what="it"):
        deadline = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > deadline:
                raise AssertionError("never: %s\n%s" % (
                    what, self.botproc.log()[-4000:]))
            time.sleep(0.05)

    def event(self, room, body, sender="@alice:hearts.test", n=1):
        return {"room_id": room, "type": "m.room.message", "sender": sender,
                "event_id": "$made-by-the-test-%d" % n,
                "origin_server_ts": int(time.time() * 1000),
                "content": {"msgtype": "m.text", "body": body}}


class AppserviceListenerTest(AppserviceCase):

    def test_hostile_requests_are_refused_and_change_nothing(self):
        room = self.create_room()
        self.botproc = self.start_bot([room])
        tok = hs_token(self.registration)
        ev = [self.event(room, "!hearts")]
        # no token, another token (header and query), a token one longer
        self.assertEqual(self.txn("test-1", ev)[0], 200)
        self.wait_for(lambda: len(self.opened(room)) == 1, what="a table")
        for token, query in (("", False), ("wrong", False), ("wrong", True),
                             (tok + "x", False), (tok[:-1], True)):
            st, body = self.ask("PUT", "/_matrix/app/v1/transactions/x%s%d" %
                                (token[:3], query), {"events": ev},
                                token=token, query_token=query)
            self.assertEqual(st, 401 if not token else 403, (token, body))
            self.assertEqual(body["errcode"],
                             "M_UNAUTHORIZED" if not token else "M_FORBIDDEN")
        # a body too large (its Content-Length says so: never read)
        st, body = self.ask("PUT", "/_matrix/app/v1/transactions/big", None,
                            headers={"Content-Length": str(9 << 20)})
        self.assertEqual((st, body["errcode"]), (413, "M_TOO_LARGE"))
        # malformed bodies
        for n, (raw, code) in enumerate((
                (b"{not json", "M_NOT_JSON"), (b"\xff\xfe", "M_NOT_JSON"),
                (b"[]", "M_BAD_JSON"), (b'{"events": {}}', "M_BAD_JSON"),
                (b'{"events": []} trailing', "M_NOT_JSON"))):
            path = "/_matrix/app/v1/transactions/malformed-%d" % n
            st, body = self.ask("PUT", path, raw)
            self.assertEqual((st, body["errcode"]), (400, code), raw)
            # sent again (a homeserver retries it, and nothing after it,
            # until it is taken): taken, so its queue goes on
            self.assertEqual(self.ask("PUT", path, raw), (200, {}))
        # malformed events in a good body: skipped, the rest taken
        st, _ = self.txn("test-2", [7, None, {"room_id": "nope"},
                               {"room_id": room, "type": "m.room.message"},
                               self.event(room, "!status", n=2)])
        self.assertEqual(st, 200)
        # the queries and the ping; what is not served
        for method, path, want in (
                ("GET", "/_matrix/app/v1/users/%40x%3Ahearts.test", 404),
                ("GET", "/users/%40x%3Ahearts.test", 404),
                ("GET", "/_matrix/app/v1/rooms/%23x%3Ahearts.test", 404),
                ("POST", "/_matrix/app/v1/ping", 200),
                ("GET", "/_matrix/app/v1/ping", 405),
                ("GET", "/_matrix/app/v1/transactions/3", 405),
                ("GET", "/_matrix/client/v3/sync", 404),
                ("PUT", "/_matrix/app/v1/transactions/", 400)):
            body = {} if method != "GET" else None
            st, _ = self.ask(method, path, body)
            self.assertEqual(st, want, (method, path))
        # nothing of it changed the table, and the bot still plays
        self.assertEqual(len(self.opened(room)), 1)
        self.say(room, "!start")
        self.wait_for(lambda: self.bot_said(room, "The game begins"),
                      what="the game begins")
        self.assertTrue(self.botproc.alive())

    def connection_closed_within(self, sock, limit):
        """Seconds until the bot closes sock (read returns nothing)."""
        start = time.monotonic()
        sock.settimeout(limit)
        try:
            while sock.recv(1024):
                pass
        except (ConnectionResetError, socket.timeout):
            pass
        return time.monotonic() - start

    def test_slow_and_half_open_connections_are_closed(self):
        room = self.create_room()
        cfg = self.config([room], request_timeout_ms=1000)
        self.botproc = self.bot(cfg)
        self.botproc.wait_log(r"mx: connected to")
        # connects and says nothing
        silent = socket.create_connection(("127.0.0.1", self.as_port))
        # half a request, then nothing
        half = socket.create_connection(("127.0.0.1", self.as_port))
        half.sendall(b"PUT /_matrix/app/v1/transactions/1 HTTP/1.1\r\n"
                     b"Host: x\r\nAuthorization: Bea")
        # the whole header and half of the body it announces
        body = socket.create_connection(("127.0.0.1", self.as_port))
        body.sendall(("PUT /_matrix/app/v1/transactions/1 HTTP/1.1\r\n"
                      "Host: x\r\nAuthorization: Bearer %s\r\n"
                      "Content-Length: 100\r\n\r\n{\"events\":"
                      % hs_token(self.registration)).encode())
        for s in (silent, half, body):
            took = self.connection_closed_within(s, 10)
            self.assertLess(took, 5, "still open after the request time")
            s.close()
        # a byte every 200 ms: closed too, long before the end
        slow = socket.create_connection(("127.0.0.1", self.as_port))
        line = b"PUT /_matrix/app/v1/transactions/1 HTTP/1.1\r\nHost: x\r\n"
        start, sent = time.monotonic(), 0
        try:
            for b in line * 4:
                slow.sendall(bytes([b]))
                sent += 1
                time.sleep(0.2)
                if time.monotonic() - start > 8:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.assertLess(time.monotonic() - start, 5)
        self.assertLess(sent, len(line) * 4)
        slow.close()
        # and the homeserver's transactions still go through
        self.say(room, "!hearts")
        self.wait_for(lambda: len(self.opened(room)) == 1, what="a table")


class AppserviceDeliveryTest(AppserviceCase):

    def test_a_transaction_sent_again_is_handled_once(self):
        room = self.create_room()
        self.botproc = self.start_bot([room])
        ev = [self.event(room, "!hearts")]
        self.assertEqual(self.txn("again-1", ev), (200, {}))
        self.assertEqual(self.txn("again-1", ev), (200, {}))
        # Synapse 1.67's path and token in the query, the same ID
        self.assertEqual(self.txn("again-1", ev, legacy=True), (200, {}))
        self.wait_for(lambda: self.opened(room), what="a table")
        # the same event in another transaction: taken once too
        self.assertEqual(self.txn("again-2", ev), (200, {}))
        time.sleep(1)
        self.assertEqual(len(self.opened(room)), 1)
        # after a SIGKILL the kept IDs still hold
        self.botproc.signal(signal.SIGKILL)
        self.botproc.wait(10)
        self.botproc = self.start_bot([room], name="heartsbot2")
        self.assertEqual(self.txn("again-1", ev), (200, {}))
        self.say(room, "!status")
        self.assertTrue(self.hs.as_wait_idle(15))
        time.sleep(1)
        self.assertEqual(len(self.opened(room)), 1)
        # the homeserver itself sends the next one twice
        self.hs.as_duplicate()
        self.say(room, "!stop")
        self.wait_for(lambda: self.bot_said(room, "stops the"),
                      what="the stop said")
        self.assertTrue(self.hs.as_wait_idle(15))
        time.sleep(1)
        self.assertEqual(len(self.bot_said(room, "stops the")), 1)
        self.assertEqual(self.hs.as_counters(self.hs_id())["duplicates"], 1)

    def hs_id(self):
        return next(iter(self.hs.as_counters()))

    def down_while_starting(self, failures, backoff_ms=None):
        """A table opened, the bot killed, then `!start` said while it is
        down until the homeserver failed `failures` times to push it (its
        backoff set to backoff_ms if given); the room."""
        room = self.create_room()
        self.botproc = self.start_bot([room])
        self.say(room, "!hearts")
        self.wait_for(lambda: self.opened(room), what="a table")
        self.botproc.signal(signal.SIGKILL)
        self.botproc.wait(10)
        if backoff_ms:
            pusher = self.hs.pushers[0]
            pusher.backoff_ms = pusher.backoff_cap_ms = backoff_ms
        self.say(room, "!start")
        deadline = time.monotonic() + 10
        while self.hs.as_counters(self.hs_id())["failures"] < failures:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        return room

    def test_the_bot_down_for_a_while_loses_nothing(self):
        room = self.down_while_starting(2)
        self.botproc = self.start_bot([room], name="heartsbot2")
        self.wait_for(lambda: self.bot_said(room, "The game begins"),
                      timeout=20, what="the game begins after the restart")
        # and the homeserver restarted: the queue survives it
        self.hs.stop()
        self.hs.start()
        self.say(room, "!stop")
        self.wait_for(lambda: self.bot_said(room, "stops the"),
                      timeout=20, what="the stop answered")
        self.assertEqual(len(self.bot_said(room, "The game begins")), 1)

    def test_back_after_a_long_absence_its_ping_brings_what_waits(self):
        """The homeserver backed off far (Synapse: up to 512 s) from a
        bot that was down; the bot's ping at start (Matrix 1.7) makes it
        send what waits at once, not after its backoff."""
        room = self.down_while_starting(1, backoff_ms=60000)
        started = time.monotonic()
        self.botproc = self.start_bot([room], name="heartsbot2")
        self.wait_for(lambda: self.bot_said(room, "The game begins"),
                      timeout=15, what="the game begins after the ping")
        self.assertLess(time.monotonic() - started, 15)
        self.assertEqual(self.hs.as_counters(self.hs_id())["pings"], 2)
        self.botproc.wait_log(r"reached the bot's listener \(ping\)")

    def test_a_homeserver_without_the_ping_is_fine(self):
        """Synapse 1.67 has no client ping endpoint (404): the bot goes
        on, and the homeserver's own retry brings what waits."""
        self.hs.as_client_ping = False
        room = self.create_room()
        self.botproc = self.start_bot([room])
        self.say(room, "!hearts")
        self.wait_for(lambda: self.opened(room), what="a table")
        self.botproc.wait_log(r"has no ping for application services")
        self.assertEqual(self.hs.as_counters(self.hs_id())["pings"], 0)

    def test_the_bot_is_not_rate_limited(self):
        room = self.create_room()
        self.hs.set_exempt(self.alice)
        # two messages, then one every 5 s: an ordinary user's table
        # would crawl; rate_limited: false lifts it for the bot
        self.hs.set_ratelimit(rate=0.2, burst=2)
        self.botproc = self.start_bot([room])
        self.say(room, "!hearts")
        self.say(room, "!start")
        self.wait_for(lambda: self.bot_said(room, "The game begins"),
                      what="the game begins")
        for n in range(6):
            before = len(self.bot_said(room, ""))
            self.say(room, "!status")
            self.wait_for(lambda: len(self.bot_said(room, "")) > before,
                          timeout=3, what="status %d answered at once" % n)
        log = self.botproc.log()
        self.assertNotIn("rate-limited on", log)
        self.assertNotRegex(log, r"GET /sync|POST /login")


if __name__ == "__main__":
    harness.main()

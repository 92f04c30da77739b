"""The Matrix test homeserver (tests/matrix/homeserver.py), tested without
the bot: real matrix-nio clients (Debian's python3-matrix-nio validates
every answer against the specification's schemas) log in, open a direct
room, talk through /sync; the server refuses what a real homeserver
refuses, limits rates like Synapse and fails on request.
Run: /usr/bin/python3 tests/integration/test_matrix_server.py -v
"""

import asyncio
import http.client
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402
import appservice  # noqa: E402
import homeserver  # noqa: E402
import yaml_subset  # noqa: E402

try:
    import nio
except ImportError:          # CI installs python3-matrix-nio
    nio = None
try:
    import yaml as pyyaml    # python3-yaml: the YAML reader is checked
except ImportError:          # against it when it is there
    pyyaml = None

V3 = "/_matrix/client/v3"


def q(s):
    return urllib.parse.quote(s, safe="")


class Raw:
    """Plain HTTP against the server, for what nio does not send."""

    def __init__(self, hs, token=None, timeout=10.0):
        self.hs = hs
        self.token = token
        self.timeout = timeout

    def request(self, method, path, body=None, raw=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.hs.port,
                                          timeout=self.timeout)
        try:
            h = dict(headers or {})
            if self.token is not None:
                h["Authorization"] = "Bearer " + self.token
            data = raw if raw is not None else (
                json.dumps(body).encode() if body is not None else None)
            conn.request(method, path, body=data, headers=h)
            resp = conn.getresponse()
            payload = resp.read()
            return resp.status, json.loads(payload), resp
        finally:
            conn.close()

    def login(self, user, password, device_id=None):
        body = {"type": "m.login.password", "password": password,
                "identifier": {"type": "m.id.user", "user": user}}
        if device_id:
            body["device_id"] = device_id
        status, resp, _ = self.request("POST", V3 + "/login", body)
        assert status == 200, resp
        self.token = resp["access_token"]
        return resp


class FakeClock:
    """The homeserver's clock for the rate limits, moved by the test: the
    limits' numbers are then exact, and nothing waits."""

    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


class MatrixTestCase(HarnessTestCase):
    fake_clock = False        # True: self.clock, a FakeClock, runs the limits
    hs_options = {}

    def setUp(self):
        super().setUp()
        if nio is None:
            self.skipTest("python3-matrix-nio is not installed")
        self.clock = FakeClock() if self.fake_clock else None
        self.hs = homeserver.Homeserver(self.tmpdir, clock=self.clock,
                                        **self.hs_options)
        self.hs.start()
        self.addCleanup(self.hs.stop)
        self.alice = self.hs.register("alice", "pw-a", "Alice")
        self.bob = self.hs.register("bob", "pw-b")

    def run_async(self, coro, timeout=20.0):
        return asyncio.run(asyncio.wait_for(coro, timeout))

    async def nio_client(self, user, password):
        c = nio.AsyncClient(self.hs.url, user)
        resp = await c.login(password)
        self.assertIsInstance(resp, nio.LoginResponse, resp)
        return c

    def raw(self, user=None, password=None):
        r = Raw(self.hs)
        if user:
            r.login(user, password)
        return r

    def assertError(self, got, status, errcode):
        self.assertEqual(got[0], status, got[1])
        self.assertEqual(got[1]["errcode"], errcode, got[1])
        self.assertIsInstance(got[1]["error"], str)


class ConversationTest(MatrixTestCase):

    def test_direct_room_invite_join_and_messages_both_ways(self):
        async def go():
            a = await self.nio_client("alice", "pw-a")
            b = await self.nio_client("bob", "pw-b")
            try:
                first = await b.sync(timeout=0)
                self.assertIsInstance(first, nio.SyncResponse, first)
                self.assertEqual(first.rooms.invite, {})
                created = await a.room_create(
                    name="hearts", invite=[self.bob], is_direct=True,
                    preset=nio.RoomPreset.trusted_private_chat)
                self.assertIsInstance(created, nio.RoomCreateResponse)
                room = created.room_id
                self.assertRegex(room, r"^![A-Za-z0-9]+:hearts\.test$")

                # The invite arrives in a waiting /sync, is_direct set.
                s = await b.sync(timeout=5000, since=first.next_batch)
                self.assertIsInstance(s, nio.SyncResponse, s)
                self.assertIn(room, s.rooms.invite)
                mine = [e for e in s.rooms.invite[room].invite_state
                        if isinstance(e, nio.InviteMemberEvent)
                        and e.state_key == self.bob]
                self.assertEqual(mine[0].content["membership"], "invite")
                self.assertIs(mine[0].content["is_direct"], True)
                self.assertEqual(mine[0].sender, self.alice)

                joined = await b.join(room)
                self.assertIsInstance(joined, nio.JoinResponse, joined)
                s = await b.sync(timeout=5000, since=s.next_batch)
                self.assertIn(room, s.rooms.join)
                j = s.rooms.join[room]
                state_types = {e.source["type"]
                               for e in j.state + j.timeline.events}
                self.assertIn("m.room.create", state_types)
                self.assertIn("m.room.name", state_types)

                # Alice to Bob: Bob's long poll wakes on the message.
                sa = await a.sync(timeout=0)
                waiting = asyncio.ensure_future(
                    b.sync(timeout=10000, since=s.next_batch))
                await asyncio.sleep(0.2)
                self.assertFalse(waiting.done())
                t0 = time.monotonic()
                sent = await a.room_send(room, "m.room.message",
                                         {"msgtype": "m.text",
                                          "body": "hello bob"}, tx_id="a-1")
                self.assertIsInstance(sent, nio.RoomSendResponse, sent)
                s = await waiting
                self.assertLess(time.monotonic() - t0, 2.0)
                events = s.rooms.join[room].timeline.events
                self.assertEqual([e.body for e in events], ["hello bob"])
                self.assertIsInstance(events[0], nio.RoomMessageText)
                self.assertEqual(events[0].event_id, sent.event_id)
                self.assertEqual(events[0].sender, self.alice)
                self.assertRegex(events[0].event_id, r"^\$")

                # Alice's own echo carries her transaction ID; Bob's not.
                echo = await a.sync(timeout=5000, since=sa.next_batch)
                mine = echo.rooms.join[room].timeline.events[-1]
                self.assertEqual(mine.event_id, sent.event_id)
                self.assertEqual(mine.transaction_id, "a-1")
                self.assertNotIn("transaction_id",
                                 events[0].source["unsigned"])

                # Bob to Alice, a notice with HTML.
                await b.room_send(room, "m.room.message",
                                  {"msgtype": "m.notice", "body": "hi",
                                   "format": "org.matrix.custom.html",
                                   "formatted_body": "<b>hi</b>"})
                s2 = await a.sync(timeout=5000, since=sa.next_batch)
                events = [e for e in s2.rooms.join[room].timeline.events
                          if isinstance(e, nio.RoomMessageNotice)]
                self.assertEqual(events[0].formatted_body, "<b>hi</b>")

                members = await a.joined_members(room)
                self.assertIsInstance(members, nio.JoinedMembersResponse)
                self.assertEqual({m.user_id: m.display_name
                                  for m in members.members},
                                 {self.alice: "Alice", self.bob: "bob"})

                # Bob leaves: the room moves to his rooms.leave.
                self.assertEqual(self.hs.rooms(self.bob), [room])
                self.assertEqual(self.hs.membership(room, self.bob), "join")
                # A new display name (a member event), then Bob leaves: his
                # sync has the room in rooms.leave with what he missed.
                self.assertIsInstance(await b.set_displayname("Robert"),
                                      nio.ProfileSetDisplayNameResponse)
                left = await b.room_leave(room)
                self.assertIsInstance(left, nio.RoomLeaveResponse, left)
                s3 = await b.sync(timeout=5000, since=s.next_batch)
                self.assertIn(room, s3.rooms.leave)
                self.assertNotIn(room, s3.rooms.join)
                timeline = s3.rooms.leave[room].timeline.events
                self.assertIn("hi", [getattr(e, "body", None)
                                     for e in timeline])
                self.assertEqual(timeline[-1].membership, "leave")
                self.assertEqual(timeline[-2].content["displayname"],
                                 "Robert")
            finally:
                await a.close()
                await b.close()
        self.run_async(go())

    def test_a_newcomer_reads_what_history_visibility_lets_them(self):
        """A room newly joined in an incremental sync shows the messages
        sent before the join as its m.room.history_visibility says:
        shared all of them, invited those from the invite on, joined
        none."""
        self.hs.set_exempt(self.alice)
        async def go():
            a = await self.nio_client("alice", "pw-a")
            b = await self.nio_client("bob", "pw-b")
            try:
                got = {}
                for vis in ("shared", "invited", "joined"):
                    made = await a.room_create(
                        initial_state=[{"type": "m.room.history_visibility",
                                        "state_key": "",
                                        "content": {
                                            "history_visibility": vis}}])
                    room = made.room_id
                    await a.room_send(room, "m.room.message",
                                      {"msgtype": "m.text",
                                       "body": "before the invite"})
                    await a.room_invite(room, self.bob)
                    await a.room_send(room, "m.room.message",
                                      {"msgtype": "m.text",
                                       "body": "after the invite"})
                    s = await b.sync(timeout=0)
                    self.assertIn(room, s.rooms.invite)
                    self.assertIsInstance(await b.join(room),
                                          nio.JoinResponse)
                    s = await b.sync(timeout=5000, since=s.next_batch)
                    got[vis] = [e.body for e in
                                s.rooms.join[room].timeline.events
                                if isinstance(e, nio.RoomMessageText)]
                self.assertEqual(got, {
                    "shared": ["before the invite", "after the invite"],
                    "invited": ["after the invite"],
                    "joined": []})
            finally:
                await a.close()
                await b.close()
        self.run_async(go())

    def test_first_sync_gives_state_and_recent_timeline(self):
        async def go():
            a = await self.nio_client("alice", "pw-a")
            self.hs.set_exempt(self.alice)
            try:
                room = (await a.room_create(name="big")).room_id
                for i in range(15):
                    await a.room_send(room, "m.room.message",
                                      {"msgtype": "m.text", "body": str(i)})
                s = await a.sync(timeout=0)
                j = s.rooms.join[room]
                self.assertTrue(j.timeline.limited)
                self.assertEqual(len(j.timeline.events), 10)
                self.assertEqual(j.timeline.events[-1].body, "14")
                self.assertIn("m.room.create",
                              {e.source["type"] for e in j.state})
                # The rest is behind prev_batch.
                got = await a.room_messages(room, j.timeline.prev_batch,
                                            limit=3)
                self.assertIsInstance(got, nio.RoomMessagesResponse, got)
                self.assertEqual([e.body for e in got.chunk],
                                 ["4", "3", "2"])
                got = await a.room_messages(room, got.end, limit=100)
                self.assertEqual([e.body for e in got.chunk
                                  if hasattr(e, "body")], ["1", "0"])
                self.assertIsNone(got.end)
                # A filter with a smaller limit, by ID.
                f = {"room": {"timeline": {"limit": 2}}}
                status, resp, _ = Raw(self.hs, a.access_token).request(
                    "POST", V3 + "/user/%s/filter" % q(self.alice), f)
                self.assertEqual(status, 200, resp)
                a.next_batch = None     # nio would send `since`
                s = await a.sync(timeout=0, sync_filter=resp["filter_id"])
                self.assertEqual([e.body for e in
                                  s.rooms.join[room].timeline.events],
                                 ["13", "14"])
                a.next_batch = None
                s = await a.sync(timeout=0,
                                 sync_filter={"room": {"timeline":
                                                       {"limit": 1}}})
                self.assertEqual(len(s.rooms.join[room].timeline.events), 1)
                # Nothing new: a short long-poll comes back empty.
                t0 = time.monotonic()
                s2 = await a.sync(timeout=300, since=s.next_batch)
                self.assertGreaterEqual(time.monotonic() - t0, 0.25)
                self.assertEqual(s2.rooms.join, {})
                # full_state: every joined room, its whole state, at once.
                t0 = time.monotonic()
                s3 = await a.sync(timeout=3000, since=s2.next_batch,
                                  full_state=True)
                self.assertLess(time.monotonic() - t0, 1.0)
                self.assertIn("m.room.create", {
                    e.source["type"] for e in s3.rooms.join[room].state})
                self.assertEqual(s3.rooms.join[room].timeline.events, [])
            finally:
                await a.close()
        self.run_async(go())

    def test_transaction_ids_are_deduplicated_per_token(self):
        async def go():
            a = await self.nio_client("alice", "pw-a")
            try:
                room = (await a.room_create()).room_id
                content = {"msgtype": "m.text", "body": "once"}
                one = await a.room_send(room, "m.room.message", content,
                                        tx_id="t1")
                two = await a.room_send(room, "m.room.message", content,
                                        tx_id="t1")
                self.assertEqual(one.event_id, two.event_id)
                v3 = Raw(self.hs, a.access_token).request(
                    "PUT", V3 + "/rooms/%s/send/m.room.message/t1" % q(room),
                    content)
                self.assertEqual(v3[1], {"event_id": one.event_id})
                bodies = [e["content"].get("body") for e in
                          self.hs.room_events(room, "m.room.message")]
                self.assertEqual(bodies, ["once"])
                # Another access token is another transaction scope.
                other = self.raw("alice", "pw-a")
                got = other.request("PUT", V3 + "/rooms/%s/send/"
                                    "m.room.message/t1" % q(room), content)
                self.assertEqual(got[0], 200)
                self.assertNotEqual(got[1]["event_id"], one.event_id)
            finally:
                await a.close()
        self.run_async(go())

    def test_account_data_round_trip_and_in_sync(self):
        r = self.raw("alice", "pw-a")
        path = V3 + "/user/%s/account_data/m.direct" % q(self.alice)
        self.assertError(r.request("GET", path), 404, "M_NOT_FOUND")
        direct = {self.bob: ["!x:hearts.test"]}
        self.assertEqual(r.request("PUT", path, direct)[0], 200)
        self.assertEqual(r.request("GET", path)[1], direct)
        self.assertEqual(self.hs.account_data(self.alice, "m.direct"), direct)
        self.assertIsNone(self.hs.account_data(self.bob, "m.direct"))
        self.assertError(Raw(self.hs, r.token).request(
            "GET", V3 + "/user/%s/account_data/m.direct" % q(self.bob)),
            403, "M_FORBIDDEN")

        async def go():
            a = await self.nio_client("alice", "pw-a")
            try:
                s = await a.sync(timeout=0)
                got = [e for e in s.account_data_events
                       if getattr(e, "type", None) == "m.direct"
                       or getattr(e, "source", {}).get("type") == "m.direct"]
                self.assertTrue(got, s.account_data_events)
                self.assertEqual(r.request("PUT", path, {})[0], 200)
                s2 = await a.sync(timeout=5000, since=s.next_batch)
                self.assertTrue(s2.account_data_events)
            finally:
                await a.close()
        self.run_async(go())

    def test_profile_and_state(self):
        r = self.raw("alice", "pw-a")
        got = r.request("GET", V3 + "/profile/%s" % q(self.alice))
        self.assertEqual(got[1], {"displayname": "Alice"})
        self.assertEqual(r.request(
            "PUT", V3 + "/profile/%s/displayname" % q(self.alice),
            {"displayname": "Queen"})[0], 200)
        self.assertEqual(r.request(
            "GET", V3 + "/profile/%s/displayname" % q(self.alice))[1],
            {"displayname": "Queen"})
        self.assertError(r.request(
            "GET", V3 + "/profile/%s" % q("@nobody:hearts.test")),
            404, "M_NOT_FOUND")
        room = r.request("POST", V3 + "/createRoom",
                         {"room_alias_name": "hearts"})[1]["room_id"]
        self.assertEqual(r.request(
            "GET", V3 + "/directory/room/%s" % q("#hearts:hearts.test"))[1]
            ["room_id"], room)
        self.assertEqual(r.request(
            "GET", V3 + "/rooms/%s/state/m.room.member/%s"
            % (q(room), q(self.alice)))[1]["displayname"], "Queen")
        self.assertError(r.request(
            "GET", V3 + "/rooms/%s/state/m.room.topic" % q(room)),
            404, "M_NOT_FOUND")
        # Joining by alias needs a public room or an invite.
        b = self.raw("bob", "pw-b")
        self.assertError(b.request(
            "POST", V3 + "/join/%s" % q("#hearts:hearts.test"), {}),
            403, "M_FORBIDDEN")
        self.assertError(b.request(
            "POST", V3 + "/join/%s" % q("#none:hearts.test"), {}),
            404, "M_NOT_FOUND")
        pub = r.request("POST", V3 + "/createRoom",
                        {"preset": "public_chat"})[1]["room_id"]
        self.assertEqual(r.request(
            "PUT", V3 + "/directory/room/%s" % q("#pub:hearts.test"),
            {"room_id": pub})[0], 200)
        got = b.request("POST", V3 + "/join/%s" % q("#pub:hearts.test"), {})
        self.assertEqual(got[1], {"room_id": pub})


    def test_display_name_reaches_every_joined_room(self):
        """PUT /profile/{userId}/displayname (matrix-nio's set_displayname)
        is a new m.room.member event with the name in every room the user
        is joined to, as Synapse does; not in a room she left; a join
        afterwards carries it; bad bodies and others' names are refused."""
        async def go():
            a = await self.nio_client(self.alice, "pw-a")
            b = await self.nio_client(self.bob, "pw-b")
            try:
                rooms = [(await b.room_create(
                    preset=nio.RoomPreset.public_chat)).room_id
                    for _ in range(3)]
                for room in rooms:
                    self.assertIsInstance(await a.join(room),
                                          nio.JoinResponse)
                self.assertIsInstance(await a.room_leave(rooms[2]),
                                      nio.RoomLeaveResponse)
                before = {r: len(self.hs.room_events(r, "m.room.member"))
                          for r in rooms}
                got = await a.set_displayname("Queen of Hearts")
                self.assertIsInstance(got, nio.ProfileSetDisplayNameResponse)
                for room in rooms[:2]:
                    evs = self.hs.room_events(room, "m.room.member")
                    self.assertEqual(len(evs), before[room] + 1)
                    self.assertEqual(evs[-1]["state_key"], self.alice)
                    self.assertEqual(evs[-1]["content"],
                                     {"membership": "join",
                                      "displayname": "Queen of Hearts"})
                    # and bob's client sees it in its sync
                    s = await b.sync(timeout=0, full_state=True)
                    names = {e.state_key: e.content.get("displayname")
                             for e in s.rooms.join[room].state
                             + s.rooms.join[room].timeline.events
                             if isinstance(e, nio.RoomMemberEvent)}
                    self.assertEqual(names[self.alice], "Queen of Hearts")
                self.assertEqual(
                    len(self.hs.room_events(rooms[2], "m.room.member")),
                    before[rooms[2]])
                self.assertIsInstance(await a.join(rooms[2]),
                                      nio.JoinResponse)
                self.assertEqual(
                    self.hs.room_events(rooms[2], "m.room.member")[-1]
                    ["content"]["displayname"], "Queen of Hearts")
            finally:
                await a.close()
                await b.close()
        self.run_async(go())
        r = self.raw("alice", "pw-a")
        path = V3 + "/profile/%s/displayname" % q(self.alice)
        self.assertError(r.request("PUT", path, {"displayname": 7}),
                         400, "M_BAD_JSON")
        self.assertError(r.request("PUT", path, {}), 400, "M_MISSING_PARAM")
        self.assertError(r.request("PUT", path, {"displayname": "x" * 300}),
                         400, "M_BAD_JSON")
        self.assertError(r.request("POST", path, {"displayname": "x"}),
                         405, "M_UNRECOGNIZED")
        self.assertError(r.request(
            "PUT", V3 + "/profile/%s/displayname" % q(self.bob),
            {"displayname": "Mallory"}), 403, "M_FORBIDDEN")
        self.assertError(Raw(self.hs).request(
            "PUT", path, {"displayname": "x"}), 401, "M_MISSING_TOKEN")

    def test_several_clients_long_poll_at_once(self):
        names = ["p%d" % i for i in range(4)]
        for n in names:
            self.hs.register(n, "pw")
        # four logins from one address: the fourth would wait for
        # rc_login.address (burst 3), which is not what this is about
        self.hs.set_ratelimit(logins=False)

        async def go():
            clients = [await self.nio_client(n, "pw") for n in names]
            try:
                room = (await clients[0].room_create(
                    preset=nio.RoomPreset.public_chat)).room_id
                for c in clients[1:]:
                    self.assertIsInstance(await c.join(room),
                                          nio.JoinResponse)
                tokens = [(await c.sync(timeout=0)).next_batch
                          for c in clients]
                waits = [asyncio.ensure_future(c.sync(timeout=10000,
                                                      since=t))
                         for c, t in zip(clients, tokens)]
                await asyncio.sleep(0.3)
                self.assertFalse(any(w.done() for w in waits))
                t0 = time.monotonic()
                self.hs.add_event(room, "@p0:hearts.test", "m.room.message",
                                  {"msgtype": "m.text", "body": "all"})
                got = await asyncio.gather(*waits)
                self.assertLess(time.monotonic() - t0, 2.0)
                for s in got:
                    self.assertEqual([e.body for e in
                                      s.rooms.join[room].timeline.events],
                                     ["all"])
            finally:
                for c in clients:
                    await c.close()
        self.run_async(go())

    def test_answers_on_a_kept_alive_connection_are_fast(self):
        # Headers and body are two writes: without TCP_NODELAY each answer
        # waited about 40 ms for the client's delayed ACK (2 s here).
        token = self.raw("alice", "pw-a").token
        conn = http.client.HTTPConnection("127.0.0.1", self.hs.port,
                                          timeout=5)
        self.addCleanup(conn.close)
        t0 = time.monotonic()
        for _ in range(50):
            conn.request("GET", V3 + "/account/whoami",
                         headers={"Authorization": "Bearer " + token})
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            resp.read()
        self.assertLess(time.monotonic() - t0, 1.0)

    def test_stop_and_start_on_the_same_port(self):
        r = self.raw("alice", "pw-a")
        port = self.hs.port
        self.hs.stop()
        with self.assertRaises(ConnectionRefusedError):
            r.request("GET", V3 + "/account/whoami")
        self.hs.start()
        self.assertEqual(self.hs.port, port)
        self.assertEqual(r.request("GET", V3 + "/account/whoami")[1]
                         ["user_id"], self.alice)


class StrictnessTest(MatrixTestCase):

    def test_errors_have_the_right_codes(self):
        anon = Raw(self.hs)
        got = anon.request("GET", V3 + "/sync")
        self.assertError(got, 401, "M_MISSING_TOKEN")
        self.assertIs(got[1]["soft_logout"], False)
        got = Raw(self.hs, "nope").request("GET", V3 + "/account/whoami")
        self.assertError(got, 401, "M_UNKNOWN_TOKEN")
        self.assertIs(got[1]["soft_logout"], False)
        self.assertError(anon.request("POST", V3 + "/login", {
            "type": "m.login.password", "password": "wrong",
            "identifier": {"type": "m.id.user", "user": "alice"}}),
            403, "M_FORBIDDEN")

        r = self.raw("alice", "pw-a")
        self.assertEqual(r.request("GET", V3 + "/account/whoami")[1]
                         ["user_id"], self.alice)
        self.assertError(r.request("GET", V3 + "/no/such/thing"),
                         404, "M_UNRECOGNIZED")
        self.assertError(r.request("GET", "/_matrix/other"),
                         404, "M_UNRECOGNIZED")
        self.assertError(r.request("GET", V3 + "/createRoom"),
                         405, "M_UNRECOGNIZED")
        self.assertError(r.request("POST", V3 + "/createRoom",
                                   raw=b"{not json"), 400, "M_NOT_JSON")
        self.assertError(r.request("POST", V3 + "/createRoom",
                                   raw=b"[1, 2]"), 400, "M_BAD_JSON")
        self.assertError(r.request("POST", V3 + "/createRoom",
                                   {"invite": "@bob:hearts.test"}),
                         400, "M_BAD_JSON")
        self.assertError(r.request("POST", V3 + "/createRoom",
                                   {"is_direct": "yes"}), 400, "M_BAD_JSON")
        room = r.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        big = {"msgtype": "m.text", "body": "x" * 70000}
        self.assertError(r.request("PUT", V3 + "/rooms/%s/send/"
                                   "m.room.message/big" % q(room), big),
                         413, "M_TOO_LARGE")
        self.assertError(r.request("PUT", V3 + "/rooms/%s/send/"
                                   "m.room.message/big" % q(room), big,
                                   headers={"Expect": "100-continue"}),
                         413, "M_TOO_LARGE")
        b = self.raw("bob", "pw-b")
        self.assertError(b.request("PUT", V3 + "/rooms/%s/send/"
                                   "m.room.message/1" % q(room),
                                   {"msgtype": "m.text", "body": "in?"}),
                         403, "M_FORBIDDEN")
        self.assertError(b.request("GET", V3 + "/rooms/%s/joined_members"
                                   % q(room)), 403, "M_FORBIDDEN")
        self.assertError(b.request("POST", V3 + "/rooms/%s/join" % q(room),
                                   {}), 403, "M_FORBIDDEN")
        self.assertError(b.request("GET", V3 + "/sync?since=bogus"),
                         400, "M_INVALID_PARAM")
        self.assertError(b.request("GET", V3 + "/sync?filter=%7Bbad"),
                         400, "M_NOT_JSON")
        self.assertError(b.request("GET", V3 + "/sync?filter=" + q(
            '{"room":{"state":{"lazy_load_members":"yes"}}}')),
            400, "M_BAD_JSON")
        self.assertEqual(b.request("GET", V3 + "/sync?filter=" + q(
            '{"room":{"state":{"lazy_load_members":true,'
            '"include_redundant_members":true}}}'))[0], 200)
        got = r.request("BREW", V3 + "/account/whoami")
        self.assertError(got, 501, "M_UNRECOGNIZED")
        # Every request is in the log, without the access token.
        Raw(self.hs).request("GET", V3 + "/sync?access_token=secret1")
        with open(self.hs.log_path) as f:
            log = f.read()
        self.assertIn("GET /_matrix/client/v3/createRoom 405", log)
        self.assertIn("POST /_matrix/client/v3/login 403", log)
        self.assertNotIn("secret1", log)
        self.assertNotIn(r.token, log)

    def test_revoked_token_and_device_reuse(self):
        r = self.raw("alice", "pw-a")
        device = r.request("GET", V3 + "/account/whoami")[1]["device_id"]
        self.hs.revoke(self.alice)
        got = r.request("GET", V3 + "/account/whoami")
        self.assertError(got, 401, "M_UNKNOWN_TOKEN")
        self.assertIs(got[1]["soft_logout"], False)
        again = r.login("alice", "pw-a", device_id=device)
        self.assertEqual(again["device_id"], device)
        self.assertEqual(r.request("GET", V3 + "/account/whoami")[1]
                         ["device_id"], device)
        self.assertEqual(r.request("POST", V3 + "/logout", {})[0], 200)
        self.assertError(r.request("GET", V3 + "/account/whoami"),
                         401, "M_UNKNOWN_TOKEN")


class ModerationTest(MatrixTestCase):

    def test_kick_ban_and_unban_need_power_and_show_in_sync(self):
        async def go():
            a = await self.nio_client("alice", "pw-a")
            b = await self.nio_client("bob", "pw-b")
            try:
                made = await a.room_create(preset=nio.RoomPreset.public_chat)
                self.assertIsInstance(made, nio.RoomCreateResponse)
                room = made.room_id
                self.assertIsInstance(await b.join(room), nio.JoinResponse)
                s = await b.sync(timeout=0)
                # bob (power 0) may not kick alice (100), nor anyone
                got = await b.room_kick(room, self.alice)
                self.assertIsInstance(got, nio.RoomKickError)
                self.assertEqual(got.status_code, "M_FORBIDDEN")
                # alice kicks bob: his sync has the room in rooms.leave,
                # the leave event sent by alice, with the reason
                got = await a.room_kick(room, self.bob, "enough")
                self.assertIsInstance(got, nio.RoomKickResponse, got)
                self.assertEqual(self.hs.membership(room, self.bob), "leave")
                s2 = await b.sync(timeout=5000, since=s.next_batch)
                self.assertIn(room, s2.rooms.leave)
                ev = s2.rooms.leave[room].timeline.events[-1]
                self.assertEqual((ev.sender, ev.membership, ev.state_key),
                                 (self.alice, "leave", self.bob))
                self.assertEqual(ev.content["reason"], "enough")
                # kicking someone not in the room is refused
                got = await a.room_kick(room, self.bob)
                self.assertIsInstance(got, nio.RoomKickError)
                # back, then banned: joining is refused until unbanned
                self.assertIsInstance(await b.join(room), nio.JoinResponse)
                got = await a.room_ban(room, self.bob)
                self.assertIsInstance(got, nio.RoomBanResponse, got)
                self.assertEqual(self.hs.membership(room, self.bob), "ban")
                got = await b.join(room)
                self.assertIsInstance(got, nio.JoinError)
                self.assertEqual(got.status_code, "M_FORBIDDEN")
                got = await a.room_unban(room, self.bob)
                self.assertIsInstance(got, nio.RoomUnbanResponse, got)
                self.assertIsInstance(await b.join(room), nio.JoinResponse)
            finally:
                await a.close()
                await b.close()
        self.run_async(go())


class RateLimitTest(MatrixTestCase):
    """Synapse 1.67's limits with its defaults, on a clock the test moves:
    every retry_after_ms is the exact number Synapse would give."""

    fake_clock = True

    def send(self, r, room, txn):
        return r.request("PUT", V3 + "/rooms/%s/send/m.room.message/%s"
                         % (q(room), txn), {"msgtype": "m.text", "body": txn})

    def create(self, r, **body):
        return r.request("POST", V3 + "/createRoom", body)

    def join(self, r, room):
        return r.request("POST", V3 + "/join/%s" % q(room), {})

    def invite(self, r, room, user_id):
        return r.request("POST", V3 + "/rooms/%s/invite" % q(room),
                         {"user_id": user_id})

    def users(self, n, prefix="u"):
        """n more users, logged in (the login limits switched off first:
        set_ratelimit also empties every bucket)."""
        self.hs.set_ratelimit(logins=False)
        out = []
        for i in range(n):
            self.hs.register("%s%d" % (prefix, i), "pw")
            out.append(self.raw("%s%d" % (prefix, i), "pw"))
        return out

    def assertLimited(self, got, retry_after_ms, delta=0):
        """429 M_LIMIT_EXCEEDED with that retry_after_ms (exact unless the
        clock moved by a time no binary fraction can hold)."""
        self.assertError(got[:2], 429, "M_LIMIT_EXCEEDED")
        self.assertAlmostEqual(got[1]["retry_after_ms"], retry_after_ms,
                               delta=delta, msg=got[1])

    def joined_rooms(self, r):
        s = r.request("GET", V3 + "/sync")[1]
        return set(s["rooms"]["join"]), set(s["rooms"]["invite"])

    def test_burst_then_429_with_retry_after_ms(self):
        r = self.raw("alice", "pw-a")
        room = self.create(r)[1]["room_id"]       # 2 of the 10 (and a join)
        for i in range(8):
            self.assertEqual(self.send(r, room, "m%d" % i)[0], 200)
        got = self.send(r, room, "m8")
        # 10 in the bucket, leaking 0.2 a second: one more in 5 s
        self.assertLimited(got, 5000)
        self.assertIsNone(got[2].getheader("Retry-After"))
        # A refused send is not counted: 5 s later exactly one fits.
        self.clock.advance(5.0)
        self.assertEqual(self.send(r, room, "m9")[0], 200)
        self.assertLimited(self.send(r, room, "m10"), 5000)
        self.clock.advance(2.5)
        self.assertLimited(self.send(r, room, "m11"), 2500)
        self.assertLimited(self.send(r, self.hs.rooms()[0] + "x", "m11"),
                           2500)      # 429 where the room would be 403
        # A state event too; and the limit is checked before anything
        # else: a full bucket answers 429 where the room would answer 403.
        self.assertLimited(r.request(
            "PUT", V3 + "/rooms/%s/state/m.room.topic" % q(room),
            {"topic": "t"}), 2500)
        b = self.raw("bob", "pw-b")
        self.assertLimited(r.request(
            "PUT", V3 + "/rooms/%s/state/m.room.topic"
            % q(self.create(b)[1]["room_id"]), {"topic": "t"}), 2500)
        # bob's own bucket is another; what he may not send is refused
        # with 403 and not counted: 12 of them, then 8 sends still fit.
        for i in range(12):
            self.assertError(self.send(b, room, "x%d" % i), 403,
                             "M_FORBIDDEN")
        bob_room = self.hs.rooms(self.bob)[0]
        for i in range(8):
            self.assertEqual(self.send(b, bob_room, "b%d" % i)[0], 200)
        self.assertLimited(self.send(b, bob_room, "b8"), 5000)
        # Exempt (Synapse's override_ratelimit), then limits off.
        self.hs.set_exempt(self.alice)
        self.assertEqual(self.send(r, room, "m12")[0], 200)
        self.hs.set_exempt(self.alice, False)
        self.assertEqual(self.send(r, room, "m13")[0], 429)
        # Drained, a bucket starts again: after a long pause the burst is
        # 10 again, not more.
        self.clock.advance(100.0)
        for i in range(10):
            self.assertEqual(self.send(b, bob_room, "c%d" % i)[0], 200)
        self.assertLimited(self.send(b, bob_room, "c10"), 5000)
        self.hs.set_ratelimit(enabled=False)
        for i in range(20):
            self.assertEqual(self.send(r, room, "n%d" % i)[0], 200)
        c = self.hs.counters(self.alice)
        self.assertEqual(c["sends"], 8 + 1 + 1 + 20)
        self.assertGreaterEqual(c["requests"], 1 + 8 + 6 + 2 + 20)

    def test_create_room_retried_at_retry_after_ms_fails_again(self):
        """createRoom counts twice against rc_message: the request, then
        the creator's join. With one free slot the request passes, the
        room is made, the join is refused: 429, and the room is left with
        its create event alone. A retry at retry_after_ms finds one slot
        again, for ever; a retry one interval later finds two."""
        r = self.raw("alice", "pw-a")
        b = self.raw("bob", "pw-b")
        first = self.create(r)[1]["room_id"]
        for i in range(8):
            self.assertEqual(self.send(r, first, "m%d" % i)[0], 200)
        rooms = len(self.hs.rooms())
        got = self.create(r, invite=[self.bob], name="table")
        self.assertLimited(got, 5000)          # the request itself: nothing
        self.assertEqual(len(self.hs.rooms()), rooms)
        self.assertEqual(self.hs.half_made_rooms(), [])
        wait = got[1]["retry_after_ms"]
        for attempt in range(1, 4):
            # at retry_after_ms (and 1 ms of latency)
            self.clock.advance(wait / 1000.0 + 0.001)
            body = {"invite": [self.bob], "name": "table", "is_direct": True}
            if attempt == 2:
                body["room_alias_name"] = "lost"
            got = self.create(r, **body)
            self.assertError(got[:2], 429, "M_LIMIT_EXCEEDED")
            wait = got[1]["retry_after_ms"]
            self.assertTrue(4990 <= wait <= 5000, got[1])
            half = self.hs.half_made_rooms(self.alice)
            self.assertEqual(len(half), attempt)
            self.assertEqual(len(self.hs.rooms()), rooms + attempt)
            room = half[-1]
            self.assertEqual([e["type"] for e in self.hs.room_events(room)],
                             ["m.room.create"])
            self.assertIsNone(self.hs.membership(room, self.alice))
            self.assertIsNone(self.hs.membership(room, self.bob))
            self.assertEqual(self.joined_rooms(r), ({first}, set()))
            self.assertEqual(self.joined_rooms(b), (set(), set()))
        # Synapse makes the alias before the create event: it stays,
        # pointing at the half-made room.
        lost = r.request("GET", V3 + "/directory/room/%s"
                         % q("#lost:hearts.test"))[1]["room_id"]
        self.assertIn(lost, self.hs.half_made_rooms())
        # One interval (5 s) after retry_after_ms: two slots, a whole room.
        self.clock.advance(wait / 1000.0 + 5.0 + 0.001)
        got = self.create(r, invite=[self.bob], name="table",
                          is_direct=True)
        self.assertEqual(got[0], 200, got[1])
        room = got[1]["room_id"]
        self.assertEqual(self.hs.membership(room, self.alice), "join")
        self.assertEqual(self.hs.membership(room, self.bob), "invite")
        self.assertEqual(len(self.hs.half_made_rooms()), 3)
        self.assertEqual(self.joined_rooms(r), ({first, room}, set()))
        self.assertEqual(self.joined_rooms(b), (set(), {room}))
        # The request is counted before anything is looked at: a taken
        # alias is refused only when a slot is free (and takes it).
        self.assertLimited(self.create(r, room_alias_name="lost"), 5000,
                           delta=10)
        self.clock.advance(5.0)
        self.assertError(self.create(r, room_alias_name="lost")[:2],
                         400, "M_ROOM_IN_USE")
        self.assertLimited(self.create(r), 5000, delta=10)
        # The auth rules let the creator join right after the create event:
        # the half-made room becomes hers (and nobody else's).
        self.clock.advance(30.0)
        got = r.request("POST", V3 + "/rooms/%s/join" % q(lost), {})
        self.assertEqual(got[:2], (200, {"room_id": lost}))
        self.assertNotIn(lost, self.hs.half_made_rooms())
        self.assertEqual(len(self.hs.half_made_rooms()), 2)
        self.assertEqual(r.request("PUT", V3 + "/rooms/%s/state/m.room.name"
                                   % q(lost), {"name": "found"})[0], 200)
        self.assertError(self.join(b, lost), 403, "M_FORBIDDEN")

    def test_joins_are_limited_and_count_as_messages(self):
        r = self.raw("alice", "pw-a")
        b = self.raw("bob", "pw-b")
        self.hs.set_exempt(self.alice)
        rooms = [self.create(r, preset="public_chat")[1]["room_id"]
                 for _ in range(13)]
        self.hs.set_exempt(self.alice, False)
        for room in rooms[:10]:
            self.assertEqual(self.join(b, room)[0], 200)
        # rc_joins local: 10, then 0.1 a second
        self.assertLimited(self.join(b, rooms[10]), 10000)
        self.assertIsNone(self.hs.membership(rooms[10], self.bob))
        # each join was a message too: bob's 10 are gone
        self.assertLimited(self.send(b, rooms[0], "hi"), 5000)
        # a join to a room he is in already is nothing new: no limit
        self.assertEqual(self.join(b, rooms[0])[:2],
                         (200, {"room_id": rooms[0]}))
        # 5 s later: no join yet, one message; the refused join took none
        self.clock.advance(5.0)
        self.assertLimited(self.join(b, rooms[10]), 5000)
        self.assertEqual(self.send(b, rooms[0], "hi")[0], 200)
        self.assertLimited(self.send(b, rooms[0], "hi2"), 5000)
        # 10 s: a join fits, and its message
        self.clock.advance(5.0)
        self.assertEqual(self.join(b, rooms[10])[0], 200)
        self.assertLimited(self.join(b, rooms[11]), 10000)
        # a join the room refuses (not invited) has counted against the
        # join limit all the same: it comes before the room's own rules
        self.clock.advance(20.0)
        private = self.create(r)[1]["room_id"]
        self.assertError(self.join(b, private), 403, "M_FORBIDDEN")
        self.assertEqual(self.join(b, rooms[11])[0], 200)
        self.assertLimited(self.join(b, rooms[12]), 10000)

    def test_joins_per_room(self):
        people = self.users(24)
        r = self.raw("alice", "pw-a")
        room = self.create(r, preset="public_chat")[1]["room_id"]
        # the creator's join was counted against the room: 9 more fit
        for p in people[:9]:
            self.assertEqual(self.join(p, room)[0], 200)
        self.assertLimited(self.join(people[9], room), 1000)
        self.clock.advance(1.0)
        self.assertEqual(self.join(people[9], room)[0], 200)
        self.assertLimited(self.join(people[10], room), 1000)
        # Synapse only records joins against a room and never starts its
        # bucket again: after a minute many more than 10 fit at once.
        self.clock.advance(60.0)
        for p in people[10:24]:
            self.assertEqual(self.join(p, room)[0], 200)

    def test_invites_per_recipient_issuer_and_room(self):
        r = self.raw("alice", "pw-a")
        people = self.users(12, "p")
        carol = self.hs.register("carol", "pw")
        d = [self.hs.register("d%d" % i, "pw") for i in range(6)]
        e = [self.hs.register("e%d" % i, "pw") for i in range(12)]
        self.hs.set_ratelimit(burst=1000)       # messages: not the subject
        rooms = [self.create(r, preset="public_chat")[1]["room_id"]
                 for _ in range(7)]
        # per recipient (rc_invites.per_user): 5, then 0.003 a second
        for room in rooms[:5]:
            self.assertEqual(self.invite(r, room, carol)[0], 200)
        self.assertLimited(self.invite(r, rooms[5], carol), 333333)
        self.assertIsNone(self.hs.membership(rooms[5], carol))
        # per issuer: the refused invite was not counted for alice (the
        # recipient's limit refused it first): 5 more, then 0.3 a second
        for u in d[:5]:
            self.assertEqual(self.invite(r, rooms[6], u)[0], 200)
        self.assertLimited(self.invite(r, rooms[6], d[5]), 3333)
        # The same invite again: no new event, no message.
        self.clock.advance(3.334)
        n = len(self.hs.room_events(rooms[6], "m.room.member"))
        self.assertEqual(self.invite(r, rooms[6], d[0])[0], 200)
        self.assertEqual(len(self.hs.room_events(rooms[6], "m.room.member")),
                         n)
        # per room: two inviters, 10 invites, then 0.3 a second; someone
        # not even in the room is refused by the limit before the room
        p0, p1, p2 = people[:3]
        room = self.create(p0, preset="public_chat")[1]["room_id"]
        self.assertEqual(self.join(p1, room)[0], 200)
        for i in range(5):
            self.assertEqual(self.invite(p0, room, e[i])[0], 200)
            self.assertEqual(self.invite(p1, room, e[5 + i])[0], 200)
        self.assertLimited(self.invite(p1, room, e[10]), 3333)
        self.assertLimited(self.invite(p2, room, e[11]), 3333)
        self.clock.advance(10.0)
        self.assertError(self.invite(p2, room, e[11]), 403, "M_FORBIDDEN")
        # createRoom's invites: not limited one by one (carol is over her
        # limit, alice over hers), but at most 10 at once
        got = self.create(r, invite=[carol] + d[:5] + e[:4])
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(self.hs.membership(got[1]["room_id"], carol),
                         "invite")
        rooms_before = len(self.hs.rooms())
        got = self.create(r, invite=[carol] + d[:5] + e[:5])
        self.assertError(got[:2], 400, "M_UNKNOWN")
        self.assertIn("Cannot invite so many users at once", got[1]["error"])
        self.assertEqual(len(self.hs.rooms()), rooms_before)

    def test_leaves_kicks_bans_and_profiles_count_as_messages(self):
        r = self.raw("alice", "pw-a")
        b = self.raw("bob", "pw-b")
        room = self.create(r, preset="public_chat")[1]["room_id"]   # a: 2
        self.assertEqual(self.join(b, room)[0], 200)                # b: 1
        for i in range(4):
            self.assertEqual(self.send(r, room, "m%d" % i)[0], 200)  # a: 6
        kick = V3 + "/rooms/%s/kick" % q(room)
        self.assertEqual(r.request("POST", kick,
                                   {"user_id": self.bob})[0], 200)  # a: 7
        self.assertEqual(self.join(b, room)[0], 200)                # b: 2
        self.assertEqual(r.request("POST", V3 + "/rooms/%s/ban" % q(room),
                                   {"user_id": self.bob})[0], 200)  # a: 8
        self.assertEqual(r.request("POST", V3 + "/rooms/%s/unban" % q(room),
                                   {"user_id": self.bob})[0], 200)  # a: 9
        self.assertEqual(self.join(b, room)[0], 200)                # b: 3
        self.assertEqual(self.send(r, room, "m4")[0], 200)          # a: 10
        self.assertLimited(r.request("POST", kick, {"user_id": self.bob}),
                           5000)
        self.assertEqual(self.hs.membership(room, self.bob), "join")
        for i in range(6):
            self.assertEqual(self.send(b, room, "b%d" % i)[0], 200)  # b: 9
        leave = V3 + "/rooms/%s/leave" % q(room)
        self.assertEqual(b.request("POST", leave, {})[0], 200)      # b: 10
        self.assertLimited(self.join(b, room), 5000)
        self.assertEqual(self.hs.membership(room, self.bob), "leave")
        # A new display name: one message for the change; refused, the
        # profile has changed and no room has heard of it.
        path = V3 + "/profile/%s/displayname" % q(self.alice)
        n = len(self.hs.room_events(room, "m.room.member"))
        self.assertLimited(r.request("PUT", path, {"displayname": "Q"}),
                           5000)
        self.assertEqual(r.request("GET", path)[1], {"displayname": "Q"})
        self.assertEqual(len(self.hs.room_events(room, "m.room.member")), n)
        self.clock.advance(5.0)
        self.assertEqual(r.request("PUT", path, {"displayname": "R"})[0],
                         200)
        self.assertEqual(self.hs.room_events(room, "m.room.member")[-1]
                         ["content"]["displayname"], "R")
        self.assertLimited(self.send(r, room, "m5"), 5000)

    def test_logins_per_address_account_and_failures(self):
        anon = Raw(self.hs)

        def login(user, password):
            return anon.request("POST", V3 + "/login", {
                "type": "m.login.password", "password": password,
                "identifier": {"type": "m.id.user", "user": user}})
        # rc_login.address: every attempt from one address, good or bad
        self.assertError(login("bob", "wrong"), 403, "M_FORBIDDEN")
        self.assertError(login("nobody", "x"), 403, "M_FORBIDDEN")
        self.assertEqual(login("alice", "pw-a")[0], 200)
        self.assertLimited(login("alice", "pw-a"), 5882)
        self.assertLimited(login("bob", "wrong"), 5882)   # before the check
        self.clock.advance(5.883)
        self.assertEqual(login("alice", "pw-a")[0], 200)
        self.assertLimited(login("bob", "pw-b"), 5882, delta=1)
        # Exempt from the message limit is not exempt from these.
        self.hs.set_exempt(self.alice)
        self.clock.advance(5.883)
        self.assertEqual(login("bob", "pw-b")[0], 200)
        self.assertLimited(login("alice", "pw-a"), 5882, delta=1)
        # Switched off, then on again with empty buckets.
        self.hs.set_ratelimit(logins=False)
        for _ in range(6):
            self.assertEqual(login("alice", "pw-a")[0], 200)
        self.hs.set_ratelimit(logins=True)
        for _ in range(3):
            self.assertEqual(login("bob", "pw-b")[0], 200)
        self.assertLimited(login("bob", "pw-b"), 5882)

    def test_logins_per_account_and_failed_attempts(self):
        # another server, whose per-address limit does not get in the way
        hs = homeserver.Homeserver(
            self.tmpdir, clock=self.clock, login_burst=1000,
            log_path=os.path.join(self.tmpdir, "hs2.log")).start()
        self.addCleanup(hs.stop)
        hs.register("alice", "pw-a")
        hs.register("bob", "pw-b")
        anon = Raw(hs)

        def login(user, password):
            return anon.request("POST", V3 + "/login", {
                "type": "m.login.password", "password": password,
                "identifier": {"type": "m.id.user", "user": user}})
        # rc_login.failed_attempts, per account: 3 failures, then even the
        # right password is refused until one has leaked away
        for _ in range(3):
            self.assertError(login("alice", "nope"), 403, "M_FORBIDDEN")
        self.assertLimited(login("alice", "pw-a"), 5882)
        self.assertLimited(login("@alice:hearts.test", "pw-a"), 5882)
        # rc_login.account, successful logins per account
        for _ in range(3):
            self.assertEqual(login("bob", "pw-b")[0], 200)
        self.assertLimited(login("bob", "pw-b"), 5882)
        self.clock.advance(5.883)
        self.assertEqual(login("alice", "pw-a")[0], 200)
        self.assertEqual(login("bob", "pw-b")[0], 200)
        self.assertLimited(login("bob", "pw-b"), 5882, delta=1)
        # the failures of an account do not count as its logins
        self.assertEqual(login("alice", "pw-a")[0], 200)
        self.assertEqual(login("alice", "pw-a")[0], 200)
        self.assertLimited(login("alice", "pw-a"), 5882, delta=1)

    def test_set_exempt_lifts_message_join_and_invite_limits(self):
        """Synapse 1.67's override_ratelimit (messages_per_second 0): every
        limiter that is handed the requester lets the user through
        (ratelimiting.py, can_do_action), so joins and invites too; the
        login limits are keyed by address and account, not the user."""
        r = self.raw("alice", "pw-a")
        b = self.raw("bob", "pw-b")
        carol = self.hs.register("carol", "pw")
        self.hs.set_exempt(self.alice)
        rooms = [self.create(r, preset="public_chat", invite=[carol])[1]
                 ["room_id"] for _ in range(12)]
        self.assertEqual(len(rooms), 12)
        for i in range(30):
            self.assertEqual(self.send(r, rooms[0], "m%d" % i)[0], 200)
        self.hs.set_exempt(self.bob)
        for room in rooms:
            self.assertEqual(self.join(b, room)[0], 200)
        for room in rooms[:8]:
            got = b.request("POST", V3 + "/rooms/%s/leave" % q(room), {})
            self.assertEqual(got[0], 200)
            self.assertEqual(self.invite(r, room, self.bob)[0], 200)
        # nothing was counted while exempt: bob has his whole burst
        self.hs.set_exempt(self.bob, False)
        for i in range(10):
            self.assertEqual(self.send(b, rooms[11], "b%d" % i)[0], 200)
        self.assertLimited(self.send(b, rooms[11], "b10"), 5000)
        # logins still limited: two so far from this address, a third
        # fits, a fourth not
        self.hs.set_exempt(self.bob)
        body = {"type": "m.login.password", "password": "pw-a",
                "identifier": {"type": "m.id.user", "user": "alice"}}
        self.assertEqual(Raw(self.hs).request("POST", V3 + "/login",
                                              body)[0], 200)
        self.assertLimited(Raw(self.hs).request("POST", V3 + "/login", body),
                           5882)


class RealClockRateLimitTest(MatrixTestCase):
    """The limits on the real clock, seen by matrix-nio: a message every
    0.5 s after a burst of 4 (waits long enough that no scheduling delay
    short of 0.45 s changes the outcome)."""

    hs_options = {"message_rate": 2.0, "message_burst": 4}

    def test_nio_create_room_at_retry_after_ms_then_an_interval_later(self):
        async def go():
            a = nio.AsyncClient(self.hs.url, "alice", config=nio.
                                AsyncClientConfig(max_limit_exceeded=0))
            await a.login("pw-a")
            try:
                room = (await a.room_create()).room_id      # 2 of the 4
                for i in range(2):
                    got = await a.room_send(room, "m.room.message", {
                        "msgtype": "m.text", "body": str(i)})
                    self.assertIsInstance(got, nio.RoomSendResponse, got)
                got = await a.room_create(name="later")
                self.assertIsInstance(got, nio.RoomCreateError)
                self.assertEqual(got.status_code, "M_LIMIT_EXCEEDED")
                self.assertTrue(0 < got.retry_after_ms <= 500, got)
                self.assertEqual(self.hs.half_made_rooms(), [])
                # at retry_after_ms: one slot, the join refused
                await asyncio.sleep(got.retry_after_ms / 1000.0 + 0.03)
                got = await a.room_create(name="later")
                self.assertIsInstance(got, nio.RoomCreateError)
                self.assertEqual(got.status_code, "M_LIMIT_EXCEEDED")
                self.assertTrue(0 < got.retry_after_ms <= 500, got)
                self.assertEqual(len(self.hs.half_made_rooms(self.alice)), 1)
                # one interval (0.5 s) after retry_after_ms: two slots
                await asyncio.sleep(got.retry_after_ms / 1000.0 + 0.5 + 0.1)
                got = await a.room_create(name="later")
                self.assertIsInstance(got, nio.RoomCreateResponse, got)
                self.assertEqual(self.hs.membership(got.room_id, self.alice),
                                 "join")
                self.assertEqual(len(self.hs.half_made_rooms()), 1)
            finally:
                await a.close()
        self.run_async(go())


class KeysTest(MatrixTestCase):

    def device_keys(self, user_id, device_id):
        return {"user_id": user_id, "device_id": device_id,
                "algorithms": ["m.olm.v1.curve25519-aes-sha2",
                               "m.megolm.v1.aes-sha2"],
                "keys": {"curve25519:" + device_id: "Y3VydmU",
                         "ed25519:" + device_id: "ZWQyNTUxOQ"},
                "signatures": {user_id: {"ed25519:" + device_id: "c2ln"}}}

    def test_query_and_upload(self):
        r = Raw(self.hs)
        status, resp, _ = r.request("POST", V3 + "/login", {
            "type": "m.login.password", "password": "pw-a",
            "identifier": {"type": "m.id.user", "user": "alice"},
            "initial_device_display_name": "hearts"})
        self.assertEqual(status, 200, resp)
        r.token = resp["access_token"]
        dev = resp["device_id"]
        b = self.raw("bob", "pw-b")

        def query(who, body, prefix=V3):
            return who.request("POST", prefix + "/keys/query", body)
        # No keys until uploaded, though both have a device.
        got = query(r, {"device_keys": {self.alice: [], self.bob: []}})
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(got[1]["device_keys"], {self.alice: {}, self.bob: {}})
        self.assertEqual(got[1]["failures"], {})
        self.assertEqual(self.hs.device_keys(self.alice), {})

        keys = self.device_keys(self.alice, dev)
        got = r.request("POST", V3 + "/keys/upload", {
            "device_keys": keys,
            "one_time_keys": {"signed_curve25519:AAAAAQ": {"key": "a2V5"},
                              "signed_curve25519:AAAAAg": {"key": "a2V6"}}})
        self.assertEqual(got[:2], (200, {"one_time_key_counts":
                                         {"signed_curve25519": 2}}))
        self.assertEqual(self.hs.device_keys(self.alice), {dev: keys})
        want = dict(keys, unsigned={"device_display_name": "hearts"})
        for who in (r, b):
            got = query(who, {"device_keys": {self.alice: []}})
            self.assertEqual(got[1]["device_keys"], {self.alice: {dev: want}})
        got = query(b, {"device_keys": {self.alice: [dev, "OTHER"]}},
                    "/_matrix/client/r0")
        self.assertEqual(got[1]["device_keys"], {self.alice: {dev: want}})
        got = query(b, {"device_keys": {self.alice: ["OTHER"]}})
        self.assertEqual(got[1]["device_keys"], {self.alice: {}})
        got = query(b, {"device_keys": {"@x:elsewhere.test": []}})
        self.assertEqual(got[1]["device_keys"], {})
        self.assertIn("elsewhere.test", got[1]["failures"])
        # bob's device, uploaded without a display name
        bdev = b.request("GET", V3 + "/account/whoami")[1]["device_id"]
        self.assertEqual(b.request("POST", V3 + "/keys/upload", {
            "device_keys": self.device_keys(self.bob, bdev)})[0], 200)
        got = query(r, {"device_keys": {self.bob: []}})
        self.assertEqual(got[1]["device_keys"][self.bob][bdev]["unsigned"],
                         {})

    def test_keys_requests_are_checked(self):
        r = self.raw("alice", "pw-a")
        dev = r.request("GET", V3 + "/account/whoami")[1]["device_id"]
        query, upload = V3 + "/keys/query", V3 + "/keys/upload"
        for body, code in [
                ({}, "M_BAD_JSON"),
                ({"device_keys": []}, "M_BAD_JSON"),
                ({"device_keys": {self.alice: "DEV"}}, "M_BAD_JSON"),
                ({"device_keys": {self.alice: [1]}}, "M_BAD_JSON"),
                ({"device_keys": {"alice": []}}, "M_INVALID_PARAM"),
                ({"device_keys": {}, "timeout": "soon"}, "M_BAD_JSON")]:
            self.assertError(r.request("POST", query, body), 400, code)
        self.assertError(r.request("POST", query, raw=b"{"), 400,
                         "M_NOT_JSON")
        self.assertError(r.request("GET", query), 405, "M_UNRECOGNIZED")
        self.assertError(Raw(self.hs).request("POST", query, {
            "device_keys": {}}), 401, "M_MISSING_TOKEN")
        good = self.device_keys(self.alice, dev)
        for change, status, code in [
                ({"device_id": "NOTMINE"}, 400, "M_INVALID_PARAM"),
                ({"user_id": self.bob}, 400, "M_INVALID_PARAM"),
                ({"keys": None}, 400, "M_BAD_JSON"),
                ({"keys": {"curve25519": "x"}}, 400, "M_BAD_JSON"),
                ({"algorithms": "m.megolm.v1.aes-sha2"}, 400, "M_BAD_JSON"),
                ({"signatures": {self.alice: "sig"}}, 400, "M_BAD_JSON")]:
            self.assertError(r.request("POST", upload, {
                "device_keys": dict(good, **change)}), status, code)
        missing = dict(good)
        del missing["keys"]
        self.assertError(r.request("POST", upload, {"device_keys": missing}),
                         400, "M_MISSING_PARAM")
        self.assertError(r.request("POST", upload, {
            "one_time_keys": {"nocolon": "k"}}), 400, "M_BAD_JSON")
        self.assertError(r.request("POST", upload, {"device_keys": "x"}),
                         400, "M_BAD_JSON")
        self.assertEqual(self.hs.device_keys(self.alice), {})
        # nothing at all to upload is fine, and changes nothing
        self.assertEqual(r.request("POST", upload, {})[:2],
                         (200, {"one_time_key_counts":
                                {"signed_curve25519": 0}}))


class FaultTest(MatrixTestCase):

    def test_429_500_hang_and_drop_seen_by_nio(self):
        async def go():
            strict = nio.AsyncClient(self.hs.url, "alice", config=nio.
                                     AsyncClientConfig(max_limit_exceeded=0))
            await strict.login("pw-a")
            patient = nio.AsyncClient(self.hs.url, "bob", config=nio.
                                      AsyncClientConfig(request_timeout=0.5,
                                                        max_timeouts=3))
            await patient.login("pw-b")
            try:
                create = "/_matrix/client/r0/createRoom"
                self.hs.fault(create, "429", retry_after_ms=1234)
                got = await strict.room_create()
                self.assertIsInstance(got, nio.RoomCreateError)
                self.assertEqual(got.status_code, "M_LIMIT_EXCEEDED")
                self.assertEqual(got.retry_after_ms, 1234)
                # nio waits retry_after_ms (from the body) and tries again.
                self.hs.fault(create, "429", retry_after_ms=700)
                t0 = time.monotonic()
                got = await patient.room_create()
                self.assertIsInstance(got, nio.RoomCreateResponse)
                self.assertGreaterEqual(time.monotonic() - t0, 0.65)

                self.hs.fault(create, "500")
                got = await strict.room_create()
                self.assertIsInstance(got, nio.RoomCreateError)
                self.assertEqual(got.status_code, "M_UNKNOWN")

                # A dropped and a hanging request: nio retries both.
                drop = self.hs.fault("/_matrix/client/r0/sync", "drop")
                got = await patient.sync(timeout=0)
                self.assertIsInstance(got, nio.SyncResponse)
                self.assertEqual(drop.hits, 1)
                room = (await patient.room_create()).room_id
                hang = self.hs.fault("/_matrix/client/r0/rooms/", "hang",
                                     method="PUT")
                t0 = time.monotonic()
                got = await patient.room_send(room, "m.room.message", {
                    "msgtype": "m.text", "body": "late"})
                self.assertIsInstance(got, nio.RoomSendResponse)
                self.assertEqual(hang.hits, 1)
                self.assertGreaterEqual(time.monotonic() - t0, 0.45)
                self.assertEqual(
                    [e["event_id"] for e in
                     self.hs.room_events(room, "m.room.message")],
                    [got.event_id])
            finally:
                await strict.close()
                await patient.close()
        self.run_async(go())

    def test_hang_drop_and_drop_after_answer(self):
        r = self.raw("alice", "pw-a")
        room = r.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        path = V3 + "/rooms/%s/send/m.room.message/" % q(room)
        msg = {"msgtype": "m.text", "body": "x"}

        self.hs.fault(V3 + "/rooms/", "hang", method="PUT")
        r.timeout = 0.5
        t0 = time.monotonic()
        with self.assertRaises(TimeoutError):
            r.request("PUT", path + "h1", msg)
        self.assertGreaterEqual(time.monotonic() - t0, 0.45)
        r.timeout = 10.0

        self.hs.fault(V3 + "/rooms/", "drop", method="PUT")
        with self.assertRaises((http.client.RemoteDisconnected,
                                ConnectionError)):
            r.request("PUT", path + "d1", msg)
        self.assertEqual(self.hs.room_events(room, "m.room.message"), [])

        # Handled, answer lost: the retry with the same transaction ID
        # gets the same event, and the room has it once.
        self.hs.fault(V3 + "/rooms/", "drop_after", method="PUT")
        with self.assertRaises((http.client.RemoteDisconnected,
                                ConnectionError)):
            r.request("PUT", path + "d2", msg)
        got = r.request("PUT", path + "d2", msg)
        self.assertEqual(got[0], 200)
        events = self.hs.room_events(room, "m.room.message")
        self.assertEqual([e["event_id"] for e in events],
                         [got[1]["event_id"]])
        with open(self.hs.log_path) as f:
            log = f.read()
        self.assertIn("/send/m.room.message/d1 dropped", log)

    def test_raw_answers_for_hostile_input(self):
        r = self.raw("alice", "pw-a")
        self.hs.fault(V3 + "/sync", "raw", body=b'{"next_batch": 5, "\xff')
        conn = http.client.HTTPConnection("127.0.0.1", self.hs.port,
                                          timeout=5)
        self.addCleanup(conn.close)
        conn.request("GET", V3 + "/sync",
                     headers={"Authorization": "Bearer " + r.token})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.read(), b'{"next_batch": 5, "\xff')
        self.assertEqual(r.request("GET", V3 + "/sync")[0], 200)

    def test_faults_through_the_test_endpoint(self):
        admin = Raw(self.hs)
        self.assertEqual(admin.request("POST", "/_test/fault", {
            "path_prefix": V3 + "/account/whoami", "kind": "500",
            "count": 2})[0], 200)
        r = self.raw("alice", "pw-a")
        self.assertError(r.request("GET", V3 + "/account/whoami"),
                         500, "M_UNKNOWN")
        self.assertError(r.request("GET", V3 + "/account/whoami"),
                         500, "M_UNKNOWN")
        self.assertEqual(r.request("GET", V3 + "/account/whoami")[0], 200)
        self.assertEqual(admin.request("POST", "/_test/register", {
            "username": "carol", "password": "pw-c"})[1],
            {"user_id": "@carol:hearts.test"})
        admin.request("POST", "/_test/revoke", {"user_id": self.alice})
        self.assertError(r.request("GET", V3 + "/account/whoami"),
                         401, "M_UNKNOWN_TOKEN")
        counters = admin.request("GET", "/_test/counters")[1]
        self.assertGreaterEqual(counters[self.alice]["requests"], 3)


class EncryptedRoomTest(MatrixTestCase):

    def test_encrypted_events_are_delivered(self):
        async def go():
            a = await self.nio_client("alice", "pw-a")
            b = await self.nio_client("bob", "pw-b")
            try:
                room = (await a.room_create(invite=[self.bob], initial_state=[
                    {"type": "m.room.encryption", "state_key": "",
                     "content": {"algorithm": "m.megolm.v1.aes-sha2"}}]
                )).room_id
                await b.join(room)
                s = await b.sync(timeout=0)
                # A client the tests fake writes an encrypted event.
                self.hs.add_event(room, self.alice, "m.room.encrypted", {
                    "algorithm": "m.megolm.v1.aes-sha2",
                    "ciphertext": "AwgAEnACgAkLmt6q", "device_id": "FAKE",
                    "sender_key": "c2VuZGVya2V5", "session_id": "c2Vzc2lvbg"})
                # And one through the API, as an E2EE client sends it.
                got = Raw(self.hs, a.access_token).request(
                    "PUT", V3 + "/rooms/%s/send/m.room.encrypted/e1" % q(room),
                    {"algorithm": "m.megolm.v1.aes-sha2",
                     "ciphertext": "AwgBEnACgAkLmt6q", "device_id": "FAKE",
                     "sender_key": "c2VuZGVya2V5", "session_id": "c2Vzc2lvbg"})
                self.assertEqual(got[0], 200, got[1])
                s2 = await b.sync(timeout=5000, since=s.next_batch)
                types = [e.source["type"]
                         for e in s2.rooms.join[room].timeline.events]
                self.assertEqual(types, ["m.room.encrypted"] * 2)
                self.assertIsInstance(s2.rooms.join[room].timeline.events[0],
                                      nio.MegolmEvent)
            finally:
                await a.close()
                await b.close()
        self.run_async(go())


# ----------------------------------------------------------------------
# Application services


def write_registration(dirname, as_id, url, sender="heartsbot",
                       users=("@heartsbot:hearts\\.test", "@bot_.*"),
                       aliases=(), rooms=(), rate_limited=False,
                       exclusive=True):
    """A registration file in the shape the bot writes (docs/hosting.md,
    "Matrix as an application service"); returns (path, as_token, hs_token)."""
    as_token = "as-" + as_id + "-" + os.urandom(8).hex()
    hs_token = "hs-" + as_id + "-" + os.urandom(8).hex()

    def ns(name, regexes):
        if not regexes:
            return "  %s: []\n" % name
        out = "  %s:\n" % name
        for r in regexes:
            out += "    - exclusive: %s\n      regex: \"%s\"\n" % (
                "true" if exclusive else "false",
                r.replace("\\", "\\\\"))
        return out
    text = ("# registration for %s\n"
            "id: \"%s\"\nurl: \"%s\"\nas_token: \"%s\"\nhs_token: \"%s\"\n"
            "sender_localpart: \"%s\"\n" % (as_id, as_id, url, as_token,
                                            hs_token, sender))
    if rate_limited is not None:
        text += "rate_limited: %s\n" % ("true" if rate_limited else "false")
    text += ("namespaces:\n" + ns("users", users) + ns("aliases", aliases)
             + ns("rooms", rooms))
    path = os.path.join(dirname, as_id + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path, as_token, hs_token


class Receiver:
    """A tiny application service: a stdlib HTTP server on a free loopback
    port that records every request (method, path, query, headers, JSON
    body) and answers 200 {} to transactions. It can refuse (answer
    `status`) the next N transactions, hang on them (read, never answer),
    or be down (not listening; up() listens on the same port again).
    on_query(kind, what) answers user and room queries (True: 200 {},
    else 404)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.requests = []
        self.refusals = 0          # -1: for ever
        self.refuse_status = 500
        self.hangs = 0
        self.released = threading.Event()
        self.on_query = lambda kind, what: False
        self.port = 0
        self.httpd = None

    def up(self):
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_PUT(self):
                receiver.handle(self)

            do_GET = do_POST = do_PUT

        class Server(homeserver._HTTPServer):   # it cuts its connections

            def handle_error(self, request, client_address):
                pass        # a client that went away (a stop, a timeout)

        self.httpd = Server(("127.0.0.1", self.port), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def down(self):
        """Stops listening and cuts every connection."""
        if self.httpd is None:
            return
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd.close_all()
        self.httpd = None
        self.released.clear()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def handle(self, h):
        split = urllib.parse.urlsplit(h.path)
        n = int(h.headers.get("Content-Length", "0"))
        raw = h.rfile.read(n) if n else b""
        rec = {"method": h.command, "path": split.path,
               "query": urllib.parse.parse_qs(split.query),
               "headers": dict(h.headers.items()),
               "body": json.loads(raw) if raw else None}
        with self.cond:
            self.requests.append(rec)
            self.cond.notify_all()
            hang = refuse = False
            if h.command == "PUT" and self.hangs:
                self.hangs -= 1
                hang = True
            elif h.command == "PUT" and self.refusals:
                self.refusals -= self.refusals > 0
                refuse = True
        if hang:
            self.released.wait(30)
            h.close_connection = True
            return
        status, body = 200, {}
        if refuse:
            status, body = self.refuse_status, {"errcode": "M_UNKNOWN",
                                                "error": "refused"}
            if status < 300:
                body = "not JSON"
        elif h.command == "GET":
            kind, _, what = split.path.rpartition("/")
            if not self.on_query(kind.rsplit("/", 1)[-1],
                                 urllib.parse.unquote(what)):
                status, body = 404, {"errcode": "M_NOT_FOUND",
                                     "error": "not ours"}
        data = body.encode() if isinstance(body, str) else \
            json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def puts(self, ok_only=False):
        """The transactions received: [(txn_id, body, record)]."""
        with self.cond:
            return [(int(r["path"].rsplit("/", 1)[1]), r["body"], r)
                    for r in self.requests if r["method"] == "PUT"]

    def wait(self, predicate, timeout=10.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the receiver waited in vain")
                self.cond.wait(left)


def delivered(receiver):
    """The events of the transactions the receiver accepted, in order: the
    last attempt of each transaction ID (what a deduplicating AS keeps)."""
    seen, out = set(), []
    for txn_id, body, rec in receiver.puts():
        if txn_id in seen:
            continue
        seen.add(txn_id)
        out.extend(body["events"])
    return out


def without_age(body):
    """A transaction body without its `age` fields (Synapse serializes the
    events again for each attempt, so their age moves)."""
    body = json.loads(json.dumps(body))
    for ev in body["events"]:
        ev.pop("age", None)
        ev.get("unsigned", {}).pop("age", None)
    return body


class AppServiceCase(MatrixTestCase):
    """An application service ("heartsbot", sender @heartsbot, users
    @heartsbot and @bot_*) whose receiver listens in the test."""

    hs_options = {"ratelimit": False}
    legacy = False

    def setUp(self):
        super().setUp()
        self.receiver = Receiver().up()
        self.addCleanup(self.receiver.down)
        self.reg, self.as_token, self.hs_token = write_registration(
            self.tmpdir, "heartsbot", self.receiver.url)
        self.as_id = self.hs.add_appservice(self.reg, self.legacy)
        self.bot = "@heartsbot:hearts.test"
        self.as_raw = Raw(self.hs, self.as_token)

    def as_request(self, method, path, body=None, user_id=None):
        if user_id is not None:
            path += ("&" if "?" in path else "?") + "user_id=" + q(user_id)
        return self.as_raw.request(method, V3 + path, body)

    def as_register(self, localpart, token=None, **extra):
        body = {"type": "m.login.application_service", "username": localpart}
        body.update(extra)
        return Raw(self.hs, token or self.as_token).request(
            "POST", V3 + "/register", body)

    def room_with_bot(self, alice, name="hearts"):
        """A room alice made, the bot invited and joined (the AS is
        interested from the invite on)."""
        room = alice.request("POST", V3 + "/createRoom",
                             {"name": name, "invite": [self.bot]})[1]
        room = room["room_id"]
        got = self.as_request("POST", "/rooms/%s/join" % q(room), {})
        self.assertEqual(got[0], 200, got[1])
        return room

    def say(self, r, room, text):
        got = r.request("PUT", V3 + "/rooms/%s/send/m.room.message/%s"
                        % (q(room), q(text)), {"msgtype": "m.text",
                                               "body": text})
        self.assertEqual(got[0], 200, got[1])
        return got[1]["event_id"]

    def idle(self, timeout=10.0):
        self.assertTrue(self.hs.as_wait_idle(timeout),
                        self.hs.as_counters())


class AppServicePushTest(AppServiceCase):

    def test_events_of_its_rooms_arrive_in_order_once_each(self):
        alice = self.raw("alice", "pw-a")
        bob = self.raw("bob", "pw-b")
        self.assertEqual(self.as_register("heartsbot")[0], 200)
        other = bob.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        room = self.room_with_bot(alice)
        self.say(bob, other, "not for the bot")
        self.idle()
        n = len(self.receiver.puts())
        # queued while paused: at most 100 events a transaction
        self.hs.as_pause()
        sent = [self.say(alice, room, "m%d" % i) for i in range(150)]
        self.say(bob, other, "still not for the bot")
        self.hs.as_resume()
        self.idle()
        self.assertEqual([len(b["events"]) for _, b, _ in
                          self.receiver.puts()[n:]], [100, 50])
        events = self.hs.room_events(room)
        invite = next(i for i, e in enumerate(events)
                      if e.get("state_key") == self.bot)
        want = [e["event_id"] for e in events[invite:]]
        got = delivered(self.receiver)
        self.assertEqual([e["event_id"] for e in got], want)
        self.assertEqual(want[-150:], sent)
        puts = self.receiver.puts()
        ids = [t for t, _, _ in puts]
        self.assertEqual(ids, sorted(set(ids)))      # once each, increasing
        for _, _, rec in puts:
            self.assertEqual(rec["path"], "/_matrix/app/v1/transactions/%s"
                             % rec["path"].rsplit("/", 1)[1])
            self.assertEqual(rec["headers"]["Authorization"],
                             "Bearer " + self.hs_token)
            self.assertNotIn("access_token", rec["query"])
        # the client format of a transaction, as Synapse 1.67 gives it
        msg = got[-1]
        self.assertEqual(msg["room_id"], room)
        self.assertEqual(msg["user_id"], self.alice)
        self.assertEqual(msg["sender"], self.alice)
        self.assertEqual(msg["content"], {"msgtype": "m.text",
                                          "body": "m149"})
        self.assertIsInstance(msg["unsigned"]["age"], int)
        inv = got[0]
        self.assertEqual(inv["state_key"], self.bot)
        self.assertEqual(inv["content"]["membership"], "invite")
        stripped = {(s["type"], s["state_key"]): s
                    for s in inv["unsigned"]["invite_room_state"]}
        self.assertEqual(inv["invite_room_state"],
                         inv["unsigned"]["invite_room_state"])
        self.assertEqual(stripped[("m.room.name", "")]["content"],
                         {"name": "hearts"})
        self.assertIn(("m.room.create", ""), stripped)
        self.assertEqual(stripped[("m.room.member", self.alice)]["content"]
                         ["membership"], "join")
        self.assertNotIn(("m.room.member", self.bot), stripped)
        join = got[1]
        self.assertEqual((join["sender"], join["content"]["membership"]),
                         (self.bot, "join"))
        self.assertEqual(join["prev_content"]["membership"], "invite")
        c = self.hs.as_counters(self.as_id)
        self.assertEqual(c["events"], len(want))
        self.assertEqual(c["transactions"], len(puts))
        self.assertEqual((c["failures"], c["retries"], c["pending"]),
                         (0, 0, 0))
        self.assertEqual(c["last_txn_id"], ids[-1])
        # the bot leaves: its leave arrives, nothing after it
        got = self.as_request("POST", "/rooms/%s/leave" % q(room), {})
        self.assertEqual(got[0], 200, got[1])
        self.say(alice, room, "after the bot left")
        self.idle()
        last = delivered(self.receiver)[-1]
        self.assertEqual((last["sender"], last["content"]),
                         (self.bot, {"membership": "leave"}))

    def test_rooms_and_aliases_of_its_namespaces(self):
        alice = self.raw("alice", "pw-a")
        byid = alice.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        reg, _, _ = write_registration(
            self.tmpdir, "rooms", self.receiver.url, sender="roomwatch",
            users=(), aliases=("#watched_.*",), rooms=(re.escape(byid),))
        self.hs.add_appservice(reg)
        named = alice.request("POST", V3 + "/createRoom",
                              {"room_alias_name": "watched_x"})[1]["room_id"]
        plain = alice.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        for room in (byid, named, plain):
            self.say(alice, room, "in " + room)
        self.idle()
        for_rooms = [e for t, b, r in self.receiver.puts()
                     for e in b["events"]
                     if r["headers"]["Authorization"].startswith(
                         "Bearer hs-rooms-")]
        self.assertEqual({e["room_id"] for e in for_rooms}, {byid, named})
        self.assertEqual(
            [e["content"]["body"] for e in for_rooms
             if e["type"] == "m.room.message"], ["in " + byid, "in " + named])
        # from its creation on, as the alias is there before any event
        self.assertEqual(for_rooms[0]["type"], "m.room.create")
        # the bot's service saw none of it
        self.assertEqual(self.hs.as_counters(self.as_id)["events"], 0)

    def test_retries_keep_the_id_and_the_events(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        before = len(self.receiver.puts())
        self.receiver.refusals = 3
        first = self.say(alice, room, "one")
        self.receiver.wait(lambda: self.receiver.refusals == 0)
        # what is sent meanwhile goes in a later transaction
        later = self.say(alice, room, "two")
        self.idle()
        puts = self.receiver.puts()[before:]
        self.assertEqual(len(puts), 5)
        ids = [t for t, _, _ in puts]
        self.assertEqual(ids[:4], [ids[0]] * 4)
        self.assertGreater(ids[4], ids[0])
        bodies = [without_age(b) for _, b, _ in puts[:4]]
        self.assertEqual(bodies, [bodies[0]] * 4)
        self.assertEqual([e["event_id"] for e in bodies[0]["events"]],
                         [first])
        self.assertEqual([e["event_id"] for e in puts[4][1]["events"]],
                         [later])
        c = self.hs.as_counters(self.as_id)
        self.assertEqual((c["failures"], c["retries"]), (3, 3))

class AppServiceDownTest(AppServiceCase):

    hs_options = {"ratelimit": False, "as_timeout_ms": 300}

    def test_an_as_that_hangs_or_is_down_gets_it_later(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        self.receiver.hangs = 1
        hung = self.say(alice, room, "into the void")
        self.receiver.wait(lambda: self.receiver.hangs == 0)
        self.idle()
        c = self.hs.as_counters(self.as_id)
        self.assertEqual((c["failures"], c["retries"]), (1, 1))
        self.receiver.down()
        down = [self.say(alice, room, "down %d" % i) for i in range(3)]
        deadline = time.monotonic() + 10
        while self.hs.as_counters(self.as_id)["failures"] < 3:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)
        self.assertFalse(self.hs.as_wait_idle(0))
        self.receiver.up()
        self.idle()
        ids = [e["event_id"] for e in delivered(self.receiver)]
        self.assertEqual(ids[-4:], [hung] + down)
        self.assertEqual(len(ids), len(set(ids)))


class AppServiceBackoffTest(AppServiceCase):

    hs_options = {"ratelimit": False, "as_backoff_ms": 40,
                  "as_backoff_cap_ms": 160}

    def test_the_wait_doubles_up_to_the_cap_and_starts_again(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        self.assertEqual(self.hs.as_counters(self.as_id)["backoff_ms"], 0)
        self.receiver.refusals = -1
        self.say(alice, room, "refused")
        seen = {}
        deadline = time.monotonic() + 10
        while len(seen) < 5:
            self.assertLess(time.monotonic(), deadline)
            c = self.hs.as_counters(self.as_id)
            if c["failures"]:
                seen[c["failures"]] = c["backoff_ms"]
            time.sleep(0.005)
        for failures, wait in seen.items():
            self.assertEqual(wait, min(160, 40 * 2 ** (failures - 1)), seen)
        self.receiver.refusals = 0
        self.idle()
        self.assertEqual(self.hs.as_counters(self.as_id)["backoff_ms"], 0)


class AppServiceControlTest(AppServiceCase):

    def test_a_2xx_without_json_is_a_failure(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        self.receiver.refusals = 1
        self.receiver.refuse_status = 200      # with a body not JSON
        self.say(alice, room, "x")
        self.idle()
        c = self.hs.as_counters(self.as_id)
        self.assertEqual((c["failures"], c["retries"]), (1, 1))

    def test_duplicate_pause_and_resume(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        before = len(self.receiver.puts())
        self.hs.as_duplicate()
        eid = self.say(alice, room, "twice")
        self.idle()
        puts = self.receiver.puts()[before:]
        self.assertEqual(len(puts), 2)
        self.assertEqual(puts[0][0], puts[1][0])
        self.assertEqual(without_age(puts[0][1]), without_age(puts[1][1]))
        self.assertEqual([e["event_id"] for e in puts[0][1]["events"]],
                         [eid])
        c = self.hs.as_counters(self.as_id)
        self.assertEqual(c["duplicates"], 1)
        # paused: events queue up, nothing is sent; resumed: all at once
        self.hs.as_pause()
        n = len(self.receiver.puts())
        held = [self.say(alice, room, "held %d" % i) for i in range(5)]
        c = self.hs.as_counters(self.as_id)
        self.assertEqual((c["pending"], c["paused"]), (5, True))
        self.assertFalse(self.hs.as_wait_idle(0))
        self.assertEqual(len(self.receiver.puts()), n)
        self.hs.as_resume()
        self.idle()
        puts = self.receiver.puts()[n:]
        self.assertEqual([[e["event_id"] for e in b["events"]]
                          for _, b, _ in puts], [held])
        self.assertEqual(set(self.hs.as_counters(self.as_id)),
                         {"transactions", "failures", "retries",
                          "duplicates", "events", "user_queries", "pings",
                          "last_txn_id", "pending", "paused", "backoff_ms"})

    def test_a_restart_keeps_the_queue_and_the_transaction(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        before = len(self.receiver.puts())
        self.receiver.refusals = -1
        first = self.say(alice, room, "before the restart")
        self.receiver.wait(lambda: len(self.receiver.puts()) > before)
        txn_id = self.receiver.puts()[-1][0]
        self.hs.stop()
        refused = len(self.receiver.puts())
        later = self.hs.add_event(room, self.alice, "m.room.message",
                                  {"msgtype": "m.text", "body": "stopped"})
        self.receiver.refusals = 0
        self.hs.start()
        self.idle()
        self.assertEqual({t for t, _, _ in
                          self.receiver.puts()[before:refused]}, {txn_id})
        ok = [(t, [e["event_id"] for e in b["events"]])
              for t, b, _ in self.receiver.puts()[refused:]]
        self.assertEqual(len(ok), 2, ok)
        self.assertEqual(ok[0], (txn_id, [first]))
        self.assertGreater(ok[1][0], txn_id)
        self.assertEqual(ok[1][1], [later])
        self.assertEqual(self.hs.as_counters(self.as_id)["last_txn_id"],
                         ok[-1][0])
        # paused across a restart: still queued, delivered on resume
        self.hs.as_pause()
        held = self.say(alice, room, "held")
        self.hs.stop()
        self.hs.start()
        self.assertEqual(self.hs.as_counters(self.as_id)["pending"], 1)
        self.hs.as_resume()
        self.idle()
        self.assertEqual(delivered(self.receiver)[-1]["event_id"], held)


class LegacyAppServiceTest(AppServiceCase):
    """Synapse 1.67's paths: /transactions/ID, /users/ID, /rooms/ALIAS,
    the token as ?access_token=."""

    legacy = True

    def test_legacy_paths_and_token(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.idle()
        for t, _, rec in self.receiver.puts():
            self.assertEqual(rec["path"], "/transactions/%d" % t)
            self.assertEqual(rec["query"], {"access_token": [self.hs_token]})
            self.assertNotIn("Authorization", rec["headers"])
        self.check_queries(alice, room, "/users/", "/rooms/")
        for rec in self.receiver.requests:         # of either service
            self.assertEqual(list(rec["query"]), ["access_token"])
            self.assertTrue(rec["query"]["access_token"][0].startswith("hs-"))
            self.assertNotIn("Authorization", rec["headers"])

    def check_queries(self, alice, room, users, rooms):
        """An invite for an unknown user of the namespace: the AS is asked
        about the user before it gets the invite, and registers it; an
        alias of its namespace unknown here: asked, it makes the room."""
        asked = []

        def on_query(kind, what):
            asked.append((kind, what))
            if kind == "users" and what == "@bot_seat1:hearts.test":
                return self.as_register("bot_seat1")[0] == 200
            if kind == "rooms":
                got = self.as_request("POST", "/createRoom",
                                      {"room_alias_name": what[1:].split(
                                          ":")[0]})
                return got[0] == 200
            return False
        self.receiver.on_query = on_query
        reg, _, _ = write_registration(
            self.tmpdir, "aliases", self.receiver.url, sender="aliasbot",
            users=(), aliases=("#hearts_.*",))
        self.hs.add_appservice(reg, self.legacy)
        seat = "@bot_seat1:hearts.test"
        got = alice.request("POST", V3 + "/rooms/%s/invite" % q(room),
                            {"user_id": seat})
        self.assertEqual(got[0], 200, got[1])
        self.idle()
        self.assertEqual(asked, [("users", seat)])
        gets = [i for i, r in enumerate(self.receiver.requests)
                if r["method"] == "GET"]
        invite_put = [i for i, r in enumerate(self.receiver.requests)
                      if r["method"] == "PUT" and any(
                          e.get("state_key") == seat
                          for e in r["body"]["events"])]
        self.assertLess(gets[0], invite_put[0])
        self.assertEqual(self.receiver.requests[gets[0]]["path"],
                         users + urllib.parse.quote(seat))
        self.assertEqual(self.hs.as_counters(self.as_id)["user_queries"], 1)
        # the seat is now registered: the bot may act as it
        got = self.as_request("POST", "/rooms/%s/join" % q(room), {},
                              user_id=seat)
        self.assertEqual(got[0], 200, got[1])
        # an alias of the namespace, unknown: asked, made, found
        got = Raw(self.hs).request("GET", V3 + "/directory/room/%s"
                                   % q("#hearts_lobby:hearts.test"))
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(asked[-1], ("rooms", "#hearts_lobby:hearts.test"))
        gets = [r for r in self.receiver.requests if r["method"] == "GET"]
        self.assertEqual(gets[-1]["path"], rooms + urllib.parse.quote(
            "#hearts_lobby:hearts.test"))
        # outside the namespace: nobody is asked
        n = len(asked)
        got = Raw(self.hs).request("GET", V3 + "/directory/room/%s"
                                   % q("#other:hearts.test"))
        self.assertError(got, 404, "M_NOT_FOUND")
        self.assertEqual(len(asked), n)


class V1QueryTest(LegacyAppServiceTest):
    """The same queries on the v1 paths, with the Authorization header."""

    legacy = False

    def test_legacy_paths_and_token(self):
        alice = self.raw("alice", "pw-a")
        room = self.room_with_bot(alice)
        self.check_queries(alice, room, "/_matrix/app/v1/users/",
                           "/_matrix/app/v1/rooms/")
        for rec in self.receiver.requests:
            self.assertEqual(rec["query"], {})
            self.assertTrue(rec["headers"]["Authorization"].startswith(
                "Bearer hs-"))


class AppServiceAuthTest(AppServiceCase):

    def test_as_token_acts_as_its_sender_or_a_namespace_user(self):
        whoami = "/account/whoami"
        got = self.as_request("GET", whoami)
        self.assertEqual(got[:2], (200, {"user_id": self.bot,
                                         "is_guest": False}))
        got = Raw(self.hs).request("GET", V3 + whoami + "?access_token="
                                   + q(self.as_token))
        self.assertEqual(got[1]["user_id"], self.bot)
        self.assertError(self.as_request("GET", whoami,
                                         user_id="@bot_a:hearts.test"),
                         403, "M_FORBIDDEN")           # not registered
        self.assertEqual(self.as_register("bot_a")[0], 200)
        got = self.as_request("GET", whoami, user_id="@bot_a:hearts.test")
        self.assertEqual(got[1]["user_id"], "@bot_a:hearts.test")
        got = self.as_request("GET", whoami, user_id=self.alice)
        self.assertError(got, 403, "M_FORBIDDEN")     # outside its namespace
        self.assertIn("masquerade", got[1]["error"])
        self.assertEqual(self.as_request("GET", whoami,
                                         user_id=self.bot)[1]["user_id"],
                         self.bot)
        # the homeserver's token is not a client token; a user's token
        # ignores user_id
        self.assertError(Raw(self.hs, self.hs_token).request(
            "GET", V3 + whoami), 401, "M_UNKNOWN_TOKEN")
        alice = self.raw("alice", "pw-a")
        got = alice.request("GET", V3 + whoami + "?user_id="
                            + q("@bot_a:hearts.test"))
        self.assertEqual(got[1]["user_id"], self.alice)
        # the refusal comes only where a token is needed
        got = self.as_request("GET", "/directory/room/%s"
                              % q("#nowhere:hearts.test"),
                              user_id=self.alice)
        self.assertError(got, 404, "M_NOT_FOUND")
        # the sender acts without being registered: it makes a room
        got = self.as_request("POST", "/createRoom", {"name": "mine"})
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(self.hs.membership(got[1]["room_id"], self.bot),
                         "join")

    def test_sends_are_deduplicated_per_token_as_in_synapse(self):
        seat = "@bot_a:hearts.test"
        self.assertEqual(self.as_register("bot_a")[0], 200)
        room = self.as_request("POST", "/createRoom",
                               {"preset": "public_chat"})[1]["room_id"]
        got = self.as_request("POST", "/join/%s" % q(room), {}, user_id=seat)
        self.assertEqual(got[0], 200, got[1])
        path = "/rooms/%s/send/m.room.message/t1" % q(room)
        first = self.as_request("PUT", path, {"msgtype": "m.text",
                                              "body": "a"})
        again = self.as_request("PUT", path, {"msgtype": "m.text",
                                              "body": "b"}, user_id=seat)
        self.assertEqual(again[:2], (200, first[1]))
        self.assertEqual([e["sender"] for e in
                          self.hs.room_events(room, "m.room.message")],
                         [self.bot])

    def test_register_by_the_application_service(self):
        got = self.as_register("heartsbot")
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(got[1]["user_id"], self.bot)
        self.assertEqual(got[1]["home_server"], "hearts.test")
        got = Raw(self.hs, got[1]["access_token"]).request(
            "GET", V3 + "/account/whoami")
        self.assertEqual(got[1]["user_id"], self.bot)
        self.assertError(self.as_register("heartsbot"), 400, "M_USER_IN_USE")
        got = Raw(self.hs, self.as_token).request(
            "POST", "/_matrix/client/r0/register",
            {"type": "m.login.application_service", "user": "bot_b",
             "inhibit_login": True})
        self.assertEqual(got[:2], (200, {"user_id": "@bot_b:hearts.test",
                                         "home_server": "hearts.test"}))
        got = self.as_register("carol")
        self.assertError(got, 400, "M_EXCLUSIVE")
        self.assertError(self.as_register("dave", token="nope"), 401,
                         "M_UNKNOWN_TOKEN")
        anon = Raw(self.hs)
        body = {"type": "m.login.application_service", "username": "bot_c"}
        self.assertError(anon.request("POST", V3 + "/register", body), 400,
                         "M_UNKNOWN")
        self.assertError(anon.request("POST", V3 + "/register",
                                      {"username": "eve", "password": "x"}),
                         403, "M_FORBIDDEN")        # registration disabled
        self.assertError(self.as_raw.request("POST", V3 + "/register",
                                             {"username": "eve"}),
                         400, "M_UNKNOWN")
        # a user of the service cannot log in with a password
        got = anon.request("POST", V3 + "/login", {
            "type": "m.login.password", "password": "",
            "identifier": {"type": "m.id.user", "user": "bot_b"}})
        self.assertError(got, 403, "M_FORBIDDEN")
        # another service's exclusive users are refused, its shared ones not
        other, other_token, _ = write_registration(
            self.tmpdir, "other", self.receiver.url, sender="otherbot",
            users=("@other_.*",))
        shared, shared_token, _ = write_registration(
            self.tmpdir, "shared", self.receiver.url, sender="sharedbot",
            users=("@(guest|other)_.*",), exclusive=False)
        self.hs.add_appservice(other)
        self.hs.add_appservice(shared)
        got = self.as_register("other_x", token=shared_token)
        self.assertError(got, 400, "M_EXCLUSIVE")
        self.assertIn("reserved", got[1]["error"])
        self.assertIn("Invalid user localpart",
                      self.as_register("carol")[1]["error"])
        self.assertEqual(self.as_register("other_x", token=other_token)[0],
                         200)
        self.assertEqual(self.as_register("guest_1", token=shared_token)[0],
                         200)
        # other registrations into an exclusive namespace
        for localpart in ("bot_z", "otherbot", "other_y"):
            with self.assertRaises(homeserver.MatrixError) as cm:
                self.hs.register(localpart, "pw")
            self.assertEqual((cm.exception.status, cm.exception.errcode),
                             (400, "M_EXCLUSIVE"))
        self.assertEqual(self.hs.register("guest_2", "pw"),
                         "@guest_2:hearts.test")
        got = anon.request("POST", "/_test/register",
                           {"username": "bot_q", "password": "pw"})
        self.assertError(got, 400, "M_EXCLUSIVE")


class RegistrationFileTest(HarnessTestCase):
    """Registration files read and checked as Synapse 1.67 does."""

    def setUp(self):
        super().setUp()
        self.hs = homeserver.Homeserver(self.tmpdir)

    def write(self, text, name="reg.yaml"):
        path = os.path.join(self.tmpdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    GOOD = ('id: "a"\nurl: "http://127.0.0.1:9"\nas_token: "t1"\n'
            'hs_token: "t2"\nsender_localpart: "bot"\n'
            'namespaces:\n  users:\n    - exclusive: true\n'
            '      regex: "@bot:hearts\\\\.test"\n  aliases: []\n'
            '  rooms: []\n')

    def test_a_good_file_loads(self):
        self.assertEqual(self.hs.add_appservice(self.write(self.GOOD)), "a")
        svc = self.hs.pushers[0].service
        self.assertEqual((svc.sender, svc.rate_limited, svc.url),
                         ("@bot:hearts.test", True, "http://127.0.0.1:9"))
        self.assertTrue(svc.is_exclusive_user("@bot:hearts.test"))
        self.assertFalse(svc.is_user_in_namespace("@botx:hearts.test"))
        # anchored at the start only, as Synapse's re.match
        self.assertTrue(svc.is_user_in_namespace("@bot:hearts.testing"))
        path = self.write(self.GOOD.replace('"a"', "b").replace(
            '"t1"', "t3") + "rate_limited: false\n", "b.yaml")
        self.hs.add_appservice(path)
        self.assertIs(self.hs.pushers[1].service.rate_limited, False)
        # url: null is allowed (no pushes), rate_limited not a boolean:
        # the default
        path = self.write(self.GOOD.replace('"a"', "c").replace(
            '"t1"', "t4").replace('"http://127.0.0.1:9"', "null")
            + "rate_limited: 'no'\n", "c.yaml")
        self.hs.add_appservice(path)
        svc = self.hs.pushers[2].service
        self.assertEqual((svc.url, svc.rate_limited), (None, True))

    def test_bad_files_are_refused_with_the_reason(self):
        cases = [
            (self.GOOD.replace('as_token: "t1"\n', ""),
             "required string field: 'as_token'"),
            (self.GOOD.replace('hs_token: "t2"', "hs_token: 12"),
             "required string field: 'hs_token'"),
            (self.GOOD.replace('url: "http://127.0.0.1:9"\n', ""),
             "'url'"),
            (self.GOOD.replace('"bot"', '"bot hearts"'), "URL encoded"),
            (self.GOOD.split("namespaces:")[0], "'namespaces'"),
            (self.GOOD.replace("exclusive: true", "exclusive: 'yes'"),
             "'exclusive'"),
            (self.GOOD.replace('regex: "@bot', 'regex: "(@bot'),
             "bad regex"),
            (self.GOOD.replace("aliases: []", "aliases: x"),
             "'aliases'"),
            (self.GOOD.replace('id: "a"', 'id: "a|b"'), "'|'"),
            (self.GOOD.replace("127.0.0.1", "192.0.2.1"), "127.0.0.1"),
            (self.GOOD.replace("http:", "https:"), "http://"),
            (self.GOOD + "x: |\n  block\n", "reg.yaml:12: "),
            ("- a\n- b\n", "not a YAML mapping"),
        ]
        for text, reason in cases:
            with self.subTest(reason=reason):
                with self.assertRaises(appservice.RegistrationError) as cm:
                    self.hs.add_appservice(self.write(text))
                self.assertIn(reason, str(cm.exception))
                self.assertIn("reg.yaml", str(cm.exception))
                self.assertEqual(self.hs.pushers, [])
        with self.assertRaises(appservice.RegistrationError):
            self.hs.add_appservice(os.path.join(self.tmpdir, "missing"))
        # an ID or an as_token used twice
        self.hs.add_appservice(self.write(self.GOOD))
        with self.assertRaises(appservice.RegistrationError) as cm:
            self.hs.add_appservice(self.write(
                self.GOOD.replace('"t1"', '"t9"'), "same-id.yaml"))
        self.assertIn("ID", str(cm.exception))
        with self.assertRaises(appservice.RegistrationError) as cm:
            self.hs.add_appservice(self.write(
                self.GOOD.replace('"a"', '"z"'), "same-token.yaml"))
        self.assertIn("as_token", str(cm.exception))
        self.assertEqual(len(self.hs.pushers), 1)

    def test_the_yaml_reader_agrees_with_pyyaml(self):
        docs = [self.GOOD, write_doc_of_the_contract(),
                "a:\n- 1\n- {b: 'c''d', e: [x, \"y\\tz\"]}\nf: ~\ng: yes\n"
                "h: 0x1F\ni: 1.5\nj: 'k # l' # m\n",
                "---\nn:\n  - - 1\n    - o: p\n...\n"]
        want = [None, None,
                {"a": [1, {"b": "c'd", "e": ["x", "y\tz"]}], "f": None,
                 "g": True, "h": 31, "i": 1.5, "j": "k # l"},
                {"n": [[1, {"o": "p"}]]}]
        for doc, expected in zip(docs, want):
            got = yaml_subset.loads(doc)
            if expected is not None:
                self.assertEqual(got, expected)
            if pyyaml is not None:
                self.assertEqual(got, pyyaml.safe_load(doc))
        self.assertEqual(yaml_subset.loads(write_doc_of_the_contract())
                         ["namespaces"]["users"][0]["regex"],
                         "@heartsbot:example\\.org")


def write_doc_of_the_contract():
    return ('# heartsbot application service registration for [[matrix]] '
            '"NAME"\n# Give this file to the homeserver (docs/hosting.md, '
            '"Application service").\nid: "heartsbot-NAME"\n'
            'url: "http://127.0.0.1:9009"          # from listen\n'
            'as_token: "' + "a1" * 32 + '"\nhs_token: "' + "b2" * 32 + '"\n'
            'sender_localpart: "heartsbot"         # from user_id\n'
            'rate_limited: false\nnamespaces:\n  users:\n'
            '    - exclusive: true\n'
            '      regex: "@heartsbot:example\\\\.org"   # the bot\'s own\n'
            '  aliases: []\n  rooms: []\n')


class AppServiceRateLimitTest(AppServiceCase):
    """rate_limited: false spares an application service's requests every
    limit Synapse hands the requester; rate_limited: true limits its users
    like anyone (its sender has no message limit either way)."""

    fake_clock = True
    hs_options = {}

    def limited_service(self):
        reg, token, _ = write_registration(
            self.tmpdir, "limited", self.receiver.url, sender="limitbot",
            users=("@lim_.*",), rate_limited=True)
        self.hs.add_appservice(reg)
        return token

    def rooms(self, r, n, **body):
        out = []
        for _ in range(n):
            got = r.request("POST", V3 + "/createRoom",
                            dict(body, preset="public_chat"))
            self.assertEqual(got[0], 200, got[1])
            out.append(got[1]["room_id"])
        return out

    def test_rate_limited_false(self):
        self.assertEqual(self.as_register("bot_a")[0], 200)
        seat = "@bot_a:hearts.test"
        rooms = self.rooms(self.as_raw, 12)      # the sender joins 12 rooms
        for room in rooms:                       # and so does a seat
            got = self.as_request("POST", "/join/%s" % q(room), {},
                                  user_id=seat)
            self.assertEqual(got[0], 200, got[1])
        for who in (None, seat):
            for i in range(30):
                got = self.as_request(
                    "PUT", "/rooms/%s/send/m.room.message/%s%d"
                    % (q(rooms[0]), who or "s", i),
                    {"msgtype": "m.text", "body": "x"}, user_id=who)
                self.assertEqual(got[0], 200, got[1])
        carol = self.hs.register("carol", "pw")
        for room in rooms:                       # 12 invites of one user
            got = self.as_request("POST", "/rooms/%s/invite" % q(room),
                                  {"user_id": carol}, user_id=seat)
            self.assertEqual(got[0], 200, got[1])
        # the same user with its own token is an ordinary user to Synapse
        own = Raw(self.hs, self.as_register("bot_b")[1]["access_token"])
        got = own.request("POST", V3 + "/join/%s" % q(rooms[0]), {})
        self.assertEqual(got[0], 200, got[1])    # 1 message of the 10
        for i in range(10):
            got = own.request("PUT", V3 + "/rooms/%s/send/m.room.message/o%d"
                              % (q(rooms[0]), i),
                              {"msgtype": "m.text", "body": "x"})
            if got[0] != 200:
                break
        self.assertError(got, 429, "M_LIMIT_EXCEEDED")
        self.assertEqual(i, 9)

    def test_rate_limited_true(self):
        token = self.limited_service()
        lim = Raw(self.hs, token)
        self.assertEqual(self.as_register("lim_a", token=token)[0], 200)
        seat = "@lim_a:hearts.test"

        def act(method, path, body, user_id=None):
            if user_id:
                path += "?user_id=" + q(user_id)
            return lim.request(method, V3 + path, body)
        rooms = self.rooms(lim, 10)        # the sender: 10 joins
        got = act("POST", "/createRoom", {})
        self.assertError(got, 429, "M_LIMIT_EXCEEDED")   # the 11th join
        for i in range(30):                # no message limit for the sender
            got = act("PUT", "/rooms/%s/send/m.room.message/s%d"
                      % (q(rooms[0]), i), {"msgtype": "m.text", "body": "x"})
            self.assertEqual(got[0], 200, got[1])
        got = act("POST", "/join/%s" % q(rooms[0]), {}, user_id=seat)
        self.assertEqual(got[0], 200, got[1])          # 1 of the 10
        for i in range(10):
            got = act("PUT", "/rooms/%s/send/m.room.message/u%d"
                      % (q(rooms[0]), i), {"msgtype": "m.text", "body": "x"},
                      user_id=seat)
            if got[0] != 200:
                break
        self.assertError(got, 429, "M_LIMIT_EXCEEDED")
        self.assertEqual(i, 9)             # the join counted as a message
        self.assertEqual(got[1]["retry_after_ms"], 5000)


class ProcessTest(HarnessTestCase):

    def start_process(self, *args):
        """homeserver.py as a process with these arguments; an object
        with its port once it listens."""
        port_file = os.path.join(self.tmpdir, "port")
        log = os.path.join(self.tmpdir, "hs.log")
        proc = subprocess.Popen(
            [sys.executable, os.path.join(os.path.dirname(HERE), "matrix",
                                          "homeserver.py"),
             "--port-file", port_file, "--log", log] + list(args),
            stdout=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 5)
        self.addCleanup(proc.terminate)
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            self.assertLess(time.monotonic(), deadline)
            self.assertIsNone(proc.poll())
            time.sleep(0.05)
        with open(port_file) as f:
            return type("P", (), {"port": int(f.read())})()

    def test_runs_as_a_process_and_writes_its_port(self):
        hs = self.start_process("--user", "alice:pw", "--no-login-ratelimit")
        port = hs.port
        r = Raw(hs)
        self.assertIn("v1.1", r.request("GET", "/_matrix/client/versions")
                      [1]["versions"])
        self.assertEqual(r.login("alice", "pw")["user_id"],
                         "@alice:hearts.test")
        self.assertTrue(harness.port_accepts(port))
        # --no-login-ratelimit: five logins from one address at once
        for _ in range(4):
            r.login("alice", "pw")
        # switched on again over /_test/ (the buckets start empty)
        admin = Raw(hs)
        self.assertEqual(admin.request("POST", "/_test/ratelimit",
                                       {"logins": True})[0], 200)
        for _ in range(3):
            r.login("alice", "pw")
        got = r.request("POST", V3 + "/login", {
            "type": "m.login.password", "password": "pw",
            "identifier": {"type": "m.id.user", "user": "alice"}})
        self.assertEqual(got[0], 429, got[1])
        self.assertEqual(got[1]["errcode"], "M_LIMIT_EXCEEDED")
        self.assertEqual(admin.request("POST", "/_test/ratelimit",
                                       {"joins": "no"})[0], 400)
        self.assertEqual(admin.request("POST", "/_test/ratelimit",
                                       {"joins": False, "invites": False,
                                        "logins": False})[0], 200)
        r.login("alice", "pw")
        self.assertEqual(admin.request("GET", "/_test/half_made_rooms")[1],
                         {"rooms": []})

    def test_application_service_over_the_test_endpoints(self):
        receiver = Receiver().up()
        self.addCleanup(receiver.down)
        reg, as_token, hs_token = write_registration(self.tmpdir,
                                                     "heartsbot",
                                                     receiver.url)
        # a bad registration: the process says why and stops
        bad = os.path.join(self.tmpdir, "bad.yaml")
        with open(bad, "w") as f:
            f.write("id: x\n")
        got = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(HERE), "matrix",
                                          "homeserver.py"),
             "--appservice", bad], capture_output=True, text=True,
            timeout=30)
        self.assertEqual(got.returncode, 2)
        self.assertIn("bad.yaml: required string field: 'as_token'",
                      got.stderr)
        hs = self.start_process("--appservice", reg, "--appservice-legacy",
                                "--user", "alice:pw", "--no-ratelimit")
        admin = Raw(hs)
        alice = Raw(hs)
        alice.login("alice", "pw")
        bot = "@heartsbot:hearts.test"
        room = alice.request("POST", V3 + "/createRoom",
                             {"invite": [bot]})[1]["room_id"]
        got = Raw(hs, as_token).request("POST", V3 + "/join/%s" % q(room),
                                        {})
        self.assertEqual(got[0], 200, got[1])
        got = admin.request("POST", "/_test/as_wait_idle", {"timeout": 10})
        self.assertEqual(got[:2], (200, {"idle": True}))
        counters = admin.request("GET", "/_test/as_counters")[1]
        self.assertEqual(counters["heartsbot"]["events"], 2)
        self.assertEqual(counters["heartsbot"]["pending"], 0)
        self.assertTrue(all(r["path"].startswith("/transactions/")
                            and r["query"] == {"access_token": [hs_token]}
                            for r in receiver.requests))
        # paused: queued; duplicated and resumed: sent twice
        self.assertEqual(admin.request("POST", "/_test/as_pause", {})[0],
                         200)
        got = alice.request("PUT", V3 + "/rooms/%s/send/m.room.message/1"
                            % q(room), {"msgtype": "m.text", "body": "x"})
        self.assertEqual(got[0], 200, got[1])
        self.assertEqual(admin.request("GET", "/_test/as_counters")[1]
                         ["heartsbot"]["pending"], 1)
        self.assertEqual(admin.request("POST", "/_test/as_wait_idle",
                                       {"timeout": 0})[1], {"idle": False})
        self.assertEqual(admin.request("POST", "/_test/as_duplicate",
                                       {"id": "heartsbot"})[0], 200)
        self.assertEqual(admin.request("POST", "/_test/as_resume", {})[0],
                         200)
        self.assertEqual(admin.request("POST", "/_test/as_wait_idle",
                                       {"timeout": 10})[1], {"idle": True})
        last = receiver.puts()[-2:]
        self.assertEqual(last[0][0], last[1][0])
        self.assertEqual(admin.request("GET", "/_test/as_counters")[1]
                         ["heartsbot"]["duplicates"], 1)
        got = admin.request("POST", "/_test/as_pause", {"id": "nobody"})
        self.assertEqual(got[0], 400)
        got = admin.request("POST", "/_test/as_add", {"path": bad})
        self.assertEqual(got[:2], (400, {"errcode": "M_BAD_JSON",
                                         "error": bad + ": required string "
                                         "field: 'as_token'"}))
        other, _, _ = write_registration(self.tmpdir, "other", receiver.url,
                                         sender="otherbot",
                                         users=("@other_.*",))
        got = admin.request("POST", "/_test/as_add", {"path": other})
        self.assertEqual(got[:2], (200, {"id": "other"}))
        got = admin.request("POST", "/_test/register",
                            {"username": "other_1", "password": "pw"})
        self.assertEqual((got[0], got[1]["errcode"]), (400, "M_EXCLUSIVE"))


if __name__ == "__main__":
    harness.main()

"""The Matrix test homeserver (tests/matrix/homeserver.py), tested without
the bot: real matrix-nio clients (Debian's python3-matrix-nio validates
every answer against the specification's schemas) log in, open a direct
room, talk through /sync; the server refuses what a real homeserver
refuses, limits rates like Synapse and fails on request.
Run: /usr/bin/python3 tests/integration/test_matrix_server.py -v
"""

import asyncio
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "matrix"))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402
import homeserver  # noqa: E402

try:
    import nio
except ImportError:          # CI installs python3-matrix-nio
    nio = None

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


class MatrixTestCase(HarnessTestCase):

    def setUp(self):
        super().setUp()
        if nio is None:
            self.skipTest("python3-matrix-nio is not installed")
        self.hs = homeserver.Homeserver(self.tmpdir)
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

    def send(self, r, room, txn):
        return r.request("PUT", V3 + "/rooms/%s/send/m.room.message/%s"
                         % (q(room), txn), {"msgtype": "m.text", "body": txn})

    def test_burst_then_429_with_retry_after_ms(self):
        r = self.raw("alice", "pw-a")
        self.hs.set_exempt(self.alice)
        room = r.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        self.hs.set_exempt(self.alice, False)
        for i in range(10):
            self.assertEqual(self.send(r, room, "m%d" % i)[0], 200)
        status, body, resp = self.send(r, room, "m10")
        self.assertError((status, body), 429, "M_LIMIT_EXCEEDED")
        self.assertGreater(body["retry_after_ms"], 4000)
        self.assertLessEqual(body["retry_after_ms"], 5000)
        self.assertIsNone(resp.getheader("Retry-After"))
        # Exempt (Synapse's override_ratelimit), then limits off.
        self.hs.set_exempt(self.alice)
        self.assertEqual(self.send(r, room, "m11")[0], 200)
        self.hs.set_exempt(self.alice, False)
        self.assertEqual(self.send(r, room, "m12")[0], 429)
        self.hs.set_ratelimit(enabled=False)
        for i in range(20):
            self.assertEqual(self.send(r, room, "n%d" % i)[0], 200)
        c = self.hs.counters(self.alice)
        self.assertEqual(c["sends"], 10 + 1 + 20)
        self.assertGreaterEqual(c["requests"], 34)

    def test_invites_are_limited_hard_but_create_room_invites_are_not(self):
        for i in range(8):
            self.hs.register("p%d" % i, "pw")
        self.hs.set_ratelimit(enabled=True, burst=100)
        r = self.raw("alice", "pw-a")
        room = r.request("POST", V3 + "/createRoom", {
            "invite": ["@p%d:hearts.test" % i for i in range(8)],
            "is_direct": True})
        self.assertEqual(room[0], 200, room[1])
        room2 = r.request("POST", V3 + "/createRoom", {})[1]["room_id"]
        codes = [r.request("POST", V3 + "/rooms/%s/invite" % q(room2),
                           {"user_id": "@p%d:hearts.test" % i})
                 for i in range(8)]
        self.assertEqual([c[0] for c in codes], [200] * 5 + [429] * 3)
        self.assertError(codes[5][:2], 429, "M_LIMIT_EXCEEDED")
        self.assertGreater(codes[5][1]["retry_after_ms"], 60000)


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


class ProcessTest(HarnessTestCase):

    def test_runs_as_a_process_and_writes_its_port(self):
        port_file = os.path.join(self.tmpdir, "port")
        log = os.path.join(self.tmpdir, "hs.log")
        proc = subprocess.Popen(
            [sys.executable, os.path.join(os.path.dirname(HERE), "matrix",
                                          "homeserver.py"),
             "--port-file", port_file, "--log", log, "--user", "alice:pw"],
            stdout=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 5)
        self.addCleanup(proc.terminate)
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        with open(port_file) as f:
            port = int(f.read())
        hs = type("P", (), {"port": port})()
        r = Raw(hs)
        self.assertIn("v1.1", r.request("GET", "/_matrix/client/versions")
                      [1]["versions"])
        self.assertEqual(r.login("alice", "pw")["user_id"],
                         "@alice:hearts.test")
        self.assertTrue(harness.port_accepts(port))


if __name__ == "__main__":
    harness.main()

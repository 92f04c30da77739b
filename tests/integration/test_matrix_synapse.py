"""A four-person game against a real Synapse with its default rate limits
(messages 0.2 a second after a burst of 10, a room creation charged
twice): the bot is an ordinary user there, as on most homeservers. Every
deal arrives, the game ends, nothing is said twice, each person has one
direct room.

Optional: CI has no Synapse (Debian does not package one). Set
HEARTS_SYNAPSE_URL to a Synapse on loopback with open registration
(m.login.dummy), for instance the one `../shared/realservers/synapse.sh
start` runs on http://127.0.0.1:18008; without it every test here is
skipped with a line that says so. A one-hand game takes about 5 minutes
under the limits.

Run: HEARTS_SYNAPSE_URL=http://127.0.0.1:18008 \\
     /usr/bin/python3 tests/integration/test_matrix_synapse.py -v
"""

import asyncio
import collections
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import test_matrix_bot  # noqa: E402
from harness import HarnessTestCase  # noqa: E402
from test_matrix_bot import Person, from_bot, nio  # noqa: E402
from test_matrix_game import Seat, lines  # noqa: E402

URL = os.environ.get("HEARTS_SYNAPSE_URL", "")


def loopback(url):
    host = urllib.parse.urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


class Synapse:
    """What the tests need of a real homeserver: its URL and accounts."""

    def __init__(self, url):
        self.url = url.rstrip("/")

    def call(self, method, path, body=None, token=None):
        """The JSON answer, waiting out 429s as the server says."""
        for _ in range(60):
            req = urllib.request.Request(
                self.url + "/_matrix/client/v3" + path, method=method,
                data=None if body is None else json.dumps(body).encode(),
                headers={"Content-Type": "application/json"})
            if token:
                req.add_header("Authorization", "Bearer " + token)
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    return json.load(resp)
            except urllib.error.HTTPError as e:
                if e.code != 429:
                    raise
                wait = json.load(e).get("retry_after_ms", 1000)
                time.sleep(wait / 1000.0 + 0.1)
        raise AssertionError("%s %s: rate-limited for ever" % (method, path))

    def register(self, localpart, password):
        """A new account (open registration); returns its user ID."""
        return self.call("POST", "/register", {
            "username": localpart, "password": password,
            "auth": {"type": "m.login.dummy"},
            "inhibit_login": True})["user_id"]


class SynapseGameTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        if not URL:
            self.skipTest("no real Synapse: set HEARTS_SYNAPSE_URL (see the "
                          "top of this file); skipped")
        if not loopback(URL):
            self.skipTest("HEARTS_SYNAPSE_URL is not on loopback: skipped")
        if nio is None:
            self.skipTest("python3-matrix-nio is not installed")
        self.hs = Synapse(URL)
        try:
            with urllib.request.urlopen(
                    self.hs.url + "/_matrix/client/versions", timeout=5):
                pass
        except OSError as e:
            self.skipTest("no Synapse answers at %s (%s): skipped" % (URL, e))
        self.tag = secrets.token_hex(3)
        self.data = os.path.join(self.tmpdir, "data")

    async def login(self, p):
        for _ in range(20):
            resp = await p.client.login(p.password)
            if isinstance(resp, nio.LoginResponse):
                s = await p.client.sync(timeout=0)
                p.since = s.next_batch
                return
            # the login limit per address (0.17/s, burst 3)
            await asyncio.sleep(6)
        raise AssertionError("%s cannot log in" % p.user)

    def test_four_people_start_and_finish_under_the_default_limits(self):
        names = ["alice", "bob", "carol", "dave"]
        ids = [self.hs.register("%s_%s" % (n, self.tag), "pw-" + n)
               for n in names]
        bot_id = self.hs.register("heartsbot_" + self.tag, "pw-bot")
        # the helpers of the test homeserver's tests know the bot by its
        # user ID there: here it is this one
        self.addCleanup(setattr, test_matrix_bot, "BOT", test_matrix_bot.BOT)
        test_matrix_bot.BOT = bot_id

        async def go():
            people = []
            try:
                for n, uid in zip(names, ids):
                    p = Person(self.hs, uid, "pw-" + n)
                    people.append(p)
                    await self.login(p)
                made = await people[0].client.room_create(
                    name="Card Club", preset=nio.RoomPreset.public_chat)
                self.assertIsInstance(made, nio.RoomCreateResponse, made)
                room = made.room_id
                for p in people[1:]:
                    self.assertIsInstance(await p.client.join(room),
                                          nio.JoinResponse)
                cfg = harness.example_config()
                del cfg["irc"]
                cfg["bot"]["data_dir"] = self.data
                cfg["bot"]["log_level"] = "debug"
                cfg["bot"].update(harness.NO_ANSWER_LIMITS)
                cfg["game"].update(next_hand_delay=0)
                net = dict(cfg["matrix"][0])
                net.update(name="mx", homeserver=self.hs.url,
                           user_id=bot_id, password="pw-bot", rooms=[room],
                           sync_timeout_ms=5000)
                cfg["matrix"] = [net]
                bot = harness.Bot(self.tmpdir, cfg)
                self.addCleanup(bot.stop)
                bot.wait_log(r"mx: connected to", timeout=120)
                alice = people[0]
                await alice.say(room, "!hearts standard hands=1")
                await alice.wait(from_bot(room, "opens a Hearts table"),
                                 timeout=60)
                for p in people[1:]:
                    await p.say(room, "!join")
                await alice.wait(from_bot(room, "The table is full"),
                                 timeout=90)
                await alice.say(room, "!start")
                started = time.monotonic()
                seats = [Seat(p, room) for p in people]
                dealt = {}
                while len(dealt) < 4:
                    self.assertLess(time.monotonic() - started, 180, dealt)
                    for s in seats:
                        await s.p.sync(timeout_ms=200)
                        if (s.p.user not in dealt and any(
                                isinstance(harness.parse_private(x),
                                           harness.Deal)
                                for x in lines(s.private()))):
                            dealt[s.p.user] = time.monotonic() - started
                deadline = time.monotonic() + 1200
                await asyncio.gather(*[s.play(deadline) for s in seats])
                took = time.monotonic() - started
                await asyncio.sleep(1)
                for p in people:
                    await p.sync(timeout_ms=0)
                return room, seats, dealt, took, bot
            finally:
                for p in people:
                    await p.close()

        room, seats, dealt, took, bot = asyncio.run(
            asyncio.wait_for(go(), 1800))
        sys.stderr.write("[every deal %.1f s after !start; the game %.0f s] "
                         % (max(dealt.values()), took))
        table = lines(from_bot(room)(seats[0].p.messages))
        tricks = collections.Counter(
            harness.parse_trick_line(x)[0] for x in table
            if harness.parse_trick_line(x))
        self.assertEqual(tricks, {k: 1 for k in range(1, 14)}, table)
        for s in seats:
            # the table room as every person saw it, no message twice in
            # any room, one direct room each
            self.assertEqual(lines(from_bot(room)(s.p.messages)), table)
            ids = [m[4]["event_id"] for m in from_bot()(s.p.messages)]
            self.assertEqual(len(ids), len(set(ids)))
            self.assertEqual(len({m[0] for m in s.private()}), 1)
            deals = [x for x in lines(s.private())
                     if isinstance(harness.parse_private(x), harness.Deal)]
            self.assertEqual(len(deals), 1, deals)
        records = harness.read_records(self.data, network="mx", room=room)
        self.assertEqual(len(records), 1)
        rc, out = harness.replay(harness.archive_path(self.data, "mx", room))
        self.assertEqual(rc, 0, out)
        self.assertNotIn("refused", "\n".join(
            x for x in bot.log().splitlines() if "createRoom" in x))


if __name__ == "__main__":
    harness.main()

"""A four-person game against a real Synapse 1.67 with its default rate
limits (messages 0.2 a second after a burst of 10, a room creation
charged twice), in both of the bot's Matrix modes:

- sync mode: the bot is an ordinary user there, as on most homeservers,
  and runs at the limit (a one-hand game takes about 5 to 6 minutes);
- application-service mode: Synapse pushes the rooms' events to the
  bot's listener and does not limit the bot (the people, ordinary users,
  still are; a one-hand game takes about a minute). The bot makes no
  /sync and no /login request, and no request of it is answered 429.

Either way every deal arrives, the game ends, nothing is said twice, each
person has one direct room, and the game's record replays.

Optional: CI has no Synapse (Debian does not package one). Set
HEARTS_SYNAPSE_URL to a Synapse on loopback with open registration
(m.login.dummy), for instance the one `../shared/realservers/synapse.sh
start` runs on http://127.0.0.1:18008; without it every test here is
skipped with a line that says so.

The application-service test needs more, because Synapse reads an
application service's registration only when it starts: set
HEARTS_SYNAPSE_AS_REGISTRATION to the path of a registration file that
Synapse was started with (listed in its app_service_config_files), whose
url is http://127.0.0.1:PORT. The test runs the bot with mode =
"appservice", that registration, listen = 127.0.0.1:PORT and user_id
@SENDER_LOCALPART:SERVER (SERVER: Synapse's server name), so PORT must
be free. It reads Synapse's log (HEARTS_SYNAPSE_LOG, default
/tmp/realservers/synapse/homeserver.log) for the bot's requests and the
transactions Synapse pushed. Without the variable that test is skipped
with a line naming both variables. With the recipe's synapse.sh:

    mkdir -p /tmp/as && cat >/tmp/as/bot.toml <<'TOML'
    [[matrix]]
    name = "synapse"
    homeserver = "http://127.0.0.1:18008"
    user_id = "@heartsbot:localhost"
    mode = "appservice"
    registration = "reg.yaml"
    listen = "127.0.0.1:29009"
    rooms = []
    TOML
    build/heartsbot --appservice-registration /tmp/as/bot.toml  # writes reg.yaml
    # synapse.sh renders homeserver.yaml from homeserver.generated.yaml at
    # every start and keeps the keys it does not set itself; that file may
    # lack a final newline, hence the echo
    G=/tmp/realservers/synapse/homeserver.generated.yaml
    echo >>$G; echo 'app_service_config_files: [/tmp/as/reg.yaml]' >>$G
    bash ../shared/realservers/synapse.sh restart   # never RELAXED

(One app_service_config_files key: to add a file to a list that is there
already, edit that line.)

Run: HEARTS_SYNAPSE_URL=http://127.0.0.1:18008 \\
     HEARTS_SYNAPSE_AS_REGISTRATION=/tmp/as/reg.yaml \\
     /usr/bin/python3 tests/integration/test_matrix_synapse.py -v
"""

import asyncio
import collections
import json
import os
import re
import secrets
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import realsynapse  # noqa: E402
import test_matrix_bot  # noqa: E402
from harness import HarnessTestCase  # noqa: E402
from test_matrix_bot import Person, from_bot, nio  # noqa: E402
from test_matrix_game import Seat, lines  # noqa: E402

URL = os.environ.get("HEARTS_SYNAPSE_URL", "")
AS_REGISTRATION = os.environ.get("HEARTS_SYNAPSE_AS_REGISTRATION", "")
SYNAPSE_LOG = os.environ.get("HEARTS_SYNAPSE_LOG", realsynapse.DEFAULT_LOG)


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


class SynapsePerson(Person):
    """A person who keeps an event once, as a client does: Synapse 1.67
    gives the newest event of a room just joined twice in that sync (seen
    with a deal the bot sent before the person joined their direct
    room). What it gave again is kept in `doubled`, with the number of the
    sync that brought it and of the sync that had brought it first."""

    def __init__(self, *a):
        super().__init__(*a)
        self.first_seen = {}    # event ID -> number of the sync
        self.syncs = 0
        self.doubled = []       # (message, sync, first sync)

    async def sync(self, timeout_ms=500):
        n = len(self.messages)
        await super().sync(timeout_ms)
        self.syncs += 1
        fresh = []
        for m in self.messages[n:]:
            eid = m[4]["event_id"]
            if eid in self.first_seen:
                self.doubled.append((m, self.syncs, self.first_seen[eid]))
                continue
            self.first_seen[eid] = self.syncs
            fresh.append(m)
        self.messages[n:] = fresh


class SynapseCase(HarnessTestCase):

    def setUp(self):
        super().setUp()
        if not URL:
            self.skipTest("no real Synapse: set HEARTS_SYNAPSE_URL (and "
                          "HEARTS_SYNAPSE_AS_REGISTRATION for the "
                          "application-service test; see the top of this "
                          "file); skipped")
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

    def register_people(self):
        names = ["alice", "bob", "carol", "dave"]
        return [(self.hs.register("%s_%s" % (n, self.tag), "pw-" + n),
                 "pw-" + n) for n in names]

    def play_game(self, people_ids, bot_id, net):
        """Four people (people_ids: [(user ID, password)]) play a one-hand
        game with the bot (its [[matrix]] entry: the example's updated
        with net); then the checks that hold in both modes. Returns the
        bot, the seconds from `!start` to every deal and to the end."""
        # the helpers of the test homeserver's tests know the bot by its
        # user ID there: here it is this one
        self.addCleanup(setattr, test_matrix_bot, "BOT", test_matrix_bot.BOT)
        test_matrix_bot.BOT = bot_id

        async def go():
            people = []
            try:
                for uid, pw in people_ids:
                    p = SynapsePerson(self.hs, uid, pw)
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
                entry = harness.example_matrix()
                entry.update(name="mx", homeserver=self.hs.url,
                             user_id=bot_id, rooms=[room])
                entry.update(net)
                cfg["matrix"] = [{k: v for k, v in entry.items()
                                  if v is not None}]
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
        records = harness.read_records(self.data, network="mx", room=room)
        self.assertEqual(len(records), 1)
        rc, out = harness.replay(harness.archive_path(self.data, "mx", room))
        self.assertEqual(rc, 0, out)
        # one hand, or more after a tie for the lowest score
        hands = len(records[0]["hands"])
        table = lines(from_bot(room)(seats[0].p.messages))
        tricks = collections.Counter(
            harness.parse_trick_line(x)[0] for x in table
            if harness.parse_trick_line(x))
        self.assertEqual(tricks, {k: hands for k in range(1, 14)}, table)
        for s in seats:
            # the table room as every person saw it, no message twice in
            # a row in any room, one direct room each, one deal a hand
            self.assertEqual(lines(from_bot(room)(s.p.messages)), table)
            said = [(m[0], m[3]) for m in from_bot()(s.p.messages)]
            self.assertEqual([a for a, b in zip(said, said[1:]) if a == b],
                             [], s.p.user)
            self.assertEqual(len({m[0] for m in s.private()}), 1)
            deals = [x for x in lines(s.private())
                     if isinstance(harness.parse_private(x), harness.Deal)]
            self.assertEqual(len(deals), hands, deals)
        self.assertNotIn("refused", "\n".join(
            x for x in bot.log().splitlines() if "createRoom" in x))
        for s in seats:
            for m, n, first in s.p.doubled:
                sys.stderr.write("[Synapse gave %s's %s again in sync %d "
                                 "(first in sync %d)] " % (
                                     s.p.user, m[4]["event_id"], n, first))
        return bot, max(dealt.values()), took


class SynapseGameTest(SynapseCase):
    """The bot an ordinary user (sync mode), limited as one."""

    def test_four_people_start_and_finish_under_the_default_limits(self):
        people = self.register_people()
        bot_id = self.hs.register("heartsbot_" + self.tag, "pw-bot")
        _, dealt, took = self.play_game(people, bot_id, {
            "password": "pw-bot", "sync_timeout_ms": 5000})
        sys.stderr.write("[every deal %.1f s after !start; the game %.0f s] "
                         % (dealt, took))


class SynapseInviteTest(SynapseCase):
    """invite_from on a real Synapse (sync mode): the invite of a person
    it names is joined, a stranger's is declined (rejected: the bot's
    membership there becomes leave)."""

    def test_only_invite_from_may_invite_the_bot(self):
        alice_id = self.hs.register("alice_" + self.tag, "pw-alice")
        mallory_id = self.hs.register("mallory_" + self.tag, "pw-mallory")
        bot_id = self.hs.register("heartsbot_" + self.tag, "pw-bot")

        async def go():
            alice = SynapsePerson(self.hs, alice_id, "pw-alice")
            mallory = SynapsePerson(self.hs, mallory_id, "pw-mallory")
            try:
                for p in (alice, mallory):
                    await self.login(p)
                cfg = harness.example_config()
                del cfg["irc"]
                cfg["bot"]["data_dir"] = self.data
                entry = harness.example_matrix()
                entry.update(name="mx", homeserver=self.hs.url,
                             user_id=bot_id, password="pw-bot", rooms=[],
                             invite_from=[alice_id], sync_timeout_ms=5000)
                cfg["matrix"] = [{k: v for k, v in entry.items()
                                  if v is not None}]
                bot = harness.Bot(self.tmpdir, cfg)
                self.addCleanup(bot.stop)
                bot.wait_log(r"mx: connected to", timeout=120)
                rooms = {}
                for p in (alice, mallory):
                    made = await p.client.room_create(
                        invite=[bot_id], preset=nio.RoomPreset.private_chat)
                    self.assertIsInstance(made, nio.RoomCreateResponse, made)
                    rooms[p.user] = made.room_id

                def membership(p):
                    path = "/rooms/%s/state/m.room.member/%s" % (
                        urllib.parse.quote(rooms[p.user]),
                        urllib.parse.quote(bot_id))
                    return self.hs.call("GET", path, token=p.client.
                                        access_token).get("membership")
                deadline = time.monotonic() + 60
                while (membership(alice) != "join"
                       or membership(mallory) != "leave"):
                    self.assertLess(time.monotonic(), deadline,
                                    (membership(alice), membership(mallory)))
                    await asyncio.sleep(0.5)
                bot.wait_log(r"mx: declining the invite to %s from %s "
                             r"\(not in invite_from\)" % (
                                 re.escape(rooms[mallory_id]),
                                 re.escape(mallory_id)))
                self.assertNotIn("auto_join_invites is on and invite_from "
                                 "is empty", bot.log())
            finally:
                for p in (alice, mallory):
                    await p.close()

        asyncio.run(asyncio.wait_for(go(), 300))


class SynapseNotifyTest(SynapseCase):
    """!notify on a real Synapse (sync mode): bob asked to be called,
    carol did not; when alice opens a table, the bot's line is a real
    mention of bob (a matrix.to link in the formatted body, his user ID in
    m.mentions) and Synapse counts it as a highlight for bob (his
    /notifications), not for carol."""

    def test_the_call_notifies_bob_only(self):
        tag = self.tag
        ids = {n: self.hs.register("%s_%s" % (n, tag), "pw-" + n)
               for n in ("alice", "bob", "carol")}
        bot_id = self.hs.register("heartsbot_" + tag, "pw-bot")
        # from_bot knows the bot by test_matrix_bot.BOT: here it is this one
        self.addCleanup(setattr, test_matrix_bot, "BOT", test_matrix_bot.BOT)
        test_matrix_bot.BOT = bot_id

        async def go():
            people = {n: SynapsePerson(self.hs, ids[n], "pw-" + n)
                      for n in ids}
            try:
                for p in people.values():
                    await self.login(p)
                alice, bob, carol = (people[n] for n in
                                     ("alice", "bob", "carol"))
                made = await alice.client.room_create(
                    name="Card Club", preset=nio.RoomPreset.public_chat)
                self.assertIsInstance(made, nio.RoomCreateResponse, made)
                room = made.room_id
                for p in (bob, carol):
                    self.assertIsInstance(await p.client.join(room),
                                          nio.JoinResponse)
                cfg = harness.example_config()
                del cfg["irc"]
                cfg["bot"]["data_dir"] = self.data
                cfg["bot"].update(harness.NO_ANSWER_LIMITS)
                entry = harness.example_matrix()
                entry.update(name="mx", homeserver=self.hs.url,
                             user_id=bot_id, password="pw-bot",
                             rooms=[room], sync_timeout_ms=5000)
                cfg["matrix"] = [{k: v for k, v in entry.items()
                                  if v is not None}]
                bot = harness.Bot(self.tmpdir, cfg)
                self.addCleanup(bot.stop)
                bot.wait_log(r"mx: connected to", timeout=120)
                await bob.say(room, "!notify on")
                await bob.wait(lambda m: [
                    x for x in from_bot()(m)
                    if x[0] != room and "From now on I call you" in x[3]],
                    timeout=90)
                await alice.say(room, "!hearts")
                got = await carol.wait(from_bot(room,
                                                "you asked to be called"),
                                       timeout=90)
                content = got[0][4]["content"]
                self.assertIn('<a href="https://matrix.to/#/%s">' % ids["bob"],
                              content["formatted_body"])
                self.assertEqual(content["m.mentions"],
                                 {"user_ids": [ids["bob"]]})
                self.assertNotIn(ids["carol"], content["body"])
                event_id = got[0][4]["event_id"]

                def highlights(p):
                    return [n["event"]["event_id"] for n in self.hs.call(
                        "GET", "/notifications?only=highlight",
                        token=p.client.access_token)["notifications"]]
                deadline = time.monotonic() + 30
                while event_id not in highlights(bob):
                    self.assertLess(time.monotonic(), deadline,
                                    "Synapse did not highlight the call "
                                    "for bob")
                    await asyncio.sleep(0.5)
                self.assertNotIn(event_id, highlights(carol))
            finally:
                for p in people.values():
                    await p.close()

        asyncio.run(asyncio.wait_for(go(), 400))


class SynapseAppserviceTest(SynapseCase):
    """The bot Synapse's application service (HEARTS_SYNAPSE_AS_REGISTRATION,
    a registration Synapse was started with)."""

    def setUp(self):
        super().setUp()
        if not AS_REGISTRATION:
            self.skipTest("no application service: set HEARTS_SYNAPSE_URL "
                          "and HEARTS_SYNAPSE_AS_REGISTRATION (the "
                          "registration file Synapse was started with; see "
                          "the top of this file); skipped")
        self.registration = os.path.abspath(AS_REGISTRATION)
        reg = realsynapse.read_registration(self.registration)
        for key in ("url", "as_token", "hs_token", "sender_localpart"):
            self.assertIn(key, reg, "%s has no %s" % (self.registration, key))
        u = urllib.parse.urlsplit(reg["url"])
        self.assertTrue(u.scheme == "http" and u.hostname == "127.0.0.1"
                        and u.port, "%s: its url must be http://127.0.0.1:"
                        "PORT, not %r" % (self.registration, reg["url"]))
        self.reg, self.as_port, self.as_url = reg, u.port, reg["url"]
        # one bot at a time per registration: Synapse pushes to one port
        # (SO_REUSEADDR, as the bot's listener: the connections of a run
        # just ended may wait in TIME_WAIT on it)
        probe = socket.socket()
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", u.port))
        except OSError as e:
            self.fail("port %d of %s's url is taken (%s): another bot or "
                      "test uses this registration" % (
                          u.port, self.registration, e))
        finally:
            probe.close()
        # Synapse knows the registration: its as_token is the bot's user
        try:
            who = self.hs.call("GET", "/account/whoami",
                               token=reg["as_token"])["user_id"]
        except urllib.error.HTTPError as e:
            who, status = None, e.code
        if who is None:
            self.fail("Synapse at %s does not know the application service "
                      "of %s (whoami with its as_token: HTTP %d): list the "
                      "file in app_service_config_files and restart Synapse "
                      "(see the top of this file)" % (
                          URL, self.registration, status))
        self.assertEqual(who.split(":", 1)[0], "@" + reg["sender_localpart"])
        self.bot_id = who
        self.assertTrue(os.path.isfile(SYNAPSE_LOG),
                        "no Synapse log at %s: set HEARTS_SYNAPSE_LOG"
                        % SYNAPSE_LOG)

    def test_four_people_as_an_application_service(self):
        people = self.register_people()
        log = realsynapse.Log(SYNAPSE_LOG)
        bot, dealt, took = self.play_game(people, self.bot_id, {
            "mode": "appservice", "registration": self.registration,
            "listen": "127.0.0.1:%d" % self.as_port, "password": None,
            "access_token": None, "device_id": None})
        text = bot.log()
        self.assertRegex(text, r"mx: connected to \S+ as %s, an application "
                         r"service: .*does not rate-limit the bot"
                         % re.escape(self.bot_id))
        self.assertNotIn("rate-limited on", text)
        self.assertNotRegex(text, r"HTTP 429|M_LIMIT_EXCEEDED")
        # Synapse's side, once it has flushed its log (a transaction that
        # comes while the bot stops is answered 503, rightly)
        stopped = time.time()
        bot.stop()
        time.sleep(6)
        reqs = log.requests(self.bot_id)
        sends = [r for r in reqs if r[1] == "PUT" and "/send/" in r[2]]
        self.assertGreater(len(sends), 20, reqs)
        self.assertEqual([r for r in reqs if r[3] == 429], [])
        self.assertEqual([r for r in reqs if re.search(
            r"/(sync|login)(\?|$)", r[2])], [])
        pushed = log.transactions(self.as_url)
        self.assertTrue(pushed, "no transaction pushed to %s" % self.as_url)
        self.assertEqual([r for r in pushed if r[2] != 200 and
                          r[0] < stopped], [])
        sys.stderr.write(
            "[every deal %.1f s after !start; the game %.0f s; the bot's "
            "requests %d (%d sends); transactions pushed %d] "
            % (dealt, took, len(reqs), len(sends), len(pushed)))


if __name__ == "__main__":
    harness.main()

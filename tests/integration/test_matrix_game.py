"""Whole games on Matrix with four people: heartsbot against the strict
test homeserver (tests/matrix/homeserver.py), four matrix-nio clients at
one table. Each hand reaches only its owner's direct room, the tricks and
scores are said in the table's room, the record replays with hearts-sim,
and faults injected on the bot's sends and syncs mid-game lose and
duplicate nothing.
Run: /usr/bin/python3 tests/integration/test_matrix_game.py -v
"""

import asyncio
import collections
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from test_matrix_bot import (BOT, MatrixCase, Person, answer,  # noqa: E402
                             from_bot, nio)

PEOPLE = (("alice", "pw-a"), ("bob", "pw-b"), ("carol", "pw-c"),
          ("dave", "pw-d"))
# the display names they set once the bot is there (carol and dave alike:
# the bot tells them apart as the Matrix spec says, with the user ID)
DISPLAY = ("Alice", "Bob", "Ace", "Ace")
SHOWN = {"@alice:hearts.test": "Alice", "@bob:hearts.test": "Bob",
         "@carol:hearts.test": "Ace (@carol:hearts.test)",
         "@dave:hearts.test": "Ace (@dave:hearts.test)"}

# what only a seat's owner may read (harness.parse_private's kinds)
SECRET = (harness.Deal, harness.HandShown, harness.Prompt,
          harness.MoonChoice, harness.Passing)


def lines(msgs):
    return [line for m in msgs for line in m[3].split("\n")]


class Seat:
    """A person at the table, answering as test_matrix_bot.answer does;
    keeps the deals it was sent and what it said."""

    def __init__(self, person, room):
        self.p = person
        self.room = room
        self.seen = 0
        self.deals = []         # harness.Deal, one per hand
        self.acted = []
        self.before_play = None  # async f(number of plays so far)

    def private(self):
        return [m for m in from_bot()(self.p.messages) if m[0] != self.room]

    async def act(self):
        private = self.private()
        for m in private[self.seen:]:
            for line in m[3].split("\n"):
                ev = harness.parse_private(line)
                if isinstance(ev, harness.Deal):
                    self.deals.append(ev)
                act = answer(ev)
                if act is None:
                    continue
                if self.before_play and act.startswith("play"):
                    await self.before_play(
                        sum(a.startswith("play") for a in self.acted))
                self.acted.append(act)
                await self.p.say(m[0], act)
        self.seen = len(private)

    def over(self):
        return from_bot(self.room, "Game over!")(self.p.messages)

    async def play(self, deadline):
        while not self.over():
            if time.monotonic() > deadline:
                raise AssertionError("%s: no end of the game; acted %s" % (
                    self.p.user, self.acted))
            await self.p.sync(timeout_ms=300)
            await self.act()


class FourPeopleCase(MatrixCase):
    """alice, bob, carol and dave (matrix-nio) and the bot on the test
    homeserver, no rate limit for anyone (the faults test makes its own
    429s)."""

    def setUp(self):
        super().setUp()
        self.users = [self.alice] + [
            self.hs.register(name, pw, name.capitalize())
            for name, pw in PEOPLE[1:]]
        for u in self.users + [BOT]:
            self.hs.set_exempt(u)

    def game(self, before_play=None, timeout=55.0):
        """Opens a one-hand table with the four, plays it to the end and
        returns (room, seats). before_play(n) is awaited before alice
        plays a card, with the number she played before."""
        async def go():
            people = []
            try:
                for name, pw in PEOPLE:
                    p = Person(self.hs, name, pw)
                    people.append(p)
                    await p.login()
                room = await self.public_room(people[0])
                for p in people[1:]:
                    joined = await p.client.join(room)
                    self.assertIsInstance(joined, nio.JoinResponse)
                cfg = self.config([room])
                cfg["game"].update(next_hand_delay=0)
                self.botproc = self.bot(cfg)
                self.botproc.wait_log(r"mx: connected to")
                for p, name in zip(people, DISPLAY):
                    got = await p.client.set_displayname(name)
                    self.assertIsInstance(
                        got, nio.ProfileSetDisplayNameResponse, got)
                alice = people[0]
                await alice.say(room, "!hearts standard hands=1")
                await alice.wait(from_bot(room, "opens a Hearts table"))
                for p in people[1:]:
                    await p.say(room, "!join")
                await alice.wait(from_bot(room, "The table is full"))
                await alice.say(room, "!start")
                seats = [Seat(p, room) for p in people]
                seats[0].before_play = before_play
                deadline = time.monotonic() + timeout
                await asyncio.gather(*[s.play(deadline) for s in seats])
                # whatever the bot still says after the end
                await asyncio.sleep(0.5)
                for p in people:
                    await p.sync(timeout_ms=0)
                return room, seats
            finally:
                for p in people:
                    await p.close()
        return self.run_async(go(), timeout=timeout + 20)

    def check_record(self, room, seats):
        """The game's record replays, its players are the four, and the
        deals each person was sent are the record's; returns it."""
        records = harness.read_records(self.data, network="mx", room=room)
        self.assertEqual(len(records), 1, records)
        record = records[0]
        self.assertEqual(sorted(record["players"]), sorted(self.users))
        rc, out = harness.replay(harness.archive_path(self.data, "mx", room))
        self.assertEqual(rc, 0, out)
        self.assertIn("game 1: OK", out)
        for s in seats:
            seat = record["players"].index(s.p.client.user_id)
            self.assertEqual(
                [sorted(d.cards) for d in s.deals],
                [sorted(h["deal"][seat]) for h in record["hands"]],
                s.p.user)
        return record

    def trick_counts(self, texts):
        """{trick number: how often} over the table room's lines."""
        counts = collections.Counter()
        for line in texts:
            t = harness.parse_trick_line(line)
            if t:
                counts[t[0]] += 1
        return counts


class FourPeopleGameTest(FourPeopleCase):

    def test_four_people_play_a_game(self):
        room, seats = self.game()
        record = self.check_record(room, seats)
        hands = len(record["hands"])
        alice = seats[0].p
        table = from_bot(room)(alice.messages)
        table_lines = lines(table)
        # the table room: every trick once per hand, the hand's scores and
        # the final scores, and nothing secret
        self.assertEqual(self.trick_counts(table_lines),
                         {k: hands for k in range(1, 14)}, table_lines)
        secret = [x for x in table_lines
                  if isinstance(harness.parse_private(x), SECRET)]
        self.assertEqual(secret, [])
        over = [x for x in table_lines if x.startswith("Game over!")]
        self.assertEqual(len(over), 1, table_lines)
        scores = [x for x in table_lines if x.startswith("Hand ")
                  and " scores: " in x]
        self.assertEqual(len(scores), hands, table_lines)
        final = harness.parse_final(over[0])
        # the final line against the record's replayed totals: people by
        # their display names (the record keeps user IDs)
        want = {SHOWN[u]: t for u, t in zip(record["players"],
                                            record["totals"])}
        self.assertEqual(final, want, over[0])
        # every trick names them so too, and never alice's or bob's ID
        for line in table_lines:
            t = harness.parse_trick_line(line)
            if t:
                self.assertLessEqual({n for n, _ in t[1]},
                                     set(SHOWN.values()), line)
            self.assertNotIn("@alice:", line)
            self.assertNotIn("@bob:", line)
        begins = [x for x in table_lines if x.startswith("The game begins")]
        self.assertEqual(len(begins), 1, table_lines)
        for name in SHOWN.values():
            self.assertIn(name, begins[0])
        # every person saw the same table room
        for s in seats[1:]:
            self.assertEqual(lines(from_bot(room)(s.p.messages)),
                             table_lines)
        # private lines: each person's in one direct room with just the
        # bot and them, invited as direct; no other room
        dms = set()
        for s in seats:
            me = s.p.client.user_id
            rooms = {m[0] for m in s.private()}
            self.assertEqual(len(rooms), 1, (me, rooms))
            dm = rooms.pop()
            dms.add(dm)
            self.assertIn((dm, True), s.p.invites)
            with self.hs.lock:
                r = self.hs.state.rooms[dm]
                self.assertEqual(sorted(r.members("join")), sorted([BOT, me]))
                self.assertEqual(r.members("invite"), [])
            kinds = {type(harness.parse_private(x))
                     for x in lines(s.private())}
            self.assertTrue({harness.Deal, harness.Prompt} <= kinds, kinds)
            # what others sent there: only this person
            self.assertEqual({m[1] for m in s.p.messages if m[0] == dm},
                             {BOT, me})
            self.assertGreaterEqual(len(s.acted), 12 * hands)
        self.assertEqual(len(dms), 4)
        self.check_rich_text(room, dms)

    def check_rich_text(self, room, dms):
        """The bot's events carry HTML: red hearts, legal cards in bold
        (brackets in the body), the score sheet as a table, pills."""
        def bot_events(r):
            return [e["content"] for e in
                    self.hs.room_events(r, "m.room.message")
                    if e["sender"] == BOT]
        table = bot_events(room)
        for c in table:
            self.assertEqual(c.get("format"), "org.matrix.custom.html", c)
            self.assertIn("m.mentions", c)
            self.assertFalse(any(ch < " " and ch != "\n"
                                 for ch in c["body"]), c)
        html = [c["formatted_body"] for c in table]
        self.assertTrue(any(
            re.search(r'<font data-mx-color="#[0-9a-f]{6}" '
                      r'color="#[0-9a-f]{6}">[^<]*\u2665', h)
            for h in html), html)
        # the final score sheet: a table with a heading row
        self.assertTrue(any("<table><thead><tr><th>hand</th>" in h
                            for h in html), html)
        # the trick's taker, a person, is a quiet pill: a link, no mention
        pills = [c for c in table if "takes it" in c["body"]
                 and '<a href="https://matrix.to/#/@' in c["formatted_body"]]
        self.assertTrue(pills, html)
        # a prompt in a direct room: legal cards bold, in brackets in the
        # body
        prompts = [c for dm in dms for c in bot_events(dm)
                   if any(isinstance(harness.parse_private(x),
                                     harness.Prompt)
                          for x in c["body"].split("\n"))]
        self.assertTrue(prompts)
        self.assertTrue(all("[" in c["body"] and "<b>" in c["formatted_body"]
                            for c in prompts), prompts)


class MatrixFaultsGameTest(FourPeopleCase):

    def test_faults_mid_game_lose_and_duplicate_nothing(self):
        send = "/_matrix/client/v3/rooms/"
        sync = "/_matrix/client/v3/sync"
        faults = []

        # armed as alice is about to play: the bot cannot go on without
        # syncing to read her card and sending what follows, so every
        # fault is hit mid-game
        plan = {
            2: [(send, "drop_after", {}),
                (send, "429", {"retry_after_ms": 400}),
                (send, "500", {})],
            5: [(sync, "500", {}),
                (sync, "429", {"retry_after_ms": 300}),
                (sync, "drop", {})],
            8: [(send, "drop", {}), (sync, "hang", {})],
            10: [(send, "hang", {}), (sync, "drop_after", {})],
        }

        async def inject(played):
            for path, kind, kw in plan.get(played, []):
                method = "PUT" if path == send else "GET"
                faults.append((kind, path, self.hs.fault(
                    path, kind, method=method, user_id=BOT, **kw)))

        started = time.monotonic()
        room, seats = self.game(before_play=inject)
        took = time.monotonic() - started
        self.assertEqual([(k, p, f.hits) for k, p, f in faults],
                         [(k, p, 1) for k, p, _ in faults])
        record = self.check_record(room, seats)
        hands = len(record["hands"])
        # on the server: the bot's events in the table room, each trick
        # once per hand, no event's text twice
        events = [e for e in self.hs.room_events(room, "m.room.message")
                  if e["sender"] == BOT]
        bodies = [e["content"]["body"] for e in events]
        twice = [b for b, n in collections.Counter(bodies).items() if n > 1]
        self.assertEqual(twice, [])
        self.assertEqual(
            self.trick_counts(x for b in bodies for x in b.split("\n")),
            {k: hands for k in range(1, 14)}, bodies)
        # and every person got each of them once, by event ID
        for s in seats:
            got = [m[4]["event_id"] for m in from_bot(room)(s.p.messages)]
            self.assertEqual(got, [e["event_id"] for e in events], s.p.user)
            # in the direct rooms too: no event twice, none missing
            dm = {m[0] for m in s.private()}.pop()
            mine = [e["event_id"] for e in
                    self.hs.room_events(dm, "m.room.message")
                    if e["sender"] == BOT]
            self.assertEqual([m[4]["event_id"] for m in s.private()], mine)
            dm_bodies = [e["content"]["body"] for e in
                         self.hs.room_events(dm, "m.room.message")
                         if e["sender"] == BOT]
            self.assertEqual(len(set(dm_bodies)), len(dm_bodies),
                             [b for b, n in collections.Counter(
                                 dm_bodies).items() if n > 1])
        self.botproc.wait_log(r"rate-limited on PUT .*waiting 400 ms")
        sys.stderr.write("[%d hands, %.1f s] " % (hands, took))


if __name__ == "__main__":
    harness.main()

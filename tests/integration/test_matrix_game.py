"""Whole games on Matrix with four people: heartsbot against the strict
test homeserver (tests/matrix/homeserver.py), four matrix-nio clients at
one table. Each hand reaches only its owner's direct room, the tricks and
scores are said in the table's room, the record replays with hearts-sim,
faults injected on the bot's sends and syncs mid-game lose and
duplicate nothing, and a game goes on to its end across a SIGKILL
mid-trick and a SIGTERM mid-pass (hands and turn as they were, a pass
sent while the bot was away taken once, nothing taken twice).
Run: /usr/bin/python3 tests/integration/test_matrix_game.py -v
"""

import asyncio
import collections
import os
import re
import signal
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
    """A person at the table, answering as harness.answer does;
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
        # five logins from 127.0.0.1 at once: Synapse's per-address limit
        # would hold the last two back for seconds
        self.hs.set_ratelimit(logins=False)

    async def open_table(self, people, rules="standard hands=1", irc=None,
                         wait=15.0):
        """Logs the four in (appended to `people`, for the caller to
        close) under their display names (DISPLAY), makes the room, starts
        the bot (self.botproc, its config self.cfg; also on the IRC
        networks `irc`, a list of [[irc]] tables) and a game with `rules`;
        returns the room."""
        for name, pw in PEOPLE:
            p = Person(self.hs, name, pw)
            people.append(p)
            await p.login()
        room = await self.public_room(people[0])
        for p in people[1:]:
            joined = await p.client.join(room)
            self.assertIsInstance(joined, nio.JoinResponse)
        self.cfg = self.config([room])
        self.cfg["game"].update(next_hand_delay=0)
        if irc:
            self.cfg["irc"] = irc
        self.botproc = self.bot(self.cfg)
        self.botproc.wait_log(r"mx: connected to")
        for p, name in zip(people, DISPLAY):
            got = await p.client.set_displayname(name)
            self.assertIsInstance(got, nio.ProfileSetDisplayNameResponse, got)
        alice = people[0]
        await alice.say(room, "!hearts " + rules)
        await alice.wait(from_bot(room, "opens a Hearts table"), wait)
        for p in people[1:]:
            await p.say(room, "!join")
        await alice.wait(from_bot(room, "The table is full"), wait)
        await alice.say(room, "!start")
        return room

    def game(self, before_play=None, timeout=55.0):
        """Opens a one-hand table with the four, plays it to the end and
        returns (room, seats). before_play(n) is awaited before alice
        plays a card, with the number she played before."""
        async def go():
            people = []
            try:
                room = await self.open_table(people)
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
        # a prompt in a direct room: the legal cards in words, each card
        # once, none marked (no brackets, no bold)
        prompts = [c for dm in dms for c in bot_events(dm)
                   if any(isinstance(harness.parse_private(x),
                                     harness.Prompt)
                          for x in c["body"].split("\n"))]
        self.assertTrue(prompts)
        self.assertTrue(all("[" not in c["body"] and
                            "<b>" not in c["formatted_body"] and
                            re.search(r"(Play one of|Only legal|Any card): ",
                                      c["body"])
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



class SynapseLimitsGameTest(FourPeopleCase):
    """The bot as an ordinary user under Synapse's default limits (the
    people exempt: only the bot's pace is under test): four people open a
    table, sit down and deal at once, so their direct rooms are made
    while the limit bites. A room creation is charged twice; a bot that
    retried it at retry_after_ms never got a deal out."""

    def setUp(self):
        super().setUp()
        self.hs.set_exempt(BOT, False)

    def test_four_people_start_and_finish_under_the_limits(self):
        async def go():
            people = []
            try:
                # under the limit the room's lines wait behind the four
                # direct rooms being made (two slots each, 5 s a slot)
                room = await self.open_table(people, wait=60.0)
                started = time.monotonic()
                seats = [Seat(p, room) for p in people]
                # every deal comes, each once, while the limits are
                # Synapse's own
                dealt = {}
                deadline = started + 120
                while len(dealt) < 4:
                    self.assertLess(time.monotonic(), deadline,
                                    "no deal for all four: %s" % dealt)
                    for s in seats:
                        await s.p.sync(timeout_ms=200)
                        deals = [x for x in lines(s.private())
                                 if isinstance(harness.parse_private(x),
                                               harness.Deal)]
                        self.assertLessEqual(len(deals), 1, deals)
                        if deals and s.p.user not in dealt:
                            dealt[s.p.user] = time.monotonic() - started
                took = max(dealt.values())
                # a server whose admin lifts the limit meanwhile (a rate
                # of 2 a second): the bot finds out by itself
                self.hs.set_ratelimit(rate=2.0, burst=10)
                deadline = time.monotonic() + 120
                await asyncio.gather(*[s.play(deadline) for s in seats])
                await asyncio.sleep(0.5)
                for p in people:
                    await p.sync(timeout_ms=0)
                return room, seats, took
            finally:
                for p in people:
                    await p.close()
        room, seats, took = self.run_async(go(), timeout=300)
        sys.stderr.write("[every deal %.1f s after !start] " % took)
        record = self.check_record(room, seats)
        hands = len(record["hands"])
        # one direct room each, made once: no livelock, nothing piled up
        counts = self.hs.counters(BOT)
        self.assertLessEqual(counts.get("create_room", 0), 4 + 2, counts)
        self.assertLessEqual(len(self.hs.half_made_rooms(BOT)), 1)
        self.assertEqual(sorted(self.hs.rooms(BOT)),
                         sorted([room] + [{m[0] for m in s.private()}.pop()
                                          for s in seats]))
        # no line twice in any room, the table's tricks each once
        for r in self.hs.rooms(BOT):
            bodies = [e["content"]["body"]
                      for e in self.hs.room_events(r, "m.room.message")
                      if e["sender"] == BOT]
            twice = [b for b, n in collections.Counter(bodies).items()
                     if n > 1]
            self.assertEqual(twice, [], r)
        table = [e["content"]["body"]
                 for e in self.hs.room_events(room, "m.room.message")
                 if e["sender"] == BOT]
        self.assertEqual(
            self.trick_counts(x for b in table for x in b.split("\n")),
            {k: hands for k in range(1, 14)}, table)
        # the pacer met the limit, then found it lifted by a probe
        self.botproc.wait_log(r"rate-limited on ")
        self.botproc.wait_log(r"no longer limits")


def who(name):
    """The person a name at the table means, whichever way the bot names
    people: '@alice:hearts.test', 'alice', 'Alice' and, for a display
    name others share, 'Ace (@alice:hearts.test)' are all 'alice'."""
    m = re.search(r"\((@\S+)\)$", name)
    return (m.group(1) if m else name).lstrip("@").split(":")[0].lower()


def by_person(named, people):
    """{name: value} as the bot wrote it -> {person: value} (see who); a
    display name others share, shown without its user ID, is the one
    person left."""
    out = {who(k): v for k, v in named.items() if who(k) in people}
    left = [k for k in named if who(k) not in people]
    rest = [p for p in people if p not in out]
    if len(left) == 1 and len(rest) == 1:
        out[rest[0]] = named[left[0]]
    return out


class RestartSeat(Seat):
    """A Seat that keeps every private line it read (event ID, line,
    parsed), what it holds as far as it was told, and answers each deal,
    prompt and moon once: a line the bot sends again after a restart
    (the deal, the prompt) is not answered twice. hold(seat, ev) true:
    ev is kept in `held` (with its room) and not answered."""

    def __init__(self, person, room):
        super().__init__(person, room)
        self.hold = None
        self.held = []          # (room, ev)
        self.lines = []         # (event_id, line, ev)
        self.hand_no = 0
        self.hand = []
        self.dealt = {}         # hand number -> cards dealt
        self.passing = {}       # hand number -> Passing (the confirmation)
        self.answered = set()

    async def act(self):
        private = self.private()
        for m in private[self.seen:]:
            for line in m[3].split("\n"):
                ev = harness.parse_private(line)
                self.lines.append((m[4]["event_id"], line, ev))
                if isinstance(ev, harness.Deal):
                    self.hand_no = ev.hand_no
                    self.dealt.setdefault(ev.hand_no, ev.cards)
                if isinstance(ev, (harness.Deal, harness.HandShown,
                                   harness.Prompt)):
                    self.hand = list(ev.cards)
                if isinstance(ev, harness.Passing):
                    self.passing.setdefault(self.hand_no, ev)
                if self.hold and self.hold(self, ev):
                    self.held.append((m[0], ev))
                    continue
                await self.answer(m[0], ev)
        self.seen = len(private)

    async def answer(self, room, ev):
        act = answer(ev)
        key = (self.hand_no, type(ev).__name__, getattr(ev, "trick_no", 0))
        if act is None or key in self.answered:
            return
        self.answered.add(key)
        if act.startswith("play"):
            self.hand.remove(act.split()[1])
        self.acted.append(act)
        await self.p.say(room, act)

    def since(self, seen):
        """The (line, ev) of messages whose event IDs are not in `seen`."""
        return [(line, ev) for eid, line, ev in self.lines if eid not in seen]

    def first(self, seen, kind):
        return next((ev for _, ev in self.since(seen)
                     if isinstance(ev, kind)), None)


def hand3_lines(seat):
    """The lines a seat got from the third hand's deal on."""
    lines = [line for _, line, _ in seat.lines]
    first = next((i for i, line in enumerate(lines)
                  if line.startswith("Hand 3 at ")), len(lines))
    return set(lines[first:])


async def until(pred, what, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError("never: " + what)
        await asyncio.sleep(0.05)


class MatrixRestartGameTest(FourPeopleCase):
    """A two-hand game on Matrix survives a SIGKILL mid-trick and a
    SIGTERM mid-pass: the hands and the turn are as they were, a command
    sent while the bot was down (a !status, a pass) is taken once, nothing
    taken before is taken again, the game finishes and its record
    replays."""

    def sent(self):
        """The event IDs of every message the bot has sent so far."""
        return {e["event_id"] for r in self.hs.rooms(BOT)
                for e in self.hs.room_events(r, "m.room.message")
                if e["sender"] == BOT}

    async def restart(self, name):
        self.botproc = await asyncio.to_thread(self.bot, self.cfg, name=name)
        await asyncio.to_thread(self.botproc.wait_log, r"mx: connected to")

    async def restarts(self, seats):
        """Kills the bot at alice's turn mid-trick in hand 1, stops it
        cleanly while bob thinks over his pass in hand 2 (and passes while
        it is away); returns what was known at each stop."""
        alice, bob = seats[0], seats[1]
        await until(lambda: alice.held, "alice's turn mid-trick")
        kill = {"sent": self.sent(), "hands": [list(s.hand) for s in seats]}
        self.botproc.signal(signal.SIGKILL)
        self.assertEqual(await asyncio.to_thread(self.botproc.wait, 10), -9)
        # said while the bot is away: answered once it is back
        await seats[2].p.say(seats[2].room, "!status")
        await self.restart("heartsbot2")
        await until(lambda: bob.held and all(
            2 in s.passing for s in seats if s is not bob),
            "bob's deal of hand 2 and the others' passes")
        term = {"sent": self.sent()}
        self.assertEqual(await asyncio.to_thread(self.botproc.stop), 0)
        dm, deal = bob.held[0]
        act = answer(deal)
        term["pass"] = act.split()[1:]
        bob.answered.add((2, "Deal", 0))
        await bob.p.say(dm, act)
        # the bot's direct map comes late: his pass, in a direct room, is
        # read as his only once the map is known
        f = self.hs.fault("/_matrix/client/v3/user/", "429", method="GET",
                          user_id=BOT, retry_after_ms=300)
        await self.restart("heartsbot3")
        await until(lambda: f.hits, "the direct map read")
        return kill, term

    def test_killed_mid_trick_and_stopped_mid_pass(self):
        async def go():
            people = []
            try:
                room = await self.open_table(people, "standard hands=2")
                seats = [RestartSeat(p, room) for p in people]
                seats[0].hold = lambda s, ev: (
                    not s.held and s.hand_no == 1
                    and isinstance(ev, harness.Prompt)
                    and ev.trick_no >= 3
                    and (bool(ev.trick) or ev.trick_no >= 12))
                seats[1].hold = lambda s, ev: (
                    not s.held and isinstance(ev, harness.Deal)
                    and ev.hand_no == 2 and ev.pass_count > 0)
                deadline = time.monotonic() + 30
                got = await asyncio.gather(
                    self.restarts(seats), *[s.play(deadline) for s in seats])
                await asyncio.sleep(0.5)
                for p in people:
                    await p.sync(timeout_ms=0)
                return room, seats, got[0]
            finally:
                for p in people:
                    await p.close()
        started = time.monotonic()
        room, seats, (kill, term) = self.run_async(go(), timeout=90)
        took = time.monotonic() - started
        self.check_restarts(room, seats, kill, term)
        sys.stderr.write("[%.1f s] " % took)

    def check_restarts(self, room, seats, kill, term):
        alice, bob = seats[0], seats[1]
        records = harness.read_records(self.data, network="mx", room=room,
                                       finished_only=False)
        self.assertEqual(len(records), 1, records)
        record = records[0]
        rc, out = harness.replay(harness.archive_path(self.data, "mx", room))
        self.assertEqual(rc, 0, out)
        self.assertIn("game 1: OK", out)
        seat_of = {who(u): i for i, u in enumerate(record["players"])}
        for s in seats:
            i = seat_of[who(s.p.user)]
            self.assertEqual({n: sorted(c) for n, c in s.dealt.items()},
                             {n + 1: sorted(h["deal"][i]) for n, h
                              in enumerate(record["hands"])}, s.p.user)
        # the kill: everyone holds what they held, alice is asked for the
        # same trick with the same cards playable
        for s, hand in zip(seats, kill["hands"]):
            shown = s.first(kill["sent"], harness.HandShown)
            self.assertIsNotNone(shown, s.p.user)
            self.assertEqual(sorted(shown.cards), sorted(hand), s.p.user)
        _, held = alice.held[0]
        again = alice.first(kill["sent"], harness.Prompt)
        self.assertEqual((again.trick_no, again.trick, sorted(again.cards),
                          again.marked),
                         (held.trick_no, held.trick, sorted(held.cards),
                          held.marked))
        # the stop: bob's deal again (unless his pass, sent while the bot
        # was away, was read first); his pass taken once, as he sent it:
        # the last to pass, he hears what came to him, once
        deal = bob.first(term["sent"], harness.Deal)
        if deal:
            self.assertEqual(sorted(deal.cards), sorted(bob.dealt[2]))
        # (a tie plays a third hand: its passing is not this one's)
        taken = [line for line, ev in bob.since(term["sent"])
                 if ("You received " in line or line.startswith("Passing "))
                 and line not in hand3_lines(bob)]
        self.assertEqual(len(taken), 1, bob.since(term["sent"]))
        i = seat_of["bob"]
        self.assertEqual(sorted(record["hands"][1]["passed"][i]),
                         sorted(term["pass"]))
        after = harness.record_holdings(record, 1)
        for s in seats[2:] + [alice]:
            i = seat_of[who(s.p.user)]
            dealt = set(s.dealt[2])
            shown = set(s.first(term["sent"], harness.HandShown).cards)
            self.assertTrue(shown == after[i] or
                            dealt - set(s.passing[2].cards) <= shown <= dealt,
                            (s.p.user, shown))
        # the table room: told of each stop and each restart once, every
        # trick once per hand, no line twice; the final scores are the
        # record's
        events = [e for e in self.hs.room_events(room, "m.room.message")
                  if e["sender"] == BOT]
        table = [x for e in events for x in e["content"]["body"].split("\n")]
        later = [x for e in events if e["event_id"] not in kill["sent"]
                 for x in e["content"]["body"].split("\n")]
        # carol's !status, sent while the bot was dead, answered once;
        # the commands read before (!hearts, !join, !start) not again
        self.assertEqual(len([x for x in later
                              if x.startswith("Table at ")]), 1, later)
        self.assertEqual(len([x for x in table
                              if x.startswith("Table at ")]), 1, table)
        self.assertEqual([x for x in later if re.search(
            r"opens a Hearts table|sits down|is full|The game begins", x)],
            [])
        twice = [x for x, n in collections.Counter(table).items() if n > 1]
        self.assertEqual(twice, [])
        hands = len(record["hands"])
        self.assertEqual(self.trick_counts(table),
                         {k: hands for k in range(1, 14)}, table)
        goes_on = [x for x in table if "goes on after a restart" in x]
        self.assertEqual(len(goes_on), 2, table)
        self.assertRegex(goes_on[0], r"hand 1, (@?alice|Alice)\S* to play")
        self.assertRegex(goes_on[1], r"waiting for the passes of "
                                     r"(@?bob|Bob)\S*\.$")
        self.assertEqual(len([x for x in table if "shutting down" in x]), 1)
        over = [x for x in table if x.startswith("Game over!")]
        self.assertEqual(len(over), 1, table)
        want = {who(u): t for u, t in zip(record["players"],
                                          record["totals"])}
        self.assertEqual(by_person(harness.parse_final(over[0]), want), want,
                         over[0])
        # each person got every table message once, by event ID
        for s in seats:
            self.assertEqual([m[4]["event_id"]
                              for m in from_bot(room)(s.p.messages)],
                             [e["event_id"] for e in events], s.p.user)
        # private lines: one direct room each, the one the bot's m.direct
        # names (the four were recorded at once: none of them lost, so no
        # new room after a restart); nothing twice but what a restart
        # sends again, nothing refused (a command read twice would be)
        direct = self.hs.account_data(BOT, "m.direct")
        for s in seats:
            dm = {m[0] for m in s.private()}
            self.assertEqual([direct.get(s.p.client.user_id)], [list(dm)],
                             direct)
            mine = [x for e in self.hs.room_events(dm.pop(), "m.room.message")
                    if e["sender"] == BOT
                    for x in e["content"]["body"].split("\n")]
            again = (harness.Deal, harness.HandShown, harness.Prompt)
            twice = [x for x, n in collections.Counter(mine).items()
                     if n > 1 and not isinstance(harness.parse_private(x),
                                                 again)]
            self.assertEqual(twice, [], s.p.user)
            said = [x for x in mine
                    if isinstance(harness.parse_private(x), harness.Said)]
            self.assertEqual(said, [], s.p.user)


class IrcAndMatrixGameTest(FourPeopleCase):
    """One bot process on ngIRCd and the test homeserver: four IRC people
    (harness clients) at #cards and four matrix-nio people in a Matrix
    room play a one-hand game each, both at once, both to the end."""

    IRC = ("ivy", "joe", "kim", "lou")

    def irc_table(self, server):
        """The four at #cards, a table opened and started; returns
        (clients, the mark before !start)."""
        clients = [self.client(server, n) for n in self.IRC]
        for c in clients:
            c.join("#cards")
        start, _ = harness.start_table(clients, "standard hands=1",
                                       channel="#cards")
        return clients, start

    def test_a_game_on_each_network_at_once(self):
        server = self.ngircd()
        irc = harness.bot_config(
            server.port, self.data, channels=("#cards",),
            irc={"flood_burst": 100, "flood_interval_ms": 100})["irc"]

        async def go():
            people = []
            try:
                room = await self.open_table(people, irc=irc)
                # both games begun before anyone plays: they run at once
                clients, start = self.irc_table(server)
                players = [harness.Player(c, channel="#cards")
                           for c in clients]
                seats = [Seat(p, room) for p in people]
                deadline = time.monotonic() + 60
                irc_over = asyncio.to_thread(
                    harness.play_game, players,
                    lambda: clients[0].find(r"Game over!", frm="heartsbot",
                                            to="#cards", since=start),
                    timeout=60)
                got = await asyncio.gather(
                    irc_over, *[s.play(deadline) for s in seats])
                await asyncio.sleep(0.5)
                for p in people:
                    await p.sync(timeout_ms=0)
                return room, seats, clients, got[0]
            finally:
                for p in people:
                    await p.close()
        started = time.monotonic()
        room, seats, clients, over = self.run_async(go(), timeout=90)
        took = time.monotonic() - started
        self.botproc.wait_log(r"game record written", timeout=10)
        # Matrix: the record replays, the deals are the people's; alice
        # is named by her display name in the room, not her user ID
        mx = self.check_record(room, seats)
        opened = from_bot(room, "opens a Hearts table")(seats[0].p.messages)
        self.assertTrue(opened[0][3].startswith("Alice opens"), opened)
        # IRC: the record replays, its totals are the channel's
        records = harness.read_records(self.data, network="local",
                                       room="#cards")
        self.assertEqual(len(records), 1, records)
        record = records[0]
        self.assertEqual(sorted(record["players"]), sorted(self.IRC))
        rc, out = harness.replay(harness.archive_path(self.data, "local",
                                                      "#cards"))
        self.assertEqual(rc, 0, out)
        self.assertIn("game 1: OK", out)
        self.assertEqual(harness.parse_final(over.text),
                         dict(zip(record["players"], record["totals"])))
        # each table's lines where they belong: every trick of each game
        # once in its own room, naming only its own people; no line of one
        # network's table on the other
        mx_names = {who(u) for u in mx["players"]}
        irc_lines = [m.text for c in clients
                     for m in c.privmsgs_from("heartsbot")]
        mx_lines = [x for s in seats for x in lines(from_bot()(s.p.messages))]
        for mine, other in ((irc_lines, mx_names | {room}),
                            (mx_lines, set(self.IRC) | {"#cards"})):
            self.assertTrue(mine)
            for x in mine:
                self.assertEqual([n for n in other if re.search(
                    r"(?<!\w)%s\b" % re.escape(n), x, re.I)], [], x)
        for texts, record, names in (
                ([m.text for m in clients[0].privmsgs_from(
                    "heartsbot", to="#cards")], record, set(self.IRC)),
                (lines(from_bot(room)(seats[0].p.messages)), mx, mx_names)):
            tricks = [harness.parse_trick_line(x) for x in texts]
            tricks = [t for t in tricks if t]
            # (a tie after the one hand deals another)
            self.assertEqual([t[0] for t in tricks],
                             list(range(1, 14)) * len(record["hands"]))
            self.assertEqual({who(n) for t in tricks for n, _ in t[1]},
                             names)
            self.assertEqual([c for t in tricks for _, c in t[1]],
                             [c for h in record["hands"] for c in h["plays"]])
        sys.stderr.write("[%.1f s] " % took)

class FourPeopleGameAppserviceTest(FourPeopleGameTest):
    """The whole game, the bot the homeserver's application service."""
    APPSERVICE = True


class MatrixRestartGameAppserviceTest(MatrixRestartGameTest):
    """SIGKILL and SIGTERM mid-game, the bot the homeserver's application
    service: what was said while it was away comes in the homeserver's
    retried transactions."""
    APPSERVICE = True


class IrcAndMatrixGameAppserviceTest(IrcAndMatrixGameTest):
    """A game on IRC and one on Matrix at once, the bot the homeserver's
    application service."""
    APPSERVICE = True


if __name__ == "__main__":
    harness.main()

"""!notify on Matrix: the real bot against the strict test homeserver
(tests/matrix/homeserver.py) with matrix-nio clients as the people. bob
asked to be called, carol did not: when alice opens a table, the bot's
line in the room is a real mention of bob (a matrix.to pill in the
formatted body and his user ID in m.mentions), and of nobody else.
Run: /usr/bin/python3 tests/integration/test_matrix_notify.py -v
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from test_matrix_bot import BOT, MatrixCase, Person, from_bot, nio  # noqa


class MatrixNotifyTest(MatrixCase):

    def setUp(self):
        super().setUp()
        self.hs.set_exempt(BOT)

    def test_the_call_is_a_real_mention(self):
        async def go():
            a = await self.person()
            room = await self.public_room(a)
            people = []
            try:
                for name in ("bob", "carol"):
                    self.hs.register(name, "pw", name.capitalize())
                    q = Person(self.hs, name, "pw")
                    await q.login()
                    self.assertIsInstance(await q.client.join(room),
                                          nio.JoinResponse)
                    people.append(q)
                bob, carol = people
                self.start_bot([room])
                await bob.say(room, "!notify on")
                await bob.wait(lambda m: [
                    x for x in from_bot()(m)
                    if x[0] != room and "From now on I call you" in x[3]])
                await carol.say(room, "!notify")
                await carol.wait(lambda m: [
                    x for x in from_bot()(m)
                    if x[0] != room and "I do not call you" in x[3]])
                await a.say(room, "!hearts")
                got = await carol.wait(from_bot(room,
                                                "you asked to be called"))
                self.assertEqual(len(got), 1, got)
                content = got[0][4]["content"]
                bob_id = "@bob:hearts.test"
                self.assertIn('<a href="https://matrix.to/#/%s">' % bob_id,
                              content["formatted_body"])
                self.assertEqual(content["m.mentions"],
                                 {"user_ids": [bob_id]})
                # a notice would be muted by .m.rule.suppress_notices
                self.assertEqual(content["msgtype"], "m.text")
                self.assertIn(bob_id, content["body"])
                self.assertNotIn("carol", content["body"])
                self.assertNotIn("carol", content["formatted_body"])
            finally:
                await a.close()
                for q in people:
                    await q.close()
        self.run_async(go())

    def test_after_a_restart_a_silent_member_is_called(self):
        """bob asks, the bot restarts, bob says nothing more: the bot
        knows him present from the room's joined members, which it asks
        for when the room's first message after the start comes."""
        async def go():
            a = await self.person()
            room = await self.public_room(a)
            self.hs.register("bob", "pw", "Bob")
            bob = Person(self.hs, "bob", "pw")
            try:
                await bob.login()
                self.assertIsInstance(await bob.client.join(room),
                                      nio.JoinResponse)
                bot = self.start_bot([room])
                await bob.say(room, "!notify on")
                await bob.wait(lambda m: [
                    x for x in from_bot()(m)
                    if x[0] != room and "From now on I call you" in x[3]])
                bot.stop()
                self.start_bot([room])
                await a.say(room, "!hearts")
                got = await a.wait(from_bot(room, "you asked to be called"))
                content = got[0][4]["content"]
                self.assertEqual(content["m.mentions"],
                                 {"user_ids": ["@bob:hearts.test"]})
            finally:
                await a.close()
                await bob.close()
        self.run_async(go())


if __name__ == "__main__":
    harness.main()

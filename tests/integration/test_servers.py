"""The servers the integration tests run the bot against, tested without
the bot: ngIRCd carries messages between clients, stops and starts again
on its port, takes 110 clients from one address, and throttles (or, when
asked, does not throttle) a burst; the strict InspIRCd kills a client that
sends 30 lines at once ("Excess Flood") and not one that sends a line a
second. Run: /usr/bin/python3 tests/integration/test_servers.py -v
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, irc_eq  # noqa: E402


class NgircdTest(HarnessTestCase):

    def test_clients_see_each_others_messages(self):
        server = self.ngircd()
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        alice.join("#hearts")
        bob.join("#hearts")
        self.assertEqual(alice.names("#hearts"), {"alice", "bob"})
        bob.wait_member("alice", "#hearts")
        alice.wait_join("bob", "#hearts")

        alice.say("#hearts", "\x02hello\x02 \x0304,01red\x03 everyone")
        m = bob.wait_privmsg("alice", r"hello", to="#hearts")
        self.assertEqual(m.text, "hello red everyone")
        self.assertIn("\x0304,01red", m.raw_text)
        self.assertEqual(m.command, "PRIVMSG")

        mark = alice.mark()
        bob.say("alice", "psst")
        m = alice.wait_privmsg("bob", r"^psst$", to="alice", since=mark)
        self.assertTrue(irc_eq(m.target, alice.nick()))
        self.assertEqual([x.text for x in alice.privmsgs_from("bob")],
                         ["psst"])

        mark = bob.mark()
        alice.nick("alice2")
        self.assertEqual(alice.nick(), "alice2")
        bob.wait_for(command="NICK", frm="alice", since=mark)
        alice.part("#hearts", "later")
        bob.wait_for(command="PART", frm="alice2", to="#hearts", since=mark)
        alice.join("#hearts")
        alice.quit("done")
        self.assertTrue(alice.closed)
        bob.wait_for(command="QUIT", frm="alice2", since=mark)

    def test_stop_and_start_on_the_same_port(self):
        server = self.ngircd()
        port = server.port
        alice = self.client(server, "alice")
        alice.join("#hearts")

        self.assertEqual(server.stop(), 0)
        self.assertTrue(alice.wait_closed(10), "client did not see the stop")
        self.assertFalse(harness.port_accepts(port))

        server.start()
        self.assertEqual(server.port, port)
        again = self.client(server, "alice")
        again.join("#hearts")
        self.assertEqual(again.names("#hearts"), {"alice"})

        # An abrupt death (no ERROR to the clients) is noticed too.
        server.kill()
        self.assertTrue(again.wait_closed(10))
        server.start()
        self.assertEqual(server.port, port)
        self.client(server, "bob").join("#hearts")

    def test_takes_110_clients_from_one_address(self):
        server = self.ngircd()
        clients = [self.client(server, "p%03d" % i) for i in range(110)]
        for c in clients:
            c.join("#crowd", wait=False)
        for c in clients:
            c.wait_for(command="366", to=c.nick())
        self.assertEqual(len(clients[0].names("#crowd")), 110)

    def _burst(self, strict):
        server = self.ngircd(strict=strict)
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        alice.join("#t")
        bob.join("#t")
        mark = bob.mark()
        alice.send_lines(["PRIVMSG #t :line %02d" % i for i in range(30)])
        bob.wait_privmsg("alice", r"line 29", timeout=60, since=mark)
        got = bob.privmsgs_from("alice", "#t", since=mark)
        self.assertEqual([m.text for m in got],
                         ["line %02d" % i for i in range(30)])
        self.assertFalse(alice.closed)
        return got[-1].time - got[0].time

    def test_default_throttling_delays_a_burst(self):
        # ngIRCd handles 3 commands, then holds the rest for a second: 30
        # lines cannot take less than 9 s to come through. Nothing is lost.
        self.assertGreaterEqual(self._burst(strict=True), 5.0)

    def test_throttling_off_lets_a_burst_through(self):
        # MaxPenaltyTime = 0: the same burst is not held back (the 5 s
        # the throttled burst needs at least, with room for a slow machine).
        self.assertLess(self._burst(strict=False), 3.0)


class InspircdTest(HarnessTestCase):

    def test_burst_of_30_lines_is_killed_for_excess_flood(self):
        server = self.inspircd(strict=True)
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        alice.join("#t")
        bob.join("#t")
        mark = bob.mark()
        alice.send_lines(["PRIVMSG #t :flood %02d" % i for i in range(30)])

        self.assertTrue(alice.wait_closed(10), "flooder was not disconnected")
        alice.wait_for(command="ERROR", match=r"Excess Flood")
        bob.wait_for(command="QUIT", frm="alice", match=r"Excess Flood",
                     since=mark)
        delivered = bob.privmsgs_from("alice", "#t", since=mark)
        self.assertLess(len(delivered), 30)
        self.assertLessEqual(len(delivered), server.threshold)

    def test_a_line_a_second_is_not_killed(self):
        server = self.inspircd(strict=True)
        count = 15
        self.assertGreater(count, server.threshold,
                           "must be more lines than a burst may hold")
        carol = self.client(server, "carol")
        bob = self.client(server, "bob")
        carol.join("#t")
        bob.join("#t")
        time.sleep(2)      # let the penalty of registering drain
        mark = bob.mark()
        for i in range(count):
            carol.say("#t", "paced %02d" % i)
            time.sleep(1.0)
        bob.wait_privmsg("carol", r"paced %02d" % (count - 1), since=mark)
        self.assertFalse(carol.closed)
        self.assertEqual(len(bob.privmsgs_from("carol", "#t", since=mark)),
                         count)
        self.assertEqual(bob.messages(mark, "QUIT"), [])

    def test_fakelag_delays_instead_of_killing(self):
        server = self.inspircd(strict=False)
        alice = self.client(server, "alice")
        bob = self.client(server, "bob")
        alice.join("#t")
        bob.join("#t")
        mark = bob.mark()
        alice.send_lines(["PRIVMSG #t :lag %02d" % i for i in range(15)])
        bob.wait_privmsg("alice", r"lag 14", timeout=60, since=mark)
        self.assertFalse(alice.closed)


if __name__ == "__main__":
    harness.main()

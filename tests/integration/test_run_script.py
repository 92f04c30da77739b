"""The README's run command, scripts/run.sh, as a person at a terminal runs
it: in a process group of its own (a shell's job), started on a free port
(PORT=N) with the built bot (HEARTSBOT_BIN: no install, no build) and its
game data in a state directory of the test's (XDG_STATE_HOME).

- Ctrl-C with the output in a pipe: the terminal sends SIGINT to the whole
  job, so `run.sh | tee log` loses its reader at the same moment; or the
  reader went away before (`run.sh | head`). Either way run.sh exits 130
  and leaves nothing: no temporary directory, no ngIRCd or bot process,
  the port free. (It used to die of SIGPIPE writing "stopping the bot",
  or, with SIGPIPE ignored, to end its cleanup there under `set -e`,
  leaving its temporary directory behind: always when the reader was
  gone before, now and then when tee and run.sh got the same SIGINT.)
- A game stopped by Ctrl-C goes on at the next run: the channel is told
  so before the server goes, the game's journal stays in the state
  directory, and at the next run (another port) the person who comes
  back gets the same cards.
- HEARTSBOT_DATA=DIR: the data go to DIR, the state directory is not
  made.
Only loopback; nothing is installed or built.
Run: /usr/bin/python3 tests/integration/test_run_script.py -v
"""

import os
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

RUN = os.path.join(harness.REPO, "scripts", "run.sh")
READY = b"Ctrl-C stops the bot and the server"
DEAL = r"^Hand 1 at #hearts\. Your cards: "


def dealt(msg):
    """The cards of the bot's deal line, sorted."""
    return sorted(harness.parse_private(
        harness.marked_text(msg.raw_text)).cards)


def process_groups():
    """{pid: process group} of every process now."""
    groups = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                groups[int(name)] = int(f.read().rsplit(")", 1)[1].split()[2])
        except (OSError, IndexError, ValueError):
            pass
    return groups


def processes_naming(text, pids=None):
    """The command lines of the processes (of pids, else all) whose
    command line holds text."""
    found = []
    for name in (map(str, pids) if pids is not None else os.listdir("/proc")):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().decode(errors="replace").replace("\0", " ")
        except OSError:
            continue
        if text in argv:
            found.append("%s: %s" % (name, argv))
    return found


class Run:
    """One scripts/run.sh, its output into a pipe, in a process group of
    its own; with tee=True a `tee` in that group reads the pipe (as in
    `run.sh | tee log` at a terminal), else the test does."""

    def __init__(self, test, port, tee, env=None):
        self.test = test
        self.port = port
        env_ = dict(os.environ)
        env_.pop("HEARTSBOT_DATA", None)
        env_.update(PORT=str(port), TMPDIR=test.tmp,
                    XDG_STATE_HOME=test.state, HEARTSBOT_BIN=test.binary)
        env_.update(env or {})
        self.err_path = os.path.join(test.tmpdir, "run-%d.err" % port)
        r, w = os.pipe()
        with open(self.err_path, "ab") as err:
            # SIGTERM when the test dies: run.sh cleans up then too
            self.proc = subprocess.Popen(
                [RUN], stdin=subprocess.DEVNULL, stdout=w, stderr=err,
                env=env_, process_group=0,
                preexec_fn=harness._child_setup(signal.SIGTERM))
        self.group = self.proc.pid
        self.tee = None
        if tee:
            self.tee = subprocess.Popen(
                ["tee", os.path.join(test.tmpdir, "tee-%d.log" % port)],
                stdin=r, stdout=subprocess.PIPE, process_group=self.group)
            os.close(r)
            self.out = self.tee.stdout.fileno()
        else:
            self.out = r
        os.close(w)
        self.text = b""
        test.addCleanup(self.kill)

    def wait_ready(self, timeout=60):
        """Reads the output until run.sh says how to connect."""
        deadline = time.monotonic() + timeout
        while READY not in self.text:
            left = deadline - time.monotonic()
            self.test.assertGreater(left, 0, "run.sh never got ready: "
                                    + self.log())
            ready, _, _ = select.select([self.out], [], [], left)
            if ready:
                chunk = os.read(self.out, 4096)
                self.test.assertTrue(chunk, "run.sh closed its output: "
                                     + self.log())
                self.text += chunk

    def close_reader(self):
        """The test, the reader of the pipe, goes away."""
        assert self.tee is None
        os.close(self.out)
        self.out = None

    def ctrl_c(self, timeout=30):
        """SIGINT to the whole group, as a terminal's Ctrl-C; run.sh's
        exit status (tee's is in self.tee_status)."""
        os.killpg(self.group, signal.SIGINT)
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.test.fail("run.sh still running %d s after Ctrl-C: %s"
                           % (timeout, self.log()))
        if self.tee is not None:
            self.tee_status = self.tee.wait(5)
        return status

    def log(self):
        with open(self.err_path, errors="replace") as f:
            return "\n--- run.sh's stderr:\n" + f.read()[-3000:]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.tee is not None and self.tee.poll() is None:
            self.tee.kill()
            self.tee.wait()
        if self.tee is not None:
            self.tee.stdout.close()
        elif self.out is not None:
            os.close(self.out)
        self.out = None


class RunScriptTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        if not harness.Ngircd.available():
            self.skipTest("ngircd is not installed")
        self.binary = harness.bot_binary()
        if self.binary is None:
            self.skipTest("no bot binary (set HEARTSBOT or build "
                          "build/heartsbot)")
        self.tmp = os.path.join(self.tmpdir, "tmp")
        self.state = os.path.join(self.tmpdir, "state")
        os.mkdir(self.tmp)

    def run_script(self, tee=True, not_port=None, env=None):
        port = harness.free_port()
        while port == not_port:
            port = harness.free_port()
        run = Run(self, port, tee, env)
        run.wait_ready()
        self.assertTrue(harness.port_accepts(run.port))
        return run

    def assert_nothing_left(self, run):
        self.assertEqual(os.listdir(self.tmp), [], run.log())
        left = [pid for pid, group in process_groups().items()
                if group == run.group]
        self.assertEqual(processes_naming("", left), [],
                         "processes left in run.sh's group")
        # ngIRCd runs in a session of its own; the bot's and its
        # command lines name their files in the temporary directory
        self.assertEqual(processes_naming(self.tmp), [])
        self.assertFalse(harness.port_accepts(run.port),
                         "port %d still open" % run.port)

    def test_ctrl_c_cleans_up_when_the_output_goes_into_a_pipe(self):
        for tee in (True, False):
            with self.subTest("tee, killed by the same Ctrl-C" if tee else
                              "the reader gone before Ctrl-C"):
                run = self.run_script(tee=tee)
                self.assertIn(b"heartsbot-demo (kept across runs", run.text)
                if not tee:
                    run.close_reader()
                self.assertEqual(run.ctrl_c(), 130, run.log())
                if tee:
                    self.assertEqual(run.tee_status, -signal.SIGINT)
                self.assert_nothing_left(run)

    def test_a_game_stopped_by_ctrl_c_goes_on_at_the_next_run(self):
        run = self.run_script()
        alice = self.client(run.port, "alice", user="alice")
        alice.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        alice.say("#hearts", "!hearts")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        alice.say("#hearts", "!start")
        deal = alice.wait_privmsg("heartsbot", DEAL, timeout=30)
        cards = dealt(deal)
        self.assertEqual(len(cards), 13, deal.text)
        mark = alice.mark()
        self.assertEqual(run.ctrl_c(), 130, run.log())
        # said before the server went away
        alice.wait_privmsg("heartsbot", r"this game goes on when it is back",
                           to="#hearts", since=mark)
        alice.wait_closed(10)
        self.assert_nothing_left(run)
        data = os.path.join(self.state, "heartsbot-demo")
        journals = [f for _, _, files in os.walk(data) for f in files
                    if f.startswith("journal-")]
        self.assertEqual(len(journals), 1, data)

        again = self.run_script(not_port=run.port)
        alice = self.client(again.port, "alice", user="alice")
        alice.join("#hearts")
        deal = alice.wait_privmsg("heartsbot", DEAL, timeout=30)
        self.assertEqual(dealt(deal), cards)
        self.assertEqual(again.ctrl_c(), 130, again.log())
        self.assert_nothing_left(again)

    def test_heartsbot_data_names_the_data_directory(self):
        mine = os.path.join(self.tmpdir, "mine")
        run = self.run_script(env={"HEARTSBOT_DATA": mine})
        self.assertIn(("Game data:  %s (HEARTSBOT_DATA" % mine).encode(),
                      run.text)
        self.assertIn("lock", os.listdir(mine))
        self.assertFalse(os.path.exists(self.state))
        self.assertEqual(run.ctrl_c(), 130, run.log())
        self.assert_nothing_left(run)


if __name__ == "__main__":
    harness.main()

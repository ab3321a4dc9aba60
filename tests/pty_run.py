#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs a command on a pseudo-terminal and plays a script of keys.

Usage: pty_run.py LOG SCRIPT -- COMMAND [ARGS...]
SCRIPT is a list of steps separated by commas:
  k:TEXT   wait for the output to end in '? ' (a question), send TEXT
           (\\x03 is Ctrl-C, \\x04 Ctrl-D; no Enter is added)
  int      wait for a question, then send SIGINT to the command
  eof      wait for a question, then close the terminal's input side
The whole output goes to LOG; the exit status is the command's, or 124
when it did not finish within 60 seconds.
"""
import os
import pty
import select
import signal
import sys
import time


def wait_question(fd, out, deadline):
    """Reads until the output ends in '? ' (waiting for an answer)."""
    while time.time() < deadline:
        if out.rstrip(b' ').endswith(b'?') and out.endswith(b' '):
            return True
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            out += data
            wait_question.buf = out
    return False


def drain(fd):
    """What the command wrote before it ended and was not read yet."""
    data = b''
    while select.select([fd], [], [], 0.2)[0]:
        try:
            more = os.read(fd, 4096)
        except OSError:
            break
        if not more:
            break
        data += more
    return data


def main():
    log, script = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index('--') + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    deadline = time.time() + 60
    out = b''
    for step in [s for s in script.split(',') if s]:
        wait_question.buf = out
        if not wait_question(fd, out, deadline):
            out = wait_question.buf
            break
        out = wait_question.buf
        if step.startswith('k:'):
            keys = step[2:].encode().decode('unicode_escape').encode()
            os.write(fd, keys)
        elif step == 'int':
            os.kill(pid, signal.SIGINT)
        elif step == 'eof':
            os.write(fd, b'\x04')
        out += b'\n'  # a marker: the next question comes after this
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
        wpid, status = os.waitpid(pid, os.WNOHANG)
        if wpid:
            out += drain(fd)
            break
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        status = 124 << 8
    try:
        wpid, status = os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    with open(log, 'wb') as f:
        f.write(out.replace(b'\r\n', b'\n'))
    sys.exit(os.waitstatus_to_exitcode(status) if status != 124 << 8
             else 124)


main()

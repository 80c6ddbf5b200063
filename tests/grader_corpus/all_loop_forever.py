"""Every exercise hangs and swallows the alarm: the submission's own time limit ends
it (each check is killed after its limit, and the next one starts in a new worker)."""

import signal


def _hang():
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass


def f(*args, **kwargs):
    _hang()


def grad_f(*args, **kwargs):
    _hang()


def gradient_descent(*args, **kwargs):
    _hang()


def momentum_descent(*args, **kwargs):
    _hang()

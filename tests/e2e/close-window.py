#!/usr/bin/python3
"""Closes an X11 window the way a window manager's close button does.

Usage: close-window.py PID [TITLE_PREFIX]

Finds the top-level windows of process PID (by _NET_WM_PID; when TITLE_PREFIX is given, only
those whose WM_NAME starts with it) on $DISPLAY and sends each a WM_DELETE_WINDOW client
message (ICCCM 4.2.8.1), which the toolkit turns into its close request: Tauri's
`CloseRequested`. Under Xvfb there is no window manager to do it, and WebDriver's "close
window" destroys the webview without that request. Exits 0 when it sent at least one message,
1 when no window matched. Uses libX11 through ctypes (no Python package needed).
"""

import ctypes
import ctypes.util
import sys

X = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")

Window = ctypes.c_ulong
Atom = ctypes.c_ulong


class ClientMessageData(ctypes.Union):
    _fields_ = [("l", ctypes.c_long * 5)]


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", Window),
        ("message_type", Atom),
        ("format", ctypes.c_int),
        ("data", ClientMessageData),
    ]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


CLIENT_MESSAGE = 33
NO_EVENT_MASK = 0

X.XOpenDisplay.restype = ctypes.c_void_p
X.XOpenDisplay.argtypes = [ctypes.c_char_p]
X.XDefaultRootWindow.restype = Window
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XInternAtom.restype = Atom
X.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
X.XQueryTree.argtypes = [
    ctypes.c_void_p,
    Window,
    ctypes.POINTER(Window),
    ctypes.POINTER(Window),
    ctypes.POINTER(ctypes.POINTER(Window)),
    ctypes.POINTER(ctypes.c_uint),
]
X.XGetWindowProperty.argtypes = [
    ctypes.c_void_p,
    Window,
    Atom,
    ctypes.c_long,
    ctypes.c_long,
    ctypes.c_int,
    Atom,
    ctypes.POINTER(Atom),
    ctypes.POINTER(ctypes.c_int),
    ctypes.POINTER(ctypes.c_ulong),
    ctypes.POINTER(ctypes.c_ulong),
    ctypes.POINTER(ctypes.c_void_p),
]
X.XSendEvent.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
X.XFree.argtypes = [ctypes.c_void_p]
X.XFlush.argtypes = [ctypes.c_void_p]
X.XCloseDisplay.argtypes = [ctypes.c_void_p]


def prop(display, window, atom, kind):
    """The property's bytes (format 8) or first item (format 32), or None."""
    actual, fmt = Atom(), ctypes.c_int()
    count, after, data = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.c_void_p()
    status = X.XGetWindowProperty(
        display, window, atom, 0, 1024, 0, kind,
        ctypes.byref(actual), ctypes.byref(fmt), ctypes.byref(count), ctypes.byref(after), ctypes.byref(data),
    )
    if status != 0 or not data.value or count.value == 0:
        if data.value:
            X.XFree(data)
        return None
    try:
        if fmt.value == 32:
            return ctypes.cast(data, ctypes.POINTER(ctypes.c_long))[0]
        return ctypes.string_at(data, count.value)
    finally:
        X.XFree(data)


def children(display, window):
    root, parent = Window(), Window()
    kids, n = ctypes.POINTER(Window)(), ctypes.c_uint()
    if not X.XQueryTree(display, window, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
        return []
    found = [kids[i] for i in range(n.value)]
    if kids:
        X.XFree(kids)
    return found


def main() -> int:
    pid = int(sys.argv[1])
    prefix = sys.argv[2].encode() if len(sys.argv) > 2 else None
    display = X.XOpenDisplay(None)
    if not display:
        print("close-window: cannot open $DISPLAY", file=sys.stderr)
        return 2
    net_wm_pid = X.XInternAtom(display, b"_NET_WM_PID", 0)
    wm_protocols = X.XInternAtom(display, b"WM_PROTOCOLS", 0)
    wm_delete = X.XInternAtom(display, b"WM_DELETE_WINDOW", 0)
    xa_cardinal, any_type = 6, 0
    sent = 0
    for window in children(display, X.XDefaultRootWindow(display)):
        if prop(display, window, net_wm_pid, xa_cardinal) != pid:
            continue
        if prefix is not None:
            name = prop(display, window, 39, any_type) or b""  # WM_NAME
            if not name.startswith(prefix):
                continue
        event = XEvent()
        event.xclient.type = CLIENT_MESSAGE
        event.xclient.window = window
        event.xclient.message_type = wm_protocols
        event.xclient.format = 32
        event.xclient.data.l[0] = wm_delete
        event.xclient.data.l[1] = 0  # CurrentTime
        X.XSendEvent(display, window, 0, NO_EVENT_MASK, ctypes.byref(event))
        sent += 1
    X.XFlush(display)
    X.XCloseDisplay(display)
    return 0 if sent else 1


if __name__ == "__main__":
    sys.exit(main())
